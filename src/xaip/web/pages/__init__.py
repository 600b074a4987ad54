"""The workbench's pages, one module each (registered in :data:`xaip.web.registry.PAGE_MODULES`
-- see :mod:`xaip.web.registry` for the registration point, re-exported here).

Each page module builds an ``APIRouter`` with ``GET /<name>`` (the HTML page, rendered from
``templates/<name>.html``) and ``/api/<name>...`` (the same data as JSON: the payload of the
matching ``xaip`` command's ``--json``), both computing through one function that runs in
the :class:`~xaip.web.work.WorkPool` under the request's budget. This ``__init__`` holds
the helpers they share.
"""

from __future__ import annotations

import re
from typing import Any

from markupsafe import Markup

from xaip.runtime import Budget
from xaip.web.registry import (
    PAGE_MODULES,
    Bench,
    Page,
    bench,
    budget_of,
    budget_query,
    load_pages,
    respond,
)

_PROLOGUE = re.compile(r"^\s*(<\?xml[^>]*\?>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*",
                       re.DOTALL)


def inline_svg(svg: str) -> Markup:
    """SVG text ready to sit inside a page: without its XML prologue and doctype.

    Safe to mark up: it comes from :func:`xaip.render.dot.dot_to_svg`, whose labels are
    escaped by Graphviz or by our own layout, never from request text directly.
    """
    return Markup(_PROLOGUE.sub("", svg, count=1))


#: The smallest a graph picture is shown, as a share of its own size: Graphviz's 14 pt
#: labels stay about 10 px high. A wider graph scrolls inside its box rather than shrink
#: to a grey smudge (the landmark graph of a 5-block task is ~1900 px wide).
MIN_SCALE = 0.55
_SVG_WIDTH = re.compile(r'<svg\b[^>]*?\bwidth="([0-9.]+)(pt|px)?"')


def svg_of(dot_text: str, seconds: float | None, min_scale: float = 0.0) -> Markup:
    """The picture of DOT text (Graphviz when installed, else our own layout), inline;
    with ``min_scale`` (e.g. :data:`MIN_SCALE`) never shown smaller than that share of its
    own size, else shrunk to its box on a wide screen and kept legible on a phone
    (:func:`readable`)."""
    from xaip.render.dot import dot_to_svg

    timeout = 60.0 if seconds is None else max(1.0, seconds)
    return readable(inline_svg(dot_to_svg(dot_text, timeout=timeout)), min_scale)


def readable(svg: Markup, min_scale: float = MIN_SCALE) -> Markup:
    """``svg`` carrying its own width in CSS pixels (Graphviz gives points, 4/3 px each)
    as ``--natural-width`` -- the stylesheet keeps every graph at least :data:`MIN_SCALE`
    of it on a phone, where shrinking to the screen would make labels unreadable -- and,
    with ``min_scale``, a ``min-width`` of that share of it on every screen. The page's
    ``max-width: 100%`` shrinks a graph only down to that; past it the box scrolls."""
    found = _SVG_WIDTH.search(str(svg))
    if found is None:
        return svg
    pixels = float(found.group(1)) * (4 / 3 if found.group(2) == "pt" else 1)
    style = f"--natural-width: {pixels:.0f}px"
    if min_scale > 0:
        style += f"; min-width: {pixels * min_scale:.0f}px"
    at = found.start() + len("<svg")
    text = str(svg)
    return Markup(f'{text[:at]} style="{style}"{text[at:]}')


def budget_pairs(asked: tuple[float | None, int | None]) -> list[tuple[str, str]]:
    """The budget a request asked for (``max_seconds``, ``max_nodes``) as query pairs, for
    a page whose links and forms lead to its next answer: the person's budget then holds
    for every answer of the dialogue, not only the first."""
    pairs = []
    for name, value in zip(("max_seconds", "max_nodes"), asked, strict=True):
        if value is not None:
            pairs.append((name, f"{value:g}" if isinstance(value, float) else str(value)))
    return pairs


#: The most listing a task's actions for a person to pick from may take: a convenience
#: beside a page's answer (the request's time limit is for the answer's search and check).
OFFER_SECONDS = 3.0


def offer_budget(budget: Budget) -> Budget:
    """The budget for grounding a task to offer its actions: at most :data:`OFFER_SECONDS`."""
    seconds = budget.max_seconds
    return Budget(max_nodes=budget.max_nodes,
                  max_seconds=OFFER_SECONDS if seconds is None else min(seconds, OFFER_SECONDS))


def status_class(payload: dict[str, Any]) -> str:
    """CSS class of a result's status badge (a template global: see ``_macros.html``):
    ``verified`` only when the payload -- the library's result -- says so; a result that
    did not finish is ``bad``, any other unverified one ``unverified``."""
    if payload.get("verified") is True:
        return "verified"
    if payload.get("status") in ("budget_exhausted", "truncated", "unsolvable", "invalid"):
        return "bad"
    return "unverified"


__all__ = ["MIN_SCALE", "PAGE_MODULES", "Bench", "Page", "bench", "budget_of", "budget_pairs",
           "budget_query", "offer_budget",
           "inline_svg", "load_pages", "readable", "respond", "status_class", "svg_of"]
