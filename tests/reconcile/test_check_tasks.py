"""The checker's toggled tasks (:mod:`xaip.reconcile.check_tasks`) against fresh groundings.

Issue 21 (checker speed): the checker's proofs build ``H + S`` by interpreting feature sets
on one relaxed grounding instead of writing PDDL and grounding it again. These tests hold
that shortcut to the slow definition: on random MRPs and random edit sets, the plan's
validity, its cost and whether it is optimal agree with ``is_complete`` (lifted PDDL,
validation, fresh grounding); models with parts that are not features are not toggled.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from xaip.planning.features import model_diff
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.reconcile import check, explain, make_mrp
from xaip.reconcile.check_tasks import FeatureTasks, complete_on_task, contrastive_on_task, usable
from xaip.reconcile.checks import contrastive_verdict, is_complete
from xaip.reconcile.goals import Foil
from xaip.runtime import Budget

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.differential.reconcile import instance  # noqa: E402

FETCH = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "fetch"


def _candidates(mrp):  # type: ignore[no-untyped-def]
    return list(model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                           mrp.robot_problem).edits())


@pytest.mark.parametrize("seed", range(40))
def test_toggled_tasks_agree_with_fresh_groundings(seed: int) -> None:
    case = instance(seed)
    if case.mrp is None or not case.differences:
        pytest.skip("no reconciliation problem for this seed")
    mrp = case.mrp
    candidates = _candidates(mrp)
    assert usable(mrp, candidates)
    tasks = FeatureTasks(mrp, candidates, Budget(max_seconds=60))
    rng = random.Random(seed)
    for _ in range(6):
        subset = [e for e in candidates if rng.random() < 0.5]
        slow = is_complete(mrp, subset, Budget(max_seconds=60))
        for quick in (True, False):
            complete, valid, cost, _, cheaper = complete_on_task(
                tasks.task(subset), mrp.plan_names, Budget(max_seconds=60), "default", quick)
            assert (complete, valid) == (slow.complete, slow.valid), (subset, slow)
            assert cost == slow.plan_cost
            assert (cheaper is not None) == (slow.valid and not slow.complete)
        kind, name = case.foil
        foil = Foil(kind, action=name)
        want = contrastive_verdict(mrp, subset, [foil], Budget(max_seconds=60))[0]
        got = contrastive_on_task(tasks.task(subset), mrp.plan_names, [foil],
                                  Budget(max_seconds=60))[0]
        assert got == want, (subset, kind, name)


def test_models_with_parts_that_are_not_features_are_not_toggled() -> None:
    robot = parse_domain("""(define (domain d) (:requirements :strips :conditional-effects)
      (:predicates (p) (q) (r))
      (:action a :parameters () :precondition (p) :effect (and (q) (when (q) (r)))))""")
    human = parse_domain("""(define (domain d) (:requirements :strips :conditional-effects)
      (:predicates (p) (q) (r))
      (:action a :parameters () :precondition (and) :effect (and (q) (when (q) (r)))))""")
    problem = parse_problem("(define (problem x) (:domain d) (:init (p)) (:goal (q)))")
    mrp = make_mrp(robot, problem, human, problem)
    assert not usable(mrp, _candidates(mrp))
    # ... and the checker still checks them (on fresh groundings)
    result = explain(mrp, "mce", budget=Budget(max_seconds=60))
    assert result.verified and check(mrp, result).ok is True


def test_the_bundled_fetch_mce_is_checked_on_toggled_tasks() -> None:
    from xaip.reconcile import load_mrp

    mrp = load_mrp(FETCH / "robot.pddl", FETCH / "human.pddl", FETCH / "problem.pddl")
    assert usable(mrp, _candidates(mrp))
    result = explain(mrp, "mce", budget=Budget(max_seconds=60))
    report = check(mrp, result, Budget(max_seconds=60))
    assert report.ok is True and "minimal" in report.details
