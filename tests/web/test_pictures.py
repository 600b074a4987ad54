"""Pictures in the workbench a person reads without the docs (issue 23, item 2), checked in
a real browser at desk and phone width: the landmark graph is shown large enough to read
(never below :data:`~xaip.web.pages.MIN_SCALE` of its own size) in a full-width panel, with
a legend that explains every node and edge style it uses; capability pictures are the
titled, labelled sheets ``xaip discover --pictures`` draws, shown near their own size.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import CHROMIUM, PHONE, launch, snap, tab
from xaip.web.pages import MIN_SCALE

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")

WIDE = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch(sync_api)


def own_width(page: Any) -> float:
    """The landmark picture's own width in CSS pixels (its viewBox is in points)."""
    return float(page.evaluate(
        "document.querySelector('#landmarks svg').viewBox.baseVal.width")) * 4 / 3


@pytest.mark.parametrize("viewport", [WIDE, PHONE], ids=["1280", "390"])
def test_landmark_graph_is_readable_and_explained(browser: Any, server: str, shots: Path,
                                                  viewport: dict[str, int]) -> None:
    for page in tab(browser, viewport):
        page.goto(server + "/plan?model=blocksworld")
        page.wait_for_selector("#landmarks svg")
        shown = page.locator("#landmarks svg").bounding_box()
        assert shown["width"] >= MIN_SCALE * own_width(page) - 1  # not squeezed
        panel = page.locator("#landmarks-panel").bounding_box()
        main = page.locator("main").bounding_box()
        assert panel["width"] >= 0.9 * (main["width"] - 40)  # the page's width, not a column
        # the page itself never scrolls sideways; a wide graph scrolls inside its box
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        payload = page.request.get(server + "/api/plan?model=blocksworld").json()
        legend = page.inner_text("ul.legend")
        kinds = {"greedy-necessary": "gn", "natural": "nat", "reasonable": "r"}
        for kind, short in kinds.items():
            count = sum(o["kind"] == kind for o in payload["landmarks"]["orderings"])
            if count:
                assert f"{short} ({count} edge" in legend, legend
            else:
                assert f"{short} (" not in legend
        landmarks = payload["landmarks"]["landmarks"]
        assert ("a goal" in legend) == any(lm["is_goal"] for lm in landmarks)
        assert ("initial state" in legend) == any(lm["is_initial"] for lm in landmarks)
        snap(page, shots, f"landmarks-{viewport['width']}", full=True)


def test_capability_pictures_are_labelled_sheets(browser: Any, server: str,
                                                 shots: Path) -> None:
    for page in tab(browser, WIDE):
        page.goto(server + "/capabilities")
        page.click("#start-discovery")
        page.wait_for_selector("#run-state:has-text('finished')", timeout=120_000)
        page.wait_for_function("() => { const i = document.querySelector('#capability-cards img');"
                               " return i && i.complete && i.naturalWidth > 0; }",
                               timeout=60_000)
        image = page.locator("#capability-cards img").first
        natural = image.evaluate("i => [i.naturalWidth, i.naturalHeight]")
        assert natural[0] >= 240 and natural[1] >= 192  # >= 2x the old 120x96
        shown = image.bounding_box()
        assert shown["width"] >= 0.8 * min(natural[0], 560)  # near its own size
        link = page.locator("#capability-cards figure a").first
        assert link.get_attribute("href") == image.get_attribute("src")  # full size a click away
        snap(page, shots, "capability-pictures", full=True)


def test_summary_graph_stays_legible_on_a_phone(browser: Any, server: str,
                                                shots: Path) -> None:
    """At desk width the summary's graph fits its column whole (test_everyday); on a phone
    it keeps :data:`MIN_SCALE` of its own size and scrolls in its box, not the page."""
    for page in tab(browser, PHONE):
        page.goto(server + "/summaries")
        svg = page.locator("#hierarchy svg")
        own = float(svg.evaluate("s => s.viewBox.baseVal.width")) * 4 / 3
        assert svg.bounding_box()["width"] >= MIN_SCALE * own - 1
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        snap(page, shots, "summaries-phone", full=True)


@pytest.mark.parametrize("path", ["/concepts", "/explicable", "/observers?example=medkit",
                                  "/explainers/concepts.precondition"])
def test_pictures_with_words_are_shown_at_their_size(browser: Any, server: str,
                                                     path: str) -> None:
    """The pictures carry their own title, labels and legend: shown at their own size (or
    the page's width), never squeezed to a thumbnail whose words cannot be read."""
    for page in tab(browser, WIDE):
        page.goto(server + path)
        page.wait_for_function("() => [...document.querySelectorAll('main img.picture')]"
                               ".every(i => i.complete && i.naturalWidth > 0)")
        images = page.locator("main img.picture")
        assert images.count() >= 1, path
        for index in range(images.count()):
            image = images.nth(index)
            natural = float(image.evaluate("i => i.naturalWidth"))
            room = float(image.evaluate("i => i.parentElement.clientWidth"))
            assert image.bounding_box()["width"] >= min(natural, room) - 2, path


def test_observer_page_says_its_bound_and_rows_in_words(browser: Any, server: str) -> None:
    for page in tab(browser, WIDE):
        page.goto(server + "/observers?example=port&mode=legible-goal")
        assert "j: most goals the observer may keep" in page.inner_text("form")
        first = page.locator("#frames tr").nth(1).locator("td").first.inner_text()
        assert first == "start"
        assert "token" not in page.inner_text("#frames").lower()
