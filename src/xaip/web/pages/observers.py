"""Observers: behaviour for an observer who sees tokens, not actions (book ch. 4 and 9).

For a bundled instance (the port supervisor, the medkit step counter), the page plans for
the chosen mode -- ``legible-goal`` (the observer can tell the true goal after at most
``j`` candidates remain), ``legible-plan`` (medkit: few, similar plans explain what was
seen) or ``ambiguous`` (at least ``k`` goals stay possible: obfuscation) -- and shows the
plan, the tokens the observer sees, and the belief frames: after each token, how many states
the observer still considers and which goals they leave possible. The book's truck (§9.2)
runs in mode ``mixed``: one plan watched by a friend and an adversary, each observer's
tokens step by step and the goals each keeps, with the goal difference GD. The JSON is the
result's ``to_dict()``, as the family's ``--json``.

Only the bundled instances are offered (:data:`INSTANCES`): an observer is described by
files the CLI reads, and the workbench takes no paths.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from xaip.errors import InputError
from xaip.observers import (
    ambiguous_plan,
    example_problem,
    format_token,
    goals_in,
    legible_goal_plan,
)
from xaip.observers.legibility import legible_plan
from xaip.observers.problem import EXAMPLES
from xaip.runtime import Budget
from xaip.web.pages import Page, bench, budget_of, budget_query, respond
from xaip.web.work import Unfinished

router = APIRouter()

MODES = ("legible-goal", "legible-plan", "ambiguous", "mixed")
#: The instances offered: the single-observer book examples, and the book's truck (§9.2),
#: whose friend and adversary watch the same plan (mode ``mixed`` only).
INSTANCES = (*EXAMPLES, "truck")

Example = Annotated[str, Query(max_length=30, examples=list(INSTANCES),
                                description="a bundled instance")]
Mode = Annotated[str, Query(max_length=20, examples=list(MODES), description=", ".join(MODES))]
Count = Annotated[int | None, Query(ge=1, le=50, description="j (legible-goal), m "
                                                             "(legible-plan) or k (ambiguous, "
                                                             "mixed)")]


@dataclass
class ObserversView:
    payload: dict[str, Any]
    frames: list[dict[str, Any]] = field(default_factory=list)
    film: str | None = None  # the belief film (grid tasks), a data: URI
    text: str = ""


def frames(problem: Any, plan: tuple[str, ...]) -> list[dict[str, Any]]:
    """The observer's belief after each token of ``plan``: its size, and the goals some
    believed state achieves (𝒢(b)).

    Recomputed from the plan with the problem's belief tracker (the result keeps only the
    sizes), so the page shows what the observer can still think at every step."""
    tracker = problem.tracker
    tokens = tracker.tokens_of(problem.resolve(plan))
    beliefs = tracker.sequence(tokens)
    goals = problem.goals.goals
    out = [{"step": 0, "action": "", "token": "", "size": len(beliefs[0]),
            "goals": list(goals_in(beliefs[0], goals))}]
    for number, (action, token, belief) in enumerate(zip(plan, tokens, beliefs[1:],
                                                         strict=True), start=1):
        out.append({"step": number, "action": action, "token": format_token(token),
                    "size": len(belief), "goals": list(goals_in(belief, goals))})
    return out


def compute(example: str, mode: str, count: int | None, budget: Budget) -> ObserversView:
    if example not in INSTANCES:
        raise InputError(f"unknown instance '{example[:30]}' (one of {', '.join(INSTANCES)})")
    if mode not in MODES:
        raise InputError(f"unknown mode '{mode[:20]}' (one of {', '.join(MODES)})")
    if (example == "truck") != (mode == "mixed"):
        raise InputError("mode mixed goes with the truck, the one instance with two "
                         "observers (a friend and an adversary), and the truck with it")
    if example == "truck":
        return _mixed_truck(count, budget)
    defaults = EXAMPLES[example]
    problem = example_problem(example)
    if mode == "legible-goal":
        result = legible_goal_plan(problem, j=count or int(defaults.get("j", 1)),
                                   budget=budget)
    elif mode == "ambiguous":
        result = ambiguous_plan(problem, k=count or 2, budget=budget)
    else:
        max_cost = defaults.get("max_cost")
        result = legible_plan(problem, m=count or int(defaults.get("m", 1)),
                              d=float(defaults.get("d", 1.0)),
                              max_cost=None if max_cost is None else int(max_cost),
                              horizon=None if max_cost is not None else 10, budget=budget)
    payload = result.to_dict()
    shown = frames(problem, result.plan) if result.plan else []
    from xaip.render import render

    return ObserversView(payload, shown, film(problem, result.plan), str(render(result)))


def _mixed_truck(count: int | None, budget: Budget) -> ObserversView:
    """The book's truck for a friend and an adversary at once (the integer program);
    ``count`` asks the adversary to keep at least k goals."""
    from xaip.domains.observers import truck
    from xaip.observers.mixed import solve_mixed
    from xaip.render import render

    task, observers, goals = truck.load()
    result = solve_mixed(task, observers, goals, k=count, budget=budget)
    payload = result.to_dict()
    observed = payload.get("observations") or {}
    shown = [{"step": number, "action": action,
              "tokens": {who: seen[number - 1] for who, seen in observed.items()}}
             for number, action in enumerate(payload.get("plan") or (), start=1)]
    return ObserversView(payload, shown, None, str(render(result)))


def film(problem: Any, plan: tuple[str, ...]) -> str | None:
    """The belief film of a grid plan as an animated GIF (a ``data:`` URI): the robot, the
    cells the observer believes it may be in, and the goals still plausible, step by step.
    ``None`` for a task that is not a grid (then the frames table says it all)."""
    if not plan:
        return None
    from xaip.observers.pictures import belief_film
    from xaip.render import render

    try:
        frames_ = belief_film(problem.task, list(plan), problem.model, problem.goals)
        gif = render(frames_, "gif")
    except InputError:
        return None
    return "data:image/gif;base64," + base64.b64encode(gif).decode()


async def _view(request: Request, example: str, mode: str, count: int | None,
                asked: tuple[float | None, int | None]) -> ObserversView | Unfinished:
    return await bench(request).pool.run(compute, example, mode, count,
                                         budget=budget_of(request, asked), lane="observers")


def _default_mode(example: str) -> str:
    """The instance's own mode when this page offers it, else ``legible-goal``."""
    if example == "truck":
        return "mixed"
    mode = str(EXAMPLES.get(example, {}).get("mode", "legible-goal"))
    return mode if mode in MODES else "legible-goal"


@router.get("/observers", response_class=HTMLResponse, include_in_schema=False)
async def observers_page(request: Request, example: Example = "port", mode: Mode = "",
                         count: Count = None,
                         asked: Annotated[tuple[float | None, int | None],
                                          Depends(budget_query)] = (None, None)
                         ) -> HTMLResponse:
    if example == "truck" or (mode == "mixed" and example in EXAMPLES):
        mode = ""  # the form keeps the last mode; the page follows the instance picked
    mode = mode or _default_mode(example)
    view = await _view(request, example, mode, count, asked)
    common: dict[str, Any] = {"example": example, "examples": list(INSTANCES), "mode": mode,
                              "modes": MODES, "count": count}
    if isinstance(view, Unfinished):
        return respond(request, "observers.html", unfinished=view.to_dict(), **common)
    return respond(request, "observers.html", payload=view.payload, frames=view.frames,
                   film=view.film, text=view.text,
                   **common)


@router.get("/api/observers", tags=["observers"])
async def observers_api(request: Request, example: Example = "port", mode: Mode = "",
                        count: Count = None,
                        asked: Annotated[tuple[float | None, int | None],
                                         Depends(budget_query)] = (None, None)
                        ) -> dict[str, Any]:
    """A plan for the observer in ``mode`` (the result's ``to_dict()``); ``count`` is j, m
    or k of the mode (default: the instance's)."""
    view = await _view(request, example, mode or _default_mode(example), count, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("observers", "Observers", "Plans for an observer with partial sensors: what "
            "it sees, and what it can still believe, step by step.", router,
            family="observers")
