"""Docs that run: every ```python snippet in the README and docs/ is executed.

The snippets of one page run in order in one namespace (later snippets may use names
from earlier ones), with the project root as the working directory, so a page reads as a
session a user could type. A snippet that stops working fails here, not in a user's hands.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def snippets(page: Path) -> list[str]:
    return _BLOCK.findall(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", [p for p in PAGES if snippets(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_snippets_run(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {"__name__": f"docs:{page.name}"}
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for number, code in enumerate(snippets(page), start=1):
            compiled = compile(code, f"{page.name} (snippet {number})", "exec")
            exec(compiled, namespace)  # noqa: S102 - running our own docs is the point
    finally:
        os.chdir(here)
    capsys.readouterr()


def test_every_page_with_code_is_found() -> None:
    assert any(snippets(page) for page in PAGES)
