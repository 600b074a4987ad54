"""The study's pages on the workbench: participants under ``/s/<code>``, the researcher
under ``/study/admin``.

Why two separate worlds: participant links go to strangers on the internet. Their pages
show consent, instructions, each condition (only what it allows: the explanation, only the
plan, or nothing) with its questions, and the completion code -- and never link to, nor
unlock, anything else. Researcher pages need the study token (printed at start-up, or
``--study-token``) as ``?token=`` or the ``X-Study-Token`` header, compared in constant time.

Participants cannot upload anything: their forms are URL-encoded text, parsed here from a
body the application already bounds, with every field checked against the question it
answers. Each code may POST at most :data:`POSTS_PER_MINUTE` times a minute (429 beyond).

Time limits are enforced, not only recorded: a condition with ``time_limit`` shows a
countdown (``/study/countdown.js``) that sends the page by itself at zero with what is
answered so far (kept, ``timed_out = 1``); the server accepts answers up to ``time_grace``
seconds after the limit (flagged ``over_time``) and refuses them after that -- also when
the participant only reloads the page -- recording the condition as timed out and moving
the participant on (see :meth:`~xaip.userstudy.store.StudyStore.submit`).
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.concurrency import run_in_threadpool

from xaip.userstudy.answers import Shown
from xaip.userstudy.backends import StoreUnavailable
from xaip.userstudy.order import condition_order
from xaip.userstudy.spec import MAX_TEXT, Condition, Question, Study
from xaip.userstudy.store import CONSENT, INSTRUCTIONS, Participant, StudyStore
from xaip.userstudy.summary import export_csv, likert_figure, summarise
from xaip.web.problems import WebProblem

#: POSTs one participant code may make per minute; more answer 429.
POSTS_PER_MINUTE = 30
#: Most participant links created by one request.
MAX_CREATE = 1000
_CODE = re.compile(r"^[A-Za-z0-9_-]{4,40}$")
#: Seconds before the limit at which a page the countdown sent still counts as out of time
#: (the browser's clock and the server's may differ by a little).
TOLERANCE = 2.0
#: What the participant reads on the next page after a condition's time ran out.
NOTICES = {"late": "The time for the previous part ran out, so your answers to it were not "
                   "recorded. Please continue with this part.",
           "timeup": "The time for the previous part was up: the answers you had given were "
                     "recorded."}


@dataclass
class StudyServer:
    """One study being served: its file, store, shown answers and token."""

    study: Study
    store: StudyStore
    shown: dict[str, Shown]
    token: str
    posts: dict[str, deque[float]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def allow_post(self, code: str) -> bool:
        """The per-code rate limit (a sliding minute)."""
        now = time.monotonic()
        with self.lock:
            recent = self.posts.setdefault(code, deque())
            while recent and recent[0] < now - 60:
                recent.popleft()
            if len(recent) >= POSTS_PER_MINUTE:
                return False
            recent.append(now)
            return True

    def create(self, count: int) -> list[str]:
        names = [c.name for c in self.study.conditions]

        def order(index: int, code: str) -> list[str]:
            return condition_order(self.study.order, names, index, code, self.study.seed)

        return self.store.create_participants(order, count)


def _templates() -> Jinja2Templates:
    folder = Path(str(resources.files("xaip.userstudy") / "templates"))
    return Jinja2Templates(directory=str(folder))


def new_token() -> str:
    """A researcher token for this start (when ``--study-token`` gives none)."""
    return secrets.token_urlsafe(18)


def mount(app: FastAPI, server: StudyServer) -> None:
    """Add the participant and researcher routes of ``server`` to ``app``."""
    app.state.study = server
    app.include_router(router(server, _templates()))

    async def unavailable(request: Request, error: Exception) -> Response:
        problem = WebProblem(503, "the study's database cannot be reached just now; nothing "
                             "of this page was stored: please try again in a minute",
                             kind="unavailable")
        handler: Any = app.exception_handlers[WebProblem]
        response: Response = await handler(request, problem)
        return response

    app.add_exception_handler(StoreUnavailable, unavailable)


def router(server: StudyServer, templates: Jinja2Templates) -> APIRouter:
    routes = APIRouter(include_in_schema=False)
    study = server.study

    def page(request: Request, name: str, status: int = 200, **context: Any) -> HTMLResponse:
        response: HTMLResponse = templates.TemplateResponse(
            request, name, {"study": study, **context}, status_code=status)
        response.headers["Cache-Control"] = "no-store"
        return response

    def participant_or_404(code: str) -> Any:
        found = server.store.participant(code) if _CODE.match(code) else None
        if found is None:
            raise WebProblem(404, "no participant with this link: check it was copied whole",
                             kind="not_found")
        return found

    def show(request: Request, code: str, error: str = "", status: int = 200,
             given: dict[str, str] | None = None, notice: str = "") -> HTMLResponse:
        person = participant_or_404(code)
        stage = person.stage
        if stage == CONSENT:
            return page(request, "consent.html", status, code=code, stage=stage, error=error)
        if stage == INSTRUCTIONS:
            return page(request, "instructions.html", status, code=code, stage=stage)
        if stage >= len(person.order):
            return page(request, "done.html", status, completion=person.completion_code,
                        notice=notice)
        condition = study.condition(person.order[stage])
        shown_at = server.store.mark_shown(code, stage)
        left = None
        if condition.time_limit is not None:
            elapsed = time.time() - shown_at
            if elapsed > condition.time_limit + condition.time_grace:
                # Coming back after the time ran out (a reload, a closed tab): the
                # condition is recorded as timed out and the participant moves on.
                expire(person, condition)
                return show(request, code, notice=NOTICES["late"])
            left = round(max(0.0, condition.time_limit - elapsed), 1)
        return page(request, "condition.html", status, code=code, stage=stage,
                    number=stage + 1, total=len(person.order), condition=condition,
                    lines=server.shown[condition.name].lines, error=error,
                    options={q.id: server.shown[condition.name].options(q)
                             for q in condition.questions},
                    given=given or {}, seconds_left=left, notice=notice)

    def expire(person: Participant, condition: Condition) -> Any:
        """Record ``condition`` as timed out for ``person`` (no answers) and move on."""
        empty = [{"question": q.id, "kind": q.kind, "answer": "", "correct": None}
                 for q in condition.questions]
        return server.store.submit(person.code, person.stage, condition.name, empty,
                                   last=person.stage == len(person.order) - 1,
                                   time_limit=condition.time_limit,
                                   grace=condition.time_grace, timed_out=True)

    @routes.get("/s/{code}", response_class=HTMLResponse)
    def participant_page(request: Request, code: str, note: str = "") -> HTMLResponse:
        return show(request, code, notice=NOTICES.get(note, ""))

    @routes.get("/study/countdown.js")
    def countdown() -> Response:
        script = resources.files("xaip.userstudy") / "templates" / "countdown.js"
        return Response(script.read_text(encoding="utf-8"),
                        media_type="text/javascript; charset=utf-8",
                        headers={"Cache-Control": "no-cache"})

    @routes.post("/s/{code}", response_class=HTMLResponse)
    async def participant_post(request: Request, code: str) -> Response:
        await run_in_threadpool(participant_or_404, code)  # only real codes are counted
        if not server.allow_post(code):
            raise WebProblem(429, "too many answers from this link in a minute; wait a "
                             "moment and reload", kind="rate_limited")
        if "multipart" in request.headers.get("content-type", ""):
            raise WebProblem(415, "participants cannot upload files", kind="bad_request")
        form = _form(await request.body())
        return await run_in_threadpool(_handle, request, code, form)

    def _handle(request: Request, code: str, form: dict[str, str]) -> Response:
        person = participant_or_404(code)
        try:
            stage = int(form.get("stage", ""))
        except ValueError:
            raise WebProblem(400, "the form lacks its stage", kind="bad_request") from None
        if stage != person.stage:  # a resent or stale page: show where the person is
            return RedirectResponse(f"/s/{code}", status_code=303)
        if stage == CONSENT:
            if form.get("consent") != "yes":
                return show(request, code, "Please tick the box to agree, or close this "
                            "page to leave the study.", 400)
            server.store.advance(code, CONSENT)
        elif stage == INSTRUCTIONS:
            server.store.advance(code, INSTRUCTIONS)
        elif 0 <= stage < len(person.order):
            condition = study.condition(person.order[stage])
            limit = condition.time_limit
            elapsed = None if person.shown_at is None else time.time() - person.shown_at
            if (limit is not None and elapsed is not None
                    and elapsed > limit + condition.time_grace):
                expire(person, condition)  # too late: the answers are not even read
                return RedirectResponse(f"/s/{code}?note=late", status_code=303)
            ran_out = (limit is not None and elapsed is not None
                       and form.get("timed_out") == "yes" and elapsed >= limit - TOLERANCE)
            rows, missing = _answers(condition.questions, form, server.shown[condition.name])
            if missing and not ran_out:
                return show(request, code, "Please answer: " + ", ".join(missing), 400,
                            given=form)
            done = server.store.submit(code, stage, condition.name, rows,
                                       last=stage == len(person.order) - 1,
                                       time_limit=limit, grace=condition.time_grace,
                                       timed_out=ran_out)
            if done.refused or ran_out:
                note = "late" if done.refused else "timeup"
                return RedirectResponse(f"/s/{code}?note={note}", status_code=303)
        return RedirectResponse(f"/s/{code}", status_code=303)

    def researcher(request: Request, form: dict[str, str] | None = None) -> None:
        given = (request.headers.get("x-study-token") or request.query_params.get("token")
                 or (form or {}).get("token") or "")
        if not secrets.compare_digest(given.encode(), server.token.encode()):
            raise WebProblem(403, "researcher pages need the study token (printed when "
                             "xaip serve started)", kind="forbidden")

    @routes.get("/study/admin", response_class=HTMLResponse)
    def admin(request: Request) -> HTMLResponse:
        researcher(request)
        people = server.store.participants()
        base = str(request.base_url).rstrip("/")
        return page(request, "admin.html", token=server.token, people=people, base=base,
                    finished=sum(p.finished is not None for p in people))

    @routes.post("/study/admin/participants")
    async def create(request: Request) -> Response:
        form = _form(await request.body())
        researcher(request, form)
        try:
            count = int(form.get("count", "1"))
        except ValueError:
            raise WebProblem(400, "count: a whole number", kind="bad_request") from None
        if not 1 <= count <= MAX_CREATE:
            raise WebProblem(400, f"count: from 1 to {MAX_CREATE}", kind="bad_request")
        codes = await run_in_threadpool(server.create, count)
        if "text/html" not in request.headers.get("accept", ""):
            base = str(request.base_url).rstrip("/")
            return JSONResponse({"codes": codes, "links": [f"{base}/s/{c}" for c in codes]})
        return RedirectResponse(f"/study/admin?token={server.token}", status_code=303)

    @routes.get("/study/admin/export.csv")
    def export(request: Request) -> Response:
        researcher(request)
        return Response(export_csv(server.store), media_type="text/csv; charset=utf-8",
                        headers={"Content-Disposition": 'attachment; filename="responses.csv"',
                                 "Cache-Control": "no-store"})

    @routes.get("/study/admin/summary", response_class=HTMLResponse)
    def summary(request: Request) -> Response:
        researcher(request)
        data = summarise(study, server.store, server.shown)
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse(data)
        return page(request, "summary.html", token=server.token, summary=data,
                    figure=likert_figure(data))

    @routes.get("/study/admin/answers.json")
    def answers(request: Request) -> JSONResponse:
        researcher(request)
        return JSONResponse({name: shown.payload for name, shown in server.shown.items()})

    return routes


def _form(body: bytes) -> dict[str, str]:
    """A URL-encoded form (first value of each field); anything else is a 400."""
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=64,
                          strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise WebProblem(400, "the form could not be read", kind="bad_request") from None
    return {key: values[0] for key, values in fields.items()}


def _answers(questions: tuple[Question, ...], form: dict[str, str], shown: Shown
             ) -> tuple[list[dict[str, Any]], list[str]]:
    """The stored rows for ``form``'s answers, and the questions left unanswered (numbers
    from 1). A value that is not one of a question's options is a 400, not an answer."""
    rows, missing = [], []
    for number, question in enumerate(questions, 1):
        value = form.get(question.id, "").strip()
        if not value:
            if question.required:
                missing.append(f"question {number}")
            rows.append({"question": question.id, "kind": question.kind, "answer": "",
                         "correct": None})
            continue
        rows.append(_row(question, value, shown.options(question)))
    return rows, missing


def _row(question: Question, value: str, options: tuple[str, ...]) -> dict[str, Any]:
    check: Callable[[str], bool]
    if question.kind == "text":
        if len(value) > MAX_TEXT:
            raise WebProblem(400, f"{question.id}: at most {MAX_TEXT} characters",
                             kind="bad_request")
        return {"question": question.id, "kind": "text", "answer": value, "correct": None}
    if question.kind == "likert":
        check = str.isdigit
        if not check(value) or not 1 <= int(value) <= question.scale:
            raise WebProblem(400, f"{question.id}: a number from 1 to {question.scale}",
                             kind="bad_request")
        return {"question": question.id, "kind": "likert", "answer": str(int(value)),
                "correct": None}
    if not value.isdigit() or not 0 <= int(value) < len(options):
        raise WebProblem(400, f"{question.id}: not one of the options", kind="bad_request")
    chosen = options[int(value)]
    correct = None if question.correct is None else int(chosen == question.correct)
    return {"question": question.id, "kind": question.kind, "answer": chosen,
            "correct": correct}


__all__ = ["MAX_CREATE", "NOTICES", "POSTS_PER_MINUTE", "TOLERANCE", "StudyServer", "mount",
           "new_token", "router"]
