"""``xaip observe``: JSON fields, exit codes, budgets and one-line errors."""

from __future__ import annotations

import json
import time

import pytest

from xaip.cli import main
from xaip.errors import EXIT_BAD_INPUT, EXIT_NEGATIVE, EXIT_OK
from xaip.observers.problem import example_dir

PORT = example_dir("port")
FILES = [str(PORT / "domain.pddl"), str(PORT / "problem.pddl"),
         "--observations", str(PORT / "observer.json"), "--goals", str(PORT / "goals.json")]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["observe", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_json_has_the_promised_fields(capsys) -> None:
    code, out, _ = run(capsys, *FILES, "--json")
    payload = json.loads(out)
    assert code == EXIT_OK
    assert {"plan", "cost", "observations", "goals_in_final_belief", "score", "status",
            "verified", "seconds"} <= set(payload)
    assert payload["plan"] == ["(load red)", "(acquire n1)"]
    assert payload["goals_in_final_belief"] == {"supervisor": ["red"]}
    assert payload["status"] == "solved" and payload["verified"] is True


@pytest.mark.parametrize(("argv", "expected"), [
    (["--example", "port"], "Goals still possible for 'supervisor': red (1 of 3)"),
    (["--example", "port", "--mode", "ambiguous", "--k", "3"], "(3 of 3)"),
    (["--example", "port", "--mode", "secure-ambiguous", "--k", "2", "--seed", "4"],
     "Planned for decoy true goal 'blue'"),
    (["--example", "medkit"], "cannot tell apart: 2; action distance between them 0.5"),
    (["--example", "medkit", "--mode", "diverse", "--l", "12", "--d", "0.25"],
     "at least 0.25 apart"),
    (["--example", "truck"], "GD = 1.00"),
])
def test_examples(capsys, argv: list[str], expected: str) -> None:
    code, out, _ = run(capsys, *argv)
    assert code == EXIT_OK and expected in out and "Verified independently" in out


def test_negative_answers_exit_1(capsys) -> None:
    code, out, _ = run(capsys, "--example", "medkit", "--mode", "diverse", "--l", "12",
                       "--d", "0.3", "--json")
    payload = json.loads(out)
    assert code == EXIT_NEGATIVE and payload["status"] == "unsolvable"
    assert payload["verified"] is True  # the brute force confirmed there is none
    started = time.perf_counter()
    code, out, _ = run(capsys, "--example", "port", "--max-nodes", "1", "--json")
    payload = json.loads(out)
    assert code == EXIT_NEGATIVE and payload["status"] == "budget_exhausted"
    assert payload["verified"] is False and time.perf_counter() - started < 30


def test_score_mode(capsys, tmp_path) -> None:
    plan = tmp_path / "plan.txt"
    plan.write_text("(acquire n1)\n(load red)\n")
    code, out, _ = run(capsys, *FILES, "--mode", "score", "--plan", str(plan), "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["score"] == 3 and payload["bps_count"] == 6


@pytest.mark.parametrize(("extra", "message"), [
    (["--mode", "ambiguous", "--k", "4"], "larger than the number of candidate goals"),
    (["--mode", "legible-plan"], "needs a cost bound"),
    (["--mode", "score"], "needs the plan to score"),
    (["--j", "-1"], "must not be negative"),
])
def test_bad_parameters_exit_2(capsys, extra: list[str], message: str) -> None:
    code, _, err = run(capsys, *FILES, *extra)
    assert code == EXIT_BAD_INPUT and message in err and err.count("\n") == 1


def test_bad_files_exit_2(capsys, tmp_path) -> None:
    observer = tmp_path / "observer.json"
    observer.write_text(json.dumps({"rules": [{"token": [{"count": "cargo-at"}]}]}))
    code, _, err = run(capsys, *FILES[:2], "--observations", str(observer),
                       "--goals", str(PORT / "goals.json"))
    assert code == EXIT_BAD_INPUT and "unknown predicate 'cargo-at'" in err
    goals = tmp_path / "goals.json"
    goals.write_text(json.dumps({"true": "purple", "goals": {"purple": ["(new red)"],
                                                             "red": ["(on-ship red)"]}}))
    code, _, err = run(capsys, *FILES[:4], "--goals", str(goals))
    assert code == EXIT_BAD_INPUT and "can never hold" in err
    goals.write_text(json.dumps({"true": "red", "goals": {"purple": ["(on-ship purple)"],
                                                          "red": ["(on-ship red)"]}}))
    code, _, err = run(capsys, *FILES[:4], "--goals", str(goals))
    assert code == EXIT_BAD_INPUT and "unknown object 'purple'" in err
    goals.write_text(json.dumps({"goals": {"red": ["(shipped red)"]}}))
    code, _, err = run(capsys, *FILES[:4], "--goals", str(goals))
    assert code == EXIT_BAD_INPUT and "unknown predicate 'shipped'" in err
    code, _, err = run(capsys, *FILES[:2])
    assert code == EXIT_BAD_INPUT and "--observations" in err
    code, _, err = run(capsys, "--example", "port", "--goals", str(goals))
    assert code == EXIT_BAD_INPUT and "--example takes no" in err


def test_deceptive_mode(capsys) -> None:
    grid = example_dir("port").parent / "grids" / "corridor.txt"
    code, out, _ = run(capsys, "--mode", "deceptive", "--grid", str(grid), "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["verified"] is True
    code, _, err = run(capsys, "--mode", "deceptive")
    assert code == EXIT_BAD_INPUT and "--grid" in err
