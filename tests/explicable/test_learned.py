"""The learned distance: on data generated from a known weighting, the fit recovers it and
the ranking; it plugs into explicable planning."""

from __future__ import annotations

import json
import random

import pytest

from xaip.cli import main
from xaip.errors import EXIT_BAD_INPUT, EXIT_OK, InputError
from xaip.explicable.learned import (
    LearnedDistance,
    explicability_features,
    fit_distance,
    read_dataset,
)
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import load_problem
from xaip.planning.search.enumerate import all_plans

from .grids import DOMAIN

FOLDER = DOMAIN.parent
TRUE = {"action": 0.2, "causal": 0.5, "state": 0.3}


@pytest.fixture(scope="module")
def b2():
    return load_problem(DOMAIN, DOMAIN, FOLDER / "b2.pddl", FOLDER / "b2-human.pddl")


def test_features_use_the_nearest_expected_plan(b2) -> None:
    detour = [a.name for a in all_plans(b2.robot_task, None).plans[0]]
    found = explicability_features(b2, detour)
    assert found.nearest[-1] == "put-down c02" and set(found.vector) == set(TRUE)
    with pytest.raises(InputError):
        explicability_features(b2, detour[:2])


def test_fit_recovers_a_known_weighting(b2, tmp_path) -> None:
    rng = random.Random(1)
    plans = all_plans(b2.robot_task, 11).plans
    rows, lines = [], []
    for plan in plans:
        vector = explicability_features(b2, plan).vector
        score = 0.1 + sum(TRUE[f] * vector[f] for f in TRUE) + rng.gauss(0, 0.001)
        rows.append((vector, score))
        lines.append(json.dumps({"domain": DOMAIN.name, "problem": "b2.pddl",
                                 "human_problem": "b2-human.pddl",
                                 "plan": [a.name for a in plan], "score": score}))
    model = fit_distance(rows)
    for name, weight in TRUE.items():
        assert model.weights[name] == pytest.approx(weight, abs=0.05)
    assert model.bias == pytest.approx(0.1, abs=0.05)
    # The ranking: every pair the true weighting separates by more than the noise.
    exact = [sum(TRUE[f] * v[f] for f in TRUE) for v, _ in rows]
    for i, (vi, _) in enumerate(rows):
        for j, (vj, _) in enumerate(rows):
            if exact[i] < exact[j] - 0.01:
                assert model(vi) < model(vj)
    # The same through the dataset format (paths relative to the dataset file).
    (tmp_path / DOMAIN.name).write_text(DOMAIN.read_text())
    for name in ("b2.pddl", "b2-human.pddl"):
        (tmp_path / name).write_text((FOLDER / name).read_text())
    (tmp_path / "data.jsonl").write_text("\n".join(lines[:12]) + "\n")
    again = fit_distance(read_dataset(tmp_path / "data.jsonl"))
    assert again.weights["causal"] == pytest.approx(TRUE["causal"], abs=0.1)
    (tmp_path / "bad.jsonl").write_text('{"plan": []}\n')
    with pytest.raises(InputError, match="bad.jsonl:1"):
        read_dataset(tmp_path / "bad.jsonl")


def test_learned_distance_in_planning(b2, tmp_path, capsys) -> None:
    model = LearnedDistance(TRUE, 0.0)
    result = explicable_plan(b2, "learned", 8, weights=model)
    assert result.verified and result.inexplicability is not None
    path = tmp_path / "model.json"
    model.save(path)
    assert LearnedDistance.load(path) == model
    argv = ["explicable", str(DOMAIN), str(DOMAIN), str(FOLDER / "b2.pddl"), "--human-problem",
            str(FOLDER / "b2-human.pddl"), "--distance", "learned", "--max-cost", "8", "--json"]
    assert main([*argv, "--model", str(path)]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["inexplicability"] == \
        pytest.approx(result.inexplicability)
    assert main(argv) == EXIT_BAD_INPUT
    (tmp_path / "junk.json").write_text("[]")
    assert main([*argv, "--model", str(tmp_path / "junk.json")]) == EXIT_BAD_INPUT


@pytest.mark.parametrize("weights, bias", [
    ({"action": float("nan"), "causal": 1.0, "state": 1.0}, 0.0),
    ({"action": -1.0, "causal": 1.0, "state": 1.0}, 0.0),
    ({"action": 1.0, "causal": 1.0, "state": 1.0}, -0.5),
    ({"action": 1.0, "causal": 1.0}, 0.0),
])
def test_a_model_that_is_no_distance_is_refused(weights, bias) -> None:
    """Issue 22: NaN or negative weights made every distance 0, so IE 0, verified."""
    with pytest.raises(InputError, match="learned distance"):
        LearnedDistance(weights, bias)


def test_a_negative_weight_in_a_file_is_refused(tmp_path) -> None:
    path = tmp_path / "m.json"
    path.write_text('{"weights": {"action": -3, "causal": 1, "state": 1}, "bias": 0}')
    with pytest.raises(InputError, match="action must be a finite number >= 0"):
        LearnedDistance.load(path)
    path.write_text('{"weights": [], "bias": 0}')
    with pytest.raises(InputError, match="weights"):
        LearnedDistance.load(path)
