"""Compare: two answers side by side, the rows that differ marked.

Why a page of its own: the questions people ask after an answer are comparisons -- what
would an MME say where the MCE said this; what changes when the plan is chosen for the
balanced objective rather than for plan cost alone; what did my veto change. Each side is
computed exactly as its own page computes it (:func:`xaip.web.pages.explain.compute`,
:func:`xaip.web.pages.balanced.compute`), both under the request's budget, on the work
pool; the JSON (``/api/compare``) holds both payloads unchanged.

A side is an explanation type with its vetoes (``kind=explain``: ``a``/``b`` are types,
``a_veto``/``b_veto`` the edits vetoed, so ``a=mce&b=mce&b_veto=1`` is before/after a
veto) or an objective (``kind=balanced``: ``a``/``b`` are objectives).
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse

from xaip.errors import InputError
from xaip.web.pages import Page, bench, budget_of, budget_query, respond
from xaip.web.work import Unfinished

router = APIRouter()

KINDS = ("explain", "balanced")
Kind = Annotated[str, Query(max_length=20, examples=list(KINDS),
                            description="what is compared: explain (two explanation types "
                                        "or vetoes) or balanced (two objectives)")]
Side = Annotated[str, Query(max_length=30, examples=["mce", "mme", "balanced"],
                            description="an explanation type (explain) or an objective "
                                        "(balanced)")]
SideVetoes = Annotated[str, Query(max_length=40, examples=["", "1", "1 2"],
                                   description="explain: the edits vetoed on this side, in "
                                               "order (1-based numbers, space-separated)")]
ModelId = Annotated[str, Query(max_length=80, examples=["fetch", "usar-balanced"],
                               description="a model with a human domain")]


def vetoes_of(text: str) -> list[int]:
    """``"1 2"`` (or ``"1,2"``) as the list of vetoed edits; anything else is bad input."""
    words = text.replace(",", " ").split()
    if not all(w.isdigit() for w in words):
        raise InputError(f"vetoed edits are numbers such as '1 2', not '{text[:20]}'")
    return [int(w) for w in words]


def _steps(steps: Any) -> list[str]:
    return [str(s) if str(s).startswith("(") else f"({s})" for s in steps or ()]


def explain_rows(view: Any) -> dict[str, Any]:
    """What an explanation side shows, by row (a value: a string or a list of strings)."""
    payload = view.payload
    rows: dict[str, Any] = {
        "answer": f"{payload.get('status')}, "
                  f"{'verified' if payload.get('verified') else 'unverified'}",
        "robot's plan": _steps(view.plan),
        "explanation": [("+ " if e["op"] == "add" else "− ") + e["text"] for e in view.edits]
        or "nothing to explain",
        "plan you expected": _steps(view.expected) or "no cheaper plan",
        "vetoed": [r["vetoed"] for r in view.rounds if r.get("vetoed")] or "nothing",
        "corrected model": [line for line in view.corrected_changes
                            if line[:1] in "+-" and line[:3] not in ("+++", "---")]
        or "unchanged",
    }
    return rows


def balanced_rows(view: Any) -> dict[str, Any]:
    """What a balanced side shows, by row."""
    payload = view.payload
    return {
        "answer": f"{payload.get('status')}, "
                  f"{'verified' if payload.get('verified') else 'unverified'}",
        "plan": _steps(payload.get("plan")),
        "explanation": [item["text"] for item in payload.get("explanation") or []]
        or "nothing to tell",
        "plan cost": str(payload.get("plan_cost")),
        "explanation cost": str(payload.get("explanation_cost")),
        "inexplicability penalty": str(payload.get("penalty")),
        "total": str(payload.get("total")),
    }


async def _side(request: Request, kind: str, model: str, side: str, vetoes: list[int],
                asked: tuple[float | None, int | None]) -> Any:
    if kind == "explain":
        from xaip.web.pages import explain

        return await bench(request).pool.run(
            explain.compute, bench(request).models.get(model), side, vetoes, "", "",
            budget=budget_of(request, asked), lane="explain")
    from xaip.web.pages import balanced

    return await bench(request).pool.run(
        balanced.compute, bench(request).models.get(model), side, None, "model-space",
        budget=budget_of(request, asked), lane="balanced")


async def _compare(request: Request, kind: str, model: str, a: str, b: str,
                   a_veto: list[int], b_veto: list[int],
                   asked: tuple[float | None, int | None]) -> tuple[Any, Any]:
    """Both sides, computed at once on the pool."""
    if kind not in KINDS or (kind == "balanced" and
                             importlib.util.find_spec("xaip.balanced") is None):
        raise InputError(f"compare what? '{kind[:20]}' (one of {', '.join(KINDS)})")
    if kind == "balanced" and (a_veto or b_veto):
        raise InputError("vetoes go with explanations (kind=explain)")
    choices = _choices(kind)
    for side in (a, b):  # refused before any work starts
        if side not in choices:
            raise InputError(f"'{side[:30]}' is not one of {', '.join(choices)}")
    bench(request).models.get(model)  # 404 for an unknown model, before any work
    # Both sides to their end, even when one fails: a request never leaves work behind it
    # on the pool for the next one to wait for.
    outcomes: tuple[Any, Any] = await asyncio.gather(
        _side(request, kind, model, a, a_veto, asked),
        _side(request, kind, model, b, b_veto, asked), return_exceptions=True)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return outcomes[0], outcomes[1]


def _defaults(kind: str, model: str, a: str, b: str) -> tuple[str, str, str]:
    if kind == "balanced":
        return model or "usar-balanced", a or "balanced", b or "explicable"
    return model or "fetch", a or "mce", b or "mme"


@router.get("/compare", response_class=HTMLResponse, include_in_schema=False)
async def compare_page(request: Request, kind: Kind = "explain", model: ModelId = "",
                       a: Side = "", b: Side = "",
                       a_veto: SideVetoes = "", b_veto: SideVetoes = "",
                       asked: Annotated[tuple[float | None, int | None],
                                        Depends(budget_query)] = (None, None)
                       ) -> HTMLResponse:
    model, a, b = _defaults(kind, model, a, b)
    vetoes = vetoes_of(a_veto), vetoes_of(b_veto)
    left, right = await _compare(request, kind, model, a, b, *vetoes, asked)
    rows_of = explain_rows if kind == "explain" else balanced_rows
    sides = []
    for name, vetoed, view in (("A", vetoes[0], left), ("B", vetoes[1], right)):
        sides.append({"name": name, "setting": a if name == "A" else b, "vetoes": vetoed,
                      "unfinished": view.to_dict() if isinstance(view, Unfinished) else None,
                      "rows": None if isinstance(view, Unfinished) else rows_of(view)})
    labels = next((list(s["rows"]) for s in sides if s["rows"]), [])
    shared = bench(request)
    return respond(request, "compare.html", kind=kind, model=shared.models.get(model),
                   models=[m for m in shared.models.all() if m.has("human_domain")],
                   sides=sides, labels=labels, choices=_choices(kind), kinds=_kinds())


@router.get("/api/compare", tags=["compare"])
async def compare_api(request: Request, kind: Kind = "explain", model: ModelId = "",
                      a: Side = "", b: Side = "",
                      a_veto: SideVetoes = "", b_veto: SideVetoes = "",
                      asked: Annotated[tuple[float | None, int | None],
                                       Depends(budget_query)] = (None, None)
                      ) -> dict[str, Any]:
    """Two answers: ``a`` and ``b``, each the payload its own endpoint (``/api/explain``
    with ``type`` and ``veto``, or ``/api/balanced`` with ``objective``) returns."""
    model, a, b = _defaults(kind, model, a, b)
    vetoes = vetoes_of(a_veto), vetoes_of(b_veto)
    left, right = await _compare(request, kind, model, a, b, *vetoes, asked)
    payloads = [v.to_dict() if isinstance(v, Unfinished) else v.payload
                for v in (left, right)]
    both = all(p.get("verified") is True for p in payloads)
    return {"status": "found" if both else "unverified", "verified": both, "kind": kind,
            "model": model, "a": {"setting": a, "vetoes": vetoes[0], "answer": payloads[0]},
            "b": {"setting": b, "vetoes": vetoes[1], "answer": payloads[1]}}


def _kinds() -> list[str]:
    return [k for k in KINDS if k != "balanced" or importlib.util.find_spec("xaip.balanced")]


def _choices(kind: str) -> list[str]:
    if kind == "balanced":
        from xaip.balanced.objectives import Objective

        return [o.value for o in Objective]
    from xaip.web.pages.explain import KNOWN

    return [k for k in KNOWN if k != "contrastive"]  # a foil is asked on the explain page


PAGE = Page("compare", "Compare", "Two answers side by side: two explanation types, two "
            "objectives, or before and after a veto.", router, family=None)
