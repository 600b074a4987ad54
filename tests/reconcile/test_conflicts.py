"""Conflicts of MCE's search: sound by brute force over supersets, and the MCE they give
is as cheap as Algorithm 5's and as brute force's (also on the benchmark's scaling series).
"""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from xaip.errors import InputError
from xaip.planning.features import Edit, FeatureKind, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.pddl.model import Domain, Problem
from xaip.reconcile import Explainer, make_mrp
from xaip.reconcile.checks import brute_force_complete, is_complete
from xaip.reconcile.conflicts import Conflicts
from xaip.reconcile.problem import MRP
from xaip.reconcile.search import mce_search
from xaip.runtime import Budget

MRP_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp"

# blocksworld with a negative precondition and action costs, so every conflict rule runs
BLOCKS = """
(define (domain blocks) (:requirements :strips :negative-preconditions :action-costs)
  (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x) (sticky ?x))
  (:functions (total-cost))
  (:action pick-up :parameters (?x)
    :precondition (and (clear ?x) (ontable ?x) (handempty) (not (sticky ?x)))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)
                 (increase (total-cost) 1)))
  (:action put-down :parameters (?x)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)
                 (increase (total-cost) 1)))
  (:action stack :parameters (?x ?y)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)
                 (increase (total-cost) 2)))
  (:action unstack :parameters (?x ?y)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y))
                 (increase (total-cost) 1))))
"""

PROBLEM = """
(define (problem p) (:domain blocks) (:objects a b c)
  (:init (on c a) (ontable a) (ontable b) (clear c) (clear b) (handempty) (sticky c)
         (= (total-cost) 0))
  (:goal (and (on a b) (on b c))) (:metric minimize (total-cost)))
"""


def _without(domain: Domain, rng: random.Random, k: int) -> Domain:
    features = sorted(f for f in model_features(domain) if f.kind is not FeatureKind.COST)
    chosen = rng.sample(features, min(k, len(features)))
    out, _ = apply_edits(domain, None, [Edit(f, "remove") for f in chosen])
    return out


def _blocks_mrp(seed: int) -> MRP | None:
    """Both models drop features of one domain: edits go both ways (add and remove)."""
    rng = random.Random(seed)
    text = BLOCKS if seed % 2 else BLOCKS.replace("(not (sticky ?x))", "")  # STRIPS too
    base = parse_domain(text)
    robot = _without(base, rng, rng.randint(0, 2))
    human = _without(base, rng, rng.randint(1, 4))
    try:
        return make_mrp(robot, parse_problem(PROBLEM), human)
    except InputError:  # no robot plan, or nothing differs
        return None


def _scaling_mrp(name: str, k: int, seed: int) -> MRP:
    """The benchmark's scaling instance (benchmarks/reconcile.py: ``scaling``)."""
    robot = read_domain(MRP_DATA / name / "original_domain.pddl")
    problem: Problem = read_problem(MRP_DATA / name / "prob1.pddl")
    features = sorted(f for f in model_features(robot) if f.kind is not FeatureKind.COST)
    removed = random.Random(1000 * k + seed).sample(features, min(k, len(features)))
    human, _ = apply_edits(robot, None, [Edit(f, "remove") for f in removed])
    return make_mrp(robot, problem, human)


def _supersets(base: tuple[int, ...], free: list[int]):  # type: ignore[no-untyped-def]
    for n in range(len(free) + 1):
        for extra in itertools.combinations(free, n):
            yield tuple(sorted((*base, *extra)))


def _assert_sound(explainer: Explainer, limit: int) -> int:
    """Every superset of a node that avoids the node's conflict fails the goal test."""
    space, test = explainer.space, explainer.optimal
    conflicts = Conflicts(space, explainer.plan)
    everything = list(range(len(space.candidates)))
    checked = 0
    for size in range(len(everything) + 1):
        for subset in itertools.combinations(everything, size):
            verdict = test(subset)
            conflict = conflicts(subset, verdict)
            if conflict is None:
                continue
            free = [i for i in everything if i not in subset and i not in conflict]
            if len(free) > limit:
                continue
            for other in _supersets(subset, free):
                assert not test(other).explained, (subset, conflict, other)
                checked += 1
    return checked


@pytest.mark.parametrize("seed", range(24))
def test_conflicts_are_sound_on_random_blocksworld(seed: int) -> None:
    mrp = _blocks_mrp(seed)
    if mrp is None:
        pytest.skip("no reconciliation problem for this seed")
    explainer = Explainer(mrp)
    if len(explainer.space.candidates) > 8:
        pytest.skip("too many edits to enumerate")
    _assert_sound(explainer, limit=8)


@pytest.mark.parametrize("seed", range(24))
def test_mce_with_conflicts_is_minimal_on_random_blocksworld(seed: int) -> None:
    mrp = _blocks_mrp(seed)
    if mrp is None:
        pytest.skip("no reconciliation problem for this seed")
    explainer = Explainer(mrp)
    space = explainer.space
    mce = mce_search(space, explainer.optimal, explainer.plan, Budget())
    old = mce_search(space, explainer.optimal, explainer.plan, Budget(), use_conflicts=False)
    assert mce.status == old.status == "found"
    assert len(mce.subset) == len(old.subset)
    # brute force with the independent checker (fresh grounding, no compiled space)
    everything = range(len(space.candidates))
    for size in range(len(mce.subset)):
        for subset in itertools.combinations(everything, size):
            assert brute_force_complete(mrp, space.edits(subset)).complete is False
    assert brute_force_complete(mrp, space.edits(mce.subset)).complete is True


needs_data = pytest.mark.skipif(not MRP_DATA.is_dir(), reason="shared data not found")


@needs_data
@pytest.mark.parametrize(("name", "k", "seed"), [
    ("logistics", 4, 1), ("logistics", 6, 2), ("logistics", 9, 0), ("rover", 6, 1),
    ("rover", 10, 2)])
def test_scaling_instances_against_brute_force(name: str, k: int, seed: int) -> None:
    """The scaling series' small instances: conflicts sound, MCE size = brute force's."""
    explainer = Explainer(_scaling_mrp(name, k, seed))
    space, test = explainer.space, explainer.optimal
    _assert_sound(explainer, limit=4)
    mce = mce_search(space, test, explainer.plan, Budget())
    everything = range(len(space.candidates))
    smallest = next(size for size in range(len(space.candidates) + 1)
                    for subset in itertools.combinations(everything, size)
                    if test(subset).explained)
    assert len(mce.subset) == smallest
    # the independent checker: fresh grounding of the updated lifted model, its own A*
    assert is_complete(explainer.mrp, space.edits(mce.subset)).complete is True


@needs_data
@pytest.mark.parametrize(("name", "k", "seed"), [
    ("logistics", 8, 0), ("logistics", 10, 1), ("logistics", 12, 2), ("rover", 10, 2),
    ("rover", 14, 0)])
def test_scaling_instances_match_algorithm_5(name: str, k: int, seed: int) -> None:
    """Larger instances: the conflict search's MCE is as small as Algorithm 5's (whose
    minimality the brute-force tests establish) in far fewer nodes."""
    explainer = Explainer(_scaling_mrp(name, k, seed))
    space, test = explainer.space, explainer.optimal
    mce = mce_search(space, test, explainer.plan, Budget())
    old = mce_search(space, test, explainer.plan, Budget(), use_conflicts=False)
    assert mce.status == old.status == "found"
    assert len(mce.subset) == len(old.subset)
    assert test(mce.subset).explained
    assert mce.nodes <= old.nodes
