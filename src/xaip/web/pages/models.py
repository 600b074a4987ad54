"""Models: pick a bundled example or upload domain, problem and optional files.

Why uploads are checked here, at once: a person who uploads a broken file should learn
which file, line and column are wrong before asking for a plan. Every file of an upload
is parsed (the problem against its domain, the plan's syntax, the annotations against the
human domain) and any error answers with the error page, the line highlighted.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Path, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from xaip.web.models import MAX_FILES, ROLES, Model, decode_upload
from xaip.web.pages import Page, bench, budget_of, budget_query, editor, respond
from xaip.web.problems import WebProblem
from xaip.web.work import Unfinished

router = APIRouter()
router.include_router(editor.router)  # /models/{id}/edit and /api/models/check

Upload = Annotated[UploadFile | None, File(description="a text file (PDDL or plan)")]
Asked = Annotated[tuple[float | None, int | None], Depends(budget_query)]


async def _texts(request: Request, files: dict[str, UploadFile | None]) -> dict[str, str]:
    """The uploaded files' texts by role (each bounded, decoded, non-empty)."""
    form = await request.form()
    sent = [value for value in form.values() if not isinstance(value, str)]
    if len(sent) > MAX_FILES:
        raise WebProblem(400, f"at most {MAX_FILES} files per upload, one per role "
                              f"({', '.join(ROLES)})")
    limit = bench(request).settings.max_file_bytes
    texts = {}
    for role, upload in files.items():
        if upload is None or (not upload.filename and not upload.size):
            continue
        data = await upload.read(limit + 1)
        if not data:
            continue  # an empty optional field of a browser form
        texts[role] = decode_upload(role, data, limit)
    return texts


def _title(title: str | None) -> str:
    """A display title: printable characters only, short."""
    cleaned = "".join(ch for ch in (title or "") if ch.isprintable()).strip()
    return cleaned[:60]


async def _upload(request: Request, title: str | None, files: dict[str, UploadFile | None],
                  asked: tuple[float | None, int | None]) -> Model:
    """Parse and keep an upload in the work pool's ``upload`` lane (so uploads never take
    every worker), within the request's budget: an upload that cannot be parsed and
    checked in its seconds is stopped there and refused (413, "budget exhausted")."""
    texts = await _texts(request, files)
    shared = bench(request)
    seconds = budget_of(request, asked).max_seconds or shared.settings.max_seconds
    model = await shared.pool.run(shared.models.add, texts, _title(title), seconds=seconds,
                                  lane="upload", phase="parsing")
    if isinstance(model, Unfinished):
        raise WebProblem(413, f"the upload could not be parsed and checked within its budget "
                              f"of {seconds:g} s (budget exhausted): upload a smaller model, "
                              f"or ask for more time with max_seconds (at most "
                              f"{shared.settings.max_seconds:g} s)", kind="budget_exhausted")
    return model


@router.get("/models", response_class=HTMLResponse, include_in_schema=False)
def models_page(request: Request) -> HTMLResponse:
    return respond(request, "models.html", models=bench(request).models.all(), roles=ROLES,
                   settings=bench(request).settings)


@router.get("/models/{model_id}", response_class=HTMLResponse, include_in_schema=False)
def model_page(request: Request, model_id: str) -> HTMLResponse:
    model = bench(request).models.get(model_id)
    return respond(request, "models.html", model=model, roles=ROLES,
                   models=bench(request).models.all())


@router.post("/models", include_in_schema=False)
async def upload_page(request: Request, title: Annotated[str | None, Form()] = None,
                      domain: Upload = None, problem: Upload = None, plan: Upload = None,
                      human_domain: Upload = None, human_problem: Upload = None,
                      annotations: Upload = None, asked: Asked = (None, None)) -> Response:
    model = await _upload(request, title, {
        "domain": domain, "problem": problem, "plan": plan, "human_domain": human_domain,
        "human_problem": human_problem, "annotations": annotations}, asked)
    return RedirectResponse(f"/models/{model.id}", status_code=303)


@router.get("/api/models", tags=["models"])
def list_models(request: Request) -> dict[str, Any]:
    """Every model a request may name: the bundled examples and the uploads in memory."""
    return {"status": "ok", "models": [m.summary() for m in bench(request).models.all()]}


@router.get("/api/models/{model_id}", tags=["models"])
def get_model(request: Request, model_id: Annotated[str, Path(examples=["fetch", "usar"])]
              ) -> dict[str, Any]:
    """One model's files (their texts by role)."""
    return bench(request).models.get(model_id).to_dict()


@router.post("/api/models", tags=["models"])
async def upload_model(request: Request, title: Annotated[str | None, Form()] = None,
                       domain: Upload = None, problem: Upload = None, plan: Upload = None,
                       human_domain: Upload = None, human_problem: Upload = None,
                       annotations: Upload = None, asked: Asked = (None, None)
                       ) -> dict[str, Any]:
    """Upload a model: ``domain`` and ``problem`` are required; ``plan`` (the robot's
    plan), ``human_domain``/``human_problem`` (the person's model) and ``annotations``
    are optional. Every file is parsed now, within ``max_seconds`` (413 "budget
    exhausted" when that is not enough); errors name the file, line and column.
    Returns the model's identifier for the other endpoints."""
    model = await _upload(request, title, {
        "domain": domain, "problem": problem, "plan": plan, "human_domain": human_domain,
        "human_problem": human_problem, "annotations": annotations}, asked)
    return {"status": "ok", "model": model.summary()}


PAGE = Page("models", "Models", "Bundled examples and your uploads; PDDL errors shown in "
            "the source.", router)
