"""The model editor: change a model's PDDL in the browser and run it again.

Why on the server as well as in the browser: the editor (CodeMirror, vendored under
``static/codemirror``; the PDDL highlighting and the inline error marks are
``static/pddl-editor.js``) only colours and marks; what is wrong is decided by the same
parsers and checks as an upload (:func:`xaip.web.models.validate_model`), so an error in
the editor names the same file, line and column the CLI would. "Check" asks
``POST /api/models/check`` (nothing is kept); "Save and run" keeps the edited texts as a
new upload (:meth:`xaip.web.models.ModelStore.add`, same bounds, same identifier for the
same texts) and opens the chosen page on it. Without JavaScript the text areas still
post, and an error comes back on the editor page, marked under its line.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from xaip.errors import XaipError
from xaip.web.models import ROLES, Model, validate_model
from xaip.web.pages import bench, respond
from xaip.web.problems import WebProblem, from_error
from xaip.web.work import Unfinished

router = APIRouter()

#: Where "Save and run" goes: the plan page, or (with a human domain) the explanation.
NEXT_PAGES = ("plan", "explain", "explicable")
Text = Annotated[str | None, Form(description="the file's text")]


def _texts(request: Request, fields: dict[str, str | None]) -> dict[str, str]:
    """The edited texts by role: bounded like uploaded files, empty optional roles left
    out."""
    limit = bench(request).settings.max_file_bytes
    texts = {}
    for role, text in fields.items():
        if text is None or not text.strip():
            continue
        if len(text.encode("utf-8", "replace")) > limit:
            raise WebProblem(413, f"{ROLES[role]} is over the {limit // 1000} kB a file may "
                                  "have", kind="too_large")
        texts[role] = text.replace("\r\n", "\n")
    return texts


def check_texts(texts: dict[str, str]) -> dict[str, Any]:
    """Parse and check ``texts`` as an upload would, keeping nothing."""
    for role in ("domain", "problem"):
        if role not in texts:
            raise WebProblem(400, f"a model needs a {role} ({ROLES[role]})")
    model = Model("check", "check", "", dict(texts), bundled=False)
    try:
        validate_model(model)
    except XaipError as error:
        raise model.fail(error) from None
    return {"status": "ok", "files": [ROLES[r] for r in texts]}


async def _in_pool(request: Request, function: Any, *args: Any) -> Any:
    shared = bench(request)
    seconds = shared.settings.max_seconds
    done = await shared.pool.run(function, *args, seconds=seconds, lane="upload",
                                 phase="parsing")
    if isinstance(done, Unfinished):
        raise WebProblem(413, f"the model could not be parsed and checked within "
                              f"{seconds:g} s (budget exhausted)", kind="budget_exhausted")
    return done


def _page(request: Request, base: Model, texts: dict[str, str], problem: WebProblem | None,
          then: str, status_code: int = 200) -> HTMLResponse:
    roles = [r for r in ROLES if r in texts or r in ("domain", "problem")]
    return respond(request, "edit.html", status_code=status_code, model=base, texts=texts,
                   roles=roles, names=ROLES, problem=problem, then=then,
                   next_pages=NEXT_PAGES)


@router.get("/models/{model_id}/edit", response_class=HTMLResponse, include_in_schema=False)
def edit_page(request: Request, model_id: str, then: str = "plan") -> HTMLResponse:
    model = bench(request).models.get(model_id)
    return _page(request, model, dict(model.texts), None,
                 then if then in NEXT_PAGES else "plan")


@router.post("/models/{model_id}/edit", include_in_schema=False)
async def save_page(request: Request, model_id: str, domain: Text = None,
                    problem: Text = None, plan: Text = None, human_domain: Text = None,
                    human_problem: Text = None, annotations: Text = None,
                    then: Annotated[str, Form()] = "plan") -> Response:
    base = bench(request).models.get(model_id)
    then = then if then in NEXT_PAGES else "plan"
    fields = {"domain": domain, "problem": problem, "plan": plan,
              "human_domain": human_domain, "human_problem": human_problem,
              "annotations": annotations}
    texts = _texts(request, fields)
    title = base.title if base.title.startswith("edited: ") else f"edited: {base.title}"
    try:
        model = await _in_pool(request, bench(request).models.add, texts, title[:60])
    except (WebProblem, XaipError) as error:
        sources = {ROLES[r]: t for r, t in texts.items()}
        problem_ = error if isinstance(error, WebProblem) else from_error(error, sources)
        if problem_.status_code != 400:
            raise problem_ from None
        return _page(request, base, texts, problem_, then, status_code=400)
    if then in ("explain", "explicable") and not model.has("human_domain"):
        then = "plan"
    return RedirectResponse(f"/{then}?model={model.id}", status_code=303)


@router.post("/api/models/check", tags=["models"])
async def check_model(request: Request, domain: Text = None, problem: Text = None,
                      plan: Text = None, human_domain: Text = None,
                      human_problem: Text = None, annotations: Text = None
                      ) -> dict[str, Any]:
    """Parse and check a model's texts (form fields, one per role) as an upload would,
    keeping nothing: ``{"status": "ok"}``, or 400 with the error's file, line and column
    (what the editor marks inline)."""
    texts = _texts(request, {"domain": domain, "problem": problem, "plan": plan,
                             "human_domain": human_domain, "human_problem": human_problem,
                             "annotations": annotations})
    result: dict[str, Any] = await _in_pool(request, check_texts, texts)
    return result
