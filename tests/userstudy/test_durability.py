"""A real ``xaip serve --study`` on loopback: killed with SIGKILL mid-study it loses nothing
committed and participants resume; 100 simulated participants at once lose nothing."""

from __future__ import annotations

import csv
import io
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from tests.userstudy.conftest import FETCH_ANSWERS, HTML, TOKEN, start, walk

PARTICIPANTS = 100


def _export(base: str) -> list[dict[str, str]]:
    text = httpx.get(f"{base}/study/admin/export.csv", params={"token": TOKEN},
                     timeout=60).text
    return list(csv.DictReader(io.StringIO(text)))


def test_sigkill_mid_study_loses_nothing_and_participants_resume(tmp_path: Path) -> None:
    db = tmp_path / "study.sqlite"
    server = start(tmp_path, db)
    try:
        codes = httpx.post(f"{server.base}/study/admin/participants",
                           data={"token": TOKEN, "count": "4"}, timeout=60).json()["codes"]
        with httpx.Client(base_url=server.base, timeout=60) as client:
            walk(client, codes[0])  # finished
            for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
                client.post(f"/s/{codes[1]}", data={"stage": str(stage), **extra})
            client.post(f"/s/{codes[1]}", data={"stage": "0", **FETCH_ANSWERS})  # 1 of 2
            client.post(f"/s/{codes[2]}", data={"stage": "-2", "consent": "yes"})
        before = _export(server.base)
        assert len(before) == 3 * len(FETCH_ANSWERS)
    finally:
        server.kill()
    # The killed server's database, read directly: every committed page is there.
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT COUNT(*) FROM responses").fetchone()[0] == len(before)
    server = start(tmp_path, db)
    try:
        assert _export(server.base) == before
        with httpx.Client(base_url=server.base, timeout=60) as client:
            page = client.get(f"/s/{codes[1]}", headers=HTML).text
            assert "Part 2 of 2" in page  # resumes where the database says
            page = client.get(f"/s/{codes[2]}", headers=HTML).text
            assert "Instructions" in page
            done = client.post(f"/s/{codes[1]}", data={"stage": "1", **FETCH_ANSWERS},
                               headers=HTML, follow_redirects=True).text
            assert 'id="completion"' in done
        after = _export(server.base)
        assert after[:len(before)] == before and len(after) == 4 * len(FETCH_ANSWERS)
        # The shown answers were kept, not recomputed: no "computing" after the restart.
        assert server.log.read_text().count("computing condition") == 0
    finally:
        server.stop()


def test_hundred_participants_at_once_lose_nothing(tmp_path: Path) -> None:
    server = start(tmp_path, tmp_path / "load.sqlite")
    try:
        codes = httpx.post(f"{server.base}/study/admin/participants",
                           data={"token": TOKEN, "count": str(PARTICIPANTS)},
                           timeout=60).json()["codes"]

        def one(code: str) -> str:
            with httpx.Client(base_url=server.base, timeout=120) as client:
                return walk(client, code)

        with ThreadPoolExecutor(max_workers=25) as pool:
            completions = list(pool.map(one, codes))
        assert len(set(completions)) == PARTICIPANTS
        rows = _export(server.base)
        assert len(rows) == PARTICIPANTS * 2 * len(FETCH_ANSWERS)
        assert {r["participant"] for r in rows} == set(codes)
        summary = httpx.get(f"{server.base}/study/admin/summary", params={"token": TOKEN},
                            headers={"accept": "application/json"}, timeout=60).json()
        assert summary["finished"] == PARTICIPANTS
        # Latin square over 100 participants and 2 conditions: 50 of each order.
        firsts = [r["condition"] for r in rows if r["position"] == "1"
                  and r["question"] == "understand"]
        assert sorted(firsts.count(c) for c in ("mce", "none")) == [50, 50]
    finally:
        server.stop()
