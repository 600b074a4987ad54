"""Concepts: "why not my plan?" for a black-box agent, answered in the person's concepts.

The bundled Sokoban examples (ICLR 2022; book ch. 8): the agent's plan and the person's
foil run in the simulator; sampling states near them finds the missing precondition of the
failing foil action (Sokoban-switch: the switch must be on) or the abstract cost that makes
the foil costlier (Sokoban-cells: pushes from pink cells), with a Bayesian confidence. The
page shows both plans, the answer sentence, and a picture of the state where the foil
fails, the failing action's target cell marked. The JSON is ``xaip why-not --json``.

Montezuma's Revenge (the black-box case, through ale-py) is offered with its bundled
plan/foil pairs as "levels" (:data:`xaip.concepts.montezuma.PAIRS`; the default is the
quickest, ``ladder-left``); its samples come from the real game, so it takes seconds and,
under a small budget, is honestly shown unfinished.

Only the bundled examples (by name, from :data:`xaip.concepts.bundled.LEVELS`) are offered:
levels, plans and vocabularies are files the CLI reads, and the workbench takes no paths.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from xaip.errors import InputError
from xaip.runtime import Budget
from xaip.web.pages import Page, bench, budget_of, budget_query, respond
from xaip.web.work import Unfinished

router = APIRouter()

Env = Annotated[str, Query(max_length=30, examples=["sokoban-switch", "sokoban-cells",
                                                    "montezuma"],
                            description="sokoban-switch, sokoban-cells or montezuma")]
Level = Annotated[str, Query(max_length=30, examples=["switch-2", "cells-2", "ladder-left"],
                              description="a bundled level of the example (montezuma: a "
                                          "bundled plan/foil pair)")]
MONTEZUMA_DEFAULT = "ladder-left"  # the quickest bundled pair (xaip.concepts.registry)
Variant = Annotated[str, Query(max_length=20, examples=["precondition", "cost"],
                                description="sokoban-switch: precondition or cost")]


@dataclass(frozen=True)
class ConceptsView:
    payload: dict[str, Any]
    text: str
    plan: tuple[str, ...]
    foil: tuple[str, ...]
    picture: str | None  # a data: URI of the PNG


def examples() -> dict[str, tuple[str, ...]]:
    """The bundled examples: environment -> its levels (Montezuma: its bundled pairs,
    the default first)."""
    from xaip.concepts.bundled import LEVELS
    from xaip.concepts.montezuma import PAIRS

    pairs = (MONTEZUMA_DEFAULT,) + tuple(p for p in PAIRS if p != MONTEZUMA_DEFAULT)
    return {**LEVELS, "montezuma": pairs}


def _montezuma(level: str) -> Any:
    from xaip.concepts.montezuma import PAIR_SCREENS, montezuma_query

    pair = level or MONTEZUMA_DEFAULT
    if pair not in PAIR_SCREENS:
        raise InputError(f"no bundled Montezuma pair '{pair[:30]}' (one of "
                         f"{', '.join(examples()['montezuma'])})")
    return montezuma_query(pair, pair, PAIR_SCREENS[pair])


def compute(env: str, level: str, variant: str, budget: Budget) -> ConceptsView:
    from xaip.concepts import bundled, why_not
    from xaip.render import render

    if env not in examples():
        raise InputError(f"unknown example '{env[:30]}' (one of {', '.join(examples())})")
    if env == "montezuma":
        query = _montezuma(level)  # no variant: the pair names the question
    else:
        if env == "sokoban-cells" and variant == "precondition":
            variant = "cost"  # sokoban-cells has only the cost variant
        if variant not in ("precondition", "cost"):
            raise InputError("the variant is 'precondition' or 'cost'")
        query = bundled(env, level or None, variant)
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, budget=budget,
                     seed=0)
    picture = None
    if result.failing_picture:
        png = render(result, "png")
        picture = "data:image/png;base64," + base64.b64encode(png).decode()
    return ConceptsView(result.to_dict(), str(render(result)), tuple(query.plan),
                        tuple(query.foil), picture)


async def _view(request: Request, env: str, level: str, variant: str,
                asked: tuple[float | None, int | None]) -> ConceptsView | Unfinished:
    return await bench(request).pool.run(compute, env, level, variant,
                                         budget=budget_of(request, asked), lane="concepts")


@router.get("/concepts", response_class=HTMLResponse, include_in_schema=False)
async def concepts_page(request: Request, env: Env = "sokoban-switch", level: Level = "",
                        variant: Variant = "precondition",
                        asked: Annotated[tuple[float | None, int | None],
                                         Depends(budget_query)] = (None, None)
                        ) -> HTMLResponse:
    view = await _view(request, env, level, variant, asked)
    common: dict[str, Any] = {"env": env, "level": level, "variant": variant,
                              "examples": examples()}
    if isinstance(view, Unfinished):
        return respond(request, "concepts.html", unfinished=view.to_dict(), **common)
    return respond(request, "concepts.html", view=view, payload=view.payload, **common)


@router.get("/api/concepts", tags=["concepts"])
async def concepts_api(request: Request, env: Env = "sokoban-switch", level: Level = "",
                       variant: Variant = "precondition",
                       asked: Annotated[tuple[float | None, int | None],
                                        Depends(budget_query)] = (None, None)
                       ) -> dict[str, Any]:
    """``xaip why-not ENV --json`` on a bundled example (``max_nodes`` counts samples)."""
    view = await _view(request, env, level, variant, asked)
    return view.to_dict() if isinstance(view, Unfinished) else view.payload


PAGE = Page("concepts", "Concepts", "Why not my plan? A black-box agent's answer in your "
            "own concepts, with a picture of where your plan fails.", router,
            family="concepts")
