"""The one checker of the reconciliation family: ``check(inputs, result) -> CheckReport``.

Why independent: an explanation we cannot verify is a bug, and a checker that repeats the
search's reasoning would repeat its bugs. What the checker **shares** with the explainers,
exactly:

* the PDDL model classes and :func:`~xaip.planning.features.apply.apply_edits` (the
  definition of "the human model updated by these edits");
* the grounder (:func:`~xaip.planning.grounding.ground`), the plan validator
  (:func:`~xaip.planning.plans.validate`) and, with the built-in engine, the successor
  generator of :mod:`xaip.planning.search`;
* for uncertain models, :func:`~xaip.reconcile.annotated.settle` (which model a dialogue
  state stands for) and :meth:`AnnotatedMRP.completion`.

What it does **not** share: the compiled model space (:mod:`.space`), the goal tests and
their planner cache and witness plans (:mod:`.goals`), the model-space searches, A* and the
LM-cut heuristic. The updated model is rebuilt as a lifted PDDL model, the plan validated
on it, and optimality proved on a *fresh* grounding by **uniform-cost search** bounded by the
plan's cost (pruned only by the admissible h^max), or by Fast Downward on the written PDDL
with ``engine="fd"``. Grounded edits, which have no lifted PDDL form, are checked by
:func:`~xaip.reconcile.brute_force.brute_force_complete`, which shares nothing but the
feature semantics.

A check that runs out of its own budget answers ``ok=None``: the result is then not
verified, and the details say so.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from xaip.contract import CheckReport
from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE, get_engine
from xaip.planning.features import Edit, model_diff
from xaip.planning.features.apply import apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, parse_plan, validate
from xaip.planning.task import GroundAction, Task
from xaip.reconcile.annotated import AnnotatedMRP, completions, likelihood, settle
from xaip.reconcile.brute_force import CheckResult, brute_force_complete
from xaip.reconcile.problem import MRP
from xaip.reconcile.results import (
    AnytimeExplanation,
    Ask,
    ConditionalExplanation,
    ConformantExplanation,
    Dialogue,
    Done,
    Explanation,
    LabelledEdit,
    PolicyNode,
    Tell,
)
from xaip.runtime import Budget

__all__ = ["CheckResult", "brute_force_complete", "check", "is_complete", "is_monotonic",
           "robustness"]

#: The checker's own optimal search: a different algorithm from the explainers' A* + LM-cut.
CHECK_ALGORITHM, CHECK_HEURISTIC = "ucs", "hmax"
#: Engines that run xaip's searches (the checker asks them for uniform-cost search).
OWN_ENGINES = frozenset({"builtin", "compiled", DEFAULT_ENGINE})


def _lifted_only(edits: Iterable[Edit]) -> list[Edit]:
    edits = list(edits)
    if any(e.feature.is_action_feature and not e.feature.is_lifted and e.feature.parameters
           for e in edits):
        raise ValueError("grounded edits: use brute_force_complete")
    return edits


def _updated(mrp: MRP, edits: Iterable[Edit]) -> tuple[Domain, Problem]:
    domain, problem = apply_edits(
        mrp.human_domain, mrp.human_problem, _lifted_only(edits),
        source_domain=mrp.robot_domain, source_problem=mrp.robot_problem)
    assert problem is not None
    return domain, problem


def _cheaper(domain: Domain, problem: Problem, task: Task, bound: int, budget: Budget,
             engine: str) -> tuple[str, int | None]:
    """(status, cost) of a plan cheaper than ``bound``: "solved", "unsolvable" or
    "budget_exhausted".

    xaip's own engines (``builtin``, ``compiled``, ``default``) answer with uniform-cost
    search (h^max only prunes) on ``task``; an external engine (``"fd"``) reads the updated
    model as lifted PDDL and grounds it itself, sharing nothing with our grounding or search.
    """
    if engine in OWN_ENGINES:
        result = get_engine(engine, search=CHECK_ALGORITHM, heuristic=CHECK_HEURISTIC
                            ).solve(task, optimal=True, cost_bound=bound, budget=budget)
    else:
        result = get_engine(engine).solve_model(domain, problem, optimal=True,
                                                cost_bound=bound, budget=budget)
    return str(result.status), (None if result.cost is None else int(result.cost))


def is_complete(mrp: MRP, edits: Iterable[Edit], budget: Budget | None = None,
                engine: str = DEFAULT_ENGINE, plan: Sequence[PlanStep] | None = None
                ) -> CheckResult:
    """Is the plan valid and optimal in the human model updated by lifted ``edits``?

    Rebuilds the updated model as PDDL, validates the plan (``mrp.plan`` unless ``plan``
    is given) on the lifted model and asks for a cheaper plan on a fresh grounding with
    uniform-cost search under the strict cost bound (``engine="fd"``: Fast Downward).
    """
    domain, problem = _updated(mrp, edits)
    steps = mrp.plan if plan is None else tuple(plan)
    result = validate(domain, problem, steps)
    if not result.valid:
        return CheckResult(False, False, None, None, result.reason or "invalid")
    assert result.cost is not None
    plan_cost = int(result.cost)
    task = ground(domain, problem)
    status, cost = _cheaper(domain, problem, task, plan_cost,
                            budget or Budget(max_seconds=300), engine)
    if status == "budget_exhausted":
        return CheckResult(None, True, plan_cost, None, "the checker's budget ran out")
    if status == "solved":
        return CheckResult(False, True, plan_cost, cost,
                           f"a plan of cost {cost} beats the plan's {plan_cost}")
    return CheckResult(True, True, plan_cost, plan_cost, "valid and optimal")


def is_monotonic(mrp: MRP, edits: Sequence[Edit], difference: Sequence[Edit],
                 max_checks: int = 4096) -> bool | None:
    """Does every further subset of ``difference`` keep the plan explained (book P3)?

    ``None`` when more than ``max_checks`` subsets would have to be checked.
    """
    rest = [e for e in difference if e not in set(edits)]
    if 2 ** len(rest) > max_checks:
        return None
    for size in range(len(rest) + 1):
        for extra in itertools.combinations(rest, size):
            if is_complete(mrp, [*edits, *extra]).complete is not True:
                return False
    return True


# --------------------------------------------------------------------------- the checker


def check(inputs: MRP | AnnotatedMRP, result: Any, budget: Budget | None = None
          ) -> CheckReport:
    """Independently check any reconciliation result against its inputs.

    ``inputs`` is the :class:`MRP` (an :class:`AnnotatedMRP` for conformant, conditional
    and anytime explanations). ``ok`` is ``True`` when the result's claim holds, ``False``
    when it does not, ``None`` when the check could not decide (its budget ran out, or the
    result is unfinished and claims nothing to check). See the module docstring for what
    the check shares with the search.
    """
    budget = budget or Budget(max_seconds=300)
    if isinstance(result, Explanation):
        return _check_explanation(_plain(inputs), result, budget)
    if isinstance(result, Dialogue):
        last = result.current.check
        if last is None:
            return CheckReport(None, "the last round was not checked")
        return CheckReport(last.ok, f"last round (in the robot's corrected model): "
                                    f"{last.details}")
    if not isinstance(inputs, AnnotatedMRP):
        raise InputError(f"checking a {type(result).__name__} needs the annotated MRP")
    if isinstance(result, ConformantExplanation):
        if not result.status.finished:
            return CheckReport(None, "unfinished: no conformant explanation to check")
        value = robustness(inputs, result.edits, budget=budget)
        if value is None:
            return CheckReport(None, "the checker's budget ran out")
        return CheckReport(abs(value - 1.0) < 1e-9,
                           f"robustness {value:.3g} over {result.completions} completions")
    if isinstance(result, ConditionalExplanation):
        if result.policy is None:
            return CheckReport(None, "unfinished: no policy to check")
        verdict = policy_explains(inputs, result.policy, budget)
        return CheckReport(verdict, {True: "every leaf explains the plan in every consistent "
                                           "completion",
                                     False: "a leaf leaves the plan unexplained in some "
                                            "consistent completion",
                                     None: "the checker's budget ran out"}[verdict])
    if isinstance(result, AnytimeExplanation):
        if not result.status.finished:
            return CheckReport(None, "unfinished: no explanation to check")
        answers = frozenset((p.feature, a) for p, a in result.questions)
        verdict = _leaf_explains(inputs, frozenset(result.edits), answers, budget)
        return CheckReport(verdict, "the edits explain the plan in every completion "
                                    "consistent with the answers" if verdict else
                           "the edits do not explain the plan under the answers given"
                           if verdict is False else "the checker's budget ran out")
    raise InputError(f"no reconciliation checker for {type(result).__name__}")


def _plain(inputs: MRP | AnnotatedMRP) -> MRP:
    return inputs.mrp if isinstance(inputs, AnnotatedMRP) else inputs


def _check_explanation(mrp: MRP, result: Explanation, budget: Budget) -> CheckReport:
    if not result.status.finished:
        return CheckReport(None, "unfinished: the search ran out of budget, so the edits "
                                 "are not claimed to be a (minimal) explanation")
    if result.type == "contrastive":
        return _check_contrastive(mrp, result, budget)
    if result.grounded:
        outcome = brute_force_complete(mrp, result.edits)
        method = "brute force over sets of atoms"
    else:
        outcome = is_complete(mrp, result.edits, budget, result.engine)
        method = ("uniform-cost search on a fresh grounding" if result.engine in OWN_ENGINES
                  else f"{result.engine} on the lifted PDDL")
    if outcome.complete is None:
        return CheckReport(None, f"{outcome.reason}; {method}")
    if result.type == "approx":
        # An approximate MCE does not claim optimality; the check reports what holds.
        return CheckReport(outcome.valid, f"approximate: the plan is "
                           f"{'valid' if outcome.valid else 'invalid'} in the updated model; "
                           f"optimality ({method}): {outcome.reason}")
    if result.type == "mme" and outcome.complete and not result.grounded:
        return _check_monotonic(mrp, result, f"{outcome.reason}; {method}")
    return CheckReport(outcome.complete, f"{outcome.reason}; {method}")


#: Largest number of supersets the MME check examines (2^k for k edits left out).
MAX_MONOTONIC_CHECKS = 64


def _check_monotonic(mrp: MRP, result: Explanation, complete: str) -> CheckReport:
    """An MME claims more than completeness: every further difference keeps the plan
    explained (book P3). Checked over every superset when there are few enough."""
    difference = model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                            mrp.robot_problem).edits()
    verdict = is_monotonic(mrp, result.edits, difference, MAX_MONOTONIC_CHECKS)
    if verdict is None:
        return CheckReport(True, f"{complete}; monotonicity not checked (more than "
                                 f"{MAX_MONOTONIC_CHECKS} supersets)")
    if verdict:
        return CheckReport(True, f"{complete}; monotonic over every superset")
    return CheckReport(False, f"{complete}, but a superset of the edits leaves the plan "
                              "unexplained (not monotonic)")


def _check_contrastive(mrp: MRP, result: Explanation, budget: Budget) -> CheckReport:
    """The plan is valid in the updated model and no foil is cheaper there."""
    if result.grounded:
        return CheckReport(None, "contrastive explanations with grounded edits are not "
                                 "checked")
    domain, problem = _updated(mrp, result.edits)
    mine = validate(domain, problem, mrp.plan)
    if not mine.valid or mine.cost is None:
        return CheckReport(False, f"the plan is invalid in the updated model: {mine.reason}")
    cost = int(mine.cost)
    task: Task | None = None
    for foil in result.foils:
        text = foil.text
        if foil.kind == "plan":
            other = validate(domain, problem, parse_plan("\n".join(f"({s})"
                                                                 for s in foil.steps)))
            if other.valid and other.cost is not None and other.cost < cost:
                return CheckReport(False, f"{text} costs {other.cost}, less than {cost}")
            continue
        task = task or ground(domain, problem)
        status, found = _cheaper(domain, problem, _foil_task(task, foil.kind, foil.action),
                                 cost, budget, DEFAULT_ENGINE)
        if status == "budget_exhausted":
            return CheckReport(None, "the checker's budget ran out")
        if status == "solved":
            return CheckReport(False, f"{text}: a plan of cost {found} beats {cost}")
    return CheckReport(True, "the plan is valid and no foil is cheaper (uniform-cost search, "
                             "fresh grounding)")


def _foil_task(task: Task, kind: str, action: str) -> Task:
    """``task`` restricted to plans that avoid / use ``action`` (the checker's own
    compilation: one extra fact marks that the action was used)."""

    def matches(a: GroundAction) -> bool:
        return a.schema == action or a.name == action

    if kind == "avoid":
        return Task(task.name, task.facts, tuple(a for a in task.actions if not matches(a)),
                    task.init, task.goal, task.goal_neg, task.static_facts, task.has_costs)
    from xaip.planning.pddl.model import Atom

    bit = 1 << len(task.facts)
    actions = tuple(GroundAction(a.schema, a.args, a.pre, a.add | bit, a.delete, a.cost,
                                 a.neg_pre, a.conditional) if matches(a) else a
                    for a in task.actions)
    return Task(task.name, (*task.facts, Atom("xaip-check-used", (action,))), actions,
                task.init, task.goal | bit, task.goal_neg, task.static_facts, task.has_costs)


# --------------------------------------------------------------------------- uncertain models


def robustness(amrp: AnnotatedMRP, edits: Iterable[LabelledEdit],
               answers: frozenset[Any] = frozenset(), budget: Budget | None = None
               ) -> float | None:
    """Book Def. 29 by enumeration: the likelihood mass of completions the edits explain,
    each completion rebuilt and checked with :func:`is_complete` (``None``: the checker's
    budget ran out)."""
    known, open_ = settle(amrp.possible, edits, answers)
    total = 0.0
    for realised, _ in completions(open_):
        outcome = is_complete(amrp.completion(known, realised), (), budget)
        if outcome.complete is None:
            return None
        if outcome.complete:
            total += likelihood(open_, realised)
    return total


def _leaf_explains(amrp: AnnotatedMRP, told: frozenset[LabelledEdit], answers: frozenset[Any],
                   budget: Budget) -> bool | None:
    known, open_ = settle(amrp.possible, told, answers)
    for realised, _ in completions(open_):
        outcome = is_complete(amrp.completion(known, realised), (), budget)
        if outcome.complete is not True:
            return outcome.complete
    return True


def policy_explains(amrp: AnnotatedMRP, policy: PolicyNode, budget: Budget | None = None
                    ) -> bool | None:
    """Every leaf of ``policy`` explains the plan in every completion consistent with its
    answers (enumerated and checked with :func:`is_complete`)."""
    budget = budget or Budget(max_seconds=300)

    def walk(node: PolicyNode, told: frozenset[LabelledEdit], answers: frozenset[Any]
             ) -> bool | None:
        if isinstance(node, Tell):
            return walk(node.then, told | {node.edit}, answers)
        if isinstance(node, Ask):
            feature = node.question.feature
            yes = walk(node.yes, told, answers | {(feature, True)})
            if yes is not True:
                return yes
            return walk(node.no, told, answers | {(feature, False)})
        assert isinstance(node, Done)
        return _leaf_explains(amrp, told, answers, budget)

    return walk(policy, frozenset(), frozenset())
