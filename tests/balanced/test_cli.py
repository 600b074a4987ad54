"""``xaip balance``: JSON fields, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.balanced.instances import usar_files
from xaip.cli import main
from xaip.errors import EXIT_BAD_INPUT, EXIT_NEGATIVE, EXIT_OK

FILES = usar_files()
USAR = [str(FILES["robot"]), str(FILES["human"]), str(FILES["problem"]),
        "--human-problem", str(FILES["human_problem"])]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["balance", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bundled_usar_json(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--json")
    data = json.loads(out)
    assert code == EXIT_OK
    for key in ("plan", "plan_cost", "explanation", "explanation_cost", "penalty",
                "objective", "status", "verified", "seconds", "method", "exact", "total"):
        assert key in data
    assert data["verified"] is True and data["total"] == pytest.approx(13.389056)
    assert data["explanation"] == [] and data["plan_cost"] == 6


def test_files_with_cost_file(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, *USAR, "--explanation-cost", str(FILES["costs"]),
                       "--objective", "explicable-optimal", "--json")
    data = json.loads(out)
    assert code == EXIT_OK and data["total"] == pytest.approx(106)
    assert {i["feature"] for i in data["explanation"]} == {"init (clear p2 p3)",
                                                         "init (clear p16 p17)"}
    assert all(i["text"] for i in data["explanation"])


def test_communication_cost_and_text(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--communication-cost", "1", "--objective", "explicable")
    assert code == EXIT_OK
    assert "Initially (clear p16 p17) does not hold" in out and "Total 8" in out
    assert "Verified independently" in out


def test_approximate_and_compile(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--approximate", "--json")
    assert code == EXIT_OK and json.loads(out)["exact"] is False
    code, out, _ = run(capsys, "--method", "compile", "--write-compiled", str(tmp_path),
                       "--json")
    data = json.loads(out)
    assert code == EXIT_OK and data["method"] == "compile"
    assert data["total"] == pytest.approx(13.389056)
    assert (tmp_path / "domain.pddl").exists() and (tmp_path / "problem.pddl").exists()


def test_budget_exhausted_exits_1(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "--max-nodes", "1", "--json")
    data = json.loads(out)
    assert code == EXIT_NEGATIVE
    assert data["status"] == "budget_exhausted" and data["verified"] is False


@pytest.mark.parametrize("argv, message", [
    (["--alpha", "-1"], "weight alpha must not be negative"),
    (["--gamma", "nan"], "finite"),
    (["a.pddl", "b.pddl"], "three files"),
    (["--observable", "lit"], "observable predicate 'lit'"),
    (["--infer-conditions"], "needs --observable"),
    (["--approximate", "--method", "compile"], "--approximate"),
    (["--communication-cost", "-2"], "communication cost"),
    (["--learn-from-watching"], "needs --observable"),
    (["--approximate", "--observable", "clear", "--learn-from-watching"], "approximate"),
])
def test_bad_input(capsys, argv: list[str], message: str) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, *argv)
    assert code == EXIT_BAD_INPUT and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_unknown_feature_in_cost_file(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    costs = tmp_path / "costs.json"
    costs.write_text(json.dumps({"precondition move(?from, ?to) (at ?to)": 3}))
    code, _, err = run(capsys, "--explanation-cost", str(costs))
    assert code == EXIT_BAD_INPUT and "names no difference" in err


def test_seconds_budget_is_honoured(capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import time

    from xaip.balanced.instances import random_instance
    from xaip.planning.pddl import write_domain, write_problem

    rd, rp, hd, hp = random_instance(3, waypoints=14, flips=20)
    paths = []
    for name, text in (("robot.pddl", write_domain(rd)), ("human.pddl", write_domain(hd)),
                       ("problem.pddl", write_problem(rp)), ("her.pddl", write_problem(hp))):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    started = time.perf_counter()
    code, out, _ = run(capsys, *paths[:3], "--human-problem", paths[3],
                       "--communication-cost", "0.01", "--max-seconds", "1", "--json")
    assert time.perf_counter() - started < 1 + 20  # generous margin on a shared machine
    data = json.loads(out)
    assert code == EXIT_NEGATIVE and data["status"] == "budget_exhausted"
    assert data["verified"] is False


def test_compile_models_watched_plans(capsys) -> None:  # type: ignore[no-untyped-def]
    """MEGA* compiles watched execution (B05): both methods agree with --observable."""
    totals = []
    for method in ("compile", "model-space"):
        code, out, _ = run(capsys, "--method", method, "--observable", "clear", "--json")
        assert code == EXIT_OK
        totals.append(json.loads(out)["total"])
    assert totals[0] == pytest.approx(totals[1])
