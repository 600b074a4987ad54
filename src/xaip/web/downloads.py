"""Downloads of every answer a page shows: its JSON, its PDDL, its plan, its pictures.

Why links and no new routes: every page's answer is already served as JSON at
``/api/<page>`` with the same query (the same computation under the same budget, so the
download is the answer on the page); the texts a page holds (a model's files, a corrected
domain, a plan) become ``data:`` links the browser saves under a file name; the inline SVG
pictures are saved, or drawn to PNG, by ``static/workbench.js`` from the picture itself.
These are Jinja globals, registered in :func:`xaip.web.app.create_app`, used by the
``downloads`` macro of ``templates/_macros.html``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from starlette.requests import Request


def api_link(request: Request) -> str:
    """The JSON of the page ``request`` shows: ``/api`` + its path, with its query."""
    query = request.url.query
    return "/api" + request.url.path + (f"?{query}" if query else "")


def data_link(text: str, mime: str = "text/plain") -> str:
    """``text`` as a ``data:`` address (UTF-8), for a download link."""
    return f"data:{mime};charset=utf-8," + quote(text, safe="")


def plan_text(steps: Iterable[Any], cost: Any = None) -> str:
    """A plan file as planners and validators read it: one ground action in parentheses
    per line, then ``; cost = N`` when the cost is known."""
    lines = []
    for step in steps:
        text = str(step).strip()
        lines.append(text if text.startswith("(") else f"({text})")
    if cost is not None:
        lines.append(f"; cost = {cost}")
    return "\n".join(lines) + "\n"


def plan_link(steps: Iterable[Any], cost: Any = None) -> str:
    """:func:`plan_text` as a ``data:`` address."""
    return data_link(plan_text(steps, cost))


def file_stem(*parts: Any) -> str:
    """A download's file name stem from its parts (``xaip-plan-blocksworld``)."""
    cleaned = ["".join(c if c.isalnum() or c in "-_." else "-" for c in str(p)) for p in parts
               if p not in (None, "")]
    return "-".join(["xaip", *cleaned])[:80]
