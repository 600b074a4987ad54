"""Study files: the bundled ones load; every bad key is a one-line error naming it."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from xaip.cli import main
from xaip.errors import InputError
from xaip.userstudy.spec import bundled_path, load_study, parse_study


def fetch_data() -> dict[str, Any]:
    return tomllib.loads(bundled_path("fetch").read_text())


@pytest.mark.parametrize("name", ["fetch", "concepts"])
def test_bundled_studies_load(name: str) -> None:
    study = load_study(name)
    assert len(study.conditions) == 2
    assert all(c.questions for c in study.conditions)
    assert any(q.kind == "attention" for q in study.conditions[0].questions)


def test_fetch_study_contrasts_mce_with_the_plan_alone() -> None:
    study = load_study("fetch")
    assert [(c.explainer, c.show) for c in study.conditions] == [
        ("reconcile.mce", "explanation"), ("reconcile.mce", "plan")]
    plan = study.conditions[0].questions[2]
    assert plan.kind == "plan" and plan.correct in plan.options


def test_json_file_reads_as_toml_does(tmp_path: Path) -> None:
    path = tmp_path / "fetch.json"
    path.write_text(json.dumps(fetch_data()))
    assert load_study(path).conditions == load_study("fetch").conditions


def _set(data: dict[str, Any], where: tuple[Any, ...], value: Any) -> None:
    target: Any = data
    for key in where[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[where[-1]]
    else:
        target[where[-1]] = value


_DELETE = object()

BAD = [
    (("title",), _DELETE, "title:"),
    (("consent",), "  ", "consent:"),
    (("order",), "alphabetical", "order:"),
    (("seed",), "one", "seed:"),
    (("colour",), "red", "colour: unknown key"),
    (("conditions",), [], "conditions:"),
    (("conditions", 0, "name"), "m c e", "conditions[0].name:"),
    (("conditions", 1, "name"), "mce", "conditions: the name 'mce' is used twice"),
    (("conditions", 0, "explainer"), "reconcile.nope", "conditions[0].explainer:"),
    (("conditions", 0, "show"), "everything", "conditions[0].show:"),
    (("conditions", 0, "max_seconds"), -1, "conditions[0].max_seconds:"),
    (("conditions", 0, "max_nodes"), 2.5, "conditions[0].max_nodes:"),
    (("conditions", 0, "time_limit"), 0, "conditions[0].time_limit:"),
    (("conditions", 0, "extra"), 1, "conditions[0].extra: unknown key"),
    (("questions", 0, "kind"), "slider", "questions[0].kind:"),
    (("questions", 0, "id"), "a b", "questions[0].id:"),
    (("questions", 0, "text"), _DELETE, "questions[0].text:"),
    (("questions", 0, "scale"), 10, "questions[0].scale:"),
    (("questions", 0, "labels"), ["low"], "questions[0].labels:"),
    (("questions", 0, "options"), ["a", "b"], "questions[0].options: only"),
    (("questions", 0, "correct"), "a", "questions[0].correct: only"),
    (("questions", 0, "required"), "yes", "questions[0].required:"),
    (("questions", 2, "options"), [["(tuck)"]], "questions[2].options:"),
    (("questions", 2, "correct"), ["(crouch)"], "questions[2].correct:"),
    (("questions", 3, "correct"), _DELETE, "questions[3].correct:"),
    (("questions", 3, "options"), ["a", "a"], "questions[3].options:"),
    (("questions", 4, "scale"), 5, "questions[4].scale: only"),
    (("questions", 1, "id"), "understand", "the id 'understand' is used twice"),
    (("questions", 4, "kind"), "edit", "questions[4].kind: an edit question goes in"),
    (("conditions", 1, "questions"), [{"id": "e", "kind": "edit", "text": "Wrong?"}],
     "conditions[1].questions[0].kind: an edit question needs"),
]


@pytest.mark.parametrize(("where", "value", "message"), BAD,
                         ids=[".".join(map(str, w)) for w, _, _ in BAD])
def test_every_bad_key_is_named(where: tuple[Any, ...], value: Any, message: str) -> None:
    data = copy.deepcopy(fetch_data())
    _set(data, where, value)
    with pytest.raises(InputError) as caught:
        parse_study(data)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_no_questions_anywhere_is_an_error() -> None:
    data = fetch_data()
    del data["questions"]
    with pytest.raises(InputError, match=r"conditions\[0\].questions: no questions"):
        parse_study(data)


def test_show_without_explainer_is_an_error() -> None:
    data = fetch_data()
    del data["conditions"][0]["explainer"]
    with pytest.raises(InputError, match=r"conditions\[0\].show: 'explanation' needs"):
        parse_study(data)


@pytest.mark.parametrize(("text", "message"), [
    ("title = ", "not valid TOML"), ("[[conditions]\n", "not valid TOML")])
def test_broken_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_study(path)


def test_cli_bad_study_exits_2_with_one_line(tmp_path: Path, capsys: Any) -> None:
    data = fetch_data()
    data["order"] = "sideways"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    code = main(["serve", "--port", "0", "--runs", str(tmp_path / "runs"), "--study",
                 str(path), "--study-db", str(tmp_path / "s.sqlite")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert err == ["xaip: error: order: one of random, latin, fixed, not 'sideways'"]


@pytest.mark.parametrize("args", [["--study-db", "x.sqlite"], ["--study-token", "t" * 20]])
def test_cli_study_flags_need_study(tmp_path: Path, capsys: Any, args: list[str]) -> None:
    code = main(["serve", "--port", "0", "--runs", str(tmp_path / "runs"), *args])
    assert code == 2
    assert "go with --study" in capsys.readouterr().err


def test_cli_missing_study_and_short_token(tmp_path: Path, capsys: Any) -> None:
    assert main(["serve", "--port", "0", "--study", str(tmp_path / "none.toml"),
                 "--study-db", str(tmp_path / "s.sqlite")]) == 2
    assert "not found" in capsys.readouterr().err
    assert main(["serve", "--port", "0", "--study", "fetch", "--study-token", "short",
                 "--study-db", str(tmp_path / "s.sqlite")]) == 2
    assert "--study-token" in capsys.readouterr().err


def test_unreachable_postgres_is_one_line(tmp_path: Path, capsys: Any) -> None:
    from tests.userstudy.conftest import free_port

    url = f"postgresql://someone:secret@127.0.0.1:{free_port()}/study"
    code = main(["serve", "--port", "0", "--study", "fetch", "--study-db", url])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert "cannot use this PostgreSQL database" in err[0]
    assert "secret" not in err[0] and "someone:***@127.0.0.1" in err[0]


def test_postgres_without_the_driver_is_one_line(capsys: Any, monkeypatch: Any) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if xaip[study] were absent
    code = main(["serve", "--port", "0", "--study", "fetch", "--study-db",
                 "postgresql://127.0.0.1/study"])
    assert code == 2
    assert "needs the psycopg driver: install xaip[study]" in capsys.readouterr().err
