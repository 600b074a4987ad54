"""Environment design for explicability (X07, book ch. 3 §3.4): change the world once so
that the robot's behaviour stops surprising people, when that is cheaper than surprise.

A design problem has tasks ``i`` (a robot problem and the person's view of it) with
probabilities ``p_i``, modifications with additive costs, weights ``α, β, γ``, a horizon
``T`` and a discount ``γ_d`` (the chance ``1 − γ_d`` per step that the person has stopped
minding). A design ``ξ`` (a set of modifications) is scored by

    α · Σ_{t<T} γ_d^t · Σ_i p_i E*_i(ξ)  +  β · C_D(ξ)  +  γ · T · Σ_i p_i C(Λ*_i(ξ))

with ``E*_i`` the lowest inexplicability of task ``i`` under ``ξ`` and ``Λ*_i`` its
cheapest most-explicable plan (:func:`xaip.explicable.planner.explicable_plan`). With
``T = 1`` this is the multi-task objective, with one task the single-task one (eq. 3.1–3.6).

Modifications change initial states: ``human_init_add`` / ``human_init_remove`` change what
the person believes (a visible barrier removes a passage from their model),
``robot_init_add`` / ``robot_init_remove`` change the robot's world.

Search: breadth-first over design subsets, each level adding one modification. With
pruning, a configuration's children add only *relevant* modifications: those that add
facts (they may enable new plans anywhere), and those removing a fact that some
precondition of the robot's chosen plan or of the person's expected plans mentions under
that configuration; removing any other fact leaves every task's answer unchanged and only
adds design cost. Ties go to fewer modifications, then to the earlier-listed ones.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from xaip.explicable.design_spec import DesignProblem, DesignTask
from xaip.explicable.design_spec import Modification as Modification  # re-exported
from xaip.explicable.design_spec import load_design as load_design  # re-exported
from xaip.explicable.design_spec import restaurant_spec as restaurant_spec  # re-exported
from xaip.explicable.measures import ExpectedPlansUnfinished, expected_plans
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import make_problem
from xaip.explicable.results import DesignResult, TaskOutcome
from xaip.planning.pddl.model import Atom, Domain, Not, Problem, When
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock

INF = math.inf


@dataclass(frozen=True)
class Evaluation:
    objective: float
    design_cost: float
    outcomes: tuple[TaskOutcome, ...]
    relevant: frozenset[int] = field(default=frozenset())


def _changed(problem: Problem, add: Iterable[Atom], remove: Iterable[Atom]) -> Problem:
    gone = {str(a) for a in remove}
    init = [a for a in problem.init if str(a) not in gone]
    present = {str(a) for a in init}
    init += [a for a in add if str(a) not in present]
    return replace(problem, init=tuple(init))


def apply_design(spec: DesignProblem, task: DesignTask, design: Iterable[int]
                 ) -> tuple[Problem, Problem]:
    """The task's robot and human problems after the modifications ``design``."""
    mods = [spec.modifications[i] for i in design]

    def gather(kind: str) -> list[Atom]:
        return [a for m in mods for a in m.changes.get(kind, ())]

    return (_changed(task.robot_problem, gather("robot_init_add"), gather("robot_init_remove")),
            _changed(task.human_problem, gather("human_init_add"), gather("human_init_remove")))


class _Exhausted(Exception):
    pass


def evaluate(spec: DesignProblem, design: frozenset[int], clock: BudgetClock | None = None,
             relevance: bool = False) -> Evaluation:
    """The objective of ``design`` (and, with ``relevance``, its relevant modifications)."""
    clock = clock or Budget().start()
    outcomes = []
    mentioned: set[str] = set()
    for task in spec.tasks:
        robot_problem, human_problem = apply_design(spec, task, sorted(design))
        problem = make_problem(spec.robot_domain, robot_problem, spec.human_domain,
                               human_problem)
        answer = explicable_plan(problem, spec.distance, budget=clock, check=False)
        if answer.status == Status.BUDGET_EXHAUSTED:
            raise _Exhausted
        outcomes.append(TaskOutcome(
            task.name, task.probability,
            None if answer.robot_cost is None else float(answer.robot_cost),
            answer.inexplicability if answer.has_plan else None, answer.plan))
        if relevance:
            # The robot's plan as both models read it, the person's expected plans and both
            # goals: removing a fact none of them mentions leaves the answer unchanged.
            mentioned |= _preconditions(spec.robot_domain, answer.plan)
            mentioned |= _preconditions(spec.human_domain, answer.plan)
            _atoms(robot_problem.goal, {}, mentioned)
            _atoms(human_problem.goal, {}, mentioned)
            try:
                listed = expected_plans(problem, clock.remaining(), None)
            except ExpectedPlansUnfinished:
                raise _Exhausted from None
            for plan in listed.plans:
                mentioned |= _preconditions(spec.human_domain, tuple(a.name for a in plan))
    design_cost = sum(spec.modifications[i].cost for i in design)
    surprise = sum(o.probability * (INF if o.inexplicability is None else o.inexplicability)
                   for o in outcomes if o.probability > 0)
    cost = sum(o.probability * (INF if o.robot_cost is None else o.robot_cost)
               for o in outcomes if o.probability > 0)
    objective = (_times(spec.alpha * spec.surprise_weight, surprise) + spec.beta * design_cost
                 + _times(spec.gamma * spec.horizon, cost))
    every = relevance and not _monotone(spec)
    relevant = frozenset(i for i, m in enumerate(spec.modifications)
                         if i not in design and (every or m.adds
                                                 or _touches(m.removed, mentioned)))
    return Evaluation(objective, design_cost, tuple(outcomes), relevant)


def _better(key: tuple[float, int, tuple[int, ...]],
            than: tuple[float, int, tuple[int, ...]]) -> bool:
    """Lower objective, or (equal up to rounding) fewer modifications, then earlier ones:
    objectives summed in another order differ in the last bits, and must still tie."""
    a, b = key[0], than[0]
    if not (a == b or (math.isfinite(a) and math.isfinite(b)
                       and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9))):
        return a < b
    return key[1:] < than[1:]


def _monotone(spec: DesignProblem) -> bool:
    """Can removing a fact only remove plans? Not when a precondition or goal negates a
    fact, an effect is conditional or predicates are derived (a removal may then enable an
    action or an effect)."""
    def has(node: Any, kind: type) -> bool:
        if isinstance(node, kind):
            return True
        parts = [getattr(node, a) for a in ("operand", "antecedent", "consequent", "body",
                                             "condition", "effect") if hasattr(node, a)]
        parts += list(getattr(node, "operands", ()) or ())
        return any(has(part, kind) for part in parts)

    domains = (spec.robot_domain, spec.human_domain)
    conditions = [a.precondition for d in domains for a in d.actions]
    conditions += [p.goal for t in spec.tasks for p in (t.robot_problem, t.human_problem)]
    effects = [a.effect for d in domains for a in d.actions]
    return not (any(has(c, Not) for c in conditions) or any(has(e, When) for e in effects)
                or any(d.derived_predicates for d in domains))


def _touches(removed: frozenset[str], mentioned: set[str]) -> bool:
    return any(fact in mentioned or f"({fact.strip('()').split()[0]} *)" in mentioned
               for fact in removed)


def _times(weight: float, value: float) -> float:
    return 0.0 if weight == 0 else weight * value


def _preconditions(domain: Domain, plan: Iterable[str]) -> set[str]:
    """The ground atoms the preconditions of ``plan``'s steps mention (lifted, so static
    facts count too; a quantified atom's predicate counts as ``(pred *)``)."""
    actions = {a.name: a for a in domain.actions}
    out: set[str] = set()
    for step in plan:
        name, *args = step.split()
        action = actions.get(name)
        if action is None:
            continue
        binding = dict(zip((p.name for p in action.parameters), args, strict=False))
        _atoms(action.precondition, binding, out)
    return out


def _atoms(cond: Any, binding: Mapping[str, str], out: set[str]) -> None:
    if isinstance(cond, Atom):
        args = [binding.get(a, a) for a in cond.args]
        out.add("(" + " ".join((cond.predicate, *args)) + ")")
        if any(a.startswith("?") for a in args):
            out.add(f"({cond.predicate} *)")
        return
    for attr in ("operand", "antecedent", "consequent", "body"):
        if hasattr(cond, attr):
            _atoms(getattr(cond, attr), binding, out)
    for part in getattr(cond, "operands", ()):
        _atoms(part, binding, out)


def design_search(spec: DesignProblem, prune: bool = True, budget: Budget | None = None,
                  check: bool = True) -> DesignResult:
    """The design minimising the objective: breadth-first over subsets of modifications
    (with relevance pruning unless ``prune`` is false). With ``check`` (default) the
    independent checker (:func:`check_design`) runs and sets ``verified``."""
    clock = as_clock(budget)
    start: frozenset[int] = frozenset()
    level = [start]
    seen = {start}
    best: tuple[tuple[float, int, tuple[int, ...]], frozenset[int], Evaluation] | None = None
    baseline: float | None = None
    evaluated = 0
    status = Status.COMPLETE
    try:
        while level:
            following: list[frozenset[int]] = []
            for design in level:
                if not clock.charge():
                    raise _Exhausted
                value = evaluate(spec, design, clock, relevance=prune)
                evaluated += 1
                if not design:
                    baseline = value.objective
                key = (value.objective, len(design), tuple(sorted(design)))
                if best is None or _better(key, best[0]):
                    best = (key, design, value)
                children = value.relevant if prune else (
                    frozenset(range(len(spec.modifications))) - design)
                for index in sorted(children):
                    child = design | {index}
                    if child not in seen:
                        seen.add(child)
                        following.append(child)
            level = following
    except _Exhausted:
        status = Status.BUDGET_EXHAUSTED
    stats: dict[str, int | float] = {"configurations": evaluated, "nodes": clock.nodes}
    if best is None:
        return DesignResult(status, (), None, baseline, 0.0, (), spec.horizon, evaluated,
                            prune, clock.elapsed(), stats)
    _, design, value = best
    result = DesignResult(status, tuple(spec.modifications[i].name for i in sorted(design)),
                          value.objective, baseline, value.design_cost, value.outcomes,
                          spec.horizon, evaluated, prune, clock.elapsed(), stats)
    if check and status.finished:
        from xaip.contract import with_check
        from xaip.explicable.design_check import check_design

        report = check_design(spec, result, budget)
        result = with_check(replace(result, check=report), report)
    return result
