"""Foils: "why not my way?" with several constraints at once (RADAR-X; features A04, A07).

The person writes a foil -- an ordered partial plan or constraints such as "use A before B"
and "never C after D", one a line in :mod:`xaip.foils.language` -- in a text box, or puts
each constraint together in a small form (kind, action A, action B: the actions the task
has are offered as the person types). The page answers with :func:`xaip.foils.explain_foils`:
the cheapest plan that meets every constraint (the *witness*, its steps that meet a
constraint marked) and its cost gap to the robot's optimal plan, or, when no plan meets them
all, the minimal conflict sets and the maximal realisable subsets (each a link that asks
again with just that subset). The badge is the library's verdict (its checker's product
search). The JSON is ``xaip foil --json``.

Why the builder redirects: putting a constraint together adds one line to the foil text,
and the address of the answer is the foil text itself (``foils=...``), so the answer can be
reloaded, shared or scripted like every page's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from xaip.errors import BudgetExhausted, InputError
from xaip.runtime import Budget
from xaip.web.models import Model
from xaip.web.pages import (
    Page,
    bench,
    budget_of,
    budget_pairs,
    budget_query,
    offer_budget,
    respond,
)
from xaip.web.work import Unfinished

router = APIRouter()

#: The builder's kinds: the label a person reads and the foil line it writes.
BUILDER = {
    "use": ("use A", "use {a}"),
    "before": ("use A before B", "use {a} before {b}"),
    "never_after": ("never B after A", "never {b} after {a}"),
    "avoid": ("avoid A", "avoid {a}"),
}
#: At most this many ground actions are offered while typing.
MAX_OFFERED = 400

ModelId = Annotated[str, Query(max_length=80, examples=["blocksworld"],
                                description="the model whose plans the foil constrains")]
FoilText = Annotated[str | None, Query(max_length=4000, description=(
    "the foil: one constraint a line (use A, use A before B, A then B, never C after D, "
    "avoid A, sequence A B C); default: the bundled example's on blocksworld"))]
Kind = Annotated[str | None, Query(max_length=20, examples=list(BUILDER), description=(
    "page only: add one constraint of this kind, with actions a (and b)"))]
Action = Annotated[str, Query(max_length=200, description="an action, e.g. (pick-up b1)")]


def default_foils(model_id: str) -> str:
    """The foil a page opens with: the bundled example's on blocksworld, else nothing."""
    if model_id != "blocksworld":
        return ""
    from xaip.foils.bundled import EXAMPLE_FOILS

    return EXAMPLE_FOILS


@dataclass
class FoilView:
    payload: dict[str, Any]
    text: str
    actions: list[str] = field(default_factory=list)
    # witness step (0-based) -> the 1-based numbers of the constraints whose actions it matches
    marks: dict[int, list[int]] = field(default_factory=dict)


def _marks(result: Any) -> dict[int, list[int]]:
    """Which constraints each witness step takes part in (for the page's marks only; the
    checker's own interpreter decides whether the constraints hold)."""
    marks: dict[int, list[int]] = {}
    for index, step in enumerate(result.witness or ()):
        words = step.strip("()").split()
        for number, constraint in enumerate(result.constraints, 1):
            if constraint.kind in ("avoid", "never_after"):
                continue
            if any(p.matches(words[0], tuple(words[1:])) for p in constraint.patterns):
                marks.setdefault(index, []).append(number)
    return marks


def _actions(model: Model, budget: Budget) -> list[str]:
    from xaip.planning.grounding import ground

    try:
        task = ground(model.domain(), model.problem(), budget=offer_budget(budget).start())
    except BudgetExhausted:
        return []
    return sorted(str(a) for a in task.actions)[:MAX_OFFERED]


def compute(model: Model, foils: str, budget: Budget) -> FoilView:
    """The answer to the foil text ``foils`` on ``model`` within ``budget``."""
    from xaip.foils import explain_foils
    from xaip.render import render

    if not foils.strip():
        raise InputError("write at least one constraint, e.g. 'use (pick-up b1)'")
    result = explain_foils(model.domain(), model.problem(), foils, file="foils",
                           budget=budget)
    return FoilView(result.to_dict(), str(render(result)), _actions(model, budget),
                    _marks(result))


def actions_only(model: Model, budget: Budget) -> list[str]:
    """The task's actions, for a page that has no foil to answer yet."""
    model.problem()  # a broken model is reported as at upload
    return _actions(model, budget)


def subset_link(model: str, constraints: list[dict[str, Any]], numbers: list[int],
                kept: Sequence[tuple[str, str]] = ()) -> str:
    """The page for the foil made of the constraints ``numbers`` (1-based) only (``kept``:
    the asked budget's query pairs)."""
    text = "\n".join(constraints[n - 1]["text"] for n in numbers)
    return "/foils?" + urlencode([("model", model), ("foils", text), *kept])


async def _run(request: Request, function: Any, *args: Any,
               asked: tuple[float | None, int | None]) -> Any:
    shared = bench(request)
    return await shared.pool.run(function, *args, budget=budget_of(request, asked),
                                 lane="foils")


@router.get("/foils", response_class=HTMLResponse, include_in_schema=False)
async def foils_page(request: Request, model: ModelId = "blocksworld",
                     foils: FoilText = None, kind: Kind = None, a: Action = "",
                     b: Action = "",
                     asked: Annotated[tuple[float | None, int | None],
                                      Depends(budget_query)] = (None, None)
                     ) -> Response:
    shared = bench(request)
    chosen = shared.models.get(model)
    text = default_foils(model) if foils is None else foils
    kept = budget_pairs(asked)
    common: dict[str, Any] = {"model": chosen, "models": shared.models.all(), "foils": text,
                              "builder": BUILDER, "kind": kind or "before", "a": a, "b": b,
                              "fixed": kept}
    if kind is not None:
        if kind not in BUILDER:
            raise InputError(f"unknown kind of constraint '{kind[:20]}' (one of "
                             f"{', '.join(BUILDER)})")
        if not a.strip() or ("{b}" in BUILDER[kind][1] and not b.strip()):
            return respond(request, "foils.html", status_code=400, actions=[],
                           error="give the action" + (
                               "s A and B" if "{b}" in BUILDER[kind][1] else " A")
                           + " of the constraint", **common)
        line = BUILDER[kind][1].format(a=a.strip(), b=b.strip())
        joined = (text.rstrip("\n") + "\n" + line) if text.strip() else line
        return RedirectResponse("/foils?" + urlencode([("model", model), ("foils", joined),
                                                       *kept]), status_code=303)
    if not text.strip():
        actions = await _run(request, actions_only, chosen, asked=asked)
        return respond(request, "foils.html", actions=[] if isinstance(actions, Unfinished)
                       else actions, **common)
    try:
        view = await _run(request, compute, chosen, text, asked=asked)
    except InputError as error:
        # A constraint the person wrote is wrong: keep the text on screen to be fixed.
        actions = await _run(request, actions_only, chosen, asked=asked)
        return respond(request, "foils.html", status_code=400, error=str(error),
                       actions=[] if isinstance(actions, Unfinished) else actions, **common)
    if isinstance(view, Unfinished):
        return respond(request, "foils.html", unfinished=view.to_dict(), actions=[],
                       **common)
    subsets = [subset_link(model, view.payload["constraints"], m, kept)
               for m in view.payload.get("maximal_realisable", [])]
    return respond(request, "foils.html", view=view, payload=view.payload,
                   actions=view.actions, subsets=subsets, **common)


@router.get("/api/foils", tags=["foils"])
async def foils_api(request: Request, model: ModelId = "blocksworld",
                    foils: FoilText = None,
                    asked: Annotated[tuple[float | None, int | None],
                                     Depends(budget_query)] = (None, None)
                    ) -> dict[str, Any]:
    """``xaip foil --json``: the witness plan and its cost gap, or the minimal conflicts
    and maximal realisable subsets of the foil (the result's ``to_dict()``)."""
    chosen = bench(request).models.get(model)
    text = default_foils(model) if foils is None else foils
    view = await _run(request, compute, chosen, text, asked=asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("foils", "Foils", "Why not my way? Orders and constraints on the plan: the "
            "cheapest plan that meets them, or which of them clash.", router, family="foils")
