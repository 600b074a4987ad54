"""A study joins an existing Ray cluster: a head and a worker node on loopback.

The cluster is started as ``ray start --head`` and ``ray start --address`` (each with
``--block`` in its own session, so the test ends exactly the processes it started; never
``ray stop``, which would stop every Ray of the machine). Skipped, with the reason, only
when Ray is not installed or its head cannot start here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from xaip.cli import main

from .helpers import plan_study, records

pytest.importorskip("ray")

START_SECONDS = 120


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _ray() -> str:
    found = shutil.which("ray") or str(Path(sys.executable).with_name("ray"))
    if not Path(found).exists():
        pytest.skip("the 'ray' command is not installed")
    return found


def _wait_for(log: Path, process: subprocess.Popen[bytes], text: str) -> bool:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if log.exists() and text in log.read_text(errors="replace"):
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.5)
    return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the process group this test started: SIGTERM, then SIGKILL after 5 s."""
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(process.pid, 0)
            except ProcessLookupError:
                return
            process.poll()
            time.sleep(0.2)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    ray = _ray()
    port = _free_port()
    folder = Path(tempfile.mkdtemp(prefix="xr", dir="/tmp"))  # short: socket path limits
    env = {**os.environ, "RAY_AUTH_MODE": "token", "RAY_USAGE_STATS_ENABLED": "0"}
    started: list[subprocess.Popen[bytes]] = []
    try:
        head_log = folder / "head.log"
        head = subprocess.Popen(
            [ray, "start", "--head", "--port", str(port), "--num-cpus", "1",
             "--node-ip-address", "127.0.0.1", "--include-dashboard", "false",
             "--temp-dir", str(folder / "t"), "--block"],
            stdout=head_log.open("wb"), stderr=subprocess.STDOUT, env=env,
            start_new_session=True)
        started.append(head)
        if not _wait_for(head_log, head, "Ray runtime started"):
            pytest.skip(f"Ray's head node cannot start here: "
                        f"{head_log.read_text(errors='replace')[-300:]!r}")
        worker_log = folder / "worker.log"
        worker = subprocess.Popen(
            [ray, "start", "--address", f"127.0.0.1:{port}", "--num-cpus", "1",
             "--node-ip-address", "127.0.0.1", "--block"],
            stdout=worker_log.open("wb"), stderr=subprocess.STDOUT, env=env,
            start_new_session=True)
        started.append(worker)
        assert _wait_for(worker_log, worker, "Ray runtime started"), \
            worker_log.read_text(errors="replace")[-500:]
        yield f"127.0.0.1:{port}"
    finally:
        for process in reversed(started):
            _stop(process)
        shutil.rmtree(folder, ignore_errors=True)


def test_study_joins_a_two_node_cluster(cluster: str, tmp_path: Path) -> None:
    path = plan_study(tmp_path, sizes=[3, 4, 5])
    store = tmp_path / "ray.sqlite"
    env = {k: v for k, v in os.environ.items() if k != "RAY_AUTH_MODE"}  # found by xaip
    out = subprocess.run(
        [sys.executable, "-m", "xaip.cli", "study", str(path), "--store", str(store),
         "--executor", "ray", "--address", cluster, "--json"],
        capture_output=True, text=True, env=env, timeout=600, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout)
    assert result["executor"] == "ray" and result["address"] == cluster
    assert result["nodes"] == 2 and result["workers"] == 2  # the cluster's CPUs
    assert result["status"] == "complete" and result["verified"] is True
    assert result["ran"] == 6 and len(records(store)) == 6
    # resumable on the cluster as anywhere: nothing is run twice
    again = subprocess.run(
        [sys.executable, "-m", "xaip.cli", "study", str(path), "--store", str(store),
         "--executor", "ray", "--address", cluster, "--json"],
        capture_output=True, text=True, env=env, timeout=600, check=False)
    assert again.returncode == 0 and json.loads(again.stdout)["ran"] == 0


def square(n: int) -> int:
    return n * n


def test_executor_joins_in_process(cluster: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from xaip.runtime.executors import get_executor

    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)  # restored after the test
    pool = get_executor("ray", 1, address=cluster)
    try:
        assert pool.workers == 1 and pool.nodes() == 2  # type: ignore[attr-defined]
        assert dict(pool.completed(square, range(7))) == {i: i * i for i in range(7)}
        assert pool.map(square, [2, 3]) == [4, 9]
    finally:
        pool.close()


def test_dead_address_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = plan_study(tmp_path)
    port = _free_port()  # nothing listens there
    began = time.monotonic()
    assert main(["study", str(path), "--store", str(tmp_path / "s.sqlite"), "--executor",
                 "ray", "--address", f"127.0.0.1:{port}"]) == 2
    err = capsys.readouterr().err.strip()
    assert f"no Ray cluster answers at 127.0.0.1:{port}" in err and "\n" not in err
    assert time.monotonic() - began < 30
    before = set(Path.cwd().glob("*.sqlite"))
    assert main(["study", str(path), "--executor", "ray", "--address", "nohostport"]) == 2
    assert "'auto' or HOST:PORT" in capsys.readouterr().err
    assert set(Path.cwd().glob("*.sqlite")) == before  # refused before any store is made
    assert not (tmp_path / "s.sqlite").exists()
