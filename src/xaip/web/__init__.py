"""The xaip workbench: the explainers as a local web application (``xaip serve``).

Why a browser: explanations are a dialogue -- the person reads an answer, objects to one
of its edits, asks "why not my plan?", drills into a summary -- and a terminal is a poor
place for that back-and-forth with pictures. The workbench is a thin layer over the same
front doors the CLI uses (:mod:`xaip.reconcile`, :mod:`xaip.summaries`, ...): every page's
data is also a JSON endpoint returning the CLI's ``--json`` payload.

Layout: :mod:`.app` builds the FastAPI application; :mod:`.registry` is the one registration
point (``PAGE_MODULES``); each page is one module in :mod:`xaip.web.pages` plus one
template; :mod:`.models` keeps bundled and uploaded models; :mod:`.work` runs each
request's work off the event loop under a budget; :mod:`.limits` bounds request bodies.

This package's ``__init__`` imports nothing from FastAPI, so ``xaip --help`` (which
imports :mod:`xaip.web.command`) works on the base install without the ``web`` extra.
"""

from __future__ import annotations

from typing import Any


def create_app(settings: Any = None) -> Any:
    """The workbench application (imports FastAPI; see :func:`xaip.web.app.create_app`)."""
    from xaip.web.app import create_app as build

    return build(settings)


__all__ = ["create_app"]
