"""Running studies: every cell is the command's own answer, kept at once, never re-run."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.studies import load_study, run_study
from xaip.studies.cells import make_cells, run_cell

from .helpers import plan_study, records


def test_cells_are_the_commands_own_answers(tmp_path: Path) -> None:
    study = load_study(plan_study(tmp_path, sizes=[4]), store=str(tmp_path / "s.sqlite"))
    result = run_study(study)
    assert result["status"] == "complete" and result["verified"] is True
    assert result["cells"] == result["ran"] == 2 and result["verified_cells"] == 2
    stored = records(tmp_path / "s.sqlite")
    # the same command run directly on the same generated files
    instance = study.instances[0]
    for (name, content) in instance.files:
        (tmp_path / name).write_bytes(content)
    for optimal in (True, False):
        out = io.StringIO()
        argv = ["plan", str(tmp_path / "domain.pddl"), str(tmp_path / "problem.pddl"),
                "--json", "--quiet", *(["--optimal"] if optimal else [])]
        with redirect_stdout(out):
            code = main(argv)
        direct = json.loads(out.getvalue())
        (record,) = [r for r in stored.values() if r["parameters"]["--optimal"] is optimal]
        assert record["exit"] == code == 0
        assert record["status"] == direct["status"] and record["verified"] is True
        assert record["payload"]["cost"] == direct["cost"]
        assert record["payload"]["plan"] == direct["plan"]


def test_second_run_skips_done_cells_and_new_values_run_alone(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    first = run_study(load_study(plan_study(tmp_path, sizes=[3, 4]), store=store))
    assert first["ran"] == 4 and first["done_before"] == 0
    again = run_study(load_study(plan_study(tmp_path, sizes=[3, 4]), store=store))
    assert again["ran"] == 0 and again["done_before"] == 4 and again["status"] == "complete"
    grown = run_study(load_study(plan_study(tmp_path, sizes=[3, 4, 5]), store=store))
    assert grown["ran"] == 2 and grown["done_before"] == 4 and grown["cells"] == 6
    assert len(records(tmp_path / "s.sqlite")) == 6


def test_changed_instance_file_is_a_new_cell(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text(
        "(define (domain d) (:predicates (p)) (:action a :parameters () "
        ":precondition () :effect (p)))")
    (tmp_path / "p.pddl").write_text("(define (problem q) (:domain d) (:init) (:goal (p)))")
    (tmp_path / "s.toml").write_text(
        '[study]\ncommand = "plan"\n[[instances]]\nname = "one"\n'
        'files = ["d.pddl", "p.pddl"]\n')
    store = str(tmp_path / "s.sqlite")
    assert run_study(load_study(tmp_path / "s.toml", store=store))["ran"] == 1
    (tmp_path / "p.pddl").write_text("(define (problem q) (:domain d) (:init (p)) (:goal (p)))")
    result = run_study(load_study(tmp_path / "s.toml", store=store))
    assert result["ran"] == 1  # not the stale answer of the old file
    plans = [r["payload"]["plan"] for r in records(tmp_path / "s.sqlite").values()]
    assert sorted(len(p) for p in plans) == [0, 1]


def test_study_budget_stops_and_resumes(tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    study = load_study(plan_study(tmp_path, sizes=[3, 4]), store=store)
    stopped = run_study(study, max_seconds=0)
    assert stopped["status"] == "budget_exhausted" and stopped["verified"] is False
    assert stopped["ran"] == 1 and stopped["remaining"] == 3 and stopped["stopped_by_budget"]
    rest = run_study(study)
    assert rest["ran"] == 3 and rest["status"] == "complete" and rest["verified"] is True


def test_processes_give_the_same_answers(tmp_path: Path) -> None:
    serial = run_study(load_study(plan_study(tmp_path), store=str(tmp_path / "a.sqlite")))
    pooled = run_study(load_study(plan_study(tmp_path), store=str(tmp_path / "b.sqlite")),
                       "processes", workers=2)
    assert pooled["workers"] == 2 and pooled["ran"] == serial["ran"] == 4

    def answers(name: str) -> dict[str, tuple[object, ...]]:
        return {k: (r["status"], r["verified"], r["payload"]["cost"])
                for k, r in records(tmp_path / name).items()}
    assert answers("a.sqlite") == answers("b.sqlite")
    assert len({r["pid"] for r in records(tmp_path / "b.sqlite").values()}) >= 1


def test_failing_cells_are_recorded_not_fatal(tmp_path: Path) -> None:
    (tmp_path / "d.pddl").write_text("(define (domain d) (:predicates (p))")  # unbalanced
    (tmp_path / "p.pddl").write_text("(define (problem q) (:domain d) (:init) (:goal (p)))")
    (tmp_path / "s.toml").write_text(
        '[study]\ncommand = "plan"\n[[instances]]\nname = "broken"\n'
        'files = ["d.pddl", "p.pddl"]\n')
    result = run_study(load_study(tmp_path / "s.toml", store=str(tmp_path / "s.sqlite")))
    assert result["status"] == "complete" and result["verified"] is False
    assert result["failed_cells"] == 1
    (record,) = records(tmp_path / "s.sqlite").values()
    assert record["exit"] == 2 and record["status"] == "bad_input"
    assert record["error"].startswith("xaip: error:")


def test_run_cell_of_a_study_cell(tmp_path: Path) -> None:
    (cell, *_) = make_cells(load_study(plan_study(tmp_path, sizes=[3])))
    record = run_cell(cell)
    assert record["key"] == cell.key and record["exit"] == 0 and record["verified"] is True
    assert record["seconds"] >= record["cpu_seconds"] * 0 and record["payload"]["status"] == \
        "solved"


def test_cli_run_json_and_exit_codes(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = plan_study(tmp_path)
    store = str(tmp_path / "s.sqlite")
    assert main(["study", str(path), "--store", store, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "complete" and payload["cells"] == 4
    assert main(["study", str(path), "--store", store]) == 0
    text = capsys.readouterr().out
    assert "0 run now, 4 from an earlier run" in text and "--optimal" in text
    # another study on this store is refused (its answers are about another world)
    other = tmp_path / "other.toml"
    other.write_text(path.read_text().replace('name = "plans"', 'name = "other"'))
    assert main(["study", str(other), "--store", store]) == 2
    assert "belongs to another run" in capsys.readouterr().err


KILL_STUDY = """
[study]
name = "kill"
command = "plan"
repeat = 30
[parameters]
"--optimal" = [true]
[[instances]]
name = "blocks 5"
generator = "blocksworld"
arguments = [5, 1]
"""


@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_killed_run_loses_only_cells_in_flight(tmp_path: Path, executor: str) -> None:
    (tmp_path / "kill.toml").write_text(KILL_STUDY)
    store = tmp_path / "kill.sqlite"
    command = [sys.executable, "-m", "xaip.cli", "study", str(tmp_path / "kill.toml"),
               "--store", str(store), "--executor", executor, "--workers", "2", "--quiet"]
    if executor == "serial":
        command.remove("--workers")
        command.remove("2")
    run = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, start_new_session=True)
    seen = 0
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and run.poll() is None:
            seen = len(records(store)) if store.exists() else 0
            if seen >= 3:
                break
            time.sleep(0.05)
        assert run.poll() is None, "the study finished before it could be killed"
        os.kill(run.pid, signal.SIGKILL)
        run.wait(timeout=30)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert _survivors(str(store)) == []  # the workers died with the study
    kept = records(store)
    assert seen <= len(kept) < 30  # every committed cell survived; the run was cut short
    for record in kept.values():
        assert record["status"] == "solved" and record["verified"] is True
    result = run_study(load_study(tmp_path / "kill.toml", store=str(store)))
    assert result["done_before"] == len(kept) and result["ran"] == 30 - len(kept)
    assert result["status"] == "complete" and len(records(store)) == 30


def _survivors(marker: str, wait: float = 10.0) -> list[int]:
    """Processes whose command line names ``marker`` (forked workers keep their parent's),
    after waiting up to ``wait`` seconds for them to go."""
    deadline = time.monotonic() + wait
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if marker in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    status = (entry / "stat").read_text().split(") ")[-1].split()[0]
                    if status != "Z":
                        found.append(int(entry.name))
            except OSError:
                continue
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_study_budget_is_not_a_reading_deadline_of_its_cells(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The study's --max-seconds used to become the CLI's reading deadline of the whole
    process: the serial cell running when it passed failed 'while reading' and was kept as
    answered, so a resumed run never ran it again."""
    path = plan_study(tmp_path)
    store = tmp_path / "s.sqlite"
    assert main(["study", str(path), "--store", str(store), "--max-seconds", "0",
                 "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "budget_exhausted" and payload["ran"] == 1
    (record,) = records(store).values()
    assert record["status"] == "solved" and record["verified"] is True


def test_memory_budget_without_json_is_budget_exhausted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import xaip.cli

    def out_of_memory(argv: list[str]) -> int:
        print("xaip: budget exhausted: the memory budget ran out (raise --max-memory)",
              file=sys.stderr)
        return 1

    monkeypatch.setattr(xaip.cli, "main", out_of_memory)
    (cell, *_) = make_cells(load_study(plan_study(tmp_path, sizes=[3])))
    record = run_cell(cell)
    assert record["status"] == "budget_exhausted" and record["verified"] is False
    assert record["payload"] is None and "memory budget" in record["error"]
