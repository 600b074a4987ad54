"""Lies by model reconciliation: opt-in only, labelled, never larger than the MCE, strictly
smaller on a crafted instance, omission-only mode only removes."""

from __future__ import annotations

from pathlib import Path

import pytest

from xaip.errors import InputError
from xaip.observers.lies import lie
from xaip.planning import parse_domain, parse_problem
from xaip.reconcile import explain, load_mrp, make_mrp
from xaip.runtime import Budget, Status

ROBOT = """
(define (domain courier)
  (:requirements :strips :typing)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place) (ferry ?a ?b - place) (ticket)
               (office-open) (calm))
  (:action drive :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b)) :effect (and (at ?b) (not (at ?a))))
  (:action buy-ticket :parameters () :precondition (office-open) :effect (ticket))
  (:action sail :parameters (?a ?b - place)
    :precondition (and (at ?a) (ferry ?a ?b) (ticket))
    :effect (and (at ?b) (not (at ?a)))))
"""
# The person does not know that the ferry needs a ticket, nor that the ticket office is
# closed: the truth takes both facts (with only the first, buying a ticket and sailing
# still beats driving), a lie takes one ("the ferry does not go there", or an invented
# precondition of sailing).
HUMAN = ROBOT.replace("(ferry ?a ?b) (ticket))", "(ferry ?a ?b))").replace(
    ":precondition (office-open)", ":precondition ()")
PROBLEM = """
(define (problem trip) (:domain courier)
  (:objects home m1 m2 dest - place)
  (:init (at home) (road home m1) (road m1 m2) (road m2 dest) (ferry home dest))
  (:goal (at dest)))
"""


def _courier():
    problem = parse_problem(PROBLEM)
    return make_mrp(parse_domain(ROBOT), problem, parse_domain(HUMAN), problem)


def test_lies_need_the_explicit_opt_in():
    with pytest.raises(InputError, match="allow_untruthful=True"):
        lie(_courier())


def test_lie_is_strictly_smaller_than_the_mce_on_the_crafted_instance():
    mrp = _courier()
    mce = explain(mrp, "mce")
    assert len(mce.edits) == 2
    result = lie(mrp, allow_untruthful=True)
    assert result.status == Status.FOUND and result.verified
    assert len(result.edits) == 1 < len(mce.edits) == result.mce_size
    assert result.untruthful and result.true == (False,)
    data = result.to_dict()
    assert data["label"] == "untruthful" and "UNTRUTHFUL" in data["warning"]
    assert data["edits"][0]["true"] is False


def test_omission_only_lies_only_remove():
    mrp = _courier()
    result = lie(mrp, allow_untruthful=True, omission_only=True)
    assert result.verified and result.edits
    assert all(e.op == "remove" for e in result.edits)
    assert len(result.edits) == 1


#: The bundled Fetch robot (book ch. 5): always shipped, so never a reason to skip.
FETCH = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "fetch"


def test_never_larger_than_the_mce_on_fetch():
    mrp = load_mrp(FETCH / "robot.pddl", FETCH / "human.pddl", FETCH / "problem.pddl")
    result = lie(mrp, allow_untruthful=True, budget=Budget(max_seconds=120))
    assert result.status == Status.FOUND and result.verified
    assert result.mce_size is not None and len(result.edits) <= result.mce_size


def test_a_truthful_answer_is_labelled_as_such():
    # when the robot and the person agree except for one needed fact and no lie is
    # shorter, the minimal edit set may be the truth: the label says so
    robot = ROBOT
    human = ROBOT.replace("(ferry ?a ?b) (ticket))", "(ferry ?a ?b))")
    problem = parse_problem(PROBLEM)
    mrp = make_mrp(parse_domain(robot), problem, parse_domain(human), problem)
    result = lie(mrp, allow_untruthful=True)
    assert len(result.edits) == 1 and result.verified


def test_one_node_budget_is_unfinished():
    result = lie(_courier(), allow_untruthful=True, budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


@pytest.mark.parametrize("seed", range(8))
def test_random_human_models_lie_no_larger_than_mce(seed):
    """The person's model misses 1-3 random features of the robot's: a lie is never larger
    than the MCE, and an omission-only lie (when one exists) only removes."""
    import random

    from xaip.planning.features import Edit, FeatureKind, model_features
    from xaip.planning.features.apply import apply_edits
    from xaip.planning.pddl.writer import write_domain

    rng = random.Random(seed)
    robot, problem = parse_domain(ROBOT), parse_problem(PROBLEM)
    droppable = sorted(f for f in model_features(robot) if f.kind in (
        FeatureKind.PRECONDITION, FeatureKind.ADD_EFFECT, FeatureKind.DELETE_EFFECT))
    dropped = rng.sample(droppable, rng.randint(1, 3))
    human, _ = apply_edits(robot, None, [Edit(f, "remove") for f in dropped])
    try:
        mrp = make_mrp(robot, problem, parse_domain(write_domain(human)), problem)
        mce = explain(mrp, "mce")
    except InputError:
        pytest.skip("no explanation needed or possible for this draw")
    result = lie(mrp, allow_untruthful=True, compare_mce=False)
    assert result.verified and len(result.edits) <= len(mce.edits)
    omitted = lie(mrp, allow_untruthful=True, omission_only=True, compare_mce=False)
    if omitted.status == Status.NO_EXPLANATION:
        assert omitted.edits == () and not omitted.verified
        return
    assert omitted.verified and all(e.op == "remove" for e in omitted.edits)


def test_no_omission_lie_is_a_negative_answer_not_an_error():
    mrp = load_mrp(FETCH / "robot.pddl", FETCH / "human.pddl", FETCH / "problem.pddl")
    result = lie(mrp, allow_untruthful=True, omission_only=True)
    assert result.status == Status.NO_EXPLANATION and result.edits == ()
    assert not result.verified and result.check is not None and result.check.ok is None
    data = result.to_dict()
    assert data["label"] == "untruthful" and data["status"] == "no_explanation"
