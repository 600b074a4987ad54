"""The pages of the families that joined the workbench later (balanced planning and
observers): each is one page module and one template, registered in ``PAGE_MODULES``.
Skipped where the family is not in the checkout (then its page is not either)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.conftest import HTML


def ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    payload: dict[str, Any] = response.json()
    return payload


def test_balanced_plan_explanation_and_costs(client: Any) -> None:
    pytest.importorskip("xaip.balanced")
    from xaip.balanced import balance
    from xaip.balanced.instances import usar_problem

    payload = ok(client.get("/api/balanced"))
    direct = balance(usar_problem()).to_dict()
    assert payload["plan"] == direct["plan"] and payload["total"] == direct["total"]
    assert payload["verified"] is True
    explicable = ok(client.get("/api/balanced", params={"objective": "explicable"}))
    assert explicable["explanation"] and explicable["total"] > payload["total"]
    page = client.get("/balanced", params={"objective": "explicable"}, headers=HTML)
    assert page.status_code == 200 and explicable["explanation"][0]["text"] in page.text
    assert ok(client.get("/api/balanced", params={"max_nodes": 1}))["status"] == \
        "budget_exhausted"
    assert client.get("/api/balanced", params={"objective": "cheap"}).status_code == 400
    assert client.get("/api/balanced", params={"model": "blocksworld"}).status_code == 400


def test_observers_plan_tokens_and_belief_frames(client: Any) -> None:
    pytest.importorskip("xaip.observers")
    from xaip.observers import example_problem, legible_goal_plan

    payload = ok(client.get("/api/observers", params={"example": "port"}))
    direct = legible_goal_plan(example_problem("port"), j=1).to_dict()
    assert payload["plan"] == direct["plan"] and payload["observations"]
    page = client.get("/observers", params={"example": "port"}, headers=HTML)
    assert page.status_code == 200 and 'id="frames"' in page.text
    for token in payload["observations"]:
        assert token in page.text
    ambiguous = ok(client.get("/api/observers", params={"mode": "ambiguous", "count": 2}))
    final = next(iter(ambiguous["goals_in_final_belief"].values()))
    assert len(final) >= 2  # obfuscation: at least k goals stay possible
    assert ok(client.get("/api/observers", params={"max_nodes": 1}))["status"] == \
        "budget_exhausted"
    assert client.get("/api/observers", params={"example": "../port"}).status_code == 400
    grid = client.get("/observers", params={"example": "medkit"}, headers=HTML)
    assert 'id="belief-film" src="data:image/gif;base64,' in grid.text
    assert client.get("/api/observers", params={"mode": "ambiguous",
                                                "count": 40}).status_code == 400


def test_frames_match_the_results_belief_sizes() -> None:
    pytest.importorskip("xaip.observers")
    from xaip.observers import example_problem, legible_goal_plan
    from xaip.web.pages.observers import frames

    problem = example_problem("port")
    result = legible_goal_plan(problem, j=1)
    assert [f["size"] for f in frames(problem, result.plan)] == list(result.beliefs)


def test_registry_skips_pages_of_absent_families() -> None:
    from xaip.web.registry import load_pages

    pages = load_pages(("xaip.web.pages.plan", "xaip.web.pages.not_here"))
    assert [p.name for p in pages] == ["plan"]


def test_observers_truck_mixed_friend_and_adversary(client: Any) -> None:
    """The book's truck (§9.2) on the page: the friend keeps one goal, the adversary all six
    (GD = 1), the same answer as ``xaip observe --example truck --json``."""
    pytest.importorskip("xaip.observers")
    from xaip.domains.observers import truck
    from xaip.observers.mixed import solve_mixed

    payload = ok(client.get("/api/observers", params={"example": "truck"}))
    assert payload["verified"] and payload["score"] == 1.0
    assert [len(payload["goals_in_final_belief"][who]) for who in ("C", "X")] == [1, 6]
    task, observers, goals = truck.load()
    direct = solve_mixed(task, observers, goals).to_dict()
    assert payload["plan"] == direct["plan"] and payload["score"] == direct["score"]
    page = client.get("/observers", params={"example": "truck", "mode": "legible-goal"},
                      headers=HTML)
    assert page.status_code == 200 and 'id="mixed-observers"' in page.text
    assert "load|fa" in page.text and "GD = 1.00" in page.text
    assert client.get("/api/observers", params={"example": "truck",
                                                "mode": "ambiguous"}).status_code == 400
    assert client.get("/api/observers", params={"example": "port",
                                                "mode": "mixed"}).status_code == 400
    starved = ok(client.get("/api/observers", params={"example": "truck", "max_nodes": 1}))
    assert starved["status"] == "budget_exhausted" and not starved["verified"]
