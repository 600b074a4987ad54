"""Balanced: choose the plan and its explanation together (book ch. 7).

Explaining everything can mean a lot of talk; acting explicably can mean a costly detour.
For a model with a human domain (the book's search-and-rescue instance by default), the page
shows the plan and explanation that minimise the chosen objective -- ``balanced`` (plan cost
plus communication cost plus the inexplicability left), ``explicable`` or
``explicable-optimal`` -- with every cost beside them. The JSON is the result's
``to_dict()``, as the family's ``--json``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from xaip.balanced import METHODS, balance, balanced_problem
from xaip.balanced.objectives import Objective
from xaip.errors import InputError
from xaip.runtime import Budget
from xaip.web.models import Model
from xaip.web.pages import Page, bench, budget_of, budget_query, respond
from xaip.web.work import Unfinished

router = APIRouter()

#: The bundled instance prices every explanation item as the book does (ch. 7).
BOOK_ITEM_COST = {"usar-balanced": 50.0}

ModelId = Annotated[str, Query(max_length=80, examples=["usar-balanced", "fetch"],
                                description="a model with a human domain")]
ObjectiveName = Annotated[str, Query(max_length=30, examples=[o.value for o in Objective],
                                      description="balanced, explicable or "
                                                                "explicable-optimal")]
ItemCost = Annotated[float | None, Query(ge=0, le=10**6, description=(
    "the cost of telling one explanation item (default 1; the book's 50 for usar-balanced)"))]
Method = Annotated[str, Query(max_length=20, examples=list(METHODS),
                               description="model-space or compile (MEGA*)")]


@dataclass(frozen=True)
class BalancedView:
    payload: dict[str, Any]
    text: str


def compute(model: Model, objective: str, item_cost: float | None, method: str,
            budget: Budget) -> BalancedView:
    if not model.has("human_domain"):
        raise InputError(f"model '{model.id}' has no human domain: balanced planning weighs "
                         "explaining to the person's model (upload human_domain too)")
    if method not in METHODS:
        raise InputError(f"unknown method '{method[:20]}' (one of {', '.join(METHODS)})")
    robot, task = model.domain(), model.problem()
    human = model.domain("human_domain")
    human_task = model.human_task()
    cost = item_cost if item_cost is not None else BOOK_ITEM_COST.get(model.id, 1.0)
    try:
        problem = balanced_problem(robot, task, human, human_task, objective=objective,
                                   default_cost=cost)
    except InputError as error:
        raise model.fail(error) from None
    from xaip.render import render

    result = balance(problem, method=method, budget=budget)
    return BalancedView(result.to_dict(), str(render(result)))


async def _view(request: Request, model_id: str, objective: str, item_cost: float | None,
                method: str, asked: tuple[float | None, int | None]
                ) -> BalancedView | Unfinished:
    shared = bench(request)
    model = shared.models.get(model_id)
    return await shared.pool.run(compute, model, objective, item_cost, method,
                                 budget=budget_of(request, asked), lane="balanced")


@router.get("/balanced", response_class=HTMLResponse, include_in_schema=False)
async def balanced_page(request: Request, model: ModelId = "usar-balanced",
                        objective: ObjectiveName = "balanced", item_cost: ItemCost = None,
                        method: Method = "model-space",
                        asked: Annotated[tuple[float | None, int | None],
                                         Depends(budget_query)] = (None, None)
                        ) -> HTMLResponse:
    view = await _view(request, model, objective, item_cost, method, asked)
    shared = bench(request)
    common: dict[str, Any] = {
        "model": shared.models.get(model), "objective": objective, "item_cost": item_cost,
        "method": method, "methods": METHODS, "objectives": [o.value for o in Objective],
        "models": [m for m in shared.models.all() if m.has("human_domain")]}
    if isinstance(view, Unfinished):
        return respond(request, "balanced.html", unfinished=view.to_dict(), **common)
    return respond(request, "balanced.html", payload=view.payload, text=view.text, **common)


@router.get("/api/balanced", tags=["balanced"])
async def balanced_api(request: Request, model: ModelId = "usar-balanced",
                       objective: ObjectiveName = "balanced", item_cost: ItemCost = None,
                       method: Method = "model-space",
                       asked: Annotated[tuple[float | None, int | None],
                                        Depends(budget_query)] = (None, None)
                       ) -> dict[str, Any]:
    """The best plan and explanation for ``objective`` (the result's ``to_dict()``)."""
    view = await _view(request, model, objective, item_cost, method, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("balanced", "Balanced", "Plan and explanation chosen together: plan cost, "
            "communication cost and what is left unexplained.", router, family="balanced")
