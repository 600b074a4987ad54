"""Summaries: a policy in one sentence, its landmark hierarchy as a picture, and drill-down.

TLdR (AAAI 2020): an optimal policy of a probabilistic task is summarised by the subgoals
every goal-reaching execution passes through. The page shows the summary sentence, the
landmark graph, and one button per subgoal (clicking a node of the picture presses its
button): the first click chooses where a leg starts, the second where it ends, and the
page then shows the landmarks *between* those two subgoals (:func:`xaip.summaries.drill_down`).

Why the chosen subgoals are in the URL (``source``, ``target``): as on the explain page,
every state is a reloadable link and the server keeps nothing per person. The JSON is
``xaip summarize --json`` (with ``--drill A B`` when both are given).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from markupsafe import Markup

from xaip.errors import InputError
from xaip.runtime import Budget, Status
from xaip.web.models import Model
from xaip.web.pages import Page, bench, budget_of, budget_query, respond, svg_of
from xaip.web.work import Unfinished

router = APIRouter()

ModelId = Annotated[str, Query(max_length=80, examples=["airport"],
                                description="a model (probabilistic PDDL)")]
Subgoal = Annotated[str, Query(max_length=200, examples=["init", "goal"],
                                description="a subgoal fact such as '(at station1)', or "
                                            "init/goal")]


@dataclass
class SummaryView:
    """The JSON payload plus what only the page needs."""

    payload: dict[str, Any]
    sentence: str
    text: str
    picture: Markup | None
    subgoals: list[tuple[str, str]] = field(default_factory=list)  # (SVG node id, fact)
    drill_text: str = ""


def compute(model: Model, source: str, target: str, budget: Budget) -> SummaryView:
    """Solve, summarise and (with both ends) drill down, all within ``budget``."""
    from xaip.planning.mdp import ground_probabilistic
    from xaip.render import render
    from xaip.render.summaries import narration
    from xaip.summaries import drill_down, resolve_fact, summarize
    from xaip.summaries.drill import GOAL_NAMES, INIT_NAMES

    if bool(source) != bool(target) and target:
        raise InputError("choose where the leg starts (source) before where it ends")
    clock = budget.start()
    domain, problem = model.domain(), model.problem()
    try:
        ptask = ground_probabilistic(domain, problem)
        ends = None
        if source and target:
            ends = (resolve_fact(ptask, source, INIT_NAMES), resolve_fact(ptask, target,
                                                                           GOAL_NAMES))
    except InputError as error:
        raise model.fail(error) from None
    phrases = None
    if model.id == "airport":
        from xaip.domains.airport import PHRASES

        phrases = PHRASES
    summary = summarize(ptask, phrases=phrases, budget=clock)
    drill = None
    if ends is not None and summary.status.finished:
        drill = drill_down(ptask, summary.policy, ends[0], ends[1], summary.graph,
                           budget=clock)
    finished = summary.status.finished and (drill is None or drill.status.finished)
    sentence = narration(summary)
    payload = summary.to_dict()
    payload.update(status=str(summary.status if finished else Status.BUDGET_EXHAUSTED),
                   verified=summary.verified and (drill is None or drill.verified),
                   input=model.id, summary=sentence,
                   drill=None if drill is None else drill.to_dict(), dot=None,
                   seconds=round(clock.elapsed(), 6))
    chosen = summary.policy_landmarks
    subgoals = [] if chosen is None else [(f"F{i}", str(ptask.facts[i])) for i in chosen.facts]
    picture = None
    if chosen is not None:
        picture = svg_of(render(summary, "dot"), clock.remaining().max_seconds)
    return SummaryView(payload, sentence, str(render(summary)), picture, subgoals,
                       "" if drill is None else str(render(drill)))


async def _view(request: Request, model_id: str, source: str, target: str,
                asked: tuple[float | None, int | None]) -> SummaryView | Unfinished:
    shared = bench(request)
    model = shared.models.get(model_id)
    return await shared.pool.run(compute, model, source.strip(), target.strip(),
                                 budget=budget_of(request, asked), lane="summaries")


@router.get("/summaries", response_class=HTMLResponse, include_in_schema=False)
async def summaries_page(request: Request, model: ModelId = "airport", source: Subgoal = "",
                         target: Subgoal = "",
                         asked: Annotated[tuple[float | None, int | None],
                                          Depends(budget_query)] = (None, None)
                         ) -> HTMLResponse:
    view = await _view(request, model, source, target, asked)
    common: dict[str, Any] = {"model": bench(request).models.get(model), "source": source.strip(),
              "target": target.strip(), "models": bench(request).models.all()}
    if isinstance(view, Unfinished):
        return respond(request, "summaries.html", unfinished=view.to_dict(), **common)
    return respond(request, "summaries.html", view=view, payload=view.payload, **common)


@router.get("/api/summaries", tags=["summaries"])
async def summaries_api(request: Request, model: ModelId = "airport", source: Subgoal = "",
                        target: Subgoal = "",
                        asked: Annotated[tuple[float | None, int | None],
                                         Depends(budget_query)] = (None, None)
                        ) -> dict[str, Any]:
    """``xaip summarize --json``: the policy summary of an optimal policy; with ``source``
    and ``target`` also the drill-down between them (``--drill A B``)."""
    view = await _view(request, model, source, target, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("summaries", "Summaries", "A policy in one sentence, its landmark hierarchy, "
            "and the subgoals between any two of them.", router, family="summaries")
