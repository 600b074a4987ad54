"""Environment design: the book's restaurant numbers, pruning against the unpruned
optimum on random small design problems, and the T = 1 / one-task reductions."""

from __future__ import annotations

import json

import pytest

from xaip.errors import InputError
from xaip.explicable.design import design_search, evaluate, load_design, restaurant_spec
from xaip.runtime import Budget, Status

from .grids import random_design

BARRIERS = ["barrier c00-c01", "barrier c01-c11", "barrier c01-c02", "barrier c10-c11",
            "barrier c11-c21", "barrier c11-c12"]


def best_with(spec, size: int) -> float:
    """The lowest objective among designs of exactly ``size`` modifications."""
    import itertools

    return min(evaluate(spec, frozenset(s)).objective
               for s in itertools.combinations(range(len(spec.modifications)), size))


@pytest.mark.parametrize(("setting", "objective", "one_barrier"),
                         [("a", 8.0, 9.0), ("b", 8.5, 10.5)])
def test_one_shot_settings_choose_no_design(setting: str, objective: float,
                                            one_barrier: float) -> None:
    spec = load_design(restaurant_spec(), setting)
    result = design_search(spec)
    assert result.design == () and result.verified
    assert result.objective == pytest.approx(objective)
    assert result.baseline_objective == pytest.approx(objective)
    assert best_with(spec, 1) == pytest.approx(one_barrier)


def test_longitudinal_setting_chooses_two_barriers() -> None:
    result = design_search(load_design(restaurant_spec(), "c"))
    assert result.status == Status.COMPLETE and result.verified, result.check
    assert len(result.design) == 2 and set(result.design) <= set(BARRIERS)
    assert result.objective == pytest.approx(71.0)
    assert result.baseline_objective == pytest.approx(78.0, abs=0.05)
    assert all(task.inexplicability == 0 for task in result.tasks)
    payload = json.loads(json.dumps(result.to_dict()))
    assert {"design", "objective", "baseline_objective", "status", "verified",
            "seconds"} <= set(payload)


@pytest.mark.parametrize("seed", range(8))
def test_pruning_keeps_the_optimum(tmp_path, seed: int) -> None:
    spec = load_design(random_design(tmp_path, seed))
    pruned = design_search(spec, prune=True, check=False)
    full = design_search(spec, prune=False, check=False)
    assert pruned.objective == pytest.approx(full.objective)
    assert len(pruned.design) == len(full.design)


def test_horizon_one_is_the_multi_task_objective(tmp_path) -> None:
    spec = load_design(random_design(tmp_path, 3, horizon=1))
    for design in (frozenset(), frozenset({0})):
        value = evaluate(spec, design)
        surprise = sum(o.probability * o.inexplicability for o in value.outcomes)
        cost = sum(o.probability * o.robot_cost for o in value.outcomes)
        assert value.objective == pytest.approx(surprise + value.design_cost + cost)
    single = load_design(restaurant_spec(), "a")
    outcome = evaluate(single, frozenset()).outcomes[0]
    assert evaluate(single, frozenset()).objective == \
        pytest.approx(outcome.inexplicability + outcome.robot_cost)  # eq. 3.1, α=β=γ=1


def test_budget_and_bad_specs(tmp_path) -> None:
    unfinished = design_search(load_design(restaurant_spec(), "c"), budget=Budget(max_nodes=1))
    assert unfinished.status == Status.BUDGET_EXHAUSTED and not unfinished.verified
    with pytest.raises(InputError, match="setting"):
        load_design(restaurant_spec(), "z")
    data = json.loads(restaurant_spec().read_text())
    folder = restaurant_spec().parent
    data["robot_domain"] = data["human_domain"] = str(folder / "domain.pddl")
    for task in data["tasks"]:
        task["problem"] = str(folder / task["problem"])
        task["human_problem"] = str(folder / task["human_problem"])
    bad = dict(data, modifications=[{"name": "paint", "cost": 1,
                                     "human_init_remove": ["(painted c00)"]}])
    with pytest.raises(InputError, match="unknown predicate"):
        load_design(bad)
    bad = dict(data, modifications=[{"name": "x", "cost": 1, "teleport": ["(at c00)"]}])
    with pytest.raises(InputError, match="unknown field"):
        load_design(bad)
    bad = dict(data, modifications=[{"name": "x", "human_init_remove": ["(at c99)"]}])
    with pytest.raises(InputError, match="unknown object"):
        load_design(bad)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(InputError, match="invalid JSON"):
        load_design(tmp_path / "broken.json")


def test_pruning_keeps_a_removal_that_changes_a_goal_fact(tmp_path) -> None:
    """Differential seed 52: removing goal facts from the person's initial state made the
    task dearer for them, hence the robot's plan less surprising; pruning (preconditions
    only) dropped it and the pruned search missed the optimum (its checker refused it)."""
    from tests.differential.explicable import _check_design, _write, generate

    instance = generate(52)
    _write(tmp_path, instance)
    assert _check_design(tmp_path, instance) is None
    spec = load_design(tmp_path / "design.json")
    pruned, every = design_search(spec), design_search(spec, prune=False)
    assert pruned.design == every.design == ("m1",) and pruned.objective == 1.5
    assert pruned.verified
