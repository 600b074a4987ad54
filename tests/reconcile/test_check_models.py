"""The checker's per-check memo of updated models (``xaip.reconcile.check_models``).

A proof kept for one bound answers another only where the definitions say so; every
answer must equal a fresh search's, and the checker must still refuse wrong answers that
meet the memo: an empty answer where the plan is not optimal for the person, a wrong
claimed optimum before, an empty contrastive answer a foil beats, a non-minimal MCE.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

import pytest

from xaip.planning.features import model_diff
from xaip.planning.proofs import cheaper_plan
from xaip.reconcile import check, explain, parse_foil
from xaip.reconcile.check_models import CheckModels, updated
from xaip.runtime import Budget

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.differential.reconcile import instance  # noqa: E402

BUDGET = Budget(max_seconds=60)


def _cases(count: int, wanted: int):  # type: ignore[no-untyped-def]
    """Random MRPs of the differential generator that have differences."""
    found = []
    for seed in range(count):
        case = instance(seed)
        if case.mrp is not None and case.differences:
            found.append(case)
        if len(found) == wanted:
            break
    return found


@pytest.mark.parametrize("seed", range(12))
def test_a_kept_proof_answers_every_bound_as_a_fresh_search(seed: int) -> None:
    case = _cases(200, 12)[seed]
    mrp = case.mrp
    edits = list(model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                            mrp.robot_problem).edits())
    rng = random.Random(seed)
    for subset in ([], edits, rng.sample(edits, len(edits) // 2)):
        domain, problem = updated(mrp, subset)
        fresh = {bound: cheaper_plan(domain, problem, None, bound, BUDGET)[:2]
                 for bound in (None, *range(0, 9))}
        for first in fresh:  # whatever bound the first proof was made under
            models = CheckModels(mrp)
            models.cheaper(subset, first, BUDGET)
            for bound, want in fresh.items():
                assert models.cheaper(subset, bound, BUDGET)[:2] == want, (first, bound)


def test_no_edits_is_the_persons_model_as_given() -> None:
    case = _cases(50, 1)[0]
    models = CheckModels(case.mrp)
    assert models.model(()) == (case.mrp.human_domain, case.mrp.human_problem)
    assert models.model(()) == updated(case.mrp, ())


def _answers(kind: str, count: int = 6, empty: bool = False):  # type: ignore[no-untyped-def]
    """(mrp, answer) for random instances whose verified ``kind`` answer has edits (none
    with ``empty``)."""
    out = []
    for seed in range(400):
        case = instance(seed)
        if case.mrp is None or not case.differences:
            continue
        options = {"foils": [parse_foil(f"{case.foil[0]}:{case.foil[1]}")]} \
            if kind == "contrastive" else {}
        try:
            answer = explain(case.mrp, kind, budget=BUDGET, **options)
        except Exception:  # noqa: BLE001 - no explanation of this type: not a case
            continue
        if bool(answer.edits) != empty and answer.verified:
            out.append((case.mrp, answer))
        if len(out) == count:
            break
    assert out
    return out


@pytest.mark.parametrize("kind", ["mce", "contrastive"])
def test_an_empty_answer_where_one_is_needed_is_refused(kind: str) -> None:
    for mrp, answer in _answers(kind):
        wrong = dataclasses.replace(answer, edits=())
        report = check(mrp, wrong, BUDGET)
        assert report.ok is False, report.details


@pytest.mark.parametrize("empty", [False, True])
def test_a_wrong_optimum_before_is_refused_and_does_not_mislead_the_rest(empty: bool
                                                                          ) -> None:
    tried = 0
    for mrp, answer in _answers("mce", 10, empty=empty):
        optimum = answer.human_optimal_cost_before
        if optimum is None:  # the person has no plan at all: no optimum is claimed
            continue
        tried += 1
        for claimed in (optimum - 1, optimum + 1):
            report = check(mrp, dataclasses.replace(answer, human_optimal_cost_before=claimed),
                           BUDGET)
            assert report.ok is False and "optimal cost before" in report.details
        assert check(mrp, answer, BUDGET).ok is True
    assert tried


def test_a_non_minimal_mce_is_refused() -> None:
    refused = 0
    for mrp, answer in _answers("mce", 10):
        everything = list(model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                                     mrp.robot_problem).edits())
        if len(everything) == len(answer.edits):
            continue
        # the whole difference explains the plan too (when it does) but is not minimal
        report = check(mrp, dataclasses.replace(answer, edits=tuple(everything)), BUDGET)
        assert report.ok is False, report.details
        refused += 1
    assert refused


@pytest.mark.parametrize("seed", range(10))
def test_edit_sets_with_the_same_toggled_task_get_that_tasks_verdict(seed: int) -> None:
    """The session answers an edit set whose toggled task equals an earlier one's with the
    earlier verdict, and the person's model before from the proof of her optimum: each
    must be what a search on that edit set's own task says."""
    import itertools

    from xaip.reconcile.check_explanation import _check_before, _Session
    from xaip.reconcile.check_tasks import FeatureTasks, complete_on_task

    mrp, answer = _answers("mme", 10, empty=seed % 2 == 0)[seed // 2]
    session = _Session(mrp, answer, BUDGET)
    candidates, _ = session.candidates()
    if session.tasks() is None:
        pytest.skip("not toggled")
    assert _check_before(session) is None  # keeps the proof of her optimum before
    # the kept proof the nodes ask first (none when the person has no plan at all)
    assert bool(session._proofs) == (answer.human_optimal_cost_before is not None)  # noqa: SLF001
    fresh = FeatureTasks(mrp, candidates, BUDGET)
    for size in range(len(candidates) + 1):
        for subset in itertools.combinations(candidates, size):
            got = session.node(list(subset), quick=False)
            want = complete_on_task(fresh.task(list(subset)), mrp.plan_names, BUDGET,
                                    answer.engine, quick=False)
            assert (got.complete, got.valid, got.plan_cost) == want[:3], subset


def test_wrong_mme_answers_are_refused() -> None:
    refused = 0
    for mrp, answer in _answers("mme", 8):
        everything = list(model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                                     mrp.robot_problem).edits())
        for wrong in (answer.edits[1:], tuple(everything)):
            if set(wrong) == set(answer.edits):
                continue
            report = check(mrp, dataclasses.replace(answer, edits=tuple(wrong)), BUDGET)
            assert report.ok is False, report.details
            refused += 1
    assert refused


def test_a_contrastive_answer_is_judged_on_its_toggled_task_as_on_a_fresh_grounding(
        ) -> None:
    """Every edit set of the answer's size replacing a contrastive answer: the check (its
    claim on the toggled task, the plan validated on the PDDL) accepts it exactly when a
    fresh grounding of its updated model says the plan is valid and no foil cheaper (all
    such sets are minimal: none smaller explains, and every edit costs 1)."""
    import itertools

    from xaip.reconcile.checks import contrastive_verdict

    judged = 0
    for mrp, answer in _answers("contrastive", 8):
        everything = list(model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                                     mrp.robot_problem).edits())
        for other in itertools.combinations(everything, len(answer.edits)):
            report = check(mrp, dataclasses.replace(answer, edits=other), BUDGET)
            fresh, _, _ = contrastive_verdict(mrp, list(other), answer.foils, BUDGET)
            assert report.ok is fresh, (other, report.details)
            if fresh:
                assert "features toggled" in report.details
            judged += 1
    assert judged > 8
