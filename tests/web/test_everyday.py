"""Everyday use of the workbench in a real browser (issue 23): the page bugs a new user
met, each checked where it showed -- navigation, phone width, source listings, pictures,
plain words, Montezuma, discovery progress with cancel -- with screenshots (see
``tests/web/browser.py``; ``XAIP_SCREENSHOTS=1`` writes them to ``docs/images/``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import CHROMIUM, PHONE, launch, snap, tab

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")

#: Every page a person reaches from the navigation, plus the pages of a model and a run.
PAGES = ["/", "/models", "/models/blocksworld", "/plan", "/explain?model=fetch",
         "/explain?model=usar&type=conditional", "/summaries", "/capabilities",
         "/concepts", "/explicable", "/explainers", "/explainers/concepts.precondition",
         "/compare", "/models/fetch/edit", "/assist?step=(unstack+b1+b2)&veto=stack",
         "/assist?model=fetch&mine=1", "/foils", "/unsolvable"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch(sync_api)


@pytest.fixture(scope="module")
def page(browser: Any, server: str) -> Iterator[Any]:
    yield from tab(browser, {"width": 1280, "height": 900})


@pytest.fixture(scope="module")
def phone(browser: Any, server: str) -> Iterator[Any]:
    yield from tab(browser, PHONE)


def visible_text(page: Any) -> str:
    return str(page.inner_text("main"))


def test_one_nav_item_is_current_on_every_page(page: Any, server: str) -> None:
    for path, current in (("/explainers", "All explainers"), ("/explain", "Explain"),
                          ("/explainers/concepts.precondition", "All explainers"),
                          ("/models/fetch", "Models")):
        page.goto(server + path)
        marked = page.locator("header nav a.current")
        assert marked.count() == 1, path
        assert marked.inner_text() == current
        assert marked.get_attribute("aria-current") == "page"


def test_no_page_scrolls_sideways_at_phone_width(phone: Any, server: str,
                                                 shots: Path) -> None:
    paths = [*PAGES]
    for family, path in (("balanced", "/balanced"), ("observers", "/observers"),
                         ("observers", "/observers?example=medkit")):
        if phone.request.get(server + path).status == 200:
            paths.append(path)
        del family
    for path in paths:
        phone.goto(server + path)
        phone.wait_for_load_state("load")
        wide = phone.evaluate("document.documentElement.scrollWidth")
        assert wide <= PHONE["width"], f"{path} is {wide} px wide at {PHONE['width']} px"
    phone.goto(server + "/")
    snap(phone, shots, "home-phone")


def test_source_listings_are_single_spaced(page: Any, server: str, shots: Path) -> None:
    page.goto(server + "/models/blocksworld")
    lines = page.locator("pre.source .line")
    assert lines.count() > 10
    first, second = (lines.nth(i).bounding_box() for i in (0, 1))
    size = float(page.evaluate(
        "parseFloat(getComputedStyle(document.querySelector('pre.source')).fontSize)"))
    assert 0 < second["y"] - first["y"] < 2 * size  # one line apart, not two
    assert "\n\n" not in page.inner_text("pre.source")
    snap(page, shots, "model-source")


def test_summary_picture_is_whole_and_chosen_subgoals_are_marked(page: Any, server: str,
                                                                 shots: Path) -> None:
    page.goto(server + "/summaries")
    box = page.locator("#hierarchy")
    assert box.evaluate("e => e.scrollHeight <= e.clientHeight + 1 && "
                        "e.scrollWidth <= e.clientWidth + 1")  # nothing clipped or hidden
    assert page.locator("#hierarchy g.node.chosen").count() == 0
    page.locator("#hierarchy g.node", has_text="(at station1)").click()
    page.wait_for_selector("text=to where?")
    chosen = page.locator("#hierarchy g.node.chosen")
    # the chosen marks are set by the page's script after the swap: wait for them (5 s)
    sync_api.expect(chosen).to_have_count(1)
    assert "(at station1)" in chosen.text_content()
    button = page.locator("#drill a.chosen")
    assert button.inner_text() == "(at station1)"
    assert button.evaluate("b => getComputedStyle(b).outlineStyle") == "solid"
    page.locator("#hierarchy g.node", has_text="(at gate10)").click()
    page.wait_for_selector("#drill-result")
    sync_api.expect(page.locator("#hierarchy g.node.chosen")).to_have_count(2)
    stroke = page.locator("#hierarchy g.node.chosen > path, #hierarchy g.node.chosen > polygon"
                          ).first.evaluate("p => getComputedStyle(p).strokeWidth")
    assert stroke == "4px"
    snap(page, shots, "summaries-drill", full=True)


def test_steps_numbered_from_one_and_no_backticks(page: Any, server: str) -> None:
    page.goto(server + "/explain?model=fetch")
    after = page.inner_text("#expected-plan + p")
    failing = re.search(r"fails at step (\d+), (\(.*?\))", after)
    assert failing, after
    number, action = int(failing.group(1)), failing.group(2)
    assert page.locator("#expected-plan li").nth(number - 1).inner_text() == action
    page.goto(server + "/concepts")
    text = visible_text(page)
    assert "`" not in text and "step 0" not in text
    assert page.locator("#answer p.sentence code").count() > 0  # literals shown as code
    found = re.search(r"fails at step (\d+)", text)
    assert found and int(found.group(1)) >= 1


def test_observer_scores_in_words(page: Any, server: str) -> None:
    if page.request.get(server + "/observers").status != 200:
        pytest.skip("the observers family is not in this checkout")
    for query in ("", "?example=medkit"):
        page.goto(server + "/observers" + query)
        text = visible_text(page)
        assert not re.search(r"\b(goals|max_distance|min_distance): \d", text), query
        assert "Score:" in text


def test_montezuma_on_the_concepts_page(page: Any, server: str, shots: Path) -> None:
    page.goto(server + "/concepts")
    assert "montezuma" in page.locator("select[name=env] option").all_inner_texts()
    page.select_option("select[name=env]", "montezuma")
    page.select_option("select[name=level]", "ladder-left")
    page.get_by_role("button", name="Ask").click()
    page.wait_for_url("**env=montezuma**", timeout=120_000)
    page.wait_for_selector("#answer h2 .status, .panel .status.bad")
    answer = page.inner_text("main")
    if "budget exhausted" not in answer:  # the real game under the page's time limit
        assert "not-on-ladder" in answer
        assert page.locator("#answer img").evaluate("i => i.complete && i.naturalWidth > 0")
    snap(page, shots, "concepts-montezuma")


def test_discovery_progress_bar_and_cancel(page: Any, server: str, shots: Path) -> None:
    page.goto(server + "/capabilities")
    page.fill("input[name=grid]", "8x8")
    page.fill("input[name=seed]", "11")
    page.click("#start-discovery")
    page.wait_for_selector("#progress-bar, #progress:has-text('checking the answer')")
    text = page.inner_text("#progress")
    assert re.search(r"\d+ queries( so far; \d+ of \d+ capabilities settled|; checking the "
                     r"answer)", text), text
    assert "[queries]" not in text and "done" not in text  # no internal log line
    assert page.inner_text("#run-state") == "running"  # not done while still checking
    snap(page, shots, "discovery-progress")
    page.click("#cancel-discovery")
    page.wait_for_selector("#run-state:has-text('cancelled')")
    assert "Cancelled after" in page.inner_text("#run-summary")
    page.get_by_role("button", name="resume").click()
    page.wait_for_selector("#run-state:has-text('finished'), #run-state:has-text('budget')",
                           timeout=180_000)
    assert page.locator("#cancel-discovery").count() == 0
