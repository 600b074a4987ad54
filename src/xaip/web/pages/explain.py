"""Explain: model reconciliation as a dialogue (book ch. 5, 6 and 10).

The page shows the robot's plan beside the plan the person expected, the explanation as
sentences and as a diff of the person's model, and lets the person

* **veto** an edit ("that is wrong"): the robot adopts the person's view of that feature,
  replans optimally in its corrected model and explains again -- RADAR's loop
  (:class:`xaip.reconcile.DecisionSupport`); the page shows the corrected model, the new
  plan and the new explanation;
* answer a **conditional** explanation's questions one at a time (an annotated, uncertain
  human model): the page walks the explanation's question-asking policy with the answers
  given so far;
* ask **"why not this plan?"**: a foil plan typed or clicked together from the task's
  actions (or ``avoid:ACTION`` / ``use:ACTION``) gives a contrastive explanation.

Why the dialogue is in the URL (``veto=1&veto=1``, ``answers=yn``) and not in a session:
every state of the dialogue is a link that can be reloaded, shared or scripted, and the
server keeps nothing per person. Replaying the vetoes costs one explanation per round,
which the budget bounds like any other work. The JSON is ``xaip explain --json`` (with
``--veto`` the dialogue's), unchanged.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from xaip.errors import InputError
from xaip.runtime import Budget
from xaip.web.models import ROLES, Model
from xaip.web.pages import Page, bench, budget_of, budget_query, respond
from xaip.web.work import Unfinished

router = APIRouter()

#: Explanation types offered here; ``anytime`` asks its questions on a terminal.
KNOWN = ("mce", "mme", "approx", "ppe", "mpe", "contrastive")
UNCERTAIN = ("conformant", "conditional")
#: At most this many vetoes (rounds) in one dialogue, and action buttons for foils.
MAX_VETOES = 8
MAX_ACTION_BUTTONS = 120

ModelId = Annotated[str, Query(max_length=80, examples=["fetch", "usar"],
                                description="a model with a human domain")]
Kind = Annotated[str, Query(max_length=20, examples=list(KNOWN + UNCERTAIN),
                             description="explanation type: " + ", ".join(KNOWN + UNCERTAIN))]
Vetoes = Annotated[list[int], Query(description="edit numbers vetoed (1-based, as "
                                                "xaip explain --veto), one per round")]
Foil = Annotated[str, Query(max_length=4000, examples=["avoid:tuck", "use:crouch"],
                             description="for contrastive: a plan (one "
                                                         "action per line) or avoid:/use:")]
Answers = Annotated[str, Query(max_length=64, pattern="^[yn]*$", examples=["y", "yn"],
                               description="conditional: the person's answers so far")]


@dataclass
class ExplainView:
    """What the page shows beside the JSON payload."""

    payload: dict[str, Any]
    text: str
    kind: str
    plan: tuple[str, ...] = ()
    expected: tuple[str, ...] = ()
    expected_cost: int | None = None
    expected_after: str = ""
    edits: list[dict[str, str]] = field(default_factory=list)
    rounds: list[dict[str, Any]] = field(default_factory=list)
    corrected_domain: str = ""
    corrected_changes: list[str] = field(default_factory=list)  # unified diff lines
    differences: str = ""
    exchange: list[dict[str, Any]] = field(default_factory=list)
    waiting: bool = False  # a conditional explanation waits for the person's answer
    actions: list[str] = field(default_factory=list)
    schemas: list[str] = field(default_factory=list)


def _mrp(model: Model, budget: Budget) -> Any:
    from xaip.reconcile import make_mrp

    robot, task = model.domain(), model.problem()
    human = model.domain("human_domain")
    human_task = model.human_task()
    plan = model.plan() if model.has("plan") else None
    try:
        return make_mrp(robot, task, human, human_task, plan, budget)
    except InputError as error:
        raise model.fail(error) from None


def _differences(mrp: Any) -> str:
    """The person's model against the robot's, in English (``xaip diff``'s text)."""
    import dataclasses

    from xaip.planning.features import model_diff
    from xaip.render import render

    diff = model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem, mrp.robot_problem)
    return str(render(dataclasses.replace(diff, names=("the person's model",
                                                       "the robot's model"))))


def _edits(explanation: Any) -> list[dict[str, str]]:
    return [{"op": e.op, "text": _edit_text(e)} for e in explanation.edits]


def _known(model: Model, kind: str, vetoes: list[int], foil: str, budget: Budget
           ) -> ExplainView:
    from xaip.planning.pddl import write_domain
    from xaip.reconcile import DecisionSupport, explain, parse_foil
    from xaip.render import render

    clock = budget.start()  # building the MRP (the robot's optimal plan) counts too
    mrp = _mrp(model, budget)
    budget = clock.remaining()
    differences = _differences(mrp)
    actions = sorted(a.name for a in mrp.robot_task.actions)[:MAX_ACTION_BUTTONS]
    schemas = sorted({a.name for a in mrp.robot_domain.actions})
    if kind == "contrastive":
        if vetoes:
            raise InputError("vetoes go with mce, mme, approx, ppe and mpe explanations")
        if not foil.strip():
            raise InputError("a contrastive explanation needs a foil: the plan you "
                             "expected (one action per line) or avoid:ACTION / use:ACTION")
        result = explain(mrp, kind, budget=budget, foils=(parse_foil(foil, "foil"),))
        current, rounds, corrected, changes = result, [], "", []
    elif vetoes:
        dialogue = DecisionSupport(mrp, kind, budget)  # its own clock over every round
        for number in vetoes:
            dialogue.veto(number - 1)
        result = dialogue.result()
        current = dialogue.current
        rounds = [{"edits": _edits(r.explanation), "plan": r.explanation.plan,
                   "vetoed": None if r.vetoed is None else _edit_text(r.vetoed)}
                  for r in result.rounds]
        corrected = write_domain(dialogue.mrp.robot_domain)
        changes = list(difflib.unified_diff(
            write_domain(mrp.robot_domain).splitlines(), corrected.splitlines(),
            "the robot's model", "after your vetoes", n=2, lineterm=""))[2:]
        differences = _differences(dialogue.mrp)
    else:
        result = explain(mrp, kind, budget=budget)
        current, rounds, corrected, changes = result, [], "", []
    return ExplainView(
        payload=result.to_dict(), text=str(render(result)), kind=kind, plan=current.plan,
        expected=current.expected_plan, expected_cost=current.expected_plan_cost,
        expected_after=current.expected_plan_after, edits=_edits(current), rounds=rounds,
        corrected_domain=corrected, corrected_changes=changes, differences=differences,
        actions=actions,
        schemas=schemas)


def _edit_text(edit: Any) -> str:
    from xaip.reconcile import edit_text

    return str(edit_text(edit))


def walk(policy: dict[str, Any] | None, answers: str) -> tuple[list[dict[str, Any]], bool]:
    """The exchange so far along a conditional explanation's policy (its JSON form):
    what the robot told, what it asked and the person's answers. The second value is
    true when the robot is waiting for the next answer."""
    exchange: list[dict[str, Any]] = []
    if policy is None:  # unfinished (budget exhausted): no policy to walk, nothing to refuse
        return exchange, False
    node: dict[str, Any] | None = policy
    given = list(answers)
    while node is not None:
        if node["node"] == "tell":
            exchange.append({"who": "robot", "text": node["edit"]["text"]})
            node = node["then"]
        elif node["node"] == "ask":
            exchange.append({"who": "question", "text": node["question"]["text"],
                             "probability": node["question"]["probability"]})
            if not given:
                return exchange, True
            answer = given.pop(0)
            exchange.append({"who": "person", "text": "yes" if answer == "y" else "no"})
            node = node["yes"] if answer == "y" else node["no"]
        else:
            exchange.append({"who": "done", "text": "The plan is now explained for the "
                                                   "model you have."})
            node = None
    if given:
        raise InputError(f"{len(given)} answer(s) more than the explanation asks for")
    return exchange, False


def _uncertain(model: Model, kind: str, answers: str, budget: Budget) -> ExplainView:
    from xaip.reconcile import AnnotatedMRP, explain
    from xaip.reconcile.annotated import parse_annotations
    from xaip.render import render

    if not model.has("annotations"):
        raise InputError(f"{kind} explanations need an annotated human model: model "
                         f"'{model.id}' has no {ROLES['annotations']}")
    clock = budget.start()
    mrp = _mrp(model, budget)
    budget = clock.remaining()
    try:
        possible = parse_annotations(model.text("annotations"), mrp.human_domain,
                                     ROLES["annotations"])
    except InputError as error:
        raise model.fail(error) from None
    result = explain(AnnotatedMRP(mrp, possible), kind, budget=budget, alpha=0.0)
    payload = result.to_dict()
    view = ExplainView(payload=payload, text=str(render(result)), kind=kind,
                       plan=mrp.plan_names, differences=_differences(mrp))
    if kind == "conditional":
        view.exchange, view.waiting = walk(payload.get("policy"), answers)
    else:
        view.edits = [{"op": e["op"], "text": e.get("text", "")} for e in payload["edits"]]
    return view


def compute(model: Model, kind: str, vetoes: list[int], foil: str, answers: str,
            budget: Budget) -> ExplainView:
    """One explanation (or dialogue) of ``kind`` for ``model`` within ``budget``."""
    if not model.has("human_domain"):
        raise InputError(f"model '{model.id}' has no human domain: explanations reconcile "
                         "the robot's model with the person's (upload human_domain too)")
    if len(vetoes) > MAX_VETOES:
        raise InputError(f"at most {MAX_VETOES} vetoes in one dialogue")
    if any(v < 1 for v in vetoes):
        raise InputError("veto numbers start at 1 (the first edit of the explanation)")
    if kind in UNCERTAIN:
        if vetoes or foil:
            raise InputError(f"{kind} explanations take no vetoes or foils")
        return _uncertain(model, kind, answers, budget)
    if kind not in KNOWN:
        raise InputError(f"unknown explanation type '{kind[:20]}' (one of "
                         f"{', '.join(KNOWN + UNCERTAIN)}; anytime explanations ask on the "
                         "command line)")
    if answers:
        raise InputError("answers go with conditional explanations")
    return _known(model, kind, vetoes, foil, budget)


async def _view(request: Request, model_id: str, kind: str, vetoes: list[int], foil: str,
                answers: str, asked: tuple[float | None, int | None]
                ) -> ExplainView | Unfinished:
    shared = bench(request)
    model = shared.models.get(model_id)
    return await shared.pool.run(compute, model, kind, vetoes, foil, answers,
                                 budget=budget_of(request, asked), lane="explain")


@router.get("/explain", response_class=HTMLResponse, include_in_schema=False)
async def explain_page(request: Request, model: ModelId = "fetch", type: Kind = "mce",
                       veto: Vetoes = [], foil: Foil = "",  # noqa: B006 (FastAPI copies)
                       answers: Answers = "",
                       asked: Annotated[tuple[float | None, int | None],
                                        Depends(budget_query)] = (None, None)
                       ) -> HTMLResponse:
    view = await _view(request, model, type, veto, foil, answers, asked)
    shared = bench(request)
    chosen = shared.models.get(model)
    options = [m for m in shared.models.all() if m.has("human_domain")]
    common: dict[str, Any] = {"model": chosen, "models": options, "kind": type, "vetoes": veto,
              "foil": foil, "answers": answers, "known": KNOWN,
              "uncertain": UNCERTAIN if chosen.has("annotations") else ()}
    if isinstance(view, Unfinished):
        return respond(request, "explain.html", unfinished=view.to_dict(), **common)
    return respond(request, "explain.html", view=view, payload=view.payload, **common)


@router.get("/api/explain", tags=["explain"])
async def explain_api(request: Request, model: ModelId = "fetch", type: Kind = "mce",
                      veto: Vetoes = [], foil: Foil = "",  # noqa: B006 (FastAPI copies)
                      answers: Answers = "",
                      asked: Annotated[tuple[float | None, int | None],
                                       Depends(budget_query)] = (None, None)
                      ) -> dict[str, Any]:
    """``xaip explain --json``: the explanation of ``type``; with ``veto`` the decision-
    support dialogue (``--veto``); with ``foil`` a contrastive explanation
    against that plan. ``answers`` only walks a conditional explanation's policy on the
    page; the JSON holds the whole policy."""
    view = await _view(request, model, type, veto, foil, answers, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("explain", "Explain", "Why this plan? Reconcile the person's model with the "
            "robot's; veto an edit, answer questions, or ask why not your plan.", router,
            family="reconcile")
