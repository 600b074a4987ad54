"""Shown answers: computed once, verified or refused, kept per study; time limits flagged."""

from __future__ import annotations

import io
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.userstudy.conftest import FETCH_ANSWERS, TOKEN, new_codes
from xaip.cli import main
from xaip.errors import InputError
from xaip.userstudy.answers import UnverifiedAnswer, prepare
from xaip.userstudy.spec import bundled_path, load_study, parse_study
from xaip.userstudy.store import open_store


def test_concepts_study_shows_the_why_not_answer(tmp_path: Path) -> None:
    study = load_study("concepts")
    store = open_store(tmp_path / "c.sqlite")
    shown = prepare(study, store, io.StringIO())
    assert any("switch-on" in line for line in shown["concept"].lines)
    assert shown["none"].lines == ()
    assert store.shown_answer("concept")["payload"]["verified"] is True
    assert store.shown_answer("none") is None


def test_answers_are_computed_once(tmp_path: Path) -> None:
    study = load_study("fetch")
    store = open_store(tmp_path / "f.sqlite")
    log = io.StringIO()
    first = prepare(study, store, log)
    assert log.getvalue().count("computing") == 2
    again = io.StringIO()
    assert prepare(study, store, again) == first and again.getvalue() == ""


def test_an_unverified_answer_is_never_shown(tmp_path: Path, capsys: Any) -> None:
    data = tomllib.loads(bundled_path("fetch").read_text())
    data["conditions"][0]["max_nodes"] = 1
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(data))
    with pytest.raises(UnverifiedAnswer, match="not verified"):
        prepare(parse_study(data), open_store(tmp_path / "t.sqlite"), io.StringIO())
    code = main(["serve", "--port", "0", "--study", str(path), "--study-db",
                 str(tmp_path / "u.sqlite")])
    assert code == 1
    assert "not verified" in capsys.readouterr().err


def test_a_database_holds_one_study(tmp_path: Path) -> None:
    store = open_store(tmp_path / "one.sqlite")
    store.bind("A", ["x", "y"])
    store.bind("A", ["x", "y"])
    with pytest.raises(InputError, match="another study"):
        store.bind("B", ["x"])
    (tmp_path / "dir.sqlite").mkdir()
    with pytest.raises(InputError, match="not a file"):
        open_store(tmp_path / "dir.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database " * 100)
    with pytest.raises(InputError, match="not a usable SQLite"):
        open_store(junk)


def test_time_over_the_limit_is_flagged(study_client: Any, monkeypatch: Any) -> None:
    import xaip.userstudy.store as store_module

    code = new_codes(study_client, 1)[0]
    for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
        study_client.post(f"/s/{code}", data={"stage": str(stage), **extra})
    study_client.get(f"/s/{code}")  # the condition is shown: its clock starts
    real = store_module.time.time
    monkeypatch.setattr(store_module.time, "time", lambda: real() + 301)
    study_client.post(f"/s/{code}", data={"stage": "0", **FETCH_ANSWERS})
    rows = study_client.study.store.responses()
    assert rows and all(r["over_time"] == 1 and r["seconds"] > 300 for r in rows)
    monkeypatch.undo()
    csv_text = study_client.get("/study/admin/export.csv", params={"token": TOKEN}).text
    assert csv_text.splitlines()[1].endswith(",1")
