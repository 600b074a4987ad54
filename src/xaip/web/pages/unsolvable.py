"""No plan? Why a task has none (D3WA+; feature A05).

For a model whose task has no plan, the page shows :func:`xaip.unsolvable.explain_unsolvable`'s
answer in the person's terms: the goal with its **minimal unsolvable core** marked (the
fewest goal facts that are already impossible), the **landmark that cannot be reached**
with its chain back to what is missing (as sentences and as a picture), optionally the
fewest initial facts whose addition would give a plan (``repair``, off by default as on
the command line: one search per candidate), and, for the plan the person expected to
work (typed or pasted), the **step where it fails** and why. A task that has a plan gets
its cheapest plan and nothing to explain. The badge is the library's verdict (its
checker's separate exploration). The JSON is ``xaip unsolvable --json``.
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
from xaip.web.pages import (
    Page,
    bench,
    budget_of,
    budget_pairs,
    budget_query,
    respond,
    svg_of,
)
from xaip.web.work import Unfinished

router = APIRouter()

#: At most this many initial facts in a repair (each size tries every candidate set).
MAX_REPAIR = 2

ModelId = Annotated[str, Query(max_length=80, examples=["delivery", "blocksworld"],
                                description="the model whose task may have no plan")]
Trace = Annotated[str | None, Query(max_length=4000, description=(
    "the plan the person expected to work, one action per line (default: the bundled "
    "attempt on the delivery example)"))]
Repair = Annotated[int, Query(ge=0, le=MAX_REPAIR, description=(
    "also find the fewest initial facts (at most this many) whose addition gives a plan; "
    "0: off"))]


def default_trace(model_id: str) -> str:
    """The attempt a page opens with: the bundled one on the delivery example, else none."""
    if model_id != "delivery":
        return ""
    from xaip.unsolvable.bundled import bundled_files

    return bundled_files()["trace"].read_text(encoding="utf-8")


@dataclass
class UnsolvableView:
    payload: dict[str, Any]
    text: str
    picture: Markup | None = None
    steps: tuple[str, ...] = ()  # the person's plan as read, numbered from 1 on the page


def _label(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def chain_dot(landmark: dict[str, Any]) -> str | None:
    """The unreachable landmark's chain as a DOT graph: each fact needs the next one, and
    the actions that could add the last fact with their preconditions that never hold."""
    chain = landmark.get("chain")
    if not chain or not chain.get("facts"):
        return None
    lines = ["digraph chain {", "  rankdir=LR;",
             '  node [shape=box, style="rounded,filled", fillcolor="#fbe3e1", '
             'fontname="Helvetica"];', '  edge [fontname="Helvetica", fontsize=11];']
    facts = chain["facts"]
    for i, fact in enumerate(facts):
        lines.append(f'  f{i} [label="{_label(fact)}"{", penwidth=2" if i == 0 else ""}];')
        if i:
            lines.append(f'  f{i - 1} -> f{i} [label="needs"];')
    missing: dict[str, int] = {}
    for j, blocked in enumerate(chain.get("blocked", [])):
        lines.append(f'  a{j} [label="{_label(blocked["action"])}", shape=ellipse, '
                     'fillcolor="#e8ecf5"];')
        lines.append(f'  f{len(facts) - 1} -> a{j} [label="only added by", style=dashed];')
        for fact in blocked.get("unmet", []):
            if fact in facts:
                lines.append(f'  a{j} -> f{facts.index(fact)} [label="needs", '
                             'constraint=false];')
                continue
            if fact not in missing:
                missing[fact] = len(missing)
                lines.append(f'  m{missing[fact]} [label="{_label(fact)}", '
                             'fillcolor="#fff4d6"];')
            k = missing[fact]
            lines.append(f'  a{j} -> m{k} [label="needs (never holds)"];')
    lines.append("}")
    return "\n".join(lines)


def compute(model: Model, trace: str, repair: int, budget: Budget) -> UnsolvableView:
    """The unsolvability answer for ``model`` (and the person's ``trace``) within ``budget``."""
    from xaip.planning.plans import parse_plan
    from xaip.render import render
    from xaip.unsolvable import explain_unsolvable

    if not 0 <= repair <= MAX_REPAIR:
        raise InputError(f"repair takes 0 to {MAX_REPAIR} facts")
    steps = parse_plan(trace, "your plan") if trace.strip() else None
    clock = budget.start()
    result = explain_unsolvable(model.domain(), model.problem(), steps, budget=budget,
                                repair=repair)
    payload = result.to_dict()
    picture = None
    landmark = payload.get("landmark")
    dot = chain_dot(landmark) if landmark else None
    if dot is not None:
        left = clock.remaining().max_seconds
        picture = svg_of(dot, left)
    return UnsolvableView(payload, str(render(result)), picture,
                          tuple(str(s) for s in steps or ()))


async def _view(request: Request, model_id: str, trace: str, repair: int,
                asked: tuple[float | None, int | None]) -> UnsolvableView | Unfinished:
    shared = bench(request)
    model = shared.models.get(model_id)
    return await shared.pool.run(compute, model, trace, repair,
                                 budget=budget_of(request, asked), lane="unsolvable")


@router.get("/unsolvable", response_class=HTMLResponse, include_in_schema=False)
async def unsolvable_page(request: Request, model: ModelId = "delivery", trace: Trace = None,
                          repair: Repair = 0,
                          asked: Annotated[tuple[float | None, int | None],
                                           Depends(budget_query)] = (None, None)
                          ) -> HTMLResponse:
    shared = bench(request)
    chosen = shared.models.get(model)
    text = default_trace(model) if trace is None else trace
    common: dict[str, Any] = {"model": chosen, "models": shared.models.all(), "trace": text,
                              "repair": repair, "max_repair": MAX_REPAIR,
                              "fixed": budget_pairs(asked)}
    try:
        view = await _view(request, model, text, repair, asked)
    except InputError as error:
        # The plan the person typed does not read: keep it on screen to be fixed.
        return respond(request, "unsolvable.html", status_code=400, error=str(error),
                       **common)
    if isinstance(view, Unfinished):
        return respond(request, "unsolvable.html", unfinished=view.to_dict(), **common)
    return respond(request, "unsolvable.html", view=view, payload=view.payload, **common)


@router.get("/api/unsolvable", tags=["unsolvable"])
async def unsolvable_api(request: Request, model: ModelId = "delivery", trace: Trace = None,
                         repair: Repair = 0,
                         asked: Annotated[tuple[float | None, int | None],
                                          Depends(budget_query)] = (None, None)
                         ) -> dict[str, Any]:
    """``xaip unsolvable --json`` (``--trace``, ``--repair``): a cheapest plan, or the
    minimal unsolvable core, the unreachable landmark and where the person's plan fails
    (the result's ``to_dict()``)."""
    text = default_trace(model) if trace is None else trace
    view = await _view(request, model, text, repair, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("unsolvable", "No plan?", "Why a task has no plan: the fewest goal facts that "
            "are impossible, the landmark nobody reaches, where your plan fails.", router,
            family="unsolvable")
