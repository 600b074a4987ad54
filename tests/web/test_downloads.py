"""Every answer downloads (issue 23): its JSON, its PDDL (the corrected model after a
veto), its plan file and its pictures (SVG and PNG), from links on the result, in a real
browser; each file is read back with the library (the plan file validates against the
downloaded model, the corrected domain parses and is what the page shows).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import CHROMIUM

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")


def fetch(page: Any, link: str, folder: Path) -> tuple[str, bytes]:
    """Click the download link ``link`` (its text); the file's suggested name and bytes."""
    with page.expect_download() as waiting:
        page.locator(".downloads a", has_text=link).first.click()
    download = waiting.value
    path = folder / download.suggested_filename
    download.save_as(str(path))
    return download.suggested_filename, path.read_bytes()


def test_plan_page_downloads(page: Any, server: str, tmp_path: Path) -> None:
    from xaip.planning.pddl.reader import parse_domain, parse_problem
    from xaip.planning.plans import parse_plan, validate

    page.goto(f"{server}/plan?model=blocksworld")
    page.wait_for_selector("#landmarks svg")
    name, data = fetch(page, "JSON", tmp_path)
    payload = json.loads(data)
    assert name.endswith(".json") and payload["verified"] is True
    steps = page.locator("ol.plan li").all_inner_texts()
    assert payload["plan"]["plan"] == steps
    _, domain = fetch(page, "domain.pddl", tmp_path)
    _, problem = fetch(page, "problem.pddl", tmp_path)
    name, plan = fetch(page, "plan file", tmp_path)
    assert name.endswith(".plan")
    result = validate(parse_domain(domain.decode()), parse_problem(problem.decode()),
                      parse_plan(plan.decode()))
    assert result.valid and len(parse_plan(plan.decode())) == len(steps)
    name, svg = fetch(page, "picture (SVG)", tmp_path)
    assert name.endswith(".svg") and b"<svg" in svg[:400] and b"</svg>" in svg
    name, png = fetch(page, "picture (PNG)", tmp_path)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width = int.from_bytes(png[16:20], "big")
    shown = page.locator("#landmarks svg").evaluate("s => s.getBoundingClientRect().width")
    assert width >= shown  # drawn at twice the picture's own size, never smaller


def test_corrected_model_after_a_veto(page: Any, server: str, tmp_path: Path) -> None:
    from xaip.planning.pddl.reader import parse_domain

    page.goto(f"{server}/explain?model=fetch")
    page.locator("#explanation a.veto").first.click()
    page.wait_for_selector("#corrected")
    name, corrected = fetch(page, "corrected domain (PDDL)", tmp_path)
    assert name.endswith(".pddl")
    text = corrected.decode()
    parse_domain(text)
    page.locator("#corrected details summary").click()
    assert text.strip() == page.inner_text("#corrected details pre").strip()
    _, data = fetch(page, "JSON", tmp_path)
    payload = json.loads(data)
    assert payload["status"] and "verified" in payload
    _, plan = fetch(page, "robot's plan", tmp_path)
    assert plan.decode().splitlines() == page.locator("#robot-plan li").all_inner_texts()


@pytest.mark.parametrize("path, links", [
    ("/summaries", ("JSON", "text", "picture (SVG)", "picture (PNG)")),
    ("/concepts", ("JSON", "plan", "foil", "picture (PNG)")),
    ("/explicable", ("JSON", "plan file")),
])
def test_other_answers_download(page: Any, server: str, tmp_path: Path, path: str,
                                links: tuple[str, ...]) -> None:
    page.goto(server + path)
    for link in links:
        name, data = fetch(page, link, tmp_path)
        assert data, (path, link)
        if name.endswith(".json"):
            assert "status" in json.loads(data)
        if name.endswith(".png"):
            assert data[:4] == b"\x89PNG"
