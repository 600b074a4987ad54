"""The one registration point of the workbench's pages.

Why one list: a page is one module in :mod:`xaip.web.pages` (its routes: the HTML page and
the JSON endpoint over the same data) plus one template ``templates/<name>.html``. The
module defines ``PAGE = Page(...)``; adding its name to :data:`PAGE_MODULES` puts it in the
navigation, the application and the OpenAPI schema. A page whose explainer family is not in
this checkout (a family still being built) is skipped, as ``xaip.cli.COMMAND_MODULES`` and
``xaip.contract.FAMILY_MODULES`` skip theirs, so the list can name families before they land.

The shared pieces every page uses also live here: :class:`Bench` (settings, models, the
work pool, templates) reached through :func:`bench`, the budget parameters every JSON
endpoint takes (:func:`budget_query`), and :func:`respond` for pages.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from xaip.runtime import Budget
from xaip.web.models import ModelStore
from xaip.web.settings import Settings
from xaip.web.work import WorkPool

#: Page modules in navigation order; a module whose family is absent is skipped.
PAGE_MODULES = (
    "xaip.web.pages.models",
    "xaip.web.pages.plan",
    "xaip.web.pages.explain",
    "xaip.web.pages.summaries",
    "xaip.web.pages.capabilities",
    "xaip.web.pages.concepts",
    "xaip.web.pages.explicable",
    "xaip.web.pages.balanced",
    "xaip.web.pages.observers",
    "xaip.web.pages.assist",
    "xaip.web.pages.foils",
    "xaip.web.pages.unsolvable",
    "xaip.web.pages.multiuser",
    "xaip.web.pages.compare",
    "xaip.web.pages.explainers",
)


@dataclass(frozen=True)
class Page:
    """One page: ``/<name>`` (HTML, ``templates/<name>.html``) and ``/api/<name>...`` (JSON).

    ``family`` names the explainer family (:mod:`xaip.contract`) the page shows, so the
    home page can list that family's registered explainers beside it.
    """

    name: str
    title: str
    summary: str
    router: APIRouter
    family: str | None = None


@dataclass
class Bench:
    """What every request handler shares (one per application)."""

    settings: Settings
    models: ModelStore
    pool: WorkPool
    templates: Jinja2Templates
    pages: list[Page] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # per-page state (discovery runs)


def bench(request: Request) -> Bench:
    """The application's :class:`Bench` (FastAPI passes the request)."""
    found: Bench = request.app.state.bench
    return found


def load_pages(modules: tuple[str, ...] = PAGE_MODULES) -> list[Page]:
    """The ``PAGE`` of every module in ``modules`` that is present in this checkout."""
    pages = []
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            missing = error.name or ""
            # The page module itself, or the explainer family it shows, is not here yet.
            if missing == name or (missing.startswith("xaip.") and missing.count(".") == 1):
                continue
            raise
        pages.append(module.PAGE)
    return pages


def budget_query(
    max_seconds: Annotated[float | None, Query(gt=0, le=3600, description=(
        "seconds for this request's work (at most the server's limit)"))] = None,
    max_nodes: Annotated[int | None, Query(ge=1, le=10**9, description=(
        "search nodes for each search of this request (at most the server's limit)"))] = None,
) -> tuple[float | None, int | None]:
    """The budget a request asks for (FastAPI dependency; clamped by :func:`budget_of`)."""
    return max_seconds, max_nodes


def budget_of(request: Request, asked: tuple[float | None, int | None]) -> Budget:
    """The budget for this request's work: what it asked for, within the server's limits."""
    return bench(request).settings.budget(*asked)


def respond(request: Request, template: str, status_code: int = 200,
            **context: Any) -> HTMLResponse:
    """A page: ``template`` with the navigation and ``context``."""
    shared = bench(request)
    response: HTMLResponse = shared.templates.TemplateResponse(
        request, template, {"pages": shared.pages, "settings": shared.settings, **context},
        status_code=status_code)
    return response


__all__ = ["PAGE_MODULES", "Bench", "Page", "bench", "budget_of", "budget_query",
           "load_pages", "respond"]
