"""Plan: the model's optimal plan, its validation, and its landmark graph as a picture.

Why all three on one page: the plan says what the robot does, the validation (by the lifted
validator, which shares no code with the search) says that it works, and the landmarks say
what *every* plan must achieve -- the first thing a person asks about a plan they did not
expect. One budget covers grounding, search and landmarks, as in ``xaip plan`` and
``xaip landmarks``; the JSON is those commands' ``--json`` payloads side by side.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from xaip.errors import InputError
from xaip.runtime import Budget
from xaip.web.models import Model
from xaip.web.pages import MIN_SCALE, Page, bench, budget_of, budget_query, respond, svg_of
from xaip.web.work import Unfinished

router = APIRouter()

ModelId = Annotated[str, Query(max_length=80, examples=["blocksworld", "fetch"],
                                description="a model identifier (see /api/models)")]


@dataclass(frozen=True)
class PlanView:
    """What the page shows: the JSON payload, the plan text and the landmark picture."""

    payload: dict[str, Any]
    text: str
    picture: Markup | None


def compute(model: Model, budget: Budget) -> PlanView:
    """Ground, plan optimally, validate and find landmarks, all within ``budget``."""
    from xaip.planning import find_landmarks, ground, plan_task, validate
    from xaip.render import render

    domain, problem = model.domain(), model.problem()
    clock = budget.start()
    try:
        task = ground(domain, problem, budget=clock)
        result = plan_task(task, optimal=True, budget=clock.remaining())
        given = model.plan() if model.has("plan") else None
        steps = given if given is not None else (result.steps() if result.solved else None)
        validation = None if steps is None else validate(domain, problem, steps)
        graph = find_landmarks(task, budget=clock.remaining())
    except InputError as error:
        raise model.fail(error) from None
    payload = {"status": str(result.status), "verified": bool(validation and validation.valid
                                                              and result.solved),
               "model": model.id, "plan": result.to_dict(),
               "validation": None if validation is None else validation.to_dict(),
               "validated": "the model's plan file" if given is not None else "the plan found",
               # what `verified` covers: the validator checks validity; optimality is the
               # search's claim (A* with an admissible heuristic), no checker's
               "checked": ["valid"],
               "landmarks": graph.to_dict()}
    left = clock.remaining().max_seconds
    picture = svg_of(render(graph, "dot"), left, MIN_SCALE) if graph.landmarks else None
    return PlanView(payload, render(result), picture)


async def _view(request: Request, model_id: str, asked: tuple[float | None, int | None]
                ) -> PlanView | Unfinished:
    shared = bench(request)
    model = shared.models.get(model_id)
    return await shared.pool.run(compute, model, budget=budget_of(request, asked),
                                 lane="plan")


@router.get("/plan", response_class=HTMLResponse, include_in_schema=False)
async def plan_page(request: Request, model: ModelId = "blocksworld",
                    asked: Annotated[tuple[float | None, int | None],
                                     Depends(budget_query)] = (None, None)) -> HTMLResponse:
    view = await _view(request, model, asked)
    chosen = bench(request).models.get(model)
    if isinstance(view, Unfinished):
        return respond(request, "plan.html", model=chosen, unfinished=view.to_dict(),
                       models=bench(request).models.all())
    return respond(request, "plan.html", model=chosen, view=view, payload=view.payload,
                   models=bench(request).models.all())


@router.get("/api/plan", tags=["plan"])
async def plan_api(request: Request, model: ModelId = "blocksworld",
                   asked: Annotated[tuple[float | None, int | None],
                                    Depends(budget_query)] = (None, None)) -> dict[str, Any]:
    """The optimal plan (``xaip plan --optimal --json``), its validation (``xaip validate
    --json``; of the model's plan file when it has one) and its landmarks (``xaip
    landmarks --json``). ``status`` is the plan's; ``verified`` says the validator
    confirmed it -- its validity (``checked``), not its optimality, which is the search's
    claim."""
    view = await _view(request, model, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("plan", "Plan", "The optimal plan, its independent validation and the landmark "
            "graph every plan must pass through.", router)
