"""Participant and researcher pages in process: the flow, what each condition shows, the
token, rate limits, no uploads, and answers checked against their questions."""

from __future__ import annotations

import csv
import io
from typing import Any

import pytest

from tests.userstudy.conftest import FETCH_ANSWERS, HTML, TOKEN, new_codes, walk
from xaip.userstudy import web

ADMIN = ["/study/admin", "/study/admin/export.csv", "/study/admin/summary",
         "/study/admin/answers.json"]


def test_participant_walks_through_and_researcher_exports(study_client: Any) -> None:
    code = new_codes(study_client, 1)[0]
    completion = walk(study_client, code)
    assert len(completion) == 8
    rows = list(csv.DictReader(io.StringIO(study_client.get(
        "/study/admin/export.csv", params={"token": TOKEN}).text)))
    assert len(rows) == 2 * len(FETCH_ANSWERS)
    person = study_client.study.store.participant(code)
    assert [r["condition"] for r in rows[::5]] == list(person.order)
    assert {r["answer"] for r in rows if r["question"] == "attention"} == {"loc2"}
    assert {r["correct"] for r in rows if r["question"] == "next_plan"} == {"1"}
    assert all(float(r["seconds"]) >= 0 for r in rows)


def test_each_condition_shows_only_what_it_allows(study_client: Any) -> None:
    first, second = new_codes(study_client, 2)  # Latin square: mce first, then none first
    texts = {}
    for code in (first, second):
        for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
            study_client.post(f"/s/{code}", data={"stage": str(stage), **extra})
        order = study_client.study.store.participant(code).order
        texts[order[0]] = study_client.get(f"/s/{code}", headers=HTML).text
    assert "requires (hand-tucked)" in texts["mce"]
    assert "1. (pick-up b1 loc1)" in texts["none"]
    assert "hand-tucked" not in texts["none"] and "Minimally complete" not in texts["none"]
    for text in texts.values():
        assert "/study/admin" not in text and TOKEN not in text


@pytest.mark.parametrize("path", ADMIN)
def test_researcher_pages_need_the_token(study_client: Any, path: str) -> None:
    assert study_client.get(path).status_code == 403
    assert study_client.get(path, params={"token": TOKEN + "x"}).status_code == 403
    code = new_codes(study_client, 1)[0]
    assert study_client.get(path, params={"token": code}).status_code == 403
    assert study_client.get(path, params={"token": TOKEN}).status_code == 200
    assert study_client.get(path, headers={"X-Study-Token": TOKEN}).status_code == 200


def test_creating_links_needs_the_token(study_client: Any) -> None:
    reply = study_client.post("/study/admin/participants", data={"count": "3"})
    assert reply.status_code == 403
    assert study_client.study.store.participants() == []
    reply = study_client.post("/study/admin/participants",
                              data={"token": TOKEN, "count": "0"})
    assert reply.status_code == 400


def test_unknown_and_malformed_codes_are_404(study_client: Any) -> None:
    assert study_client.get("/s/nobody-here").status_code == 404
    assert study_client.get("/s/a%20b").status_code == 404
    assert study_client.post("/s/nobody-here", data={"stage": "-2"}).status_code == 404


def test_consent_is_required(study_client: Any) -> None:
    code = new_codes(study_client, 1)[0]
    reply = study_client.post(f"/s/{code}", data={"stage": "-2"}, headers=HTML)
    assert reply.status_code == 400 and "tick the box" in reply.text
    assert study_client.study.store.participant(code).stage == -2


def _to_first_condition(client: Any) -> str:
    code = new_codes(client, 1)[0]
    for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
        client.post(f"/s/{code}", data={"stage": str(stage), **extra})
    return code


def test_missing_required_answers_keep_the_participant(study_client: Any) -> None:
    code = _to_first_condition(study_client)
    partial = {"stage": "0", "understand": "3"}
    reply = study_client.post(f"/s/{code}", data=partial, headers=HTML)
    assert reply.status_code == 400
    assert "question 2" in reply.text and "question 1," not in reply.text
    assert 'value="3" checked' in reply.text  # what was given is kept
    assert study_client.study.store.responses() == []


@pytest.mark.parametrize(("field", "value"), [
    ("understand", "6"), ("satisfied", "0"), ("next_plan", "3"), ("attention", "-1"),
    ("attention", "loc2"), ("comments", "x" * 2001)])
def test_answers_outside_the_question_are_400(study_client: Any, field: str,
                                              value: str) -> None:
    code = _to_first_condition(study_client)
    reply = study_client.post(f"/s/{code}", data={"stage": "0", **FETCH_ANSWERS,
                                                  field: value})
    assert reply.status_code == 400
    assert study_client.study.store.responses() == []


def test_a_page_sent_twice_is_stored_once(study_client: Any) -> None:
    code = _to_first_condition(study_client)
    for _ in range(2):
        reply = study_client.post(f"/s/{code}", data={"stage": "0", **FETCH_ANSWERS})
        assert reply.status_code in (200, 303)
    assert len(study_client.study.store.responses()) == len(FETCH_ANSWERS)
    assert study_client.study.store.participant(code).stage == 1


def test_participants_cannot_upload(study_client: Any) -> None:
    code = _to_first_condition(study_client)
    reply = study_client.post(f"/s/{code}", data={"stage": "0"},
                              files={"file": ("a.txt", b"hello")})
    assert reply.status_code == 415


def test_posts_are_rate_limited_per_code(study_client: Any, monkeypatch: Any) -> None:
    monkeypatch.setattr(web, "POSTS_PER_MINUTE", 3)
    code, other = new_codes(study_client, 2)
    replies = [study_client.post(f"/s/{code}", data={"stage": "-2"}).status_code
               for _ in range(5)]
    assert replies[:3] == [400, 400, 400] and replies[3:] == [429, 429]
    assert study_client.post(f"/s/{other}", data={"stage": "-2"}).status_code == 400


def test_summary_tables_and_figure(study_client: Any) -> None:
    for code in new_codes(study_client, 4):
        walk(study_client, code)
    summary = study_client.get("/study/admin/summary", params={"token": TOKEN},
                               headers={"accept": "application/json"}).json()
    assert summary["finished"] == 4 and summary["responses"] == 40
    for condition in summary["conditions"]:
        tables = {q["id"]: q for q in condition["questions"]}
        assert tables["understand"]["mean"] == 4 and tables["understand"]["sd"] == 0
        assert tables["attention"]["pass_rate"] == 1.0
        assert tables["next_plan"]["counts"]["(pick-up b2 loc1) (tuck) (move loc1 loc2) "
                                             "(put-down b2 loc2)"] == 4
    page = study_client.get("/study/admin/summary", params={"token": TOKEN}, headers=HTML)
    assert 'id="figure"' in page.text and "data:image/png;base64," in page.text


def test_shown_answers_are_the_explainer_payloads(study_client: Any) -> None:
    shown = study_client.get("/study/admin/answers.json", params={"token": TOKEN}).json()
    assert shown["mce"]["type"] == "mce" and shown["mce"]["verified"] is True
    store = study_client.study.store
    assert store.shown_answer("mce")["payload"] == shown["mce"]


def test_mark_the_wrong_edit(tmp_path: Any) -> None:
    """An edit question offers the shown explanation's edits (and "none of them")."""
    import json
    import sys
    import tomllib
    import warnings

    from xaip.userstudy.serving import start_study
    from xaip.userstudy.spec import NO_EDIT, bundled_path
    from xaip.web.app import create_app
    from xaip.web.settings import Settings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    data = tomllib.loads(bundled_path("fetch").read_text())
    data["order"] = "fixed"
    data["conditions"][0]["questions"] = [{"id": "wrong", "kind": "edit",
                                           "text": "Which of these is wrong?"}]
    path = tmp_path / "edit.json"
    path.write_text(json.dumps(data))
    server = start_study(str(path), str(tmp_path / "e.sqlite"), TOKEN, log=sys.stderr)
    with TestClient(create_app(Settings(runs_dir=tmp_path / "runs"), server)) as client:
        code = server.create(1)[0]
        for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
            client.post(f"/s/{code}", data={"stage": str(stage), **extra})
        page = client.get(f"/s/{code}", headers=HTML).text
        assert "move(?from, ?to) requires (hand-tucked)" in page.split('id="q-wrong"')[1]
        assert NO_EDIT in page
        bad = client.post(f"/s/{code}", data={"stage": "0", **FETCH_ANSWERS, "wrong": "2"})
        assert bad.status_code == 400
        client.post(f"/s/{code}", data={"stage": "0", **FETCH_ANSWERS, "wrong": "0"})
        rows = server.store.responses()
        assert [r["answer"] for r in rows if r["question"] == "wrong"] == [
            "move(?from, ?to) requires (hand-tucked)"]
        summary = client.get("/study/admin/summary", params={"token": TOKEN},
                             headers={"accept": "application/json"}).json()
        edit = [q for q in summary["conditions"][0]["questions"] if q["id"] == "wrong"][0]
        assert edit["counts"] == {"move(?from, ?to) requires (hand-tucked)": 1, NO_EDIT: 0}
    server.store.close()
