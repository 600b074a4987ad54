"""Issue 22 for discovery: the output check knows the answer store, queued work in worker
processes does not break the pool at the deadline, and every phase is under the budget."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xaip.capabilities.answers import answer_trace, install_agent, within
from xaip.capabilities.discovery import game_agent
from xaip.capabilities.traces import random_tasks
from xaip.runtime import Budget
from xaip.vocab.registry import get_game


def _xaip(*argv: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    code = "import sys; from xaip.cli import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                          text=True, timeout=timeout, check=False)


def test_pddl_output_on_the_answer_store_is_refused_before_any_work(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    proc = _xaip("discover", "zelda", "--grid", "3x4", "--store", str(store), "--pddl",
                 str(store), "--quiet")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "s.db" in proc.stderr
    # an existing store survives too, with every answer in it
    first = _xaip("discover", "zelda", "--grid", "3x4", "--store", str(store), "--quiet",
                  "--json")
    assert first.returncode in (0, 1), first.stderr
    before = store.read_bytes()
    again = _xaip("discover", "zelda", "--grid", "3x4", "--store", str(store), "--pddl",
                  str(store), "--quiet")
    assert again.returncode == 2, again.stderr
    assert store.read_bytes() == before


def test_workers_at_the_deadline_end_as_budget_exhausted_not_a_broken_pool() -> None:
    proc = _xaip("discover", "snowman", "--grid", "5x6", "--workers", "2", "--max-seconds",
                 "3", "--json", "--quiet")
    assert "Traceback" not in proc.stderr and "BrokenProcessPool" not in proc.stderr
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["status"] == "budget_exhausted"


def test_a_queued_trace_gets_only_what_is_left_of_the_run() -> None:
    # a task's budget is cut to the run's wall-clock deadline when a worker starts it, so
    # a batch queued on two workers cannot take (tasks / workers) times the budget
    assert within(Budget(None, 10.0), time.time() - 1).max_seconds == 0.0
    assert within(Budget(5, None), None) == Budget(5, None)
    left = within(Budget(None, 10.0), time.time() + 3).max_seconds
    assert left is not None and 2.0 < left <= 3.0
    spec = get_game("zelda")
    sim = spec.make(4, 5, 0)
    task = random_tasks(sim, sim.reset(), 1, 0)[0]
    install_agent(game_agent, "zelda", 4, 5, 0, "search")
    trace = answer_trace((task, Budget(None, 60.0), time.time() - 1))
    assert trace.status == "budget"


@pytest.mark.parametrize("argv", [
    ("--recheck", "-5"), ("--seed", "-1"), ("--tasks", "0"), ("--workers", "0"),
    ("--seed", str(2**63)), ("--workers", str(2**63 - 1)),
])
def test_numbers_that_would_change_the_answer_are_bad_input(argv: tuple[str, str]) -> None:
    proc = _xaip("discover", "zelda", "--grid", "3x3", "--quiet", *argv)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
