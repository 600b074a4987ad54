"""The independent checker of ``xaip unsolvable``.

What it shares with the search, and why that is acceptable: the PDDL reader, the grounder
(:func:`xaip.planning.grounding.ground`, run afresh) and :class:`~xaip.planning.task.Task`'s
action semantics; and :func:`xaip.planning.plans.validate`, the lifted validator, which
shares nothing with grounding. It does *not* share the search, the goal-mask code, the core
enumeration or the landmark code: it explores the reachable states again by breadth-first
search, keeps a parent link per state, and then checks every claim:

* **a plan**: it is valid and costs what the answer says (lifted validation), and it is a
  cheapest plan: no plan is cheaper, proved on a fresh grounding by the reconciliation
  checker's A* (:func:`xaip.planning.proofs.cheaper_plan`) under the strict bound of its
  cost. That A* is the planning core's, ordered and pruned by the *certified* LM-cut:
  LM-cut is an untrusted oracle whose cuts the core's certificate checker
  (``src/xaip/_native/certify.c``, no code shared with LM-cut) accepts only when each is a
  landmark of the delete relaxation and their charges a cost partition (a state whose
  certificate fails gets h^max, counted by
  :func:`xaip.planning.engines.compiled.search_counts`); h^max on tasks with conditional
  effects and without the compiled core. It shares nothing with the search's own
  uniform-cost exploration;
* **no plan**: no reachable state satisfies the goal, nor the core (the reduced task);
* **minimality**: every proper subset of the core is solvable -- enough to check the subsets
  one literal smaller, because a subset of a solvable goal set is solvable;
* **minimum, first in goal order**: every goal subset one literal smaller than the core is
  solvable (every smaller subset lies inside one of them), and so is every subset of the
  core's size that comes before it in goal order;
* each "solvable" above by a witness plan read off the parent links and replayed by the
  lifted validator, whose final state must satisfy the subset;
* **the landmark**: no reachable state has the fact, and it is a landmark: a core goal fact
  (``never-true``: not a fact of the grounded task at all; ``relaxed-unreachable``: not
  reached by the checker's own delete-relaxed fixpoint; its chain of facts every adding
  action needs, by brute force in :mod:`xaip.unsolvable.check_chain`), or, for
  ``relaxed-landmark``, the core's goal literals are not all delete-relaxed reachable once
  every action that adds the fact is removed (negative conditions kept as "false" facts
  that deletions make reachable: an over-approximation of the real task, so sound);
* **the trace**: the steps before the failing one apply on the grounded task, the failing
  one does not (its action is not applicable, or was never grounded); for a goal failure,
  the listed literals are exactly those false at the end.

It runs under a fresh copy of the user's budget (one node per state) and raises
:class:`~xaip.errors.BudgetExhausted` when it runs out (reported by
:func:`xaip.contract.run_checker`). Time is about that of the search plus one lifted
validation per distinct witness.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import deque
from collections.abc import Sequence

from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import TRUE, Atom, Domain, Problem
from xaip.planning.plans import PlanStep, parse_plan, validate
from xaip.planning.semantics import fact_text, step_number
from xaip.planning.task import Task
from xaip.runtime import Budget
from xaip.runtime.budget import BudgetClock
from xaip.unsolvable.chain import Chain
from xaip.unsolvable.check_chain import chain_problems
from xaip.unsolvable.goals import GoalLiteral, goal_literals
from xaip.unsolvable.results import UnsolvableResult


class _Space:
    """The reachable states (breadth-first order) with parent links."""

    def __init__(self, task: Task, clock: BudgetClock) -> None:
        self.task = task
        self.order: list[int] = [task.init]
        self.parent: dict[int, tuple[int, str] | None] = {task.init: None}
        queue = deque([task.init])
        while queue:
            state = queue.popleft()
            if not clock.charge():
                raise BudgetExhausted(f"checker explored {len(self.order)} states")
            for action in task.actions:
                if action.applicable(state):
                    child = action.apply(state)
                    if child not in self.parent:
                        self.parent[child] = (state, action.name)
                        self.order.append(child)
                        queue.append(child)

    def plan_to(self, state: int) -> list[str]:
        names: list[str] = []
        link = self.parent[state]
        while link is not None:
            state, name = link
            names.append(name)
            link = self.parent[state]
        return names[::-1]


def _holds(literal: GoalLiteral, task: Task, state: int) -> bool:
    index = task.fact_index.get(literal.atom)
    true = (literal.atom in task.static_facts) if index is None else bool(state >> index & 1)
    return true == literal.positive


class _Checker:
    def __init__(self, domain: Domain, problem: Problem, budget: Budget) -> None:
        self.domain, self.problem = domain, problem
        self.literals = goal_literals(problem)
        self.clock = budget.start()
        self.task = ground(domain, problem, budget=self.clock)
        self.space = _Space(self.task, self.clock)
        self.witnessed: dict[int, frozenset[Atom]] = {}

    def satisfying(self, subset: Sequence[int]) -> int | None:
        chosen = [self.literals[p] for p in subset]
        for state in self.space.order:
            if all(_holds(lit, self.task, state) for lit in chosen):
                return state
        return None

    def witnessed_solvable(self, subset: Sequence[int]) -> str | None:
        """``None`` when a validated witness plan reaches ``subset``, else the problem."""
        state = self.satisfying(subset)
        if state is None:
            return f"no reachable state satisfies {self._names(subset)}"
        if state not in self.witnessed:
            steps = parse_plan("\n".join(f"({n})" for n in self.space.plan_to(state)))
            free = dataclasses.replace(self.problem, goal=TRUE)
            checked = validate(self.domain, free, steps, keep_trace=True)
            if not checked.valid:
                return f"witness plan for {self._names(subset)} is invalid: {checked.reason}"
            self.witnessed[state] = checked.trace[-1]
        final = self.witnessed[state]
        for p in subset:
            lit = self.literals[p]
            if (lit.atom in final) != lit.positive:
                return f"witness plan for {self._names(subset)} ends without {lit.text}"
        return None

    def _names(self, subset: Sequence[int]) -> str:
        return "{" + ", ".join(self.literals[p].text for p in subset) + "}"


def check(domain: Domain, problem: Problem, result: UnsolvableResult,
          budget: Budget | None = None, trace: Sequence[PlanStep] | None = None
          ) -> CheckReport:
    """Confirm every claim of ``result`` (see the module docstring); ``trace`` is the
    attempted plan the result's ``trace`` verdict is about."""
    budget = budget or Budget()
    if result.solvable is True:
        return _cheapest(domain, problem, result, budget)
    if result.solvable is None:
        return CheckReport(None, "nothing established to check (the budget ran out)")
    checker = _Checker(domain, problem, budget)
    problems: list[str] = []
    if trace is not None:
        problems += _trace_problems(checker, trace, result)
    if result.solvable is False:
        problems += _core_problems(checker, result)
    if result.repair is not None:
        problems += _repair_problems(checker, result)
    if problems:
        return CheckReport(False, "; ".join(problems))
    witnesses = len(checker.witnessed)
    return CheckReport(True, f"confirmed on {len(checker.space.order)} reachable states with "
                             f"{witnesses} validated witness plan{'' if witnesses == 1 else 's'}")


def _cheapest(domain: Domain, problem: Problem, result: UnsolvableResult, budget: Budget
              ) -> CheckReport:
    """The plan is valid, costs ``plan_cost`` and no plan is cheaper (A* with the certified
    LM-cut on a fresh grounding, under the strict bound of the plan's cost)."""
    from xaip.planning.engines import DEFAULT_ENGINE
    from xaip.planning.proofs import cheaper_plan, proof_method

    assert result.plan is not None
    checked = validate(domain, problem, parse_plan("\n".join(result.plan)))
    if not checked.valid or checked.cost is None:
        return CheckReport(False, f"the plan is invalid: {checked.reason}")
    if checked.cost != result.plan_cost:
        return CheckReport(False, f"the plan costs {checked.cost}, not {result.plan_cost}")
    clock = budget.start()
    task = ground(domain, problem, budget=clock)
    status, cheaper, _ = cheaper_plan(None, None, task, int(checked.cost), clock.remaining())
    if status == "budget_exhausted":
        raise BudgetExhausted("the checker's optimality proof ran out of budget")
    if status == "solved":
        return CheckReport(False, f"the plan is not a cheapest plan: one of cost {cheaper} "
                                  "exists")
    return CheckReport(True, f"the plan is valid and a cheapest plan (cost {checked.cost}; "
                             f"{proof_method(DEFAULT_ENGINE)} on a fresh grounding)")


def _core_problems(checker: _Checker, result: UnsolvableResult) -> list[str]:
    size = len(checker.literals)
    core = result.core_positions
    if checker.satisfying(range(size)) is not None:
        return ["a reachable state satisfies the whole goal: the task has a plan"]
    if not core or checker.satisfying(core) is not None:
        return [f"the core {checker._names(core)} is reachable"]
    to_solve: list[tuple[int, ...]] = []
    if result.core_kind == "minimum":
        to_solve += itertools.combinations(range(size), len(core) - 1)
        for combo in itertools.combinations(range(size), len(core)):
            if combo == tuple(core):
                break
            to_solve.append(combo)
    else:
        to_solve += [tuple(p for p in core if p != drop) for drop in core]
    problems = [found for subset in to_solve if (found := checker.witnessed_solvable(subset))]
    if result.landmark is not None:
        problems += _landmark_problems(checker, result)
    return problems


def _landmark_problems(checker: _Checker, result: UnsolvableResult) -> list[str]:
    assert result.landmark is not None
    task, fact, kind = checker.task, result.landmark.fact, result.landmark.kind
    core_goals = [checker.literals[p] for p in result.core_positions]
    atom = next((a for a in task.facts if _text(a) == fact), None)
    is_core_goal = any(lit.positive and lit.text == fact for lit in core_goals)
    chained = [] if result.landmark.chain is None else _chain(checker, result.landmark.chain)
    if kind == "never-true":
        ok = is_core_goal and atom is None and all(_text(a) != fact for a in task.static_facts)
        return chained if ok else [f"{fact} is not a core goal fact absent from the task"]
    if atom is None:
        return [f"landmark {fact} is not a fact of the task"]
    index = task.fact_index[atom]
    if any(state >> index & 1 for state in checker.space.order):
        return [f"landmark {fact} is reachable"]
    if kind == "relaxed-unreachable":
        return chained if is_core_goal and not _relaxed(task, -1)[0] >> index & 1 else [
            f"{fact} is not a delete-relaxed unreachable core goal fact"]
    needed = {True: 0, False: 0}  # the core's facts that must be true, and false
    for lit in core_goals:
        if lit.atom in task.fact_index:  # static ones hold (the core is reachable otherwise)
            needed[lit.positive] |= 1 << task.fact_index[lit.atom]
    pos, neg = _relaxed(task, index)
    if pos & needed[True] == needed[True] and neg & needed[False] == needed[False]:
        return [f"{fact} is not a landmark of the core"]
    return []


def _chain(checker: _Checker, chain: Chain) -> list[str]:
    """The landmark's chain confirmed by :mod:`xaip.unsolvable.check_chain`."""
    task = checker.task
    index = {_text(atom): i for i, atom in enumerate(task.facts)}
    static = {_text(atom) for atom in task.static_facts}
    ever = 0
    for state in checker.space.order:
        ever |= state

    def never(fact: str) -> bool:
        where = index.get(fact)
        return fact not in static if where is None else not ever >> where & 1

    return chain_problems(checker.domain, checker.problem, chain, never, checker.clock)


def _relaxed(task: Task, without: int) -> tuple[int, int]:
    """Facts reachable ignoring deletions, with the actions that add fact ``without``
    removed (``-1``: none removed). Negative conditions are kept as "fact is false" facts,
    reachable when false initially or deleted by a relaxed-reachable action (still an
    over-approximation of the real task, so an unreachable fact is truly unreachable).
    Returns the reachable true facts and the reachable false facts."""
    pos = task.init
    neg = ~task.init & ((1 << task.num_facts) - 1)
    drop = 0 if without < 0 else 1 << without
    changed = True
    while changed:
        changed = False
        for action in task.actions:
            if action.pre & ~pos or action.neg_pre & ~neg:
                continue
            adds, deletes = action.add, action.delete
            for effect in action.conditional:
                if not effect.cond_pos & ~pos and not effect.cond_neg & ~neg:
                    adds |= effect.add
                    deletes |= effect.delete
            if adds & drop:
                continue
            if adds & ~pos or deletes & ~neg:
                pos, neg = pos | adds, neg | deletes
                changed = True
    return pos, neg


def _text(atom: Atom) -> str:
    return fact_text(atom.predicate, atom.args)


def _trace_problems(checker: _Checker, steps: Sequence[PlanStep],
                    result: UnsolvableResult) -> list[str]:
    """The trace claims of ``result`` re-checked by replaying ``steps`` on the checker's
    grounded task."""
    trace, task = result.trace, checker.task
    if trace is None:
        return [] if result.trace_valid is not False else ["the trace's failure is missing"]
    state = task.init
    for index, step in enumerate(steps):
        name = " ".join((step.name, *step.args))
        applicable = [task.actions[i] for i in task.action_index.get(name, ())
                      if task.actions[i].applicable(state)]
        if not applicable:
            if trace.step != step_number(index):
                return [f"step {step_number(index)} is the first that does not apply, not "
                        f"{trace.step}"]
            return []
        state = applicable[0].apply(state)
    if trace.step is not None:
        return ["every step of the trace applies"]
    false = {lit.text for lit in checker.literals if not _holds(lit, task, state)}
    return [] if false == set(trace.unmet) else [
        f"goal literals false at the end are {sorted(false)}, not {list(trace.unmet)}"]


def _repair_problems(checker: _Checker, result: UnsolvableResult) -> list[str]:
    """The repair's witness plan is valid once its facts are added (lifted validator), and
    every candidate set before it in the search's order (every set within the bound, when
    none was found) leaves the task without a plan (a fresh grounding and the checker's own
    exploration each). The candidate list itself is :func:`repairs.candidates`, shared."""
    from xaip.unsolvable.repairs import candidates, with_init

    repair = result.repair
    assert repair is not None
    domain, problem = checker.domain, checker.problem
    if repair.facts is not None:
        changed = with_init(problem, repair.atoms)
        checked = validate(domain, changed, parse_plan("\n".join(repair.plan)))
        if not checked.valid:
            return [f"the plan after adding {', '.join(repair.facts)} is invalid: "
                    f"{checked.reason}"]
    if not repair.complete:
        return []
    pool, _ = candidates(domain, problem, repair.candidates)
    everything = range(len(checker.literals))
    for size in range(1, repair.max_facts + 1):
        for added in itertools.combinations(pool, size):
            if added == repair.atoms:
                return []
            task = ground(domain, with_init(problem, added), budget=checker.clock)
            space = _Space(task, checker.clock)
            chosen = checker.literals
            if any(all(_holds(chosen[p], task, s) for p in everything) for s in space.order):
                facts = ", ".join(_text(a) for a in added)
                return [f"adding {facts} already gives a plan"]
    return [] if repair.facts is None else ["the repair is not among the candidates"]
