"""Issue 16 for discovery: bad stores, bad grids and tight budgets end in a one-line message
(exit 2) or "budget exhausted" (exit 1), never a traceback, and budgets hold."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from xaip.capabilities.store import SQLiteStore
from xaip.errors import InputError


def _xaip(*argv: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    code = "import sys; from xaip.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True, timeout=timeout, check=False)


def _one_line_error(proc: subprocess.CompletedProcess[str]) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "zelda.sqlite"
    proc = _xaip("discover", "zelda", "--grid", "3x4", "--store", str(path), "--quiet")
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    assert "checks: consistent" in proc.stdout  # finished and checked
    return path


def _copy(store: Path, tmp_path: Path, name: str) -> Path:
    out = tmp_path / name
    out.write_bytes(store.read_bytes())
    return out


def _discover_with(path: Path) -> subprocess.CompletedProcess[str]:
    return _xaip("discover", "zelda", "--grid", "3x4", "--store", str(path), "--quiet")


def test_bad_json_in_the_store_is_bad_input(store: Path, tmp_path: Path) -> None:
    path = _copy(store, tmp_path, "bad.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE records SET value = '{not json' WHERE namespace = 'answers'")
    _one_line_error(_discover_with(path))


def test_records_of_the_wrong_shape_are_bad_input(store: Path, tmp_path: Path) -> None:
    path = _copy(store, tmp_path, "shape.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("UPDATE records SET value = '[1, 2]' WHERE namespace = 'answers'")
        db.execute("UPDATE records SET value = '{\"actions\": 3}' WHERE namespace = 'traces'")
    _one_line_error(_discover_with(path))


def test_a_store_damaged_in_the_middle_is_bad_input(store: Path, tmp_path: Path) -> None:
    path = _copy(store, tmp_path, "mid.sqlite")
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 4096] = b"\xff" * min(4096, len(data) - middle)
    path.write_bytes(bytes(data))
    _one_line_error(_discover_with(path))


def test_a_read_only_store_is_refused_before_any_work(store: Path, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import xaip.runtime.store as run_store

    path = _copy(store, tmp_path, "ro.sqlite")
    with sqlite3.connect(path) as db:  # answers missing: the run would have to ask
        db.execute("DELETE FROM records WHERE namespace = 'answers'")
    connect = sqlite3.connect

    def read_only(database: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        kwargs.pop("uri", None)
        return connect(f"file:{database}?mode=ro", *args, uri=True, **kwargs)

    monkeypatch.setattr(run_store.sqlite3, "connect", read_only)
    began = time.perf_counter()
    with pytest.raises(InputError, match="cannot be written"):
        SQLiteStore(path, {"game": "zelda", "grid": "3x4", "agent": "search", "seed": 0,
                           "tasks": 12, "grounded": False})
    assert time.perf_counter() - began < 5  # refused at open, not after the work


def test_a_store_of_an_older_format_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('format', 'xaip-capabilities-store-2')")
    before = path.read_bytes()
    with pytest.raises(InputError, match="another version of xaip"):
        SQLiteStore(path)
    assert path.read_bytes() == before


def test_pictures_onto_an_existing_file_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "picture.png"
    target.write_bytes(b"keep me")
    proc = _xaip("discover", "zelda", "--grid", "3x4", "--pictures", str(target), "--quiet")
    _one_line_error(proc)
    assert target.read_bytes() == b"keep me"


@pytest.mark.parametrize("grid", ["99999999x99999999", "1x5", "4x5x6",
                                  "9" * 5000 + "x3"])
def test_grids_out_of_bounds_are_bad_input(grid: str) -> None:
    proc = _xaip("discover", "escape", "--grid", grid, "--quiet", timeout=30)
    _one_line_error(proc)
    assert len(proc.stderr) < 300


def test_a_huge_level_ends_within_its_time_budget() -> None:
    began = time.perf_counter()
    proc = _xaip("discover", "escape", "--grid", "1000x1000", "--max-seconds", "3",
                 "--json", "--quiet", timeout=60)
    elapsed = time.perf_counter() - began
    assert proc.returncode == 1, proc.stderr
    assert '"status": "budget_exhausted"' in proc.stdout
    assert '"verified": false' in proc.stdout
    assert elapsed < 3 + 10  # budget plus interpreter start and a generous margin


def test_negative_budgets_are_bad_input() -> None:
    _one_line_error(_xaip("discover", "zelda", "--max-seconds", "-1", "--quiet"))
    _one_line_error(_xaip("discover", "zelda", "--max-seconds", "nan", "--quiet"))


BLOCKS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "blocksworld"


def test_learn_model_json_has_status_and_verified_and_budget_exits_1(
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from xaip.cli import main

    domain, problem = str(BLOCKS / "domain.pddl"), str(BLOCKS / "problem-5.pddl")
    assert main(["learn-model", domain, problem, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "complete" and payload["verified"] is True
    assert main(["learn-model", domain, problem, "--json", "--max-queries", "2"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "budget_exhausted" and payload["verified"] is False
    assert payload["queries"] <= 3


def test_learn_model_never_overwrites_its_input(tmp_path: Path) -> None:
    domain = tmp_path / "domain.pddl"
    domain.write_text((BLOCKS / "domain.pddl").read_text())
    before = domain.read_text()
    proc = _xaip("learn-model", str(domain), str(BLOCKS / "problem-5.pddl"), "-o",
                 str(domain))
    _one_line_error(proc)
    assert domain.read_text() == before


def test_a_time_budget_cuts_the_query_phase_and_keeps_no_cut_answers(tmp_path: Path) -> None:
    from xaip.capabilities.discovery import discover_game
    from xaip.runtime import Budget, Status

    path = tmp_path / "cut.sqlite"
    began = time.process_time()  # CPU, not wall: a loaded machine must not fail this
    with SQLiteStore(path, {"run": "cut"}) as store:
        result, _ = discover_game("snowman", 8, 8, seed=0, store=store,
                                  budget=Budget(max_seconds=1.5))
        kept = store.count()
        # Answers the agent finished are kept for a resumed run (units write them as they
        # come, before their pass is merged); an answer the deadline cut is never kept.
        cut = [key for key, value in store._store.items("answers")  # noqa: SLF001
               if value["reached"] is None]
    assert time.process_time() - began < 1.5 + 15  # cut, not run to the end
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified
    assert not cut, f"{len(cut)} of {kept} kept answers were cut by the deadline"
