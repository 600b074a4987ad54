"""Two answers side by side (issue 23): two explanation types, before and after a veto,
two objectives -- reached from the answers' own pages, in a real browser; the JSON twin
holds each side's payload as its own endpoint returns it.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.browser import CHROMIUM, snap

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")


def cells(page: Any, label: str) -> list[str]:
    found = page.locator("#comparison tbody tr").filter(
        has=page.locator("th", has_text=label))
    return [str(t) for t in found.first.locator("td").all_inner_texts()]


def test_before_and_after_a_veto(page: Any, server: str, shots: Path) -> None:
    page.goto(f"{server}/explain?model=fetch")
    page.locator("#explanation a.veto").first.click()
    page.wait_for_selector("#corrected")
    page.click("#compare-veto")
    page.wait_for_selector("#comparison")
    before, after = cells(page, "explanation")
    assert "hand-tucked" in before and "crouched" in after
    vetoed_before, vetoed_after = cells(page, "vetoed")
    assert vetoed_before == "nothing" and "hand-tucked" in vetoed_after
    changed = page.locator("#comparison tr.changed th").all_inner_texts()
    assert any(t.startswith("explanation") for t in changed)
    assert not any(t.startswith("answer") for t in changed)  # both found and verified
    snap(page, shots, "compare-veto")


def test_two_explanation_types(page: Any, server: str) -> None:
    page.goto(f"{server}/explain?model=fetch&type=mce")
    page.get_by_role("link", name="minimally monotonic (MME)").click()
    page.wait_for_selector("#comparison")
    header = page.locator("#comparison thead th").all_inner_texts()
    assert header[1:] == ["A: mce", "B: mme"]
    page.select_option("select[name=b]", "approx")
    page.get_by_role("button", name="Compare").click()
    page.wait_for_selector("#comparison thead th:has-text('B: approx')")
    assert all(cells(page, "answer"))


def test_json_twin_holds_each_sides_payload(server: str) -> None:
    both = httpx.get(f"{server}/api/compare?kind=explain&model=fetch&a=mce&b=mce&b_veto=1",
                     timeout=120).json()
    alone = httpx.get(f"{server}/api/explain?model=fetch&type=mce&veto=1", timeout=120).json()
    def edits(payload: dict[str, Any]) -> list[Any]:  # the dialogue, round by round
        return [r["explanation"]["edits"] for r in payload["rounds"]]

    assert edits(both["b"]["answer"]) == edits(alone) and len(edits(alone)) == 2
    assert both["b"]["vetoes"] == [1] and both["a"]["vetoes"] == []
    bad = httpx.get(f"{server}/api/compare?a_veto=one", timeout=60)
    assert bad.status_code == 400 and "numbers" in bad.text


@pytest.mark.skipif(importlib.util.find_spec("xaip.balanced") is None,
                    reason="the balanced family is not in this checkout")
def test_two_objectives(page: Any, server: str, shots: Path) -> None:
    page.goto(f"{server}/balanced")
    page.get_by_role("link", name="balanced with explicable", exact=True).click()
    page.wait_for_selector("#comparison")
    totals = cells(page, "total")
    assert len(totals) == 2 and all(totals)
    snap(page, shots, "compare-objectives")
