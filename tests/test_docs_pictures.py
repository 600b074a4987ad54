"""The docs' pictures are what xaip draws now: ``scripts/docs_pictures`` redraws them into a
temporary folder and each must equal the committed file byte for byte (pictures are
deterministic, see xaip.figures); every picture a page references exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_docs_pictures_are_redrawn_byte_for_byte(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, str(ROOT / "scripts" / "docs_pictures"),
                          str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-800:]
    drawn = sorted(tmp_path.iterdir())
    assert len(drawn) == 7
    stale = [p.name for p in drawn
             if p.read_bytes() != (ROOT / "docs" / "images" / p.name).read_bytes()]
    assert not stale, f"run scripts/docs_pictures and commit docs/images: {stale}"


def test_every_picture_a_page_shows_exists() -> None:
    pages = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
    shown = 0
    for page in pages:
        for target in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
            path = (page.parent / target).resolve()
            assert path.is_file() and path.stat().st_size > 100, f"{page.name}: {target}"
            shown += 1
    assert shown >= 9
