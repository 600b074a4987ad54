"""The decision-support pages (issue 24): the RADAR dialogue (``/assist``), partial-plan
foils (``/foils``) and why a task has no plan (``/unsolvable``), through FastAPI's test
client. Each JSON endpoint must return the library's own ``to_dict()`` for the same
question, each page must show it, and every bad input must be a clear 4xx with the
person's input kept on the page -- never a 500.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.web.conftest import HTML

PREFIX = ["(unstack b1 b2)", "(put-down b1)"]


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


def untimed(value: Any) -> Any:
    """``value`` without its timings (``seconds``, ``stats``, a checker's seconds), at
    every depth: they differ between two runs of the same question."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items()
                if k not in ("seconds", "stats", "check_seconds")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def same(web: dict[str, Any], library: dict[str, Any]) -> None:
    """The endpoint's payload is the library's, apart from timings."""
    assert untimed(web) == untimed(library)


def blocksworld() -> tuple[Any, Any]:
    from xaip.foils.bundled import bundled_task

    return bundled_task()


# ------------------------------------------------------------------ the RADAR dialogue


def test_assist_answers_are_the_assistants(client: Any) -> None:
    from xaip.assist import Assistant

    query = {"step": PREFIX, "veto": ["(stack b1 b2)"], "ask": "suggest"}
    payload = ok(client.get("/api/assist", params=query))
    direct = Assistant(*blocksworld(), PREFIX, ["(stack b1 b2)"]).suggest()
    same(payload, direct.to_dict())
    assert payload["verified"] is True and payload["suggestion"] == "(unstack b2 b3)"
    page = client.get("/assist", params=query, headers=HTML)
    assert page.status_code == 200
    assert "(unstack b2 b3)" in page.text and "solved, verified</span>" in page.text
    assert "without it there is no completion at all" in page.text

    checked = ok(client.get("/api/assist", params={
        "step": [*PREFIX, "(pick-up b3)"], "ask": "check"}))
    assert checked["failure"] == {"kind": "precondition", "step": 3, "action": "(pick-up b3)",
                                  "unmet": ["(clear b3)"]}
    assert checked["kept_steps"] == 2 and checked["completion"][0]["step"] == 3
    assert checked["verified"] is True

    completed = ok(client.get("/api/assist", params={"step": PREFIX, "ask": "complete"}))
    assert completed["total_cost"] == 10 and completed["cost_gap"] == 0
    none_left = ok(client.get("/api/assist", params={"step": PREFIX, "veto": "stack",
                                                     "ask": "complete"}))
    assert none_left["status"] == "unsolvable" and none_left["verified"] is True
    page = client.get("/assist", params={"step": PREFIX, "veto": "stack", "ask": "complete"},
                      headers=HTML)
    assert "No completion of your plan avoids the vetoed actions" in page.text
    nothing = client.get("/assist", params={"model": "delivery"}, headers=HTML).text
    assert "unsolvable, verified</span>" in nothing
    assert "This task has no plan at all" in nothing and "/unsolvable?model=delivery" in nothing


def links_on(page: str) -> dict[str, list[str]]:
    """Every ``/assist`` address on a page by its element id (or its text)."""
    found: dict[str, list[str]] = {}
    for match in re.finditer(r'<a class="[^"]*"(?: id="([^"]+)")? href="(/assist\?[^"]+)"',
                             page):
        found.setdefault(match.group(1) or "", []).append(match.group(2).replace("&amp;", "&"))
    return found


def test_the_dialogue_is_in_its_links(client: Any) -> None:
    """Taking the suggestion, vetoing it, removing the veto and taking the repair are
    links whose queries hold the whole state (the server keeps nothing per person)."""
    page = client.get("/assist", params={"step": PREFIX}, headers=HTML).text
    links = links_on(page)
    take = parse_qs(urlparse(links["take-suggestion"][0]).query)
    assert take["step"] == [*PREFIX, "(unstack b2 b3)"]
    veto = parse_qs(urlparse(links["veto-suggestion"][0]).query)
    assert veto["veto"] == ["(unstack b2 b3)"] and veto["step"] == PREFIX
    whole = parse_qs(urlparse(links["veto-schema"][0]).query)
    assert whole["veto"] == ["unstack"]
    vetoed = client.get(links["veto-suggestion"][0], headers=HTML).text
    assert "<code>(unstack b2 b3)</code>" in vetoed  # listed among the vetoes
    unveto = [u for u in re.findall(r'href="(/assist\?[^"]+)" aria-label="remove the veto',
                                    vetoed)]
    assert len(unveto) == 1 and "veto=" not in unveto[0].replace("&amp;", "&")
    # a step that applies now is one click away, with the state kept
    adds = [u for u in links_on(page).get("", []) if "pick-up+b4" in u or "pick-up%20b4" in u]
    assert adds and parse_qs(urlparse(adds[0]).query)["step"] == [*PREFIX, "(pick-up b4)"]

    check = client.get("/assist", params={"step": [*PREFIX, "(pick-up b3)"], "ask": "check"},
                       headers=HTML).text
    repair = parse_qs(urlparse(links_on(check)["take-completion"][0]).query)
    assert repair["ask"] == ["check"] and repair["step"][:2] == PREFIX
    valid = ok(client.get("/api/assist", params={"step": repair["step"], "ask": "check"}))
    assert valid["status"] == "valid" and valid["verified"] is True
    # a budget the person asked for holds for every next answer (links and forms)
    budgeted = client.get("/assist", params={"max_seconds": 7, "max_nodes": 50000},
                          headers=HTML).text
    following = links_on(budgeted)["ask-complete"][0]
    assert "max_seconds=7" in following and "max_nodes=50000" in following
    assert budgeted.count('<input type="hidden" name="max_seconds" value="7">') == 3


def test_assist_bad_input_is_a_clear_message_with_the_plan_kept(client: Any) -> None:
    answer = client.get("/api/assist", params={"step": "(fly b1)"})
    assert answer.status_code == 400 and "unknown action 'fly'" in answer.json()["message"]
    assert client.get("/api/assist", params={"veto": "zap"}).status_code == 400
    assert client.get("/api/assist", params={"ask": "guess"}).status_code == 400
    assert client.get("/api/assist", params={"step": "(stack b1 b2 b3)"}).status_code == 400
    assert client.get("/api/assist", params={"model": "nope"}).status_code == 404
    page = client.get("/assist", params={"step": [PREFIX[0], "(fly b1)"]}, headers=HTML)
    assert page.status_code == 400 and 'id="input-error"' in page.text
    assert "unknown action" in page.text and 'aria-label="remove step 2 (fly b1)"' in page.text
    blank = ok(client.get("/api/assist", params={"step": [PREFIX[0], " "]}))
    assert [s["action"] for s in blank["prefix"]] == [PREFIX[0]]  # an empty box adds nothing


def test_assist_budget_and_verdict(client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tight = ok(client.get("/api/assist", params={"max_nodes": 1}))
    assert tight["status"] == "budget_exhausted" and tight["verified"] is False
    page = client.get("/assist", params={"max_nodes": 1}, headers=HTML).text
    assert "budget_exhausted, unverified</span>" in page

    from xaip.assist.assistant import Assistant

    real = Assistant.suggest

    def unverified(self: Any, budget: Any = None) -> Any:
        return dataclasses.replace(real(self, budget), verified=False)

    monkeypatch.setattr(Assistant, "suggest", unverified)
    assert ok(client.get("/api/assist"))["verified"] is False
    shown = client.get("/assist", headers=HTML).text
    assert ", unverified</span>" in shown and '<span class="status verified">' not in shown


# ------------------------------------------------------------------ partial-plan foils


def test_foils_default_is_the_bundled_example(client: Any) -> None:
    from xaip.foils import explain_foils
    from xaip.foils.bundled import EXAMPLE_FOILS

    payload = ok(client.get("/api/foils"))
    same(payload, explain_foils(*blocksworld(), EXAMPLE_FOILS, file="foils").to_dict())
    assert payload["minimal_conflicts"] == [[1, 2], [2, 4]]
    assert payload["maximal_realisable"] == [[1, 3, 4], [2, 3]] and payload["verified"]
    page = client.get("/foils", headers=HTML).text
    assert "Requests that clash" in page and "unsolvable, verified</span>" in page
    asks = re.findall(r'href="(/foils\?[^"]+)" aria-label="ask with requests', page)
    assert len(asks) == 2
    kept = parse_qs(urlparse(asks[0].replace("&amp;", "&")).query)["foils"][0]
    assert kept.splitlines() == ["use (put-down b2)",
                                 "sequence (unstack b1 b2) (put-down b1) (unstack b2 b3)",
                                 "(stack b4 b3) then (put-down b2)"]
    witness = ok(client.get("/api/foils", params={"foils": kept}))
    assert witness["realisable"] is True and witness["verified"] is True


def test_foils_witness_and_cost_gap(client: Any) -> None:
    text = "use (put-down b2)\n(unstack b1 b2) then (stack b5 b4)"
    payload = ok(client.get("/api/foils", params={"foils": text}))
    assert payload["witness_cost"] == 12 and payload["robot_cost"] == 10
    assert payload["cost_gap"] == 2 and payload["verified"] is True
    page = client.get("/foils", params={"foils": text}, headers=HTML).text
    assert "Cost gap <strong>2</strong>" in page
    marked = re.findall(r'<li class="marked">([^<]+)', page)
    assert "(put-down b2) " in marked and "(unstack b1 b2) " in marked


def test_foil_builder_adds_a_line_and_redirects(client: Any) -> None:
    answer = client.get("/foils", params={"foils": "use (put-down b2)", "kind": "never_after",
                                          "a": "(put-down b2)", "b": "(pick-up ?x)"},
                        headers=HTML, follow_redirects=False)
    assert answer.status_code == 303
    target = parse_qs(urlparse(answer.headers["location"]).query)
    assert target["foils"] == ["use (put-down b2)\nnever (pick-up ?x) after (put-down b2)"]
    assert target["model"] == ["blocksworld"]
    missing = client.get("/foils", params={"kind": "before", "a": "(pick-up b1)"},
                         headers=HTML)
    assert missing.status_code == 400 and "give the actions A and B" in missing.text
    assert client.get("/foils", params={"kind": "sometimes", "a": "(pick-up b1)"},
                      headers=HTML).status_code == 400
    budgeted = client.get("/foils", params={"foils": "", "kind": "use", "a": "(pick-up b1)",
                                            "max_seconds": 3}, headers=HTML,
                          follow_redirects=False)
    assert "max_seconds=3" in budgeted.headers["location"]  # the asked budget is kept
    page = client.get(budgeted.headers["location"], headers=HTML).text
    assert page.count('<input type="hidden" name="max_seconds" value="3">') == 2


def test_foils_bad_input_and_budget(client: Any) -> None:
    bad = client.get("/api/foils", params={"foils": "use (fly b2)"})
    assert bad.status_code == 400 and bad.json()["message"].startswith("foils:1:5:")
    assert client.get("/api/foils", params={"foils": "  "}).status_code == 400
    page = client.get("/foils", params={"foils": "use (fly b2)"}, headers=HTML)
    assert page.status_code == 400 and ">use (fly b2)</textarea>" in page.text
    assert 'id="input-error"' in page.text
    empty = client.get("/foils", params={"model": "fetch", "foils": ""}, headers=HTML)
    assert empty.status_code == 200 and 'id="no-foil"' in empty.text
    tight = ok(client.get("/api/foils", params={"max_nodes": 1}))
    assert tight["status"] == "budget_exhausted" and tight["verified"] is False
    nothing = ok(client.get("/api/foils", params={"model": "delivery",
                                                   "foils": "use (drive van depot market)"}))
    assert nothing["task_solvable"] is False and nothing["verified"] is True
    page = client.get("/foils", params={"model": "delivery",
                                        "foils": "use (drive van depot market)"}, headers=HTML)
    assert 'href="/unsolvable?model=delivery"' in page.text


# ------------------------------------------------------------------ why no plan


def test_unsolvable_core_landmark_trace_and_repair(client: Any) -> None:
    from xaip.planning.plans import read_plan
    from xaip.unsolvable import explain_unsolvable
    from xaip.unsolvable.bundled import bundled_files, bundled_task

    payload = ok(client.get("/api/unsolvable", params={"repair": 1}))
    direct = explain_unsolvable(*bundled_task(), read_plan(bundled_files()["trace"]),
                                repair=1).to_dict()
    same(payload, direct)
    assert payload["core"] == ["(parcel-at tools harbour)"] and payload["verified"]
    assert payload["trace"]["failed_step"] == 5
    assert payload["init_repair"]["facts"] == ["(road depot harbour)"]
    page = client.get("/unsolvable", params={"repair": 1}, headers=HTML).text
    assert "found, verified</span>" in page and 'id="chain"' in page and "<svg" in page
    assert re.search(r'<li class="failed">\(drive van market harbour\)</li>', page)
    assert "(road depot harbour)</code> to the initial state" in page
    assert '<input type="hidden" name="max_nodes" value="90000">' in client.get(
        "/unsolvable", params={"max_nodes": 90000}, headers=HTML).text
    solvable = ok(client.get("/api/unsolvable", params={"model": "blocksworld"}))
    assert solvable["solvable"] is True and solvable["plan_cost"] == 10
    assert "This task has a plan" in client.get("/unsolvable", params={
        "model": "blocksworld"}, headers=HTML).text


def test_unsolvable_bad_input_and_budget(client: Any) -> None:
    bad = client.get("/unsolvable", params={"trace": "(fly x)"}, headers=HTML)
    assert bad.status_code == 400 and ">(fly x)</textarea>" in bad.text
    assert "unknown action" in bad.text
    assert client.get("/api/unsolvable", params={"trace": "(fly x)"}).status_code == 400
    assert client.get("/api/unsolvable", params={"repair": 9}).status_code == 422
    tight = ok(client.get("/api/unsolvable", params={"max_nodes": 1}))
    assert tight["status"] == "budget_exhausted" and tight["verified"] is False
    assert "budget_exhausted, unverified</span>" in client.get(
        "/unsolvable", params={"max_nodes": 1}, headers=HTML).text


def test_the_pages_are_listed_on_the_home_page(client: Any) -> None:
    home = client.get("/", headers=HTML).text
    for name in ("assist", "foils", "unsolvable"):
        assert f'href="/{name}"' in home
    schema = ok(client.get("/api/openapi.json"))
    assert {"/api/assist", "/api/foils", "/api/unsolvable"} <= set(schema["paths"])


def test_assist_with_the_persons_model(client: Any) -> None:
    """Humans as actors (A01) on the page: with the person's model (the Fetch example's
    human domain) a suggestion can follow what she expects, and her failing plan is
    explained towards her model -- the Assistant's own answers, verified."""
    from xaip.assist import Assistant
    from xaip.web.models import ModelStore

    fetch = ModelStore(2).get("fetch")
    human = (fetch.domain("human_domain"), fetch.human_task())
    query = {"model": "fetch", "mine": 1, "explicable": 1}
    payload = ok(client.get("/api/assist", params=query))
    direct = Assistant(fetch.domain(), fetch.problem(), human=human).suggest(explicable=True)
    same(payload, direct.to_dict())
    assert payload["human"]["kind"] == "explicable" and payload["verified"] is True
    page = client.get("/assist", params=query, headers=HTML).text
    assert "in your model you would do <code>(pick-up b1 loc1)</code>" in page
    assert 'name="mine" value="1" id="mine" checked' in page
    # every next answer keeps the person's model (and the explicable choice)
    assert all("mine=1" in u for u in links_on(page)["ask-check"])

    yours = ["(pick-up b1 loc1)", "(move loc1 loc2)", "(put-down b1 loc2)"]
    checked = ok(client.get("/api/assist", params={"model": "fetch", "mine": 1,
                                                   "ask": "check", "step": yours}))
    assert checked["failure"]["step"] == 2 and checked["human"]["kind"] == "explain"
    assert checked["human"]["valid_for_her"] is True and checked["verified"] is True
    page = client.get("/assist", params={"model": "fetch", "mine": 1, "ask": "check",
                                         "step": yours}, headers=HTML).text
    assert "In your own model this plan works" in page
    assert "+ move(?from, ?to) requires (hand-tucked)" in page

    no_model = client.get("/assist", params={"mine": 1}, headers=HTML)
    assert no_model.status_code == 400 and "has no model of the person" in no_model.text
    alone = client.get("/api/assist", params={"model": "fetch", "explicable": 1})
    assert alone.status_code == 400 and "use my model" in alone.json()["message"]
    assert client.get("/api/assist", params={"model": "fetch", "mine": 1, "explicable": 1,
                                             "slack": 99}).status_code == 422
    assert 'id="person-options"' not in client.get("/assist", headers=HTML).text
