"""Time limits are enforced: a countdown on the page, answers kept within the grace
(flagged over time), refused after it -- on a POST and on a mere reload -- and a page the
countdown sent at zero kept with what was answered."""

from __future__ import annotations

import copy
import json
import re
import sys
import tomllib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.userstudy.conftest import FETCH_ANSWERS, HTML, TOKEN
from xaip.errors import InputError
from xaip.userstudy.spec import DEFAULT_GRACE, bundled_path, parse_study
from xaip.userstudy.web import NOTICES

LIMIT, GRACE = 60, 30


def timed_study(tmp_path: Path, **condition: Any) -> Path:
    data = copy.deepcopy(tomllib.loads(bundled_path("fetch").read_text()))
    data["order"] = "fixed"
    for item in data["conditions"]:
        item.update({"time_limit": LIMIT, "time_grace": GRACE, **condition})
    path = tmp_path / "timed.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def timed(tmp_path: Path) -> Iterator[Any]:
    from xaip.userstudy.serving import start_study
    from xaip.web.app import create_app
    from xaip.web.settings import Settings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    server = start_study(str(timed_study(tmp_path)), str(tmp_path / "t.sqlite"), TOKEN,
                         log=sys.stderr)
    with TestClient(create_app(Settings(runs_dir=tmp_path / "runs"), server)) as client:
        client.study = server
        code = server.create(1)[0]
        for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
            client.post(f"/s/{code}", data={"stage": str(stage), **extra})
        client.code = code
        yield client
    server.store.close()


def _later(monkeypatch: Any, seconds: float) -> None:
    """Every clock the study reads runs ``seconds`` ahead from now on."""
    import xaip.userstudy.store as store_module
    import xaip.userstudy.web as web_module

    real = store_module.time.time
    monkeypatch.setattr(store_module.time, "time", lambda: real() + seconds)
    monkeypatch.setattr(web_module.time, "time", lambda: real() + seconds)


def test_the_page_shows_a_countdown_and_its_script(timed: Any) -> None:
    page = timed.get(f"/s/{timed.code}", headers=HTML).text
    found = re.search(r'id="countdown" data-seconds-left="([0-9.]+)">(\d+):(\d\d)<', page)
    assert found is not None
    left = float(found.group(1))
    assert 0 < left <= LIMIT  # counted from when the page was first shown
    assert int(found.group(2)) * 60 + int(found.group(3)) == int(left)
    assert '<script src="/study/countdown.js" defer></script>' in page
    assert 'name="timed_out" id="timed-out" value=""' in page
    script = timed.get("/study/countdown.js")
    assert script.status_code == 200 and "javascript" in script.headers["content-type"]
    assert "form.submit()" in script.text and 'flag.value = "yes"' in script.text


def test_answers_within_the_grace_are_kept_and_flagged(timed: Any, monkeypatch: Any) -> None:
    timed.get(f"/s/{timed.code}", headers=HTML)
    _later(monkeypatch, LIMIT + GRACE / 2)
    reply = timed.post(f"/s/{timed.code}", data={"stage": "0", **FETCH_ANSWERS},
                       follow_redirects=False)
    assert reply.status_code == 303 and reply.headers["location"] == f"/s/{timed.code}"
    rows = timed.study.store.responses()
    assert {r["answer"] for r in rows if r["question"] == "understand"} == {"4"}
    assert all(r["over_time"] == 1 and r["timed_out"] == 0 for r in rows)


def test_answers_after_the_grace_are_refused(timed: Any, monkeypatch: Any) -> None:
    timed.get(f"/s/{timed.code}", headers=HTML)
    _later(monkeypatch, LIMIT + GRACE + 1)
    reply = timed.post(f"/s/{timed.code}", data={"stage": "0", **FETCH_ANSWERS},
                       headers=HTML, follow_redirects=True)
    assert reply.status_code == 200
    assert NOTICES["late"] in reply.text and "Part 2 of 2" in reply.text
    rows = timed.study.store.responses()
    assert len(rows) == len(FETCH_ANSWERS)
    assert all(r["answer"] == "" and r["timed_out"] == 1 and r["over_time"] == 1
               for r in rows)
    csv_text = timed.get("/study/admin/export.csv", params={"token": TOKEN}).text
    assert csv_text.splitlines()[0].endswith("over_time,timed_out")
    summary = timed.get("/study/admin/summary", params={"token": TOKEN},
                        headers={"accept": "application/json"}).json()
    first = summary["conditions"][0]
    assert first["timed_out"] == 1 and first["over_time"] == 1
    assert all(q["n"] == 0 for q in first["questions"])  # nothing refused is counted


def test_a_reload_after_the_grace_moves_on(timed: Any, monkeypatch: Any) -> None:
    timed.get(f"/s/{timed.code}", headers=HTML)
    _later(monkeypatch, LIMIT + GRACE + 1)
    page = timed.get(f"/s/{timed.code}", headers=HTML).text
    assert NOTICES["late"] in page and "Part 2 of 2" in page
    assert timed.study.store.participant(timed.code).stage == 1
    assert {r["timed_out"] for r in timed.study.store.responses()} == {1}


def test_the_countdown_page_keeps_what_was_answered(timed: Any, monkeypatch: Any) -> None:
    timed.get(f"/s/{timed.code}", headers=HTML)
    _later(monkeypatch, LIMIT + 0.5)
    reply = timed.post(f"/s/{timed.code}", data={"stage": "0", "understand": "2",
                                                 "timed_out": "yes"}, follow_redirects=False)
    assert reply.headers["location"] == f"/s/{timed.code}?note=timeup"
    rows = {r["question"]: r for r in timed.study.store.responses()}
    assert rows["understand"]["answer"] == "2" and rows["satisfied"]["answer"] == ""
    assert all(r["timed_out"] == 1 for r in rows.values())
    page = timed.get(f"/s/{timed.code}?note=timeup", headers=HTML).text
    assert NOTICES["timeup"] in page


def test_a_timed_out_flag_before_the_limit_changes_nothing(timed: Any) -> None:
    timed.get(f"/s/{timed.code}", headers=HTML)
    reply = timed.post(f"/s/{timed.code}", data={"stage": "0", "understand": "2",
                                                 "timed_out": "yes"}, headers=HTML)
    assert reply.status_code == 400 and "Please answer" in reply.text
    assert timed.study.store.responses() == []


def test_a_condition_without_a_limit_has_no_countdown(study_client: Any) -> None:
    from tests.userstudy.conftest import new_codes

    code = new_codes(study_client, 1)[0]
    for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
        study_client.post(f"/s/{code}", data={"stage": str(stage), **extra})
    data = tomllib.loads(bundled_path("fetch").read_text())
    for item in data["conditions"]:
        item.pop("time_limit")
    study = parse_study(data)
    assert all(c.time_limit is None for c in study.conditions)
    assert study.conditions[0].time_grace == DEFAULT_GRACE


@pytest.mark.parametrize(("change", "message"), [
    ({"time_grace": -1}, "conditions[0].time_grace: a number of seconds >= 0"),
    ({"time_grace": "x"}, "conditions[0].time_grace:"),
    ({"time_limit": None, "time_grace": 5}, "conditions[0].time_grace: goes with a time_limit"),
])
def test_bad_grace_is_named(change: dict[str, Any], message: str) -> None:
    data = tomllib.loads(bundled_path("fetch").read_text())
    data["conditions"][0].update(change)
    if change.get("time_limit", 0) is None:
        del data["conditions"][0]["time_limit"]
    with pytest.raises(InputError) as caught:
        parse_study(data)
    assert message in str(caught.value)


def test_a_database_from_before_enforced_limits_gains_its_column(tmp_path: Path) -> None:
    """A SQLite file written before ``timed_out`` existed opens, keeps its rows (0)."""
    import sqlite3

    from xaip.userstudy.store import open_store

    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as old:
        old.executescript("""
            CREATE TABLE participants (code TEXT PRIMARY KEY, idx INTEGER NOT NULL UNIQUE,
              condition_order TEXT NOT NULL, created REAL NOT NULL, started REAL,
              stage INTEGER NOT NULL DEFAULT 0, shown_at REAL, finished REAL,
              completion_code TEXT);
            CREATE TABLE responses (id INTEGER PRIMARY KEY AUTOINCREMENT,
              code TEXT NOT NULL REFERENCES participants(code), condition TEXT NOT NULL,
              position INTEGER NOT NULL, question TEXT NOT NULL, kind TEXT NOT NULL,
              answer TEXT NOT NULL, correct INTEGER, shown_at REAL, answered_at REAL NOT NULL,
              seconds REAL, over_time INTEGER NOT NULL DEFAULT 0,
              UNIQUE (code, condition, question));
            INSERT INTO participants VALUES ('abcdef', 0, '["x"]', 1.0, 1.0, 1, NULL, 2.0, 'C0DE');
            INSERT INTO responses (code, condition, position, question, kind, answer,
              answered_at, seconds, over_time) VALUES ('abcdef', 'x', 1, 'q', 'text', 'hi',
              2.0, 1.0, 1);
        """)
    store = open_store(path)
    [row] = store.responses()
    assert row["answer"] == "hi" and row["over_time"] == 1 and row["timed_out"] == 0
    store.close()
