"""Design specs with wrong JSON types (issue 22): every field, every wrong type, one-line
bad input or an answer -- never another exception (the CLI's exit 3)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from copy import deepcopy
from typing import Any

import pytest

from xaip.cli import main
from xaip.errors import EXIT_BAD_INPUT, InputError
from xaip.explicable.design import design_search, load_design, restaurant_spec
from xaip.runtime import Budget

#: Values of every JSON type (and a few out-of-range numbers) put in place of each field.
CONFUSED: tuple[Any, ...] = (None, [], {}, "x", "", 0, -1, 1.5, True, 2**70, [1], {"a": 1},
                             ["(open c00 c01)"])


def small_spec() -> dict[str, Any]:
    """The restaurant with absolute paths, one setting and three modifications."""
    data = json.loads(restaurant_spec().read_text())
    folder = restaurant_spec().parent
    data["robot_domain"] = str(folder / data["robot_domain"])
    data["human_domain"] = str(folder / data["human_domain"])
    for task in data["tasks"]:
        task["problem"] = str(folder / task["problem"])
        task["human_problem"] = str(folder / task["human_problem"])
    data["modifications"] = data["modifications"][:3]
    data["settings"] = {"a": data["settings"]["a"]}
    return data


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every place in a JSON value (object keys and list positions), outermost first."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*prefix, key)
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield (*prefix, index)
            yield from paths(item, (*prefix, index))


def replaced(data: dict[str, Any], where: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = deepcopy(data)
    node = out
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return out


def attempt(data: Any, setting: str | None = None) -> str:
    """'bad input', 'answer' (a finished or budget-limited search), never an exception."""
    try:
        spec = load_design(data, setting)
    except InputError as error:
        assert "\n" not in str(error), str(error)
        return "bad input"
    design_search(spec, budget=Budget(max_nodes=400))
    return "answer"


def test_every_field_with_every_wrong_type() -> None:
    data = small_spec()
    outcomes: dict[str, int] = {}
    places = list(paths(data))
    assert len(places) > 40
    for where in places:
        for value in CONFUSED:
            for setting in (None, "a"):
                outcome = attempt(replaced(data, where, value), setting)
                outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert outcomes["bad input"] > 0 and outcomes["answer"] > 0


@pytest.mark.parametrize("field", ["robot_domain", "human_domain", "tasks", "modifications",
                                   "weights", "horizon", "discount", "distance", "settings"])
def test_the_issue_cases(field: str) -> None:
    data = small_spec()
    for value in (None, [], 7, "nonsense.pddl" if "domain" not in field else None):
        changed = dict(data, **{field: value})
        try:
            load_design(changed)
        except InputError as error:
            assert field in str(error) or "setting" in str(error) or "No such" in str(error) \
                or "cannot" in str(error), str(error)


def test_not_a_number_and_out_of_range() -> None:
    data = small_spec()
    for where, value, words in [
            (("modifications", 0, "cost"), math.nan, "finite"),
            (("modifications", 0, "cost"), -1, ">= 0"),
            (("modifications", 1), 5, "expected an object"),
            (("tasks", 0, "probability"), math.inf, "finite"),
            (("weights", "alpha"), math.nan, "finite"),
            (("weights",), [], "expected an object"),
            (("discount",), 1.5, "in [0, 1]"),
            (("horizon",), True, "whole number"),
            (("horizon",), 2**64, "2**63"),
            (("robot_domain",), None, "expected a string")]:
        with pytest.raises(InputError, match=words.replace("[", r"\[").replace("*", r"\*")):
            load_design(replaced(data, where, value))


def test_a_long_horizon_is_cheap() -> None:
    data = dict(small_spec(), horizon=2**62, discount=0.5)
    spec = load_design(data)
    assert spec.surprise_weight == pytest.approx(2.0)


def test_cli_exit_codes_on_confused_specs(tmp_path, capsys) -> None:
    data = small_spec()
    bad = [replaced(data, ("robot_domain",), None), replaced(data, ("weights",), []),
           replaced(data, ("modifications", 0), 3)]
    for number, spec in enumerate(bad):
        path = tmp_path / f"s{number}.json"
        path.write_text(json.dumps(spec))
        assert main(["design", str(path)]) == EXIT_BAD_INPUT
        assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_png_never_over_a_file_the_spec_names(tmp_path, capsys, monkeypatch) -> None:
    folder = restaurant_spec().parent
    for name in ("domain.pddl", "b1.pddl", "b1-human.pddl", "b2.pddl", "b2-human.pddl",
                 "design.json"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    before = (tmp_path / "b1.pddl").read_bytes()
    monkeypatch.chdir(tmp_path)
    for target in ("b1.pddl", "b2-human.pddl", "domain.pddl"):
        code = main(["design", "design.json", "--setting", "a", "--png", target])
        assert code == EXIT_BAD_INPUT
        assert "refusing to overwrite" in capsys.readouterr().err
    assert (tmp_path / "b1.pddl").read_bytes() == before
