"""The model editor (issue 23): PDDL highlighted by the vendored CodeMirror, errors marked
inline at the file, line and column the parsers name, and an edited model saved and run
again -- in a real browser; the form also works without JavaScript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.web.browser import CHROMIUM, ROOT, snap

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")

PROBLEM = (ROOT / "src/xaip/domains/blocksworld/problem-5.pddl").read_text()
GOAL = "(:goal (and\n    (ontable b1) (on b2 b1) (on b3 b2) (on b4 b3) (on b5 b4))))"


def set_text(page: Any, file: str, text: str) -> None:
    page.evaluate("([file, text]) => document.querySelector("
                  "`.CodeMirror[data-file='${file}']`).CodeMirror.setValue(text)", [file, text])


def test_edit_check_and_rerun(page: Any, server: str, shots: Path) -> None:
    assert GOAL in PROBLEM
    page.goto(f"{server}/models/blocksworld")
    page.click("#edit-model")
    page.wait_for_selector(".CodeMirror[data-file='problem.pddl']")
    problem = page.locator(".CodeMirror[data-file='problem.pddl']")
    assert problem.locator(".cm-keyword", has_text=":goal").count() == 1  # highlighted
    assert page.locator(".CodeMirror[data-file='domain.pddl'] .cm-variable-2").count() > 0
    assert page.locator(".CodeMirror[data-file='domain.pddl'] .cm-comment").count() > 0
    broken = PROBLEM.replace(GOAL, "(:goal (and (ontable b1) (on b9 b1))))")
    set_text(page, "problem.pddl", broken)
    page.click("#check-model")
    widget = problem.locator(".cm-error-widget")
    widget.wait_for()
    line = next(i for i, text in enumerate(broken.splitlines(), 1) if "b9" in text)
    assert widget.inner_text().startswith(f"Line {line},")
    assert "b9" in widget.inner_text()
    marked = "".join(problem.locator(".cm-error-mark").all_inner_texts())  # one span a token
    assert "b9" in marked
    assert "error" in page.inner_text("#check-result")
    snap(page, shots, "editor-error")
    set_text(page, "problem.pddl", PROBLEM.replace(GOAL, "(:goal (and (ontable b1))))"))
    assert problem.locator(".cm-error-widget").count() == 0  # an edit clears the mark
    page.click("#check-model")
    page.wait_for_selector("#check-result:has-text('every file parses')")
    page.click("#save-model")
    page.wait_for_url("**/plan?model=u-*")
    page.wait_for_selector("#validation")
    assert page.locator("ol.plan li").all_inner_texts() == ["(unstack b1 b2)",
                                                            "(put-down b1)"]
    assert "valid" in page.inner_text("#validation")
    assert "edited: Blocksworld" in page.inner_text("h1")


def test_editor_is_keyboard_reachable(page: Any, server: str) -> None:
    page.goto(f"{server}/models/fetch/edit")
    page.wait_for_selector(".CodeMirror")
    reached = []
    for _ in range(40):
        page.keyboard.press("Tab")
        reached.append(page.evaluate(
            "() => { const e = document.activeElement; return e.id || "
            "e.getAttribute('aria-label') || e.name || e.tagName; }"))
        if reached[-1] == "save-model":
            break
    assert "domain.pddl" in reached and "problem.pddl" in reached
    assert reached.index("check-model") < reached.index("save-model")
    page.keyboard.press("Shift+Tab")  # and back: the editor does not trap focus
    assert page.evaluate("document.activeElement.name") == "then"


def test_without_javascript_an_error_comes_back_marked(server: str) -> None:
    texts = httpx.get(f"{server}/api/models/blocksworld", timeout=30).json()["texts"]
    broken = {**texts, "domain": texts["domain"].replace("(:predicates", "(:predicatez", 1)}
    answer = httpx.post(f"{server}/models/blocksworld/edit", data={**broken, "then": "plan"},
                        headers={"accept": "text/html"}, timeout=60)
    assert answer.status_code == 400
    assert 'data-error-line="' in answer.text and 'aria-invalid="true"' in answer.text
    assert "predicatez" in answer.text
    ok = httpx.post(f"{server}/api/models/check", data=texts, timeout=60)
    assert ok.json() == {"status": "ok", "files": ["domain.pddl", "problem.pddl"]}
