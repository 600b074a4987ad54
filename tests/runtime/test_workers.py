"""Issue 22: process workers die with their parent and do not inherit its deadline."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xaip.agents.simulator import OutOfTime, check_deadline, deadline
from xaip.runtime import Budget, ProcessExecutor

linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads the process table from /proc")


def _deadline_free(_: int) -> bool:
    check_deadline()  # raised OutOfTime in a forked worker once the parent's deadline passed
    return True


def test_a_worker_does_not_inherit_the_parents_deadline() -> None:
    clock = Budget(max_seconds=0.0).start()
    with deadline(clock):
        with pytest.raises(OutOfTime):
            check_deadline()
        with ProcessExecutor(2) as pool:
            assert pool.map(_deadline_free, [1, 2, 3, 4]) == [True] * 4


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2:].split()[0] != "Z"


def _orphans_after_killing(argv: list[str], workers: int) -> list[int]:
    """Start ``xaip argv`` in a subprocess, wait for its worker processes, kill -9 the
    main process and return the workers still alive a few seconds later."""
    code = "import sys; from xaip.cli import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", code, *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        found: list[int] = []
        until = time.monotonic() + 60
        while time.monotonic() < until and len(found) < workers:
            if proc.poll() is not None:
                pytest.fail(f"the command ended (exit {proc.returncode}) before its workers "
                            "were seen")
            found = _children(proc.pid)
            time.sleep(0.05)
        assert len(found) >= workers, f"workers never started: {found}"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        until = time.monotonic() + 10
        while time.monotonic() < until and any(_alive(p) for p in found):
            time.sleep(0.1)
        return [p for p in found if _alive(p)]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@linux_only
def test_discovery_workers_die_with_the_main_process() -> None:
    left = _orphans_after_killing(["discover", "zelda", "--grid", "12x12", "--workers", "2",
                                   "--quiet"], 2)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"orphaned workers {left}"


@linux_only
def test_why_not_workers_die_with_the_main_process() -> None:
    left = _orphans_after_killing(["why-not", "sokoban-switch", "--variant", "cost",
                                   "--workers", "2", "--budget", "5000000"], 2)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not left, f"orphaned workers {left}"
