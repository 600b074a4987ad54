"""Assist: the RADAR dialogue (book ch. 10, feature A02) -- the person plans, xaip helps.

The person builds a plan step by step (clicking an action that applies now, or typing one)
and asks at any point: **suggest next** (the next action of a cheapest completion, with its
reasons: the goal facts and landmarks it achieves, the cheapest completion with it and
without it), **complete my plan** (the cheapest completion and its cost gap to the robot's
own optimal plan) or **check my plan** (the first failing step, what breaks, and the
cheapest repair). Any action can be **vetoed** (one ground action, or every action of a
schema); completions, suggestions and repairs then avoid it, and a veto can be removed
again. Every answer is :class:`xaip.assist.Assistant`'s, checked by its own checker, and
its badge shows the library's verdict.

Why the dialogue is in the URL (``step=...&step=...&veto=...&ask=suggest``) and not in a
session: as on the explain page, every state is a link that can be reloaded, shared or
scripted, and the server keeps nothing per person. The task is grounded once per request
(the Assistant's own grounding, plus one here to list the actions that apply after the
person's steps; both are cheap beside the searches). The JSON is ``xaip assist --json``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import StringConstraints

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

#: The questions, by the ``ask`` parameter (``xaip assist``'s modes).
QUESTIONS = {"suggest": "Suggest next", "complete": "Complete my plan",
             "check": "Check my plan"}
#: Bounds of one dialogue: the person's steps, vetoes, and action buttons shown.
MAX_STEPS = 100
MAX_VETOES = 32
MAX_ACTION_TEXT = 100
MAX_ACTION_BUTTONS = 150

ModelId = Annotated[str, Query(max_length=80, examples=["blocksworld", "fetch"],
                                description="the model to plan in")]
#: One step or veto as text (a ground action is short; the bound keeps every address of a
#: dialogue well within what browsers and HTTP clients accept).
Action = Annotated[str, StringConstraints(max_length=MAX_ACTION_TEXT)]
Steps = Annotated[list[Action], Query(max_length=MAX_STEPS, description=(
    "the person's plan so far, one ground action per value, e.g. (unstack b1 b2)"))]
Vetoes = Annotated[list[Action], Query(max_length=MAX_VETOES, description=(
    "vetoed actions: a schema name (every instance) or one ground action"))]
Ask = Annotated[str, Query(max_length=20, examples=list(QUESTIONS),
                            description="suggest, complete or check")]
#: The most slack (cost above the cheapest) an explicable suggestion may take.
MAX_SLACK = 20


@dataclass(frozen=True)
class Person:
    """The person's own model in the dialogue (humans as actors, A01): ``mine`` uses the
    model's human domain (and human problem) as hers; ``explicable`` asks suggestions to
    follow the completion closest to what she would do, within ``slack`` of the cheapest."""

    mine: bool = False
    explicable: bool = False
    slack: int = 0

    def pairs(self) -> list[tuple[str, str]]:
        """As query pairs (only what differs from the defaults)."""
        out = []
        if self.mine:
            out.append(("mine", "1"))
        if self.explicable:
            out.append(("explicable", "1"))
        if self.slack:
            out.append(("slack", str(self.slack)))
        return out


def person_query(
    mine: Annotated[bool, Query(description=(
        "use the model's human domain as the person's model of the task: a failing plan "
        "is also explained towards it"))] = False,
    explicable: Annotated[bool, Query(description=(
        "suggest: follow the completion closest to what the person would do in her model "
        "(needs mine)"))] = False,
    slack: Annotated[int, Query(ge=0, le=MAX_SLACK, description=(
        "explicable suggestions: how much more than the cheapest completion may cost"))] = 0,
) -> Person:
    """The person's-model options of a request (FastAPI dependency)."""
    return Person(mine, explicable, slack)


@dataclass
class AssistView:
    """The answer and what the page offers beside it."""

    payload: dict[str, Any]
    text: str
    applicable: list[str] = field(default_factory=list)  # actions that apply after the steps
    applies: bool = True  # every step of the person's plan so far applies
    schemas: list[str] = field(default_factory=list)


def _applicable(model: Model, steps: list[str], budget: Budget) -> tuple[list[str], bool]:
    """The ground actions that apply after ``steps`` (sorted, at most
    :data:`MAX_ACTION_BUTTONS`), and whether every step applied. Grounding that runs out of
    the budget gives no buttons (the person can still type a step)."""
    from xaip.planning.grounding import ground
    from xaip.planning.plans import resolve

    try:
        task = ground(model.domain(), model.problem(), budget=offer_budget(budget).start())
    except BudgetExhausted:
        return [], True
    state = task.init
    for variants in resolve(task, steps, strict=False):
        usable = [a for a in variants if a.applicable(state)]
        if not usable:
            return [], False
        state = usable[0].apply(state)
    names = sorted(str(a) for a in task.actions if a.applicable(state))
    return names[:MAX_ACTION_BUTTONS], True


def compute(model: Model, steps: list[str], vetoes: list[str], ask: str, person: Person,
            budget: Budget) -> AssistView:
    """The assistant's answer to ``ask`` after ``steps`` with ``vetoes`` (and the person's
    model, as ``person`` asks), within ``budget``."""
    from xaip.assist import Assistant
    from xaip.render import render

    if ask not in QUESTIONS:
        raise InputError(f"unknown question '{ask[:20]}' (one of {', '.join(QUESTIONS)})")
    if len(steps) > MAX_STEPS:
        raise InputError(f"at most {MAX_STEPS} steps in one plan")
    if len(vetoes) > MAX_VETOES:
        raise InputError(f"at most {MAX_VETOES} vetoes")
    if person.explicable and not person.mine:
        raise InputError("an explicable suggestion follows your model of the task: "
                         "choose 'use my model' too")
    domain, problem = model.domain(), model.problem()
    human = None
    if person.mine:
        if not model.has("human_domain"):
            raise InputError(f"model '{model.id}' has no model of the person "
                             "(upload it as human_domain)")
        human = (model.domain("human_domain"), model.human_task())
    if ask == "check":
        helper = Assistant(domain, problem, vetoes=vetoes, human=human)
        result = helper.check(steps, budget)
    else:
        helper = Assistant(domain, problem, prefix=steps, vetoes=vetoes, human=human)
        if ask == "complete":
            result = helper.complete(budget)
        elif person.explicable:
            result = helper.suggest(budget, explicable=True, slack=person.slack)
        else:
            result = helper.suggest(budget)
    applicable, applies = _applicable(model, steps, budget)
    return AssistView(result.to_dict(), str(render(result)), applicable, applies,
                      sorted({a.name for a in domain.actions}))


#: The query pairs every address of one dialogue keeps: the model, and the budget the
#: person asked for (``max_seconds``, ``max_nodes``) so that it holds for every next answer.
Fixed = Sequence[tuple[str, str]]


def fixed_pairs(model: str, person: Person, asked: tuple[float | None, int | None]
                ) -> list[tuple[str, str]]:
    """The model, the person's-model options and the asked budget, as query pairs (see
    :data:`Fixed`)."""
    return [("model", model), *person.pairs(), *budget_pairs(asked)]


def link(model: Fixed, steps: list[str], vetoes: list[str], ask: str) -> str:
    """The page's address for one state of the dialogue (``model``: :data:`Fixed`)."""
    query: list[tuple[str, str]] = list(model)
    query += [("step", s) for s in steps]
    query += [("veto", v) for v in vetoes]
    query.append(("ask", ask))
    return "/assist?" + urlencode(query)


def links(model: Fixed, steps: list[str], vetoes: list[str], ask: str,
          payload: dict[str, Any] | None, applicable: Sequence[str] = ()) -> dict[str, Any]:
    """Every move the page offers from this state, as addresses: ask another question,
    drop a step, remove a veto, take the suggestion, the completion or the repair, veto an
    action the answer proposes."""
    out: dict[str, Any] = {
        "ask": {name: link(model, steps, vetoes, name) for name in QUESTIONS},
        "drop_step": [link(model, steps[:i] + steps[i + 1:], vetoes, ask)
                      for i in range(len(steps))],
        "undo": link(model, steps[:-1], vetoes, ask) if steps else None,
        "clear": link(model, [], vetoes, ask) if steps else None,
        "unveto": [link(model, steps, vetoes[:i] + vetoes[i + 1:], ask)
                   for i in range(len(vetoes))],
        "add": {a: link(model, [*steps, a], vetoes, ask) for a in applicable},
        "take": {}, "veto": {},
    }
    if payload is None:
        return out
    kept = steps[:payload.get("kept_steps", len(steps))]
    completion = [s["action"] for s in payload.get("completion") or []]
    suggestion = payload.get("suggestion")
    if suggestion:
        out["take"]["suggestion"] = link(model, [*steps, suggestion], vetoes, "suggest")
    if completion:
        name = "repair" if payload.get("mode") == "check" else "completion"
        out["take"][name] = link(model, kept + completion, vetoes, "check")
    for action in sorted({*completion, *([suggestion] if suggestion else [])}):
        if action not in vetoes:
            out["veto"][action] = link(model, steps, [*vetoes, action], ask)
    if suggestion:
        schema = suggestion.strip("()").split()[0]
        if schema not in vetoes:
            out["veto_schema"] = (schema, link(model, steps, [*vetoes, schema], ask))
    return out


def _filled(values: list[str]) -> list[str]:
    """The non-blank values (a form's empty "add a step" box sends an empty one)."""
    return [v.strip() for v in values if v.strip()]


async def _view(request: Request, model_id: str, steps: list[str], vetoes: list[str],
                ask: str, person: Person, asked: tuple[float | None, int | None]
                ) -> AssistView | Unfinished:
    shared = bench(request)
    model = shared.models.get(model_id)
    steps, vetoes = _filled(steps), _filled(vetoes)
    return await shared.pool.run(compute, model, steps, vetoes, ask, person,
                                 budget=budget_of(request, asked), lane="assist")


@router.get("/assist", response_class=HTMLResponse, include_in_schema=False)
async def assist_page(request: Request, model: ModelId = "blocksworld",
                      step: Steps = [], veto: Vetoes = [],  # noqa: B006 (FastAPI copies)
                      ask: Ask = "suggest",
                      person: Annotated[Person, Depends(person_query)] = Person(),
                      asked: Annotated[tuple[float | None, int | None],
                                       Depends(budget_query)] = (None, None)
                      ) -> HTMLResponse:
    shared = bench(request)
    chosen = shared.models.get(model)
    fixed = fixed_pairs(model, person, asked)
    try:
        view = await _view(request, model, step, veto, ask, person, asked)
    except InputError as error:
        # A step or veto the person typed is wrong: the dialogue stays on screen, with the
        # message and a way to remove what was typed, rather than an error page.
        step, veto = _filled(step), _filled(veto)
        return respond(request, "assist.html", status_code=400, error=str(error),
                       model=chosen, models=shared.models.all(), steps=step, vetoes=veto,
                       ask=ask if ask in QUESTIONS else "suggest", questions=QUESTIONS,
                       links=links(fixed, step, veto, ask if ask in QUESTIONS else "suggest",
                                   None), fixed=fixed[1:], person=person,
                       budget_fixed=budget_pairs(asked))
    step, veto = _filled(step), _filled(veto)
    common: dict[str, Any] = {
        "model": chosen, "models": shared.models.all(), "steps": step,
        "vetoes": veto, "ask": ask, "questions": QUESTIONS, "fixed": fixed[1:],
        "person": person, "budget_fixed": budget_pairs(asked)}
    if isinstance(view, Unfinished):
        return respond(request, "assist.html", unfinished=view.to_dict(),
                       links=links(fixed, step, veto, ask, None), **common)
    return respond(request, "assist.html", view=view, payload=view.payload,
                   links=links(fixed, step, veto, ask, view.payload, view.applicable),
                   **common)


@router.get("/api/assist", tags=["assist"])
async def assist_api(request: Request, model: ModelId = "blocksworld",
                     step: Steps = [], veto: Vetoes = [],  # noqa: B006 (FastAPI copies)
                     ask: Ask = "suggest",
                     person: Annotated[Person, Depends(person_query)] = Person(),
                     asked: Annotated[tuple[float | None, int | None],
                                      Depends(budget_query)] = (None, None)
                     ) -> dict[str, Any]:
    """``xaip assist --json``: the answer to ``ask`` (``suggest``, ``complete`` or
    ``check``) for the person's steps ``step`` (in order) and vetoes ``veto`` -- the
    result's ``to_dict()``; with ``mine`` towards the person's model (``--human-domain``),
    with ``explicable`` and ``slack`` an explicable suggestion (``--explicable``)."""
    view = await _view(request, model, step, veto, ask, person, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("assist", "Assist", "Plan it yourself with help (RADAR): suggest the next step, "
            "complete or check your plan, veto actions.", router, family="assist")
