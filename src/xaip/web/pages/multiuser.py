"""Several users: one plan explained to people who each hold their own model of the robot,
each told only what a privacy map lets them hear (MA-RADAR; feature A03).

The page opens on the bundled firefighting example (a robot, a fire commander, a police
chief, and a map that keeps the police's road rules private): its texts sit in the form,
so a person can change any of them, paste their own robot domain and problem, two or
three user models (name, domain, optional problem: the robot's when empty) and an optional
privacy map (JSON, as ``xaip explain-users --privacy``), and ask again. The answer is
:func:`xaip.multiuser.explain_to_users`'s: per user the edits they are told (in plain
words, as the reconciliation pages word edits) or, when the map forbids what they would
need, the withheld facts and why; then the group's shared explanation with each user's
view of it. The badge is the library's verdict (its checker's separate plan tests). The
JSON is ``xaip explain-users --json``.

Why a POST form: three PDDL domains do not fit an address; the bundled example's answer
stays a plain GET (``/multiuser``, ``/api/multiuser``) to share or script.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from xaip.errors import InputError
from xaip.runtime import Budget
from xaip.web.pages import Page, bench, budget_of, budget_pairs, budget_query, respond
from xaip.web.work import Unfinished

router = APIRouter()

#: The form offers this many user slots (the book's example has two users).
MAX_USERS = 3
#: The most characters of one text field (a domain, a problem, the privacy map).
MAX_TEXT = 60_000

UsePrivacy = Annotated[bool, Query(description=(
    "apply the bundled example's privacy map (police's road rules are private)"))]


@dataclass(frozen=True)
class UserText:
    """One user slot as typed: a name, a domain, and a problem (empty: the robot's)."""

    name: str
    domain: str
    problem: str = ""


@dataclass(frozen=True)
class Question:
    """Everything the form holds (the texts, so the page can show them back)."""

    robot_domain: str
    robot_problem: str
    users: tuple[UserText, ...]
    privacy: str = ""


def bundled_question(use_privacy: bool = True) -> Question:
    """The firefighting example's texts (``xaip/domains/multiuser``)."""
    from xaip.multiuser.bundled import USERS, bundled_files

    files = bundled_files()

    def read(key: str) -> str:
        return files[key].read_text(encoding="utf-8")

    return Question(read("robot"), read("problem"),
                    tuple(UserText(name, read(name)) for name in USERS),
                    read("privacy") if use_privacy else "")


def _privacy(text: str) -> dict[str, Any] | None:
    """The privacy map's JSON (``None``: no map, every user may hear everything)."""
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"privacy map: not JSON (line {error.lineno}, column "
                         f"{error.colno}: {error.msg})") from None
    if not isinstance(data, dict):
        raise InputError("privacy map: expected a JSON object with 'private' and/or 'users'")
    return data


def _users(question: Question) -> list[UserText]:
    """The filled user slots; a half-filled slot or a repeated name is bad input."""
    chosen: list[UserText] = []
    for number, user in enumerate(question.users, 1):
        name = user.name.strip()
        if not name and not user.domain.strip() and not user.problem.strip():
            continue
        if not name:
            raise InputError(f"user {number}: give the user a name")
        if not name.replace("_", "").replace("-", "").isalnum():
            raise InputError(f"user {number}: a name is letters, digits, '-' and '_' "
                             f"(got '{name[:40]}')")
        if not user.domain.strip():
            raise InputError(f"user {name}: paste their domain (their model of the robot)")
        if any(u.name == name for u in chosen):
            raise InputError(f"user {name}: named twice")
        chosen.append(UserText(name, user.domain, user.problem))
    if not chosen:
        raise InputError("give at least one user: a name and their domain")
    if len(chosen) > MAX_USERS:
        raise InputError(f"at most {MAX_USERS} users")
    return chosen


def compute(question: Question, budget: Budget) -> dict[str, Any]:
    """The library's answer to ``question`` within ``budget`` (its ``to_dict()``)."""
    from xaip.multiuser import explain_to_users
    from xaip.planning.pddl import check_problem, parse_domain, parse_problem

    if not question.robot_domain.strip() or not question.robot_problem.strip():
        raise InputError("paste the robot's domain and problem")
    users = _users(question)
    robot_domain = parse_domain(question.robot_domain, "robot domain")
    robot_problem = parse_problem(question.robot_problem, "robot problem")
    check_problem(robot_domain, robot_problem)
    models = []
    for user in users:
        domain = parse_domain(user.domain, f"{user.name}'s domain")
        problem = None
        if user.problem.strip():
            problem = parse_problem(user.problem, f"{user.name}'s problem")
            check_problem(domain, problem)
        models.append((user.name, domain, problem))
    result = explain_to_users((robot_domain, robot_problem), models,
                              privacy=_privacy(question.privacy), budget=budget)
    payload: dict[str, Any] = result.to_dict()
    return payload


async def _answer(request: Request, question: Question,
                  asked: tuple[float | None, int | None]) -> dict[str, Any] | Unfinished:
    answer: dict[str, Any] | Unfinished = await bench(request).pool.run(
        compute, question, budget=budget_of(request, asked), lane="multiuser")
    return answer


async def _page(request: Request, question: Question, example: bool, use_privacy: bool,
                asked: tuple[float | None, int | None]) -> HTMLResponse:
    slots = list(question.users) + [UserText("", "")] * (MAX_USERS - len(question.users))
    common: dict[str, Any] = {"question": question, "slots": slots[:MAX_USERS],
                              "example": example, "use_privacy": use_privacy,
                              "fixed": budget_pairs(asked)}
    try:
        answer = await _answer(request, question, asked)
    except InputError as error:
        # What the person pasted does not read: keep every text on screen to be fixed.
        return respond(request, "multiuser.html", status_code=400, error=str(error),
                       **common)
    if isinstance(answer, Unfinished):
        return respond(request, "multiuser.html", unfinished=answer.to_dict(), **common)
    return respond(request, "multiuser.html", payload=answer, **common)


@router.get("/multiuser", response_class=HTMLResponse, include_in_schema=False)
async def multiuser_page(request: Request, privacy: UsePrivacy = True,
                         asked: Annotated[tuple[float | None, int | None],
                                          Depends(budget_query)] = (None, None)
                         ) -> HTMLResponse:
    return await _page(request, bundled_question(privacy), True, privacy, asked)


Text = Annotated[str, Form(max_length=MAX_TEXT)]
Name = Annotated[str, Form(max_length=40)]


#: This form's own limits: the application's (8 fields of 4 KB) fit an upload's roles, not
#: three users' models; the whole body stays bounded by the server's ``max_body_bytes``.
FORM_FIELDS = 3 + 3 * MAX_USERS


@router.post("/multiuser", response_class=HTMLResponse, include_in_schema=False,
             form_limits={"max_fields": FORM_FIELDS, "max_part_size": MAX_TEXT})
async def multiuser_form(request: Request, robot_domain: Text = "", robot_problem: Text = "",
                         name1: Name = "", domain1: Text = "", problem1: Text = "",
                         name2: Name = "", domain2: Text = "", problem2: Text = "",
                         name3: Name = "", domain3: Text = "", problem3: Text = "",
                         privacy: Text = "",
                         asked: Annotated[tuple[float | None, int | None],
                                          Depends(budget_query)] = (None, None)
                         ) -> HTMLResponse:
    users = (UserText(name1, domain1, problem1), UserText(name2, domain2, problem2),
             UserText(name3, domain3, problem3))
    question = Question(robot_domain, robot_problem, users, privacy)
    return await _page(request, question, False, bool(privacy.strip()), asked)


class UserModel(BaseModel):
    """One user of ``POST /api/multiuser``."""

    name: str = Field(max_length=40, examples=["commander"])
    domain: str = Field(max_length=MAX_TEXT, description="the user's PDDL domain")
    problem: str = Field("", max_length=MAX_TEXT,
                         description="the user's PDDL problem (empty: the robot's)")


class MultiUserRequest(BaseModel):
    """The body of ``POST /api/multiuser``: the robot, its users, an optional privacy map."""

    robot_domain: str = Field(max_length=MAX_TEXT)
    robot_problem: str = Field(max_length=MAX_TEXT)
    users: list[UserModel] = Field(min_length=1, max_length=MAX_USERS)
    privacy: dict[str, Any] | None = Field(None, description=(
        "the privacy map (docs/multiuser.md); null: every user may hear everything"))


def _unfinished_or(answer: dict[str, Any] | Unfinished) -> dict[str, Any]:
    return answer.to_dict() if isinstance(answer, Unfinished) else answer


@router.get("/api/multiuser", tags=["multiuser"])
async def multiuser_api(request: Request, privacy: UsePrivacy = True,
                        asked: Annotated[tuple[float | None, int | None],
                                         Depends(budget_query)] = (None, None)
                        ) -> dict[str, Any]:
    """``xaip explain-users --json`` on the bundled firefighting example (``privacy``: with
    its privacy map): per-user explanations and the shared one (the result's
    ``to_dict()``)."""
    return _unfinished_or(await _answer(request, bundled_question(privacy), asked))


@router.post("/api/multiuser", tags=["multiuser"])
async def multiuser_api_post(request: Request, body: MultiUserRequest,
                             asked: Annotated[tuple[float | None, int | None],
                                              Depends(budget_query)] = (None, None)
                             ) -> dict[str, Any]:
    """``xaip explain-users --json`` on your own robot, users and privacy map."""
    question = Question(body.robot_domain, body.robot_problem,
                        tuple(UserText(u.name, u.domain, u.problem) for u in body.users),
                        "" if body.privacy is None else json.dumps(body.privacy))
    return _unfinished_or(await _answer(request, question, asked))


PAGE = Page("multiuser", "Several users", "One plan, several people with their own models "
            "of the robot: what each must be told, what a privacy map withholds, and one "
            "explanation for the group.", router, family="multiuser")
