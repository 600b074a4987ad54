"""The several-users page (issue 24 A03) end to end in Debian's Chromium, on the bundled
firefighting example: with the privacy map the commander's explanation is withheld and the
group gets none; the map removed in the form, every user is told why and sees their own
view of the shared explanation; a broken map is said plainly with the texts kept.

Skipped where Chromium or Playwright is missing; ``XAIP_SCREENSHOTS=1`` writes the
screenshot to ``docs/images/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import CHROMIUM, shots_folder, snap

sync_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium")


def test_the_firefighting_example(page: Any, server: str,
                                  tmp_path_factory: pytest.TempPathFactory) -> None:
    shots: Path = shots_folder(tmp_path_factory)
    page.goto(f"{server}/multiuser")
    page.wait_for_selector("#answer")
    assert "no_explanation, verified" in page.inner_text("#answer h2")
    withheld = page.inner_text("#user-commander")
    assert "No explanation commander may hear" in withheld
    assert "private to police (predicate:road_clear)" in withheld
    assert "deploy_rescuers() requires (alerted)" in page.inner_text("#edits-police")
    assert page.locator("#shared-refused").count() == 1
    snap(page, shots, "multiuser", full=True)

    page.fill("#privacy", "")  # no map: everyone may hear everything
    page.click("#ask-users")
    page.wait_for_selector("#shared-edits")
    assert "found, verified" in page.inner_text("#answer h2")
    assert "(road_clear)" in page.inner_text("#view-commander")
    assert "(road_clear)" not in page.inner_text("#view-police")

    page.fill("#privacy", "{private")  # bad input: said plainly, the texts kept
    page.click("#ask-users")
    page.wait_for_selector("#input-error")
    assert "privacy map: not JSON" in page.inner_text("#input-error")
    assert page.input_value("#privacy") == "{private"
    assert page.input_value("#name1") == "commander"
