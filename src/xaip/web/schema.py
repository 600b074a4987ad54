"""The error answers as the OpenAPI schema documents them.

Why: a script reading ``/api/openapi.json`` should learn every answer an endpoint can give,
not only its 200. Every error of the workbench has one JSON shape
(:meth:`xaip.web.problems.WebProblem.to_dict`); :data:`ERROR_RESPONSES` documents it for
the status codes the endpoints answer with, replacing FastAPI's default 422 body (the
workbench answers validation errors in the same shape as every other error). The schema
fuzz test (``tests/web/test_schema_fuzz.py``) checks the answers against it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field


class ErrorLocation(BaseModel):
    """Where in a file the error is (1-based); ``exact`` is false for a located name."""

    file: str
    line: int
    column: int
    exact: bool


class ErrorAnswer(BaseModel):
    """Every error answer: ``error`` is its kind (``bad_input``, ``pddl_syntax``,
    ``not_found``, ``too_large``, ``budget_exhausted``, ``busy``, ...)."""

    status: Literal["error"]
    error: str
    message: str = Field(min_length=1)
    location: ErrorLocation | None


_WHY = {
    400: "bad input (the message says what to fix; PDDL errors carry their location)",
    404: "no such model, run, explainer or page",
    413: "a body or file over its size limit, or an upload that could not be parsed "
         "within its budget (error: budget_exhausted)",
    422: "a parameter of the wrong type or out of its range",
    429: "a discovery run is in progress: start another when it has finished",
    503: "busy (every worker and waiting place taken, or no worker came free in time): "
         "retry; or an optional engine is not installed",
}

#: ``responses=`` for every router of the workbench.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorAnswer, "description": why} for code, why in _WHY.items()}

__all__ = ["ERROR_RESPONSES", "ErrorAnswer", "ErrorLocation"]
