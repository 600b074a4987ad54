"""Keyboard use of the workbench (issue 23): every control has a label a screen reader
reads, Tab reaches every control in the page's order, and the focused one is visibly
marked -- on every page, in a real browser.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.web.browser import CHROMIUM
from tests.web.test_everyday import PAGES as EVERYDAY

PAGES = [p for p in EVERYDAY if p not in ("/compare", "/models/fetch/edit")]

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")

#: The name a control is announced with: its label, aria-label or (buttons, links) text.
NAME = """e => (e.labels && e.labels.length ? e.labels[0].innerText : '') ||
  e.getAttribute('aria-label') || (['BUTTON', 'A'].includes(e.tagName) ? e.innerText : '')"""

CONTROLS = ("a[href], button, input:not([type=hidden]), select, textarea, "
            "[tabindex]:not([tabindex='-1'])")


@pytest.mark.parametrize("path", [*PAGES, "/compare", "/models/fetch/edit"])
def test_labels_tab_order_and_visible_focus(page: Any, server: str, path: str) -> None:
    page.goto(server + path)
    page.wait_for_load_state("load")
    controls = page.locator(f"main {CONTROLS}")
    unnamed = [c.evaluate("e => e.outerHTML.slice(0, 80)") for c in controls.all()
               if c.is_visible() and not c.evaluate(NAME).strip()]
    assert not unnamed, f"{path}: controls without a label: {unnamed}"
    page.keyboard.press("Tab")  # the first stop: the skip link, shown when focused
    assert page.evaluate("document.activeElement.className") == "skip"
    assert page.locator("a.skip").is_visible()
    seen = set()
    for _ in range(60):
        page.keyboard.press("Tab")
        focused = page.evaluate("""() => { const e = document.activeElement;
            // in an editor the focus ring is on the editor, not its hidden input
            const s = getComputedStyle(e.closest('.CodeMirror') || e);
            return [e.tagName, e.outerHTML.slice(0, 60), s.outlineStyle, s.outlineWidth,
                    e.closest('main, header, footer') ? e.closest('main, header, footer').tagName
                    : 'BODY']; }""")
        tag, html, style, width = focused[:4]
        if tag == "BODY":
            break
        assert style != "none" and width != "0px", f"{path}: no visible focus on {html}"
        seen.add(focused[4])
    assert "HEADER" in seen and ("MAIN" in seen or path == "/"), (path, seen)
