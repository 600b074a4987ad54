"""Explicable: the robot plan a person watching finds least surprising (book ch. 2-3).

For a model with a human domain (the bundled restaurant robot by default), the page shows
the most explicable robot plan beside the person's nearest expected plan, its
inexplicability under the chosen plan distance, and -- for grid plans -- a picture of both
(robot blue, expected orange). The JSON is ``xaip explicable --json``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from xaip.errors import InputError
from xaip.runtime import Budget
from xaip.web.models import Model
from xaip.web.pages import Page, bench, budget_of, budget_query, respond
from xaip.web.work import Unfinished

router = APIRouter()

ModelId = Annotated[str, Query(max_length=80, examples=["restaurant-b2", "fetch"],
                                description="a model with a human domain")]
Distance = Annotated[str, Query(max_length=20, examples=["cost", "action", "causal", "state",
                                                            "composite"],
                                 description="plan distance")]
MaxCost = Annotated[int | None, Query(ge=0, le=10**6, description="robot cost bound")]


@dataclass(frozen=True)
class ExplicableView:
    payload: dict[str, Any]
    text: str
    picture: str | None


def compute(model: Model, distance: str, max_cost: int | None, budget: Budget
            ) -> ExplicableView:
    from xaip.explicable import DISTANCES, explicable_plan, make_problem
    from xaip.render import render

    if distance not in DISTANCES:
        raise InputError(f"unknown distance '{distance[:20]}' (one of {', '.join(DISTANCES)})")
    if not model.has("human_domain"):
        raise InputError(f"model '{model.id}' has no human domain: explicability is judged "
                         "by the person's model (upload human_domain too)")
    robot, task = model.domain(), model.problem()
    human = model.domain("human_domain")
    human_task = model.human_task()
    try:
        problem = make_problem(robot, task, human, human_task)
    except InputError as error:
        raise model.fail(error) from None
    result = explicable_plan(problem, distance, max_cost, budget=budget)
    picture = None
    if result.plan:
        try:
            png = render(result, "png")
            picture = "data:image/png;base64," + base64.b64encode(png).decode()
        except InputError:
            picture = None  # only grid plans (move cXY cZW) are drawn
    return ExplicableView(result.to_dict(), str(render(result)), picture)


async def _view(request: Request, model_id: str, distance: str, max_cost: int | None,
                asked: tuple[float | None, int | None]) -> ExplicableView | Unfinished:
    shared = bench(request)
    model = shared.models.get(model_id)
    return await shared.pool.run(compute, model, distance, max_cost,
                                 budget=budget_of(request, asked), lane="explicable")


@router.get("/explicable", response_class=HTMLResponse, include_in_schema=False)
async def explicable_page(request: Request, model: ModelId = "restaurant-b2",
                          distance: Distance = "cost", max_cost: MaxCost = None,
                          asked: Annotated[tuple[float | None, int | None],
                                           Depends(budget_query)] = (None, None)
                          ) -> HTMLResponse:
    from xaip.explicable import DISTANCES

    view = await _view(request, model, distance, max_cost, asked)
    shared = bench(request)
    common: dict[str, Any] = {"model": shared.models.get(model), "distance": distance,
              "distances": DISTANCES, "max_cost": max_cost,
              "models": [m for m in shared.models.all() if m.has("human_domain")]}
    if isinstance(view, Unfinished):
        return respond(request, "explicable.html", unfinished=view.to_dict(), **common)
    return respond(request, "explicable.html", view=view, payload=view.payload, **common)


@router.get("/api/explicable", tags=["explicable"])
async def explicable_api(request: Request, model: ModelId = "restaurant-b2",
                         distance: Distance = "cost", max_cost: MaxCost = None,
                         asked: Annotated[tuple[float | None, int | None],
                                          Depends(budget_query)] = (None, None)
                         ) -> dict[str, Any]:
    """``xaip explicable --json``: the most explicable robot plan, then the cheapest."""
    view = await _view(request, model, distance, max_cost, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("explicable", "Explicable", "The robot plan a person watching expects: plan "
            "beside expected plan, and how surprising it is.", router, family="explicable")
