"""The study store on PostgreSQL: the same contract as on SQLite, two ``xaip serve``
processes on one database serving participants at once (nothing lost, nothing stored
twice, participant indexes dense and unique), and a server killed with SIGKILL mid-study.

Every test runs on a throwaway PostgreSQL cluster (:mod:`tests.userstudy.postgres`) and is
skipped with the reason where PostgreSQL or psycopg is missing (CI installs both).
"""

from __future__ import annotations

import csv
import io
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.userstudy.conftest import FETCH_ANSWERS, HTML, TOKEN, start, walk
from xaip.errors import InputError
from xaip.userstudy.store import StudyStore, open_store


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: Any, tmp_path: Path) -> Any:
    """A fresh store on each database."""
    where = (str(tmp_path / "s.sqlite") if request.param == "sqlite"
             else request.getfixturevalue("pg_url"))
    opened = open_store(where)
    yield opened
    opened.close()


def _stage_rows(question: str = "q", answer: str = "a") -> list[dict[str, Any]]:
    return [{"question": question, "kind": "text", "answer": answer, "correct": None}]


def test_the_store_contract_holds_on_both_databases(store: StudyStore) -> None:
    store.bind("A", ["x", "y"])
    store.bind("A", ["x", "y"])
    with pytest.raises(InputError, match="another study"):
        store.bind("B", ["x"])
    codes = store.create_participants(lambda index, code: ["x", "y"][index % 2:] + ["x"], 3)
    assert [p.index for p in store.participants()] == [0, 1, 2]
    assert store.participant(codes[1]).order == ("y", "x")  # type: ignore[union-attr]
    assert store.participant("nobody") is None
    code = codes[0]
    assert store.advance(code, -2) == -1 and store.advance(code, -2) == -1  # only once
    assert store.advance(code, -1) == 0
    first = store.mark_shown(code, 0)
    assert store.mark_shown(code, 0) == first  # a reload keeps the clock
    done = store.submit(code, 0, "x", _stage_rows(), last=False, time_limit=None)
    assert done.stage == 1 and not done.refused
    again = store.submit(code, 0, "x", _stage_rows(answer="twice"), last=False,
                         time_limit=None)
    assert again.stage == 1  # a resent page stores nothing
    store.submit(code, 1, "y", _stage_rows(), last=True, time_limit=None)
    person = store.participant(code)
    assert person is not None and person.finished and len(person.completion_code or "") == 8
    rows = store.responses()
    assert [(r["condition"], r["answer"], r["position"]) for r in rows] == [
        ("x", "a", 1), ("y", "a", 2)]
    assert isinstance(rows[0]["shown_at"], float) and rows[0]["seconds"] >= 0
    store.save_answer("x", "e", {"status": "found", "verified": True}, "first")
    store.save_answer("x", "e", {"status": "found", "verified": True}, "second")
    kept = store.shown_answer("x")
    assert kept is not None and kept["text"] == "first" and kept["verified"] is True


def test_late_answers_are_refused_on_both_databases(store: StudyStore, monkeypatch: Any
                                                    ) -> None:
    import xaip.userstudy.store as store_module

    store.bind("A", ["x"])
    code = store.create_participants(lambda index, code: ["x"], 1)[0]
    store.advance(code, -2)
    store.advance(code, -1)
    store.mark_shown(code, 0)
    real = store_module.time.time
    monkeypatch.setattr(store_module.time, "time", lambda: real() + 70)
    done = store.submit(code, 0, "x", _stage_rows(), last=True, time_limit=60, grace=5)
    assert done.refused and done.stage == 1
    [row] = store.responses()
    assert row["answer"] == "" and row["over_time"] == 1 and row["timed_out"] == 1


def test_two_servers_on_one_database_serve_participants_at_once(pg_url: str,
                                                                 tmp_path: Path) -> None:
    servers = _two_servers(tmp_path, pg_url)
    try:
        # Links created on both servers at the same moment: indexes stay dense and unique.
        def create(server: Any) -> list[str]:
            reply = httpx.post(f"{server.base}/study/admin/participants",
                               data={"token": TOKEN, "count": "20"}, timeout=60)
            codes: list[str] = reply.json()["codes"]
            return codes

        with ThreadPoolExecutor(max_workers=2) as pool:
            codes = [c for batch in pool.map(create, servers) for c in batch]
        people = httpx.get(f"{servers[0].base}/study/admin/summary",
                           params={"token": TOKEN}, headers={"accept": "application/json"},
                           timeout=60).json()
        assert people["participants"] == 40

        def one(number_code: tuple[int, str]) -> str:
            number, code = number_code
            rng = random.Random(number)
            # Each page goes to either server: the database alone holds the state.
            clients = [httpx.Client(base_url=s.base, timeout=120) for s in servers]
            try:
                completion = ""
                for stage, extra in ((-2, {"consent": "yes"}), (-1, {}), (0, FETCH_ANSWERS),
                                     (1, FETCH_ANSWERS)):
                    reply = rng.choice(clients).post(
                        f"/s/{code}", data={"stage": str(stage), **extra}, headers=HTML,
                        follow_redirects=True)
                    assert reply.status_code == 200, reply.text[:300]
                    if 'id="completion">' in reply.text:
                        completion = reply.text.split('id="completion">', 1)[1][:8]
                return completion
            finally:
                for client in clients:
                    client.close()

        with ThreadPoolExecutor(max_workers=16) as pool:
            completions = list(pool.map(one, enumerate(codes)))
        assert len(set(completions)) == 40 and all(len(c) == 8 for c in completions)
        exports = [_export(s.base) for s in servers]
        assert exports[0] == exports[1]
        rows = exports[0]
        assert len(rows) == 40 * 2 * len(FETCH_ANSWERS)
        assert {r["participant"] for r in rows} == set(codes)
        indexes = sorted({int(r["participant_index"]) for r in rows})
        assert indexes == list(range(40))
        firsts = [r["condition"] for r in rows if r["position"] == "1"
                  and r["question"] == "understand"]
        assert sorted(firsts.count(c) for c in ("mce", "none")) == [20, 20]
        # Only one of the two servers computed each answer; both show the same one.
        shown = [httpx.get(f"{s.base}/study/admin/answers.json", params={"token": TOKEN},
                           timeout=60).json() for s in servers]
        assert shown[0] == shown[1]
    finally:
        for server in servers:
            server.stop()


def test_one_page_sent_to_both_servers_at_once_is_stored_once(pg_url: str,
                                                              tmp_path: Path) -> None:
    servers = _two_servers(tmp_path, pg_url)
    try:
        codes = httpx.post(f"{servers[0].base}/study/admin/participants",
                           data={"token": TOKEN, "count": "12"}, timeout=60).json()["codes"]
        with httpx.Client(base_url=servers[0].base, timeout=60) as client:
            for code in codes:
                for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
                    client.post(f"/s/{code}", data={"stage": str(stage), **extra})
                client.get(f"/s/{code}", headers=HTML)

        def send(code_server: tuple[str, Any]) -> int:
            code, server = code_server
            return httpx.post(f"{server.base}/s/{code}", data={"stage": "0", **FETCH_ANSWERS},
                              timeout=60).status_code

        jobs = [(code, server) for code in codes for server in servers for _ in range(2)]
        with ThreadPoolExecutor(max_workers=8) as pool:
            statuses = list(pool.map(send, jobs))
        assert set(statuses) <= {303}
        rows = _export(servers[1].base)
        assert len(rows) == len(codes) * len(FETCH_ANSWERS)
    finally:
        for server in servers:
            server.stop()


def test_sigkill_of_one_server_loses_nothing(pg_url: str, tmp_path: Path) -> None:
    import psycopg

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = start(tmp_path / "a", pg_url), start(tmp_path / "b", pg_url)
    try:
        codes = httpx.post(f"{first.base}/study/admin/participants",
                           data={"token": TOKEN, "count": "3"}, timeout=60).json()["codes"]
        with httpx.Client(base_url=first.base, timeout=60) as client:
            walk(client, codes[0])
            for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
                client.post(f"/s/{codes[1]}", data={"stage": str(stage), **extra})
            client.post(f"/s/{codes[1]}", data={"stage": "0", **FETCH_ANSWERS})
        before = _export(first.base)
        assert len(before) == 3 * len(FETCH_ANSWERS)
        first.kill()
        # The database, read directly: every committed page is there.
        with psycopg.connect(pg_url) as connection:
            count = connection.execute("SELECT COUNT(*) FROM responses").fetchone()
        assert count is not None and count[0] == len(before)
        # The other server carries on with the participant the killed one was serving.
        assert _export(second.base) == before
        with httpx.Client(base_url=second.base, timeout=60) as client:
            assert "Part 2 of 2" in client.get(f"/s/{codes[1]}", headers=HTML).text
            done = client.post(f"/s/{codes[1]}", data={"stage": "1", **FETCH_ANSWERS},
                               headers=HTML, follow_redirects=True).text
            assert 'id="completion"' in done
        restarted = start(tmp_path / "a", pg_url)
        try:
            after = _export(restarted.base)
            assert after[:len(before)] == before and len(after) == 4 * len(FETCH_ANSWERS)
            assert restarted.log.read_text().count("computing condition") == 0
        finally:
            restarted.stop()
    finally:
        first.stop()
        second.stop()


def _two_servers(tmp_path: Path, url: str) -> list[Any]:
    """Two ``xaip serve`` processes on the database at ``url``, each in its own folder."""
    servers = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        servers.append(start(tmp_path / name, url))
    return servers


def _export(base: str) -> list[dict[str, str]]:
    text = httpx.get(f"{base}/study/admin/export.csv", params={"token": TOKEN},
                     timeout=60).text
    return list(csv.DictReader(io.StringIO(text)))


def test_dropped_connections_are_replaced(pg_url: str, pg_cluster: Any,
                                          monkeypatch: Any) -> None:
    """The database drops every connection (a restart, an administrator): the store's
    next request probes its idle connection, finds it dead and opens a new one; a request
    caught mid-way is a one-line 503-style error, never a wrong answer."""
    import psycopg

    from xaip.userstudy import backends

    monkeypatch.setattr(backends, "IDLE_PROBE", 0.0)
    store = open_store(pg_url)
    try:
        store.bind("A", ["x"])
        code = store.create_participants(lambda index, code: ["x"], 1)[0]
        name = pg_url.rsplit("/", 1)[1]
        with psycopg.connect(pg_cluster.url(), autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = %s AND pid <> pg_backend_pid()", (name,))
        assert store.advance(code, -2) == -1
        assert [p.stage for p in store.participants()] == [-1]
    finally:
        store.close()


def test_an_unreachable_database_mid_study_is_a_503(pg_url: str, tmp_path: Path,
                                                    monkeypatch: Any) -> None:
    """Served in process: the store fails with StoreUnavailable, the page says to try
    again (503), and nothing half-stored is left behind."""
    import sys
    import warnings

    from xaip.userstudy.backends import StoreUnavailable
    from xaip.userstudy.serving import start_study
    from xaip.web.app import create_app
    from xaip.web.settings import Settings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    server = start_study("fetch", pg_url, TOKEN, log=sys.stderr)
    try:
        with TestClient(create_app(Settings(runs_dir=tmp_path / "runs"), server),
                        raise_server_exceptions=False) as client:
            code = server.create(1)[0]

            def down(*args: Any, **kwargs: Any) -> Any:
                raise StoreUnavailable("connection refused")

            monkeypatch.setattr(server.store, "participant", down)
            reply = client.post(f"/s/{code}", data={"stage": "-2", "consent": "yes"},
                                headers=HTML)
            assert reply.status_code == 503
            assert "try again in a minute" in reply.text
            monkeypatch.undo()
            assert server.store.participant(code).stage == -2  # type: ignore[union-attr]
    finally:
        server.store.close()
