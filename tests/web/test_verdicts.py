"""Every family page shows the library's verdict, and says "unverified" plainly.

Why this way: each page is first asked as it is (its bundled default must come out
verified), then with the library's front door wrapped so that the very same result comes
back with ``verified`` false. A page that took its verdict from the library follows:
its JSON says ``verified: false`` and its badge says "unverified" (never "verified"). A
page that decided ``verified`` itself -- from the status, say -- would still claim it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from tests.web.conftest import HTML


def _unverified(real: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return dataclasses.replace(real(*args, **kwargs), verified=False)

    return wrapped


def _explainer_specs(monkeypatch: pytest.MonkeyPatch) -> None:
    import xaip.web.pages.explainers as page

    real = page.specs

    def specs() -> dict[str, Any]:
        return {name: dataclasses.replace(spec, example=_unverified(spec.example))
                for name, spec in real().items()}

    monkeypatch.setattr(page, "specs", specs)


#: (page, API endpoint, where the library's front door is looked up, its name)
PAGES = [
    ("/explain", "/api/explain", "xaip.reconcile", "explain"),
    ("/summaries", "/api/summaries", "xaip.summaries", "summarize"),
    ("/concepts", "/api/concepts", "xaip.concepts", "why_not"),
    ("/explicable", "/api/explicable", "xaip.explicable", "explicable_plan"),
    ("/balanced", "/api/balanced", "xaip.web.pages.balanced", "balance"),
    ("/observers", "/api/observers", "xaip.web.pages.observers", "legible_goal_plan"),
    ("/observers?example=truck", "/api/observers?example=truck", "xaip.observers.mixed",
     "solve_mixed"),
    ("/explainers/reconcile.mce", "/api/explainers/reconcile.mce", None, "specs"),
    ("/foils", "/api/foils", "xaip.foils", "explain_foils"),
    ("/unsolvable", "/api/unsolvable", "xaip.unsolvable", "explain_unsolvable"),
]


@pytest.mark.parametrize(("page", "api", "module", "name"), PAGES,
                         ids=[p[0] for p in PAGES])
def test_a_page_shows_the_librarys_verdict(client: Any, monkeypatch: pytest.MonkeyPatch,
                                           page: str, api: str, module: str | None,
                                           name: str) -> None:
    first = client.get(api)
    assert first.status_code == 200, first.text
    assert first.json()["verified"] is True  # the bundled default is verified as it is
    shown = client.get(page, headers=HTML).text
    assert '<span class="status verified">' in shown and ", verified</span>" in shown

    if module is None:
        _explainer_specs(monkeypatch)
    else:
        import importlib

        target = importlib.import_module(module)
        monkeypatch.setattr(target, name, _unverified(getattr(target, name)))
    payload = client.get(api).json()
    assert payload["verified"] is False and payload["status"] == first.json()["status"]
    shown = client.get(page, headers=HTML).text
    assert ", unverified</span>" in shown and ", verified</span>" not in shown
    assert '<span class="status verified">' not in shown


def test_the_plan_page_shows_the_validators_verdict(client: Any,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan page's verdict is the lifted validator's on the plan (it has no other
    checker): a plan the validator refuses is shown unverified."""
    import xaip.planning as planning

    first = client.get("/api/plan").json()
    assert first["verified"] is True and first["plan"]["optimal"] is True
    assert first["checked"] == ["valid"]  # the optimality is the search's claim, unchecked
    assert "not that it is optimal" in client.get("/plan", headers=HTML).text
    real = planning.validate
    monkeypatch.setattr(planning, "validate", lambda *a, **k: dataclasses.replace(
        real(*a, **k), valid=False))
    payload = client.get("/api/plan").json()
    assert payload["verified"] is False and payload["validation"]["valid"] is False
    shown = client.get("/plan", headers=HTML).text
    assert ", unverified</span>" in shown and '<span class="status verified">' not in shown


@pytest.mark.parametrize("max_nodes", [10, 200])
def test_a_conditional_explanation_out_of_budget_keeps_the_answers(
        client: Any, max_nodes: int) -> None:
    """Issue 22: a conditional explanation whose budget ran out (no policy to walk) was
    answered 400 "more answers than the explanation asks for"; it is budget exhausted,
    unverified, for scripts and for the page, with the person's answers kept."""
    query = {"model": "usar", "type": "conditional", "answers": "yn", "max_nodes": max_nodes}
    answer = client.get("/api/explain", params=query)
    assert answer.status_code == 200, answer.text
    payload = answer.json()
    assert payload["status"] == "budget_exhausted" and payload["verified"] is False
    assert payload["policy"] is None
    page = client.get("/explain", params=query, headers=HTML)
    assert page.status_code == 200
    assert '<span class="status bad">budget_exhausted, unverified</span>' in page.text
