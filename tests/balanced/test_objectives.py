"""Input checks of balanced problems: clear one-line errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from xaip.balanced import Penalty, Weights, balanced_problem, read_explanation_costs
from xaip.balanced.instances import usar_files, usar_problem
from xaip.balanced.objectives import feature_name
from xaip.errors import InputError


@pytest.mark.parametrize("name", ["alpha", "beta", "gamma"])
def test_negative_weights(name: str) -> None:
    with pytest.raises(InputError, match=f"weight {name} must not be negative"):
        Weights(**{name: -0.5})


def test_non_finite_weight() -> None:
    with pytest.raises(InputError, match="finite"):
        Weights(alpha=math.inf)


def test_unknown_objective_and_penalty() -> None:
    with pytest.raises(InputError, match="unknown objective 'cheapest'"):
        usar_problem("cheapest")
    with pytest.raises(InputError, match="unknown penalty 'square'"):
        usar_problem(penalty="square")


def test_costs_name_known_features() -> None:
    with pytest.raises(InputError, match="names no difference.*init \\(clear p2 p3\\)"):
        usar_problem(explanation_costs={"init (clear p9 p1)": 2})
    with pytest.raises(InputError, match="non-negative"):
        usar_problem(explanation_costs={"init (clear p2 p3)": -1})
    with pytest.raises(InputError, match="communication cost"):
        usar_problem(communication_cost=-3)


def test_costs_by_name_or_sentence() -> None:
    problem = usar_problem(explanation_costs={"INIT (clear p2 p3)": 7,
                                              "Initially (clear p16 p17) does not hold": 2})
    prices = {feature_name(e.feature): c
              for e, c in zip(problem.differences, problem.edit_costs, strict=True)}
    assert prices == {"init (clear p2 p3)": 7.0, "init (clear p16 p17)": 2.0}


def test_cost_file(tmp_path: Path) -> None:
    assert read_explanation_costs(usar_files()["costs"]) == {
        "init (clear p2 p3)": 50, "init (clear p16 p17)": 50}
    bad = tmp_path / "costs.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="invalid JSON"):
        read_explanation_costs(bad)
    bad.write_text(json.dumps([1, 2]))
    with pytest.raises(InputError, match="JSON object"):
        read_explanation_costs(bad)
    with pytest.raises(InputError, match="no such file"):
        read_explanation_costs(tmp_path / "missing.json")


def test_penalties() -> None:
    assert Penalty.named("exp")(2) == pytest.approx(math.exp(2))
    assert Penalty.named("exp-1")(0) == 0
    assert Penalty.named("linear")(math.inf) == math.inf


def test_different_vocabularies_are_rejected() -> None:
    from xaip.planning.pddl import parse_domain, read_problem

    files = usar_files()
    other = parse_domain("(define (domain usar-balanced) (:requirements :strips) "
                         "(:predicates (at ?w) (clear ?a ?b) (rubble ?a ?b) (lit)) "
                         "(:action move :parameters (?a ?b) :precondition (at ?a) "
                         ":effect (at ?b)))")
    from xaip.planning.pddl import read_domain

    with pytest.raises(InputError):
        balanced_problem(read_domain(files["robot"]), read_problem(files["problem"]), other)
