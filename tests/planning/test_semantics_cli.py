"""The shared conventions end to end on the planning commands (issue 21): goals true
initially, costs declared without a metric, step numbers people read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.planning.search.result import COSTS_IGNORED_NOTE
from xaip.planning.semantics import EMPTY_PLAN_NOTE

DOMAIN = """(define (domain door) (:requirements :strips :action-costs)
  (:predicates (home) (at-door) (open))
  (:functions (total-cost))
  (:action walk :parameters () :precondition (home)
    :effect (and (at-door) (not (home)) (increase (total-cost) 3)))
  (:action open :parameters () :precondition (at-door)
    :effect (and (open) (not (at-door)) (at-door))))"""
GOAL_INITIALLY = """(define (problem p) (:domain door) (:init (home) (open)
  (= (total-cost) 0)) (:goal (open)) (:metric minimize (total-cost)))"""
NO_METRIC = "(define (problem p) (:domain door) (:init (home)) (:goal (open)))"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("domain", DOMAIN), ("initially", GOAL_INITIALLY),
                       ("nometric", NO_METRIC), ("empty.plan", ""),
                       ("walk.plan", "(walk)\n(open)\n"), ("bad.plan", "(walk)\n(walk)\n")):
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)
    return paths


@pytest.mark.parametrize("search", ["astar", "gbfs"])
def test_goal_true_initially_plan(files: dict[str, str], search: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    extra = ["--optimal"] if search == "astar" else ["--search", search]
    code, out = run(capsys, "plan", files["domain"], files["initially"], *extra, "--json")
    payload = json.loads(out)
    assert code == 0 and payload["plan"] == [] and payload["cost"] == 0
    assert payload["optimal"] is True and payload["goal_holds_initially"] is True
    assert payload["note"] == EMPTY_PLAN_NOTE
    code, out = run(capsys, "plan", files["domain"], files["initially"], *extra)
    assert code == 0 and "0 steps, optimal" in out and EMPTY_PLAN_NOTE in out


def test_goal_true_initially_validate_and_landmarks(files: dict[str, str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", files["domain"], files["initially"], files["empty.plan"],
                    "--json")
    payload = json.loads(out)
    assert code == 0 and payload["valid"] is True and payload["cost"] == 0
    assert payload["goal_holds_initially"] is True and payload["note"] == EMPTY_PLAN_NOTE
    code, out = run(capsys, "validate", files["domain"], files["nometric"], files["empty.plan"])
    assert code == 1 and "the plan ends without reaching the goal: unmet (open)" in out
    code, out = run(capsys, "landmarks", files["domain"], files["initially"])
    assert code == 0 and "the goal holds in the initial state" in out


def test_costs_declared_without_a_metric_count_one_per_action(
        files: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "plan", files["domain"], files["nometric"], "--optimal", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["cost"] == 2 and payload["costs_ignored"] is True
    assert payload["note"] == COSTS_IGNORED_NOTE
    code, out = run(capsys, "validate", files["domain"], files["nometric"], files["walk.plan"])
    assert code == 0 and out.splitlines() == ["valid plan: 2 steps, cost 2",
                                              f"note: {COSTS_IGNORED_NOTE}"]


def test_validate_names_the_step_people_count(files: dict[str, str],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out = run(capsys, "validate", files["domain"], files["nometric"], files["bad.plan"])
    assert code == 1 and out.startswith("invalid plan: step 2 (walk) is not applicable")
    code, out = run(capsys, "validate", files["domain"], files["nometric"], files["bad.plan"],
                    "--json")
    payload = json.loads(out)
    assert payload["failed_step"] == 2 and payload["steps_numbered_from"] == 1
    assert payload["failure"] == "precondition"
