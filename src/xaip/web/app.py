"""The workbench application: pages from the registry, one error path, bounded bodies.

Bodies are bounded by FastAPI itself (``max_body_size``: 413 before the multipart parser
spools anything) and forms by ``form_limits`` (files, fields, field sizes).

Why errors are handled here, once: a browser must get a page that says what to fix, a
script the same facts as JSON (``/api/...`` paths, or a client that does not accept
HTML), and nobody a traceback. Every error -- the library's input errors, a bad query
parameter, an unknown path, a body over the limit, a bug -- ends in :func:`_answer`.

No resource is fetched from elsewhere at run time: htmx is served from ``static/``, and
the interactive API documentation pages (which load scripts from a CDN) are switched off;
the OpenAPI schema itself is at ``/api/openapi.json``.
"""

from __future__ import annotations

import logging
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException
from starlette.routing import Match

from xaip import __version__
from xaip.errors import XaipError
from xaip.web import downloads, wording
from xaip.web.models import MAX_FILES, ModelStore
from xaip.web.pages import status_class
from xaip.web.pages.explainers import listing
from xaip.web.problems import WebProblem, from_error
from xaip.web.registry import Bench, load_pages, respond
from xaip.web.schema import ERROR_RESPONSES
from xaip.web.settings import Settings
from xaip.web.work import WorkPool

log = logging.getLogger("xaip.web")

_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": ("default-src 'self'; img-src 'self' data:; "
                                "style-src 'self' 'unsafe-inline'; object-src 'none'; "
                                "frame-ancestors 'none'"),
}


def _folder(name: str) -> Path:
    return Path(str(resources.files("xaip.web") / name))


def wants_json(request: Request) -> bool:
    """API paths, and clients that do not ask for HTML (nor are htmx), get JSON errors."""
    if request.url.path.startswith("/api/"):
        return True
    if request.headers.get("hx-request") == "true":  # htmx asks with Accept: */*
        return False
    return "text/html" not in request.headers.get("accept", "")


def _answer(request: Request, problem: WebProblem) -> Response:
    if wants_json(request):
        return JSONResponse(problem.to_dict(), status_code=problem.status_code)
    return respond(request, "error.html", status_code=problem.status_code,
                   problem=problem, excerpt=problem.excerpt())


def _validation_message(error: RequestValidationError) -> str:
    parts = []
    for item in error.errors()[:5]:
        where = ".".join(str(p) for p in item.get("loc", ()) if p not in ("query", "body"))
        parts.append(f"{where or 'request'}: {item.get('msg', 'invalid')}")
    return "bad request: " + "; ".join(parts)


def _allowed(app: FastAPI, request: Request) -> list[str]:
    """The methods some route of ``app`` answers at the request's path (Starlette's 405
    names only the first route that matched the path)."""
    methods: set[str] = set()
    for route in app.router.routes:
        match, _ = route.matches({**request.scope, "method": "GET"})
        found = getattr(route, "methods", None)
        if match != Match.NONE and found:
            methods |= set(found)
    return sorted(methods)


def create_app(settings: Settings | None = None, study: Any = None) -> FastAPI:
    """The workbench as a FastAPI application (``uvicorn`` serves it in ``xaip serve``);
    with ``study`` (a :class:`xaip.userstudy.web.StudyServer`) also its study's pages."""
    settings = settings or Settings()
    app = FastAPI(title="xaip workbench", version=__version__, docs_url=None,
                  redoc_url=None, openapi_url="/api/openapi.json",
                  max_body_size=settings.max_body_bytes,
                  form_limits={"max_files": MAX_FILES, "max_fields": 8,
                               "max_part_size": 4096},
                  description="Every page's data as JSON: the same payloads as the "
                              "xaip command's --json output.")
    templates = Jinja2Templates(directory=str(_folder("templates")))
    # The status badge's class comes from the payload itself (templates/_macros.html), so no
    # page computes it for its template.
    templates.env.globals["status_class"] = status_class
    templates.env.filters.update(ticks=wording.ticks, score_words=wording.score_words,
                                 explanation_type=wording.explanation_type,
                                 score_value=wording.score_value)
    templates.env.globals.update(api_link=downloads.api_link, data_link=downloads.data_link,
                                 plan_link=downloads.plan_link, file_stem=downloads.file_stem)
    pages = load_pages()
    pool = WorkPool(settings.workers, settings.max_waiting, seconds=settings.max_seconds,
                    max_wait=settings.max_wait_seconds, grace=settings.grace_seconds,
                    work_factor=settings.work_factor)
    app.state.bench = Bench(settings, ModelStore(settings.max_models), pool, templates, pages)
    app.mount("/static", StaticFiles(directory=str(_folder("static"))), name="static")

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def home(request: Request) -> HTMLResponse:
        return respond(request, "index.html", explainers=listing())

    for page in pages:
        app.include_router(page.router, responses=ERROR_RESPONSES)
    if study is not None:
        from xaip.userstudy.web import mount

        mount(app, study)

    @app.exception_handler(WebProblem)
    async def web_problem(request: Request, error: WebProblem) -> Response:
        return _answer(request, error)

    @app.exception_handler(XaipError)
    async def library_error(request: Request, error: XaipError) -> Response:
        return _answer(request, from_error(error))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> Response:
        return _answer(request, WebProblem(422, _validation_message(error)))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        kind = {404: "not_found", 405: "method_not_allowed", 413: "too_large"}.get(
            error.status_code, "bad_request")
        message = str(error.detail) if error.detail else "error"
        if error.status_code == 404 and message == "Not Found":
            message = f"no page {request.url.path[:80]!r} here"
        response = _answer(request, WebProblem(error.status_code, message, kind=kind))
        for key, value in (error.headers or {}).items():
            response.headers[key] = value
        if error.status_code == 405:  # every method the path has (RFC 9110), not one route's
            response.headers["Allow"] = ", ".join(_allowed(app, request))
        return response

    @app.exception_handler(Exception)
    async def internal(request: Request, error: Exception) -> Response:
        log.exception("internal error while serving %s", request.url.path)
        return _answer(request, from_error(error))

    @app.middleware("http")
    async def headers(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        for key, value in _HEADERS.items():
            response.headers.setdefault(key, value)
        return response

    return app


__all__ = ["create_app", "wants_json"]
