"""The independent checker of U06 (``xaip abstract-explain``).

What it shares with the search, and why that is acceptable: the PDDL reader and writer, the
projection operator :func:`xaip.abstraction.projection.project` (its output is re-checked
here: written as PDDL, read back and checked as a model, and the hidden predicates must not
occur in it) and the lifted validator :func:`xaip.planning.plans.validate`, which shares
nothing with grounding or search. It does *not* share the search's pruning (relevant
predicates), its per-foil caches or its fragment code. It checks every claim:

* **the suggested foil** (when the person named none): a plan of her model ``f_P(M)``;
* **the abstraction**: ``f_{still hidden}(M)`` written as PDDL reads back as a valid model
  without any still-hidden predicate, and the robot's plan is valid in the robot's model and
  in it, with the claimed cost (a projection is a complete abstraction);
* **no robot plan** (when none is given): no reachable state of a fresh grounding satisfies
  the goal (breadth-first search);
* **each foil**: replayed in that abstraction, it fails at the claimed step with the claimed
  unmet literals (or at the goal), or it is valid and costs at least the robot's plan; the
  made-concrete predicates named are those its unmet literals mention, and each "false
  since step k" is re-read from the replay's states; an *unrefutable* foil is valid in the
  robot's model itself and cheaper than its plan;
* **the fewest**: every set of hidden predicates smaller than the answer, and every set of
  its size that comes before it in hide order, leaves some refutable foil valid (and
  cheaper) -- each set projected and validated afresh, no pruning (so it costs more than
  the search when few predicates are relevant).

It runs under a fresh copy of the user's budget (one node per validation) and raises
:class:`~xaip.errors.BudgetExhausted` when it runs out (:func:`xaip.contract.run_checker`).
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Sequence

from xaip.abstraction.projection import project
from xaip.abstraction.results import (
    COST,
    GOAL,
    PRECONDITION,
    UNREFUTABLE,
    AbstractionResult,
    Refutation,
)
from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted
from xaip.planning.grounding import ground
from xaip.planning.pddl import check_problem, parse_domain, parse_problem
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.planning.pddl.visitor import walk
from xaip.planning.pddl.writer import condition_text, write_domain, write_problem
from xaip.planning.plans import PlanStep, ValidationResult, parse_plan, validate
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock

_NAME = re.compile(r"\(\s*([^\s()]+)")


class _Failed(Exception):
    """A claim the checker could not confirm."""


def check(domain: Domain, problem: Problem, foils: Sequence[tuple[str, Sequence[PlanStep]]],
          plan: Sequence[PlanStep] | None, result: AbstractionResult,
          budget: Budget | None = None) -> CheckReport:
    """Confirm ``result`` for ``foils`` (name, steps) and the robot's ``plan`` as given
    (``None``: the search planned it; then ``result.plan`` is checked)."""
    clock = (budget or Budget()).start()
    if result.status == Status.BUDGET_EXHAUSTED and not result.refutations:
        return CheckReport(True, "nothing to check: the budget ran out before any answer")
    try:
        return _Checker(domain, problem, foils, result, clock).run(plan)
    except _Failed as failure:
        return CheckReport(False, str(failure))


class _Checker:
    def __init__(self, domain: Domain, problem: Problem,
                 foils: Sequence[tuple[str, Sequence[PlanStep]]], result: AbstractionResult,
                 clock: BudgetClock) -> None:
        self.domain, self.problem, self.foils = domain, problem, list(foils)
        self.result, self.clock = result, clock

    def validate(self, model: tuple[Domain, Problem], steps: Sequence[PlanStep],
                 trace: bool = False) -> ValidationResult:
        if not self.clock.charge():
            raise BudgetExhausted("checker validations")
        return validate(*model, steps, keep_trace=trace)

    def run(self, plan: Sequence[PlanStep] | None) -> CheckReport:
        r = self.result
        if not set(r.concretise) <= set(r.hidden):
            raise _Failed("the answer makes concrete a predicate that was not hidden")
        if len(r.refutations) != len(self.foils):
            raise _Failed(f"{len(r.refutations)} refutations for {len(self.foils)} foils")
        model = self._abstraction(r.still_hidden)
        self._robot_plan(plan, model)
        if r.suggested_plan is not None:
            self._suggested()
        for (_name, steps), refutation in zip(self.foils, r.refutations, strict=True):
            self._foil(model, steps, refutation)
        lost = any(not x.refuted for x in r.refutations)
        if r.minimum and r.status != (Status.NO_EXPLANATION if lost else Status.FOUND):
            raise _Failed(f"status {r.status} with {'some' if lost else 'no'} unrefutable foil")
        checked = self._fewest() if r.minimum else 0
        what = ("nothing smaller to check" if r.minimum and not checked else
                f"{checked} smaller or earlier set{'s' if checked != 1 else ''} checked, none "
                "refutes every foil" if r.minimum else "not claimed to be the fewest")
        robot = ("robot's plan valid in it" if r.plan is not None else
                 "no plan of the task confirmed")
        foils = f"{len(self.foils)} foil{'s' if len(self.foils) != 1 else ''}"
        return CheckReport(True, f"abstraction re-read as PDDL; {robot}; {foils} replayed as "
                                 f"claimed; {what}")

    def _abstraction(self, hidden: Sequence[str]) -> tuple[Domain, Problem]:
        domain, problem = project(self.domain, self.problem, hidden)
        text_d, text_p = write_domain(domain), write_problem(problem)
        reread = parse_domain(text_d, "<abstract domain>")
        again = parse_problem(text_p, "<abstract problem>")
        check_problem(reread, again)
        names = {p.name for p in reread.predicates}
        for action in reread.actions:
            for part in (action.precondition, action.effect):
                names |= {n.predicate for n in walk(part) if isinstance(n, Atom)}
        names |= {a.predicate for a in again.init}
        names |= {n.predicate for n in walk(again.goal) if isinstance(n, Atom)}
        if names & set(hidden):
            raise _Failed(f"the abstraction still mentions {sorted(names & set(hidden))}")
        return reread, again

    def _robot_plan(self, plan: Sequence[PlanStep] | None, model: tuple[Domain, Problem]
                    ) -> None:
        r = self.result
        if r.plan is None:
            if plan is not None:
                raise _Failed("the robot's plan was given but the answer has none")
            self._no_plan()
            return
        steps = parse_plan("\n".join(r.plan), "<robot plan>")
        if plan is not None and [str(s) for s in plan] != [str(s) for s in steps]:
            raise _Failed("the answer's robot plan is not the one given")
        for where, m in (("the robot's model", (self.domain, self.problem)),
                         ("the abstraction", model)):
            v = self.validate(m, steps)
            if not v.valid or v.cost != r.plan_cost:
                raise _Failed(f"the robot's plan is not valid with cost {r.plan_cost} in "
                              f"{where}: {v.reason or v.cost}")

    def _suggested(self) -> None:
        """The foil xaip suggested is the one replayed, and a plan of her model."""
        r = self.result
        if len(self.foils) != 1 or [str(s) for s in self.foils[0][1]] != list(
                r.suggested_plan or ()):
            raise _Failed("the suggested foil is not the one explained")
        theirs = project(self.domain, self.problem, r.hidden)
        if not self.validate(theirs, self.foils[0][1]).valid:
            raise _Failed("the suggested foil is not a plan of the person's model")

    def _no_plan(self) -> None:
        task = ground(self.domain, self.problem, budget=self.clock)
        seen = {task.init}
        queue = deque([task.init])
        while queue:
            state = queue.popleft()
            if task.is_goal(state):
                raise _Failed("the task has a plan, but the answer says none")
            if not self.clock.charge():
                raise BudgetExhausted("checker's search for a robot plan")
            for action in task.actions:
                if action.applicable(state):
                    child = action.apply(state)
                    if child not in seen:
                        seen.add(child)
                        queue.append(child)

    def _foil(self, model: tuple[Domain, Problem], steps: Sequence[PlanStep],
              claim: Refutation) -> None:
        r = self.result
        label = f"foil {claim.foil + 1} ({claim.name})"
        if claim.kind == UNREFUTABLE:
            v = self.validate((self.domain, self.problem), steps)
            if not v.valid or r.plan_cost is None or v.cost >= r.plan_cost \
                    or v.cost != claim.foil_cost:
                raise _Failed(f"{label} is not valid and cheaper in the robot's model")
            return
        v = self.validate(model, steps, trace=True)
        if claim.kind == COST:
            if not v.valid or r.plan_cost is None or v.cost < r.plan_cost \
                    or v.cost != claim.foil_cost:
                raise _Failed(f"{label} is not valid at cost {claim.foil_cost} >= "
                              f"{r.plan_cost} in the abstraction")
            return
        if v.valid or v.failed_step is None:
            raise _Failed(f"{label} is valid in the abstraction")
        at_goal = v.failed_step == len(steps)
        if (claim.kind == GOAL) != at_goal:
            raise _Failed(f"{label} fails {'at the goal' if at_goal else 'at a step'}, "
                          f"not as claimed")
        if claim.kind == PRECONDITION and (claim.step != v.failed_step + 1 or
                                           claim.action != str(steps[v.failed_step])):
            raise _Failed(f"{label} fails at step {v.failed_step + 1}, not {claim.step}")
        if tuple(claim.unmet) != tuple(v.unmet):
            raise _Failed(f"{label}: unmet {list(v.unmet)}, not {list(claim.unmet)}")
        named = {m.group(1) for text in v.unmet for m in _NAME.finditer(text)}
        if set(claim.concretised) != named & set(r.concretise):
            raise _Failed(f"{label}: the made-concrete predicates named are wrong")
        for text, since, by in claim.since:
            if not _false_from(v.trace, v.failed_step, text, since) or \
                    by != (str(steps[since - 1]) if since else None):
                raise _Failed(f"{label}: {text} was not made false by step {since} ({by})")
        if claim.kind == PRECONDITION:
            schema = model[0].action(steps[v.failed_step].name)
            params = " ".join(p.name for p in schema.parameters)
            head = f"({schema.name}{' ' + params if params else ''})"
            if claim.rule != (head, condition_text(schema.precondition)):
                raise _Failed(f"{label}: the precondition shown is not {schema.name}'s")

    def _fewest(self) -> int:
        r = self.result
        refutable = [(steps, x) for (_, steps), x in zip(self.foils, r.refutations, strict=True)
                     if x.refuted]
        size, checked = len(r.concretise), 0
        answer = tuple(r.concretise)
        for k in range(size + 1):
            for combo in itertools.combinations(r.hidden, k):
                if k == size and combo == answer:
                    return checked
                checked += 1
                model = project(self.domain, self.problem,
                                [p for p in r.hidden if p not in combo])
                if all(self._refuted(model, steps) for steps, _ in refutable):
                    raise _Failed(f"the smaller or earlier set {list(combo)} refutes every foil")
        raise _Failed("the answer is not a set of the hidden predicates in hide order")

    def _refuted(self, model: tuple[Domain, Problem], steps: Sequence[PlanStep]) -> bool:
        v = self.validate(model, steps)
        cost = self.result.plan_cost
        return not v.valid or (cost is not None and v.cost >= cost)


def _false_from(trace: Sequence[frozenset[Atom]], failed: int, text: str, since: int) -> bool:
    """Is the single-fact literal ``text`` false in states ``since..failed`` and (when
    ``since > 0``) true in state ``since - 1``?"""
    positive = not text.startswith("(not ")
    words = text.replace("(not ", "", 1).replace("(", " ").replace(")", " ").split()
    if not words or not 0 <= since <= failed < len(trace):
        return False
    atom = Atom(words[0], tuple(words[1:]))

    def false(i: int) -> bool:
        return (atom in trace[i]) != positive

    return all(false(i) for i in range(since, failed + 1)) and (since == 0 or not false(since - 1))
