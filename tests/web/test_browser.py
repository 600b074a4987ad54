"""End to end in a real browser: Debian's Chromium driven by Playwright against ``xaip
serve`` started by the test on a free localhost port, plus a load test of that server.

Skipped, not failed, where Chromium (``/usr/bin/chromium``) or Playwright is missing;
Playwright's own browser download is never used. Screenshots of every page go to
``docs/images/`` when ``XAIP_SCREENSHOTS=1`` (how the README's pictures are made), else to
a temporary directory.
"""

from __future__ import annotations

import importlib.util
import os
import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.browser import ARGS, CHROMIUM, ROOT, serve

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``xaip serve`` in a child process; its address."""
    yield from serve(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if os.environ.get("XAIP_SCREENSHOTS") == "1":
        folder = ROOT / "docs" / "images"
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("screenshots")


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.set_default_timeout(30_000)
        tab = context.new_page()
        errors: list[str] = []
        tab.on("pageerror", lambda error: errors.append(str(error)))
        yield tab
        browser.close()
        assert not errors, f"JavaScript errors: {errors}"


def snap(page: Any, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"workbench-{name}.png"), full_page=False)


def test_load_a_bundled_model_and_plan(page: Any, server: str, shots: Path) -> None:
    page.goto(f"{server}/models")
    page.get_by_role("link", name="Blocksworld, 5 blocks").click()
    page.wait_for_selector("text=domain.pddl")
    snap(page, shots, "models")
    page.get_by_role("link", name="Plan", exact=True).last.click()
    page.wait_for_selector("#landmarks svg")
    assert "valid" in page.inner_text("#validation")
    assert page.locator("ol.plan li").count() == 10
    snap(page, shots, "plan")


def test_explain_then_veto_an_edit(page: Any, server: str, shots: Path) -> None:
    page.goto(f"{server}/explain?model=fetch")
    first = page.inner_text("#explanation")
    assert "hand-tucked" in first
    assert page.locator("#expected-plan li").count() == 3
    snap(page, shots, "explain")
    page.locator("#explanation a.veto").first.click()
    page.wait_for_selector("#corrected")
    assert "crouched" in page.inner_text("#explanation")  # the new explanation
    assert "vetoed" in page.inner_text("#rounds")
    snap(page, shots, "veto")


def test_why_not_with_a_clicked_foil(page: Any, server: str) -> None:
    page.goto(f"{server}/explain?model=fetch")
    for step in ("pick-up b1 loc1", "move loc1 loc2", "put-down b1 loc2"):
        page.locator(f"#why-not button[data-foil-step='({step})']").click()
    assert page.input_value("#foil").count("\n") == 2
    page.click("#ask-why-not")
    page.wait_for_selector("#explanation h2:has-text('Why not your plan')")
    assert "hand-tucked" in page.inner_text("#explanation")


def test_conditional_questions_and_answers(page: Any, server: str) -> None:
    page.goto(f"{server}/explain?model=usar&type=conditional")
    page.click("#answer-yes")
    page.wait_for_selector(".qa .a")
    assert "You: yes" in page.inner_text("#qa")


def test_drill_into_a_summary(page: Any, server: str, shots: Path) -> None:
    page.goto(f"{server}/summaries")
    assert "station 1" in page.inner_text("#summary")
    page.locator("#hierarchy g.node", has_text="(at station1)").click()  # the picture's node
    page.wait_for_selector("text=to where?")
    page.get_by_role("link", name="goal", exact=True).click()
    page.wait_for_selector("#drill-result")
    assert "(at the-airport)" in page.inner_text("#drill-result")
    snap(page, shots, "summaries")


def test_watch_a_discovery_finish(page: Any, server: str, shots: Path) -> None:
    page.goto(f"{server}/capabilities")
    page.click("#start-discovery")
    page.wait_for_selector("#run-state:has-text('finished')", timeout=90_000)
    cards = page.locator(".capability-card")
    assert cards.count() >= 3
    # pictures are drawn on request (matplotlib, a few tenths of a second each): wait for one
    page.wait_for_function("() => { const imgs = [...document.querySelectorAll("
                           "'.capability-card:first-child img')];"
                           " return imgs.length > 0 && imgs.every("
                           "i => i.complete && i.naturalWidth > 0); }",
                           timeout=60_000)  # the first card's before and after
    snap(page, shots, "capabilities")


def test_other_pages_and_an_upload_error(page: Any, server: str, shots: Path,
                                         tmp_path: Path) -> None:
    page.goto(f"{server}/concepts")
    page.wait_for_selector("#answer img")
    snap(page, shots, "concepts")
    page.goto(f"{server}/explicable")
    assert page.locator("#explicable-plan li").count() > 3
    snap(page, shots, "explicable")
    page.goto(f"{server}/")
    snap(page, shots, "home")
    for name, query, selector in (("balanced", "", "#costs"),
                                  ("observers", "?example=medkit", "#frames")):
        if importlib.util.find_spec(f"xaip.{name}") is None:
            continue  # the family is not in this checkout, so neither is its page
        assert page.locator(f"header nav a[href='/{name}']").count() == 1
        page.goto(f"{server}/{name}{query}")
        page.wait_for_selector(selector)
        snap(page, shots, name)
    broken = tmp_path / "domain.pddl"
    broken.write_text("(define (domain d)\n  (:predicates (p ?x)\n  (:action a :parameters ()\n")
    problem = ROOT / "src/xaip/domains/blocksworld/problem-5.pddl"
    page.goto(f"{server}/models")
    page.set_input_files("input[name=domain]", str(broken))
    page.set_input_files("input[name=problem]", str(problem))
    page.get_by_role("button", name="Upload and check").click()
    page.wait_for_selector("pre.source mark")
    assert "domain.pddl" in page.inner_text("#error")
    snap(page, shots, "error")


def test_fifty_concurrent_requests(server: str) -> None:
    """50 requests at once complete or are refused cleanly (503), and the server answers
    afterwards; prints the latency."""
    paths = ["/api/plan?model=blocksworld", "/api/explain?model=fetch", "/api/summaries",
             "/api/models", "/api/concepts"] * 10

    def fetch(path: str) -> tuple[int, float]:
        began = time.perf_counter()
        response = httpx.get(server + path, timeout=120)
        return response.status_code, time.perf_counter() - began

    began = time.perf_counter()
    with ThreadPoolExecutor(max_workers=51) as pool:
        futures = [pool.submit(fetch, path) for path in paths]
        time.sleep(0.3)  # while the 50 are in progress: is the server still responsive?
        probe_code, probe = fetch("/")
        outcomes = [future.result() for future in futures]
    wall = time.perf_counter() - began
    assert probe_code == 200
    codes = [code for code, _ in outcomes]
    assert set(codes) <= {200, 503}, codes
    latencies = sorted(seconds for code, seconds in outcomes if code == 200)
    assert latencies
    after = httpx.get(server + "/api/models", timeout=10)
    assert after.status_code == 200
    p95 = latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))]
    print(f"\nload: 50 concurrent requests, {codes.count(200)} ok, {codes.count(503)} "
          f"refused; latency median {statistics.median(latencies):.3f} s, p95 {p95:.3f} s, "
          f"max {latencies[-1]:.3f} s; wall {wall:.2f} s; a page during the load: "
          f"{probe:.3f} s")
