"""The labelling model: oracle labeller, plan selection and synthesis."""

from __future__ import annotations

import pytest

from xaip.explicable.labels import (
    MajorityLabeller,
    RuleLabeller,
    label_ie,
    labels_of,
    select_plan,
    synthesize,
)
from xaip.explicable.problem import load_problem
from xaip.planning.search.enumerate import top_k_plans
from xaip.runtime import Budget, Status

from .grids import DOMAIN

FOLDER = DOMAIN.parent


@pytest.fixture(scope="module")
def b1():
    return load_problem(DOMAIN, DOMAIN, FOLDER / "b1.pddl", FOLDER / "b1-human.pddl")


def serve_rule(avoid: str):
    """An oracle: picking up and putting down serve the task; moves serve it unless they
    enter ``avoid``."""
    def rule(action, state):
        if action.schema == "move":
            return set() if action.args[1] == avoid else {"go-to-booth"}
        return {"serve"}
    return RuleLabeller(rule)


def test_label_ie() -> None:
    assert label_ie([frozenset({"a"}), frozenset(), frozenset({"b"}), frozenset()]) == 0.5
    assert label_ie([]) == 0.0


def test_selection_is_no_worse_than_any_candidate(b1) -> None:
    labeller = serve_rule("c21")
    candidates = top_k_plans(b1.robot_task, 15).plans
    result = select_plan(b1, labeller, candidates)
    assert result.verified, result.check
    for plan in candidates:
        assert result.inexplicability <= label_ie(labels_of(b1.robot_task, labeller, plan))


@pytest.mark.parametrize("avoid", ["c21", "c00", "c22"])
def test_synthesis_avoids_unlabelled_steps_when_possible(b1, avoid: str) -> None:
    result = synthesize(b1, serve_rule(avoid))
    assert result.status == Status.FOUND and result.verified, result.check
    # Entering c21 or c22 cannot be avoided (the robot's only way round); c00 can.
    if avoid == "c00":
        assert result.inexplicability == 0
    else:
        assert result.inexplicability > 0


def test_majority_labeller_and_budget(b1) -> None:
    labeller = MajorityLabeller().fit([
        (["pick-up c10", "move c10 c20", "move c20 c21", "put-down c12"],
         [["serve"], ["go"], [], ["serve"]]),
        (["move c10 c00"], [["go"]]),
    ])
    plan = top_k_plans(b1.robot_task, 1).plans[0]
    labels = labels_of(b1.robot_task, labeller, plan)
    assert labels[0] == {"serve"} and labels[2] == frozenset()
    assert labels[3] == {"go"}  # an unseen move: its schema's most frequent label
    assert synthesize(b1, labeller, budget=Budget(max_nodes=1)).status == \
        Status.BUDGET_EXHAUSTED
