"""Capabilities: start a discovery on a bundled game, watch it, read the capability cards.

The run itself lives in :mod:`xaip.web.discoveries` (a background thread with an answer
store per run). This page starts runs, shows their progress -- the run's section polls
itself with htmx every second until the run is done, then shows the cards -- and serves
each capability's example pictures (before and after) as PNGs. Runs of earlier servers
are listed and reload from their stores when opened.

The JSON of a finished run is ``xaip discover GAME --json``'s payload (``result``), with
the run's state and last progress events around it; scripts can poll that or follow the
run's server-sent events (``/api/capabilities/runs/{run}/events``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any, TypeVar

import anyio
from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response, StreamingResponse

from xaip.web.discoveries import Discoveries, Run, params
from xaip.web.pages import Page, bench, respond
from xaip.web.problems import WebProblem
from xaip.web.work import Unfinished

router = APIRouter()
T = TypeVar("T")

RunId = Annotated[str, Query(max_length=40)]
Game = Annotated[str, Form(max_length=40, examples=["zelda", "snowman"],
                           description="a bundled game")]
Grid = Annotated[str, Form(max_length=12, examples=["3x4", "2x3"],
                           description="rows x columns, e.g. 3x4")]
Seed = Annotated[int, Form(ge=0, lt=2**31, description="random level and tasks")]
Agent = Annotated[str, Form(max_length=10, examples=["search", "policy"],
                            description="search or policy")]


def discoveries(request: Request) -> Discoveries:
    """The application's run manager (created on first use)."""
    shared = bench(request)
    found = shared.extras.get("discoveries")
    if found is None:
        settings = shared.settings
        found = Discoveries(settings.runs_dir, settings.max_discoveries,
                            settings.discovery_seconds)
        shared.extras["discoveries"] = found
    assert isinstance(found, Discoveries)
    return found


async def _quick(request: Request, function: Callable[..., T], *args: Any) -> T:
    """Bookkeeping of the runs (no search) in the work pool; if even that ran out of time
    (a machine under heavy load), the answer is 503 "busy", never a half result."""
    done = await bench(request).pool.run(function, *args, lane="capabilities")
    if isinstance(done, Unfinished):
        raise WebProblem(503, "the workbench is too busy to read the discovery runs now; "
                              "retry in a moment", kind="busy")
    return done


def _cards(run: Run) -> list[dict[str, Any]]:
    """The capability cards of a finished run, with their pictures' addresses."""
    if run.result is None:
        return []
    from xaip.render.capabilities import card_text

    cards = []
    for index, capability in enumerate(run.result.model.capabilities):
        example = capability.example
        pictures = [] if example is None else [
            (which, f"/capabilities/runs/{run.id}/pictures/{index}/{which}.png")
            for which, state in zip(("before", "after"), example, strict=True)
            if state is not None]
        cards.append({"name": capability.name, "text": card_text(capability),
                      "reliable": capability.reliable, "notes": list(capability.notes),
                      "pictures": pictures})
    return cards


async def _start(request: Request, game: str, grid: str, seed: int, agent: str) -> Run:
    wanted = await _quick(request, params, game, grid, seed, agent)
    manager = discoveries(request)
    run = await _quick(request, manager.start, wanted)
    return run


@router.get("/capabilities", response_class=HTMLResponse, include_in_schema=False)
async def capabilities_page(request: Request) -> HTMLResponse:
    from xaip.vocab.registry import game_names

    manager = discoveries(request)
    stored = await _quick(request, manager.stored)
    return respond(request, "capabilities.html", games=game_names(), runs=stored)


@router.post("/capabilities/runs", include_in_schema=False)
async def start_page(request: Request, game: Game = "zelda", grid: Grid = "3x4",
                     seed: Seed = 1, agent: Agent = "search") -> Response:
    run = await _start(request, game, grid, seed, agent)
    return RedirectResponse(f"/capabilities/runs/{run.id}", status_code=303)


@router.get("/capabilities/runs/{run_id}", response_class=HTMLResponse,
            include_in_schema=False)
async def run_page(request: Request, run_id: str,
                   partial: Annotated[bool, Query()] = False) -> HTMLResponse:
    from xaip.vocab.registry import game_names

    manager = discoveries(request)
    run = await _quick(request, manager.get, run_id)
    return respond(request, "capabilities.html", run=run, status=run.to_dict(),
                   cards=_cards(run), partial=partial, games=game_names())


@router.post("/capabilities/runs/{run_id}/cancel", include_in_schema=False)
async def cancel_page(request: Request, run_id: str) -> Response:
    run = await _quick(request, discoveries(request).cancel, run_id)
    return RedirectResponse(f"/capabilities/runs/{run.id}", status_code=303)


@router.get("/capabilities/runs/{run_id}/pictures/{index}/{which}.png",
            include_in_schema=False)
async def picture(request: Request, run_id: str, index: int, which: str) -> Response:
    manager = discoveries(request)
    data = await _quick(request, manager.picture, run_id, index, which)
    return Response(data, media_type="image/png",
                    headers={"Cache-Control": "private, max-age=3600"})


@router.post("/api/capabilities/runs", tags=["capabilities"])
async def start_api(request: Request, game: Game = "zelda", grid: Grid = "3x4",
                    seed: Seed = 1, agent: Agent = "search") -> dict[str, Any]:
    """Start a discovery run (or return the run with these parameters, reloading it from
    its store when an earlier server ran it). Poll ``GET /api/capabilities/runs/{run}``."""
    return (await _start(request, game, grid, seed, agent)).to_dict()


@router.get("/api/capabilities/runs", tags=["capabilities"])
async def list_api(request: Request) -> dict[str, Any]:
    """Every run the workbench knows (also runs of earlier servers), newest first."""
    manager = discoveries(request)
    stored = await _quick(request, manager.stored)
    return {"status": "ok", "runs": stored}


@router.get("/api/capabilities/runs/{run_id}", tags=["capabilities"])
async def run_api(request: Request, run_id: str) -> dict[str, Any]:
    """A run's state and progress; when done, ``result`` is ``xaip discover --json``."""
    manager = discoveries(request)
    run = await _quick(request, manager.get, run_id)
    return run.to_dict()


@router.post("/api/capabilities/runs/{run_id}/cancel", tags=["capabilities"])
async def cancel_api(request: Request, run_id: str) -> dict[str, Any]:
    """Cancel a running discovery: it stops at its next query, or its check at its next
    step (state ``cancelled``; the answers asked so far stay in its store, so starting it
    again resumes; a model found before the cancel is kept, unverified). 404 unless the
    run is live."""
    run = await _quick(request, discoveries(request).cancel, run_id)
    return run.to_dict()


@router.get("/api/capabilities/runs/{run_id}/events", tags=["capabilities"],
            response_class=StreamingResponse)
async def run_events(request: Request, run_id: str) -> StreamingResponse:
    """The run's progress as server-sent events (``text/event-stream``): one ``progress``
    event per new progress report, then one ``done`` event with the run's JSON (as
    ``GET /api/capabilities/runs/{run}``). The stream ends with the run, which its budget
    bounds."""
    manager = discoveries(request)
    run = await _quick(request, manager.get, run_id)

    async def stream() -> AsyncIterator[str]:
        seen = 0
        while True:
            done = run.done  # read before the events, so none is missed at the end
            fresh, seen = run.events_since(seen)
            for event in fresh:
                yield f"event: progress\ndata: {json.dumps(event)}\n\n"
            if done:
                yield f"event: done\ndata: {json.dumps(run.to_dict())}\n\n"
                return
            if await request.is_disconnected():
                return
            await anyio.sleep(0.25)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-cache"})


PAGE = Page("capabilities", "Capabilities", "Discover what a black-box agent can do in a "
            "game, live, and read its capability cards.", router, family="capabilities")
