"""In Debian's Chromium (Playwright, never its own browser download): a participant goes
through the bundled Fetch study, then the researcher creates links, reads the progress
table and summary, and downloads the CSV export. Skipped where Chromium or Playwright is
missing."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import pytest

from tests.userstudy.conftest import TOKEN, start

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")


def _answer_condition(page: Any, plan_option: int) -> None:
    page.check("#q-understand input[value='4']")
    page.check("#q-satisfied input[value='6']")
    page.check(f"#q-next_plan input[value='{plan_option}']")
    page.get_by_label("loc2", exact=True).check()
    page.fill("#q-comments textarea", "clear enough")


def test_participant_then_researcher_in_chromium(tmp_path: Path) -> None:
    server = start(tmp_path, tmp_path / "study.sqlite")
    errors: list[str] = []
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            context = browser.new_context(accept_downloads=True)
            context.set_default_timeout(60_000)
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))

            # The researcher creates one link on the admin page.
            page.goto(f"{server.base}/study/admin?token={TOKEN}")
            page.fill("#count", "1")
            page.click("#create")
            link = page.locator("#progress tbody a").first.get_attribute("href")
            assert link and "/s/" in link

            # The participant, in a fresh context (no researcher state).
            person = browser.new_context().new_page()
            person.goto(link)
            person.click("text=Continue")  # without consent: asked again
            assert person.locator("[role=alert]").is_visible()
            person.check("#consent")
            person.click("text=Continue")
            person.wait_for_selector("text=Instructions")
            person.click("text=Start")
            person.wait_for_selector("text=Part 1 of 2")
            first = person.inner_text("#shown")
            _answer_condition(person, 1)
            person.click("text=Next")
            person.wait_for_selector("text=Part 2 of 2")
            second = person.inner_text("#shown")
            assert {"requires (hand-tucked)" in first, "requires (hand-tucked)" in second} == {
                True, False}
            _answer_condition(person, 0)
            person.click("text=Finish")
            completion = person.inner_text("#completion").strip()
            assert len(completion) == 8
            assert person.goto(f"{server.base}/study/admin").status == 403

            # The researcher sees the finished participant and exports the responses.
            page.reload()
            assert completion in page.inner_text("#progress")
            with page.expect_download() as download:
                page.click("#export")
            rows = list(csv.DictReader(io.StringIO(
                Path(download.value.path()).read_text())))
            assert len(rows) == 10
            assert {r["answer"] for r in rows if r["question"] == "comments"} == {
                "clear enough"}
            page.click("text=Summary")
            page.wait_for_selector("#figure")
            assert "Condition mce" in page.inner_text("main")
            browser.close()
    finally:
        server.stop()
    assert errors == []


def test_the_countdown_sends_the_page_at_zero_in_chromium(tmp_path: Path) -> None:
    """A timed condition in a real browser: the countdown runs down, and at zero the page
    sends itself with the one answer given; the next part says the time was up."""
    from tests.userstudy.test_timelimits import timed_study

    study = timed_study(tmp_path, time_limit=10, time_grace=30)
    server = start(tmp_path, tmp_path / "timed.sqlite", study=str(study))
    errors: list[str] = []
    try:
        with sync_api.sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_context().new_page()
            page.set_default_timeout(60_000)
            page.on("pageerror", lambda error: errors.append(str(error)))
            import httpx

            code = httpx.post(f"{server.base}/study/admin/participants",
                              data={"token": TOKEN, "count": "1"}, timeout=60).json()["codes"][0]
            page.goto(f"{server.base}/s/{code}")
            page.check("#consent")
            page.click("text=Continue")
            page.click("text=Start")
            page.wait_for_selector("text=Part 1 of 2")
            first = page.inner_text("#countdown")
            assert re.fullmatch(r"0:(10|0[1-9])", first), first
            page.check("#q-understand input[value='2']")
            page.wait_for_selector("text=Part 2 of 2")  # sent by the countdown, no click
            assert "the answers you had given were recorded" in page.inner_text("#notice")
            browser.close()
        rows = list(csv.DictReader(io.StringIO(httpx.get(
            f"{server.base}/study/admin/export.csv", params={"token": TOKEN},
            timeout=60).text)))
        part1 = {r["question"]: r for r in rows if r["position"] == "1"}
        assert part1["understand"]["answer"] == "2" and part1["satisfied"]["answer"] == ""
        assert {r["timed_out"] for r in part1.values()} == {"1"}
        assert all(float(r["seconds"]) >= 10 for r in part1.values())
    finally:
        server.stop()
    assert errors == []
