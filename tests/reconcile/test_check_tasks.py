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


@pytest.mark.parametrize("seed", range(40, 70))
def test_memoised_simplification_builds_the_same_tasks(seed: int) -> None:
    """Each schema's static-fact simplification is memoised across edit sets: asking for
    the edit sets in any order, on one FeatureTasks, gives the tasks a fresh one builds."""
    case = instance(seed)
    if case.mrp is None or not case.differences:
        pytest.skip("no reconciliation problem for this seed")
    mrp = case.mrp
    candidates = _candidates(mrp)
    shared = FeatureTasks(mrp, candidates, Budget(max_seconds=60))
    rng = random.Random(seed)
    for _ in range(8):
        subset = [e for e in candidates if rng.random() < 0.5]
        fresh = FeatureTasks(mrp, candidates, Budget(max_seconds=60)).task(subset)
        again = shared.task(subset)
        assert _readable(again) == _readable(fresh), subset


def _readable(task):  # type: ignore[no-untyped-def]
    """A task with its masks as sets of facts (fact numbering differs between builders)."""
    def atoms(mask: int) -> frozenset[str]:
        return frozenset(str(task.facts[i]) for i in range(len(task.facts)) if mask >> i & 1)

    return (atoms(task.init), atoms(task.goal), atoms(task.goal_neg),
            [(a.name, atoms(a.pre), atoms(a.add), atoms(a.delete), atoms(a.neg_pre), a.cost)
             for a in task.actions])


@pytest.mark.parametrize("seed", range(70, 100))
def test_the_checkers_astar_finds_the_cheapest_cheaper_plan(seed: int) -> None:
    """The checker's A* (certified LM-cut) under a bound answers what blind uniform-cost
    search does (the cheapest plan below the bound, or none): its witnesses are optimal, so
    a verdict never depends on the heuristic beyond pruning."""
    from xaip.planning.engines import get_engine
    from xaip.planning.proofs import cheaper_plan

    case = instance(seed)
    if case.mrp is None or not case.differences:
        pytest.skip("no reconciliation problem for this seed")
    mrp = case.mrp
    candidates = _candidates(mrp)
    tasks = FeatureTasks(mrp, candidates, Budget(max_seconds=60))
    rng = random.Random(seed)
    for _ in range(6):
        task = tasks.task([e for e in candidates if rng.random() < 0.5])
        bound = rng.randint(1, 6)
        status, cost, _ = cheaper_plan(None, None, task, bound, Budget(max_seconds=60))
        blind = get_engine("builtin", search="ucs", heuristic="blind").solve(
            task, optimal=True, cost_bound=bound, budget=Budget(max_seconds=60))
        assert status == str(blind.status)
        assert cost == (None if blind.cost is None else int(blind.cost))
