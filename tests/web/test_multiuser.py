"""The several-users page (``/multiuser``, issue 24 A03) through FastAPI's test client: the
JSON endpoints return the library's own ``to_dict()`` for the same question, the page shows
each user's explanation or what the privacy map withholds, and bad input is a 400 with every
pasted text kept on the page -- never a 500.
"""

from __future__ import annotations

import json
from typing import Any

from tests.web.conftest import HTML
from tests.web.test_decisions import ok, same


def bundled(privacy: bool = True) -> dict[str, Any]:
    """The library's answer on the bundled firefighting example."""
    from xaip.multiuser import explain_to_users
    from xaip.multiuser.bundled import USERS, bundled_files
    from xaip.planning.pddl import read_domain, read_problem

    files = bundled_files()
    result = explain_to_users((read_domain(files["robot"]), read_problem(files["problem"])),
                              {name: read_domain(files[name]) for name in USERS},
                              privacy=json.loads(files["privacy"].read_text()) if privacy
                              else None)
    payload: dict[str, Any] = result.to_dict()
    return payload


def texts() -> dict[str, str]:
    from xaip.multiuser.bundled import bundled_files

    return {key: path.read_text(encoding="utf-8") for key, path in bundled_files().items()}


def form(**changes: str) -> dict[str, str]:
    """The page's form filled with the bundled example, with ``changes``."""
    t = texts()
    data = {"robot_domain": t["robot"], "robot_problem": t["problem"],
            "name1": "commander", "domain1": t["commander"],
            "name2": "police", "domain2": t["police"], "privacy": t["privacy"]}
    return {**data, **changes}


def test_api_is_the_librarys_answer_with_and_without_the_map(client: Any) -> None:
    with_map = ok(client.get("/api/multiuser"))
    same(with_map, bundled(True))
    assert with_map["status"] == "no_explanation" and with_map["verified"] is True
    without = ok(client.get("/api/multiuser", params={"privacy": "false"}))
    same(without, bundled(False))
    assert without["status"] == "found" and without["shared"]["status"] == "found"


def test_posted_models_get_the_librarys_answer(client: Any) -> None:
    t = texts()
    body = {"robot_domain": t["robot"], "robot_problem": t["problem"],
            "users": [{"name": "commander", "domain": t["commander"]},
                      {"name": "police", "domain": t["police"], "problem": t["problem"]}],
            "privacy": json.loads(t["privacy"])}
    same(ok(client.post("/api/multiuser", json=body)), bundled(True))


def test_page_shows_the_privacy_refusal_and_each_users_explanation(client: Any) -> None:
    page = client.get("/multiuser", headers=HTML)
    assert page.status_code == 200
    html = page.text
    assert 'id="withheld-commander"' in html and "No explanation commander may hear" in html
    assert "private to police (predicate:road_clear)" in html
    assert 'id="edits-police"' in html and "deploy_rescuers() requires (alerted)" in html
    assert 'id="shared-refused"' in html
    assert "no_explanation, verified" in html and 'id="check-note"' in html


def test_page_without_the_map_shows_each_users_view_of_the_shared_one(client: Any) -> None:
    html = client.get("/multiuser", params={"privacy": "false"}, headers=HTML).text
    assert "found, verified" in html and 'id="shared-edits"' in html
    assert 'id="view-commander"' in html and 'id="view-police"' in html
    assert 'id="withheld-commander"' not in html


def test_posted_form_is_answered_like_the_api(client: Any) -> None:
    html = client.post("/multiuser", data=form(privacy=""), headers=HTML).text
    assert "Every user can be told why" in html and "found, verified" in html


def test_bad_input_is_a_400_with_the_texts_kept(client: Any) -> None:
    cases = {
        "robot domain:1": form(robot_domain="(define (domain broken)"),
        "privacy map: not JSON": form(privacy="{private"),
        "unknown key": form(privacy='{"secret": {}}'),
        "user 2: give the user a name": form(name2=""),
        "user police: named twice": form(name1="police"),
        "give at least one user": form(name1="", domain1="", name2="", domain2=""),
        "paste the robot's domain and problem": form(robot_problem=" "),
    }
    for message, data in cases.items():
        page = client.post("/multiuser", data=data, headers=HTML)
        assert page.status_code == 400, (message, page.text[:300])
        assert 'id="input-error"' in page.text and message in page.text.replace("&#39;", "'")
        kept = data["privacy"].replace('"', "&#34;")
        assert kept in page.text or data["privacy"].replace('"', "&quot;") in page.text
    api = client.post("/api/multiuser", json={"robot_domain": "(define", "robot_problem": "",
                                               "users": [{"name": "a", "domain": "x"}]})
    assert api.status_code == 400 and "\n" not in api.json()["message"]
    assert client.post("/api/multiuser", json={"robot_domain": "", "robot_problem": "",
                                                "users": []}).status_code == 422


def test_linked_from_the_model_and_index_pages(client: Any) -> None:
    assert 'href="/multiuser"' in client.get("/", headers=HTML).text
    assert 'id="open-multiuser"' in client.get("/models/blocksworld", headers=HTML).text


def test_the_whole_form_with_long_domains_is_read(client: Any) -> None:
    """Every field the page sends (three user slots, the third empty) and a domain past the
    application's 4 KB field limit: this form has its own limits."""
    t = texts()
    padded = t["robot"] + "\n".join(f"; note {i:04d} " + "x" * 60 for i in range(80))
    assert len(padded) > 4096
    data = form(robot_domain=padded, problem1="", problem2=t["problem"], name3="",
                domain3="", problem3="")
    assert len(data) == 12
    page = client.post("/multiuser", data=data, headers=HTML)
    assert page.status_code == 200, page.text[-500:]
    assert "no_explanation, verified" in page.text


def test_a_budget_that_runs_out_is_said_and_unverified(client: Any) -> None:
    payload = ok(client.get("/api/multiuser", params={"max_nodes": 1}))
    assert payload["status"] == "budget_exhausted" and payload["verified"] is False
    html = client.get("/multiuser", params={"max_nodes": 1}, headers=HTML).text
    assert "Not decided" in html and "budget_exhausted, unverified" in html
    assert 'action="/multiuser?max_nodes=1"' in html  # the asked budget is kept by the form


def test_the_badge_is_the_librarys_verdict(client: Any, monkeypatch: Any) -> None:
    """An answer the library leaves unverified is shown unverified, never as verified."""
    import dataclasses

    import xaip.multiuser as multiuser

    real = multiuser.explain_to_users
    monkeypatch.setattr(multiuser, "explain_to_users", lambda *a, **k: dataclasses.replace(
        real(*a, **k), verified=False))
    payload = ok(client.get("/api/multiuser"))
    assert payload["verified"] is False and payload["status"] == "no_explanation"
    html = client.get("/multiuser", headers=HTML).text
    assert "no_explanation, unverified" in html and ", verified</span>" not in html
