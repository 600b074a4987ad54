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
    assert csv_text.splitlines()[1].endswith(",1,0")  # over time, within the grace


def _with_files(tmp_path: Path, files: dict[str, str], explainer: str = "reconcile.mme"
                ) -> Path:
    data = tomllib.loads(bundled_path("fetch").read_text())
    data["conditions"][0].update(explainer=explainer, files=files)
    path = tmp_path / "own.json"
    path.write_text(json.dumps(data))
    return path


FETCH = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "fetch"


def test_a_condition_on_its_own_files(tmp_path: Path) -> None:
    path = _with_files(tmp_path, {"robot": str(FETCH / "robot.pddl"),
                                  "human": str(FETCH / "human.pddl"),
                                  "problem": str(FETCH / "problem.pddl")})
    study = load_study(path)
    assert dict(study.conditions[0].files)["robot"] == str(FETCH / "robot.pddl")
    shown = prepare(study, open_store(tmp_path / "own.sqlite"), io.StringIO())
    assert shown["mce"].payload["type"] == "mme" and shown["mce"].payload["verified"]
    assert any("hand-tucked" in line for line in shown["mce"].lines)


@pytest.mark.parametrize(("files", "explainer", "message"), [
    ({"robot": "robot.pddl", "human": "human.pddl"}, "reconcile.mme", "files.problem:"),
    ({"robot": "nowhere.pddl", "human": "h", "problem": "p"}, "reconcile.mce",
     "files.robot: no file nowhere.pddl"),
    ({"robot": "r", "human": "h", "problem": "p", "domain": "d"}, "reconcile.mce",
     "files.domain: unknown key"),
    ({"robot": "r", "human": "h", "problem": "p"}, "concepts.precondition",
     "files: instance files go with"),
])
def test_bad_files_are_named(tmp_path: Path, files: dict[str, str], explainer: str,
                             message: str) -> None:
    for name in ("r", "h", "p", "robot.pddl", "human.pddl"):
        (tmp_path / name).write_text("")
    with pytest.raises(InputError, match=message.replace(".", r"\.")):
        load_study(_with_files(tmp_path, files, explainer))


def test_files_that_do_not_parse_are_a_one_line_error(tmp_path: Path, capsys: Any) -> None:
    (tmp_path / "bad.pddl").write_text("(define (domain")
    path = _with_files(tmp_path, {"robot": "bad.pddl", "human": str(FETCH / "human.pddl"),
                                  "problem": str(FETCH / "problem.pddl")})
    code = main(["serve", "--port", "0", "--study", str(path), "--study-db",
                 str(tmp_path / "b.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2, err
    assert err[-1].startswith("xaip: error:") and "bad.pddl" in err[-1]


def test_a_changed_condition_needs_a_new_database(tmp_path: Path) -> None:
    from xaip.userstudy.serving import start_study

    db = str(tmp_path / "s.sqlite")
    start_study("fetch", db, None, log=io.StringIO()).store.close()
    data = tomllib.loads(bundled_path("fetch").read_text())
    data["conditions"][1]["explainer"] = "reconcile.mme"  # same name, other answer
    path = tmp_path / "changed.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="another study"):
        start_study(str(path), db, None, log=io.StringIO())
