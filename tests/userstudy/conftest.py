"""Shared pieces of the user-study tests: a study server in a child process (so a test can
kill it with SIGKILL) and an in-process test client.

Skipped, not failed, without the ``web`` extra.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("jinja2")
httpx = pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "researcher-token-for-tests"
HTML = {"accept": "text/html"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class StudyProcess:
    """``xaip serve --study`` running in a child process."""

    process: subprocess.Popen[bytes]
    base: str
    log: Path

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as when the machine loses the process."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=20)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def start(tmp: Path, db: Path | str, study: str = "fetch") -> StudyProcess:
    """A study server on a free port, once it answers."""
    port = free_port()
    log = tmp / f"serve-{port}.log"
    command = "import sys; from xaip.cli import main; sys.exit(main(sys.argv[1:]))"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-c", command, "serve", "--port", str(port), "--runs",
             str(tmp / "runs"), "--study", study, "--study-db", str(db), "--study-token",
             TOKEN], stdout=sink, stderr=sink, cwd=tmp)
    base = f"http://127.0.0.1:{port}"
    for _ in range(600):
        if process.poll() is not None:
            raise RuntimeError(f"xaip serve ended: {log.read_text()[-800:]}")
        try:
            if httpx.get(f"{base}/study/admin", params={"token": TOKEN},
                         timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.1)
    return StudyProcess(process, base, log)


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Any]:
    """A throwaway PostgreSQL server for the session (:mod:`tests.userstudy.postgres`);
    skipped with the reason where PostgreSQL or psycopg is missing."""
    from tests.userstudy import postgres

    reason = postgres.why_not()
    if reason is not None:
        pytest.skip(reason)
    cluster = postgres.start_cluster()
    try:
        yield cluster
    finally:
        postgres.remove_cluster(cluster)


@pytest.fixture
def pg_url(pg_cluster: Any) -> str:
    """The URL of a fresh, empty PostgreSQL database (one per test)."""
    url: str = pg_cluster.new_database()
    return url


@pytest.fixture
def study_client(tmp_path: Path) -> Iterator[Any]:
    """A test client of the workbench serving the bundled Fetch study from ``tmp_path``."""
    from xaip.userstudy.serving import start_study
    from xaip.web.app import create_app
    from xaip.web.settings import Settings

    server = start_study("fetch", str(tmp_path / "study.sqlite"), TOKEN, log=sys.stderr)
    with TestClient(create_app(Settings(runs_dir=tmp_path / "runs"), server)) as client:
        client.study = server
        yield client
    server.store.close()


def new_codes(client: Any, count: int) -> list[str]:
    answer = client.post("/study/admin/participants", data={"token": TOKEN,
                                                           "count": str(count)})
    assert answer.status_code == 200, answer.text
    codes: list[str] = answer.json()["codes"]
    return codes


#: A full set of answers to the Fetch study's questions.
FETCH_ANSWERS = {"understand": "4", "satisfied": "5", "next_plan": "1", "attention": "1",
                 "comments": "fine"}


def walk(client: Any, code: str, answers: dict[str, str] = FETCH_ANSWERS,
         conditions: int = 2) -> str:
    """Take participant ``code`` through the whole study; the completion code."""
    for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
        reply = client.post(f"/s/{code}", data={"stage": str(stage), **extra},
                            headers=HTML, follow_redirects=True)
        assert reply.status_code == 200, reply.text[:300]
    for stage in range(conditions):
        reply = client.post(f"/s/{code}", data={"stage": str(stage), **answers},
                            headers=HTML, follow_redirects=True)
        assert reply.status_code == 200, reply.text[:300]
    text: str = reply.text
    marker = 'id="completion">'
    assert marker in text
    return text.split(marker, 1)[1].split("<", 1)[0]
