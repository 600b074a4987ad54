"""Explainers: every registered explainer, run on its bundled example, in one place.

Why: the explainer registry (:mod:`xaip.contract`) already says how to run each explainer
on a small example; this page runs it under the request's budget and shows what the
renderers make of the result -- English text, a picture where the type has one, the JSON.
So an explainer family that registers is in the workbench the day it lands, before (or
without) a page of its own. The JSON is the result's ``to_dict()``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from xaip.errors import XaipError
from xaip.runtime import Budget
from xaip.web.pages import (
    Page,
    bench,
    budget_of,
    budget_query,
    inline_svg,
    respond,
)
from xaip.web.problems import WebProblem
from xaip.web.work import Unfinished

router = APIRouter()


@dataclass(frozen=True)
class ExampleView:
    name: str
    family: str
    description: str
    payload: dict[str, Any]
    text: str
    svg: Markup | None
    png: str | None  # a data: URI


def specs() -> dict[str, Any]:
    """The registered explainers by name."""
    from xaip.contract import explainers

    return {spec.name: spec for spec in explainers()}


def listing() -> list[dict[str, str]]:
    """Name, family and description of every registered explainer (the home page's table
    and ``/api/explainers``)."""
    return [{"name": s.name, "family": s.family, "description": s.description}
            for s in specs().values()]


def run_example(name: str, budget: Budget) -> ExampleView:
    """Run explainer ``name`` on its bundled example within ``budget`` and render it."""
    from xaip.render import formats, render

    spec = specs().get(name)
    if spec is None:
        raise WebProblem(404, f"no registered explainer '{name[:60]}'", kind="not_found")
    result = spec.example(budget)
    available = formats(result)
    text = str(render(result)) if "text" in available else ""
    svg = png = None
    try:
        if "svg" in available:
            svg = inline_svg(str(render(result, "svg")))
        elif "png" in available:
            png = "data:image/png;base64," + base64.b64encode(render(result, "png")).decode()
    except XaipError:  # InputError included
        svg = png = None  # this result has nothing to draw (e.g. unfinished)
    return ExampleView(spec.name, spec.family, spec.description, result.to_dict(), text,
                       svg, png)


async def _listing(request: Request) -> list[dict[str, str]]:
    """:func:`listing` in the work pool (the first call imports every family); a machine
    too loaded to list them within the time limit answers 503 "busy", never half a list."""
    found = await bench(request).pool.run(listing, lane="explainers")
    if isinstance(found, Unfinished):
        raise WebProblem(503, "the workbench is too busy to list the explainers now; retry "
                              "in a moment", kind="busy")
    return found


@router.get("/explainers", response_class=HTMLResponse, include_in_schema=False)
async def explainers_page(request: Request) -> HTMLResponse:
    found = await _listing(request)
    return respond(request, "explainers.html", explainers=found)


@router.get("/explainers/{name}", response_class=HTMLResponse, include_in_schema=False)
async def example_page(request: Request, name: str,
                       asked: Annotated[tuple[float | None, int | None],
                                        Depends(budget_query)] = (None, None)
                       ) -> HTMLResponse:
    shared = bench(request)
    view = await shared.pool.run(run_example, name, budget=budget_of(request, asked),
                                      lane="explainers")
    found = await _listing(request)
    if isinstance(view, Unfinished):
        return respond(request, "explainers.html", explainers=found, name=name,
                       unfinished=view.to_dict())
    return respond(request, "explainers.html", explainers=found, name=name, view=view)


@router.get("/api/explainers", tags=["explainers"])
async def explainers_api(request: Request) -> dict[str, Any]:
    """Every registered explainer (:mod:`xaip.contract`): name, family, description."""
    found = await _listing(request)
    return {"status": "ok", "explainers": found}


@router.get("/api/explainers/{name}", tags=["explainers"])
async def example_api(request: Request,
                      name: Annotated[str, Path(examples=["reconcile.mce", "policy-summary"])],
                      asked: Annotated[tuple[float | None, int | None],
                                       Depends(budget_query)] = (None, None)
                      ) -> dict[str, Any]:
    """Run explainer ``name`` on its bundled example; the result's ``to_dict()``."""
    view = await bench(request).pool.run(run_example, name,
                                         budget=budget_of(request, asked),
                                         lane="explainers")
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("explainers", "All explainers", "Every registered explainer on its bundled "
            "example: text, picture and JSON.", router)
