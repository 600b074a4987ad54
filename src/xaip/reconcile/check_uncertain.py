"""Checking the answers for an uncertain (annotated) human model, by enumeration.

Why enumeration: the conformant search decides with the book's two representative models
(Prop. 7); the checker instead rebuilds *every* completion consistent with a dialogue state
(:func:`~xaip.reconcile.annotated.settle`, :meth:`AnnotatedMRP.completion`: the definition
of the annotated model, shared) and checks each with :func:`~xaip.reconcile.checks.is_complete`
(the checker's A* with the certified LM-cut on a fresh grounding). Claims checked:

* conformant: robustness 1 (every completion explained) and *minimal* (no cheaper set of
  the candidate edits -- the known differences and the settled possible features, derived
  here from the definitions -- has robustness 1; all cheaper sets are enumerated);
* conditional: every leaf of the policy explains the plan in every completion consistent
  with its answers, and the policy's reported cost and expected statements are what the
  policy gives (the policy is not claimed to be the cheapest);
* anytime: the edits explain the plan in every completion consistent with the answers.

Everything runs under one budget (the search's, started afresh); running out raises
:class:`~xaip.errors.BudgetExhausted` ("unverified: checker budget").
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any

from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.features import Edit, model_diff, model_features
from xaip.reconcile.annotated import AnnotatedMRP, completions, likelihood, settle
from xaip.reconcile.checks import is_complete
from xaip.reconcile.results import (
    AnytimeExplanation,
    Ask,
    ConditionalExplanation,
    ConformantExplanation,
    Done,
    LabelledEdit,
    PolicyNode,
    Tell,
    expected_statements,
)
from xaip.runtime import Budget, BudgetClock
from xaip.runtime.budget import as_clock


def _left(clock: BudgetClock) -> Budget:
    """The node limit afresh for one search, the seconds the check has left."""
    if not clock.charge():
        raise BudgetExhausted("the checker's budget ran out")
    budget = clock.budget
    if budget.max_seconds is None:
        return Budget(budget.max_nodes)
    return Budget(budget.max_nodes, max(0.0, budget.max_seconds - clock.elapsed()))


def _explains(amrp: AnnotatedMRP, known: list[Edit], realised: frozenset[Any],
              clock: BudgetClock) -> bool:
    outcome = is_complete(amrp.completion(known, realised), (), _left(clock))
    if outcome.complete is None:
        raise BudgetExhausted("the checker's budget ran out")
    return outcome.complete


def robustness(amrp: AnnotatedMRP, edits: Iterable[LabelledEdit],
               answers: frozenset[Any] = frozenset(),
               budget: Budget | BudgetClock | None = None) -> float | None:
    """Book Def. 29 by enumeration: the likelihood mass of completions the edits explain,
    each completion rebuilt and checked with :func:`is_complete` (``None``: the budget --
    default 300 s -- ran out)."""
    clock = as_clock(budget or Budget(max_seconds=300))
    known, open_ = settle(amrp.possible, edits, answers)
    total = 0.0
    try:
        for realised, _ in completions(open_):
            if _explains(amrp, known, realised, clock):
                total += likelihood(open_, realised)
    except BudgetExhausted:
        return None
    return total


def _all_explained(amrp: AnnotatedMRP, told: Iterable[LabelledEdit], answers: frozenset[Any],
                   clock: BudgetClock) -> bool:
    known, open_ = settle(amrp.possible, told, answers)
    return all(_explains(amrp, known, realised, clock) for realised, _ in completions(open_))


def policy_explains(amrp: AnnotatedMRP, policy: PolicyNode,
                    budget: Budget | BudgetClock | None = None) -> bool | None:
    """Every leaf of ``policy`` explains the plan in every completion consistent with its
    answers (``None``: the budget ran out)."""
    clock = as_clock(budget or Budget(max_seconds=300))

    def walk(node: PolicyNode, told: frozenset[LabelledEdit], answers: frozenset[Any]
             ) -> bool:
        if isinstance(node, Tell):
            return walk(node.then, told | {node.edit}, answers)
        if isinstance(node, Ask):
            feature = node.question.feature
            return walk(node.yes, told, answers | {(feature, True)}) and \
                walk(node.no, told, answers | {(feature, False)})
        assert isinstance(node, Done)
        return _all_explained(amrp, told, answers, clock)

    try:
        return walk(policy, frozenset(), frozenset())
    except BudgetExhausted:
        return None


def _candidates(amrp: AnnotatedMRP, annotation_cost: float) -> list[tuple[LabelledEdit, float]]:
    """The edits a conformant explanation may tell, from the definitions (book §6): every
    known difference towards the robot's model, and every possible feature settled towards
    the robot's truth."""
    mrp = amrp.mrp
    possible = {p.feature for p in amrp.possible}
    robot = model_features(mrp.robot_domain, mrp.robot_problem)
    out = [(LabelledEdit(e, f"{e.op}-known"), 1.0) for e in model_diff(
        mrp.human_domain, mrp.robot_domain, mrp.human_problem, mrp.robot_problem).edits()
        if e.feature not in possible]
    for feature in sorted(possible):
        present = feature in robot
        out.append((LabelledEdit(Edit(feature, "add" if present else "remove"),
                                 "add-annot" if present else "remove-annot"),
                    annotation_cost))
    return out


def _conformant(amrp: AnnotatedMRP, result: ConformantExplanation, clock: BudgetClock
                ) -> CheckReport:
    if not _all_explained(amrp, result.edits, frozenset(), clock):
        return CheckReport(False, "some completion leaves the plan unexplained "
                                  "(robustness below 1)")
    options = _candidates(amrp, result.annotation_cost)
    costs = dict(options)
    unknown = [e for e in result.edits if e not in costs]
    if unknown:
        return CheckReport(False, f"'{unknown[0].text}' is not an edit towards the robot's "
                                  "model")
    bound = (sum(costs[e] for e in result.edits), len(result.edits))
    examined = 0
    for size in range(len(options) + 1):
        for chosen in itertools.combinations(options, size):
            cost = sum(c for _, c in chosen)
            cheaper = cost < bound[0] - 1e-9 or (abs(cost - bound[0]) <= 1e-9
                                                 and size < bound[1])
            if not cheaper:
                continue
            examined += 1
            if _all_explained(amrp, [e for e, _ in chosen], frozenset(), clock):
                return CheckReport(False, "a cheaper edit set is conformant too: "
                                          + "; ".join(e.text for e, _ in chosen))
    return CheckReport(True, f"robustness 1 over {result.completions} completions; no "
                             f"cheaper conformant edit set ({examined} examined)")


def check_uncertain(amrp: AnnotatedMRP, result: Any, budget: Budget) -> CheckReport:
    """The checker for conformant, conditional and anytime results (module docstring)."""
    clock = budget.start()
    if isinstance(result, ConformantExplanation):
        if not result.status.finished:
            return CheckReport(None, "unfinished: no conformant explanation to check")
        return _conformant(amrp, result, clock)
    if isinstance(result, ConditionalExplanation):
        if result.policy is None:
            return CheckReport(None, "unfinished: no policy to check")
        if result.expected_statements is not None and abs(
                expected_statements(result.policy) - result.expected_statements) > 1e-9:
            return CheckReport(False, "the expected number of statements is not the "
                                      "policy's")
        verdict = policy_explains(amrp, result.policy, clock)
        if verdict is None:
            raise BudgetExhausted("the checker's budget ran out")
        return CheckReport(verdict, "every leaf explains the plan in every consistent "
                                    "completion" if verdict else
                           "a leaf leaves the plan unexplained in some consistent "
                           "completion")
    if isinstance(result, AnytimeExplanation):
        if not result.status.finished:
            return CheckReport(None, "unfinished: no explanation to check")
        answers = frozenset((p.feature, a) for p, a in result.questions)
        verdict = _all_explained(amrp, frozenset(result.edits), answers, clock)
        return CheckReport(verdict, "the edits explain the plan in every completion "
                                    "consistent with the answers" if verdict else
                           "the edits do not explain the plan under the answers given")
    raise InputError(f"no reconciliation checker for {type(result).__name__}")
