"""The front door: :func:`explain_to_users` (MA-RADAR, book §10.2.2, feature A03).

Several users each hold their own model of the robot. For each user xaip finds the smallest
set of edits of *that user's* model, toward the robot's, after which the robot's plan is
valid and optimal for them -- using only edits the privacy map lets that user hear; when
no such set exists it says so and names the withheld features that would be needed. It also
merges the users' models into one annotated model (:mod:`xaip.multiuser.merge`) and finds
the smallest conformant explanation every user may hear (the shared explanation), with each
user's filtered view of it. Every answer is checked by :mod:`xaip.multiuser.checks`.

Budgets: ``max_nodes`` bounds each search on its own (the robot's optimal plan, each
user's search over edit sets, the shared search, and each planner call inside them);
``max_seconds`` bounds the whole call; the checker gets the same budget afresh.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from xaip.contract import with_check
from xaip.errors import BudgetExhausted, InputError
from xaip.multiuser.forced import effect, forced, group_effects, in_fragment
from xaip.multiuser.merge import MergedModel, merge
from xaip.multiuser.models import PlanTest, User, differences, updated
from xaip.multiuser.privacy import OPEN, PrivacyMap, parse_privacy, read_privacy
from xaip.multiuser.results import (
    UNAVAILABLE,
    MultiUserResult,
    SharedExplanation,
    UserExplanation,
)
from xaip.multiuser.search import GroupTest, cheapest, group_candidates
from xaip.planning.engines import DEFAULT_ENGINE, Engine
from xaip.planning.features import Edit
from xaip.planning.pddl import check_problem
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep
from xaip.reconcile.problem import MRP, make_mrp
from xaip.runtime import Budget, BudgetClock, Progress, Status

#: The budget when none is given: generous, but never a hang.
DEFAULT_BUDGET = Budget(max_seconds=300)
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")

UserInput = User | tuple[str, Domain, Problem | None]


def _users(users: Sequence[UserInput] | Mapping[str, Any], robot_problem: Problem
           ) -> tuple[User, ...]:
    items: list[tuple[str, Any, Any]] = []
    if isinstance(users, Mapping):
        for name, model in users.items():
            domain, problem = model if isinstance(model, tuple) else (model, None)
            items.append((name, domain, problem))
    else:
        for entry in users:
            if isinstance(entry, User):
                items.append((entry.name, entry.domain, entry.problem))
            else:
                name, domain, problem = entry
                items.append((name, domain, problem))
    if not items:
        raise InputError("explain_to_users needs at least one user")
    out: list[User] = []
    for name, domain, problem in items:
        if not isinstance(name, str) or not _NAME.match(name):
            raise InputError(f"user name {name!r}: use letters, digits, '_', '-' and '.'")
        if any(u.name == name for u in out):
            raise InputError(f"user '{name}' is given twice")
        problem = problem if problem is not None else robot_problem
        check_problem(domain, problem)
        out.append(User(name, domain, problem))
    return tuple(out)


def _privacy(privacy: PrivacyMap | Mapping[str, Any] | str | Path | None,
             users: Sequence[User], robot: Domain) -> PrivacyMap:
    if privacy is None:
        return OPEN
    if isinstance(privacy, PrivacyMap):
        return privacy
    names = [u.name for u in users]
    domains = [robot, *(u.domain for u in users)]
    if isinstance(privacy, (str, Path)):
        return read_privacy(privacy, names, domains)
    return parse_privacy(privacy, names, domains)


def _clock(budget: Budget, whole: BudgetClock) -> tuple[Budget, BudgetClock]:
    """One search's budget: the node limit afresh, the seconds the call has left."""
    if budget.max_seconds is None:
        part = Budget(budget.max_nodes)
    else:
        part = Budget(budget.max_nodes, max(0.0, budget.max_seconds - whole.elapsed()))
    return part, part.start()


def _explain_user(user: User, mrp: MRP, privacy: PrivacyMap, test: PlanTest,
                  budget: Budget, whole: BudgetClock, progress: Progress | None
                  ) -> UserExplanation:
    edits = differences(user, mrp.robot_domain, mrp.robot_problem)
    refusals = [privacy.refusal(user.name, e.feature) for e in edits]
    forbidden = [r is not None for r in refusals]
    part, clock = _clock(budget, whole)
    test.clock = clock
    test.budget = part

    def explains(subset: tuple[int, ...]) -> bool:
        domain, problem = updated(user.domain, user.problem, [edits[i] for i in subset],
                                  mrp.robot_domain, mrp.robot_problem)
        return test.explains(domain, problem)

    def valid_with(subset: list[int]) -> bool:
        domain, problem = updated(user.domain, user.problem, [edits[i] for i in subset],
                                  mrp.robot_domain, mrp.robot_problem)
        return test.plan_cost(domain, problem) is not None

    def none_cheaper_with(subset: list[int]) -> bool:
        domain, problem = updated(user.domain, user.problem, [edits[i] for i in subset],
                                  mrp.robot_domain, mrp.robot_problem)
        return test.none_cheaper(domain, problem, mrp.plan_cost)

    before = test.plan_cost(user.domain, user.problem)
    base = UserExplanation(user.name, Status.BUDGET_EXHAUSTED, differences=len(edits),
                           withheld=sum(forbidden), plan_cost_before=before)
    required: frozenset[int] = frozenset()
    if in_fragment([(mrp.robot_domain, mrp.robot_problem), (user.domain, user.problem)]):
        try:
            required = forced([(effect(e), effect(e)) for e in edits], valid_with,
                              none_cheaper_with)
        except BudgetExhausted:
            return base
    outcome = cheapest(edits, forbidden, explains, clock, progress,
                       f"explaining to {user.name}", required)
    base = replace(base, nodes=outcome.nodes)
    if outcome.exhausted:
        return base
    if outcome.found is None:
        raise InputError(f"user {user.name}: the plan is not optimal in their model even "
                         "after every difference is explained")
    chosen = tuple(edits[i] for i in outcome.found)
    if not any(forbidden[i] for i in outcome.found):
        return replace(base, status=Status.FOUND, edits=chosen)
    needed = tuple((edits[i], refusals[i] or "") for i in outcome.found if forbidden[i])
    return replace(base, status=Status.NO_EXPLANATION, needed=needed,
                   explanation_with_needed=chosen)


def _explain_group(users: Sequence[User], mrp: MRP, merged: MergedModel,
                   privacy: PrivacyMap, test: PlanTest, budget: Budget, whole: BudgetClock,
                   progress: Progress | None) -> SharedExplanation:
    amrp = merged.annotated
    if amrp is None:
        return SharedExplanation(UNAVAILABLE, reason=merged.unavailable)
    candidates = group_candidates(amrp)

    def refusal(edit: Edit) -> str | None:
        reasons = [r for u in users if (r := privacy.refusal(u.name, edit.feature))]
        return "; ".join(reasons) or None

    refusals = [refusal(c.edit) for c in candidates]
    forbidden = [r is not None for r in refusals]
    part, clock = _clock(budget, whole)
    test.clock, test.budget = clock, part
    group = GroupTest(amrp, test)
    count = 2 ** len(amrp.possible)
    required: frozenset[int] = frozenset()
    models = [(mrp.robot_domain, mrp.robot_problem), *((u.domain, u.problem) for u in users)]
    if group.prop7 and in_fragment(models):
        try:
            required = forced(
                [group_effects(c) for c in candidates],
                lambda s: test.plan_cost(*group.low([candidates[i] for i in s])) is not None,
                lambda s: test.none_cheaper(*group.high([candidates[i] for i in s]),
                                            mrp.plan_cost))
        except BudgetExhausted:
            return SharedExplanation(str(Status.BUDGET_EXHAUSTED), completions=count)
    outcome = cheapest(candidates, forbidden,
                       lambda subset: group([candidates[i] for i in subset]), clock,
                       progress, "shared explanation", required)
    if outcome.exhausted:
        return SharedExplanation(str(Status.BUDGET_EXHAUSTED), nodes=outcome.nodes,
                                 completions=count)
    if outcome.found is None:
        return SharedExplanation(str(Status.NO_EXPLANATION), nodes=outcome.nodes,
                                 completions=count,
                                 reason="no conformant explanation exists, even with every "
                                        "edit")
    chosen = tuple(candidates[i] for i in outcome.found)
    if any(forbidden[i] for i in outcome.found):
        needed = tuple((candidates[i], refusals[i] or "") for i in outcome.found
                       if forbidden[i])
        return SharedExplanation(str(Status.NO_EXPLANATION), needed=needed,
                                 explanation_with_needed=chosen, nodes=outcome.nodes,
                                 completions=count)
    return SharedExplanation(str(Status.FOUND), edits=chosen,
                             for_user=filtered(chosen, users), nodes=outcome.nodes,
                             completions=count)


def filtered(edits: Sequence[Any], users: Sequence[User]) -> dict[str, tuple[Edit, ...]]:
    """Each user's view of a shared explanation (book §10.2.2): the edits that are news to
    them -- an added feature they lack, a removed one they hold."""
    out: dict[str, tuple[Edit, ...]] = {}
    for user in users:
        held = user.features
        out[user.name] = tuple(e.edit for e in edits
                               if (e.edit.op == "add") != (e.edit.feature in held))
    return out


def explain_to_users(
    robot: tuple[Domain, Problem],
    users: Sequence[UserInput] | Mapping[str, Any],
    plan: Sequence[PlanStep] | str | None = None,
    privacy: PrivacyMap | Mapping[str, Any] | str | Path | None = None,
    budget: Budget | None = None,
    progress: Progress | None = None,
    engine: str | Engine = DEFAULT_ENGINE,
    shared: bool = True,
) -> MultiUserResult:
    """Explain the robot's ``plan`` (default: its optimal plan) to every user, each only
    with what the ``privacy`` map lets them hear, and to the group (``shared``).

    ``robot`` is (domain, problem); ``users`` maps names to a domain or a (domain, problem)
    pair (problem ``None``: the robot's), or lists :class:`~xaip.multiuser.models.User`.
    ``privacy`` is a :class:`PrivacyMap`, its JSON (a dict) or a JSON file. Returns a checked
    :class:`MultiUserResult`; render it with :func:`xaip.render.render`.
    """
    from xaip.multiuser.checks import check

    began = time.perf_counter()
    budget = budget or DEFAULT_BUDGET
    robot_domain, robot_problem = robot
    people = _users(users, robot_problem)
    rules = _privacy(privacy, people, robot_domain)
    whole = budget.start()
    try:
        first = people[0]
        mrp = make_mrp(robot_domain, robot_problem, first.domain, first.problem, plan,
                       budget=_clock(budget, whole)[0], engine=engine)
    except BudgetExhausted:
        return with_check(MultiUserResult(
            Status.BUDGET_EXHAUSTED, (), 0,
            tuple(UserExplanation(u.name, Status.BUDGET_EXHAUSTED) for u in people), None,
            privacy=None if privacy is None else rules.to_dict(),
            seconds=time.perf_counter() - began), _unfinished())
    for user in people:
        differences(user, robot_domain, robot_problem)  # refuse bad models before searching
    test = PlanTest(mrp.plan, budget, whole, engine)
    answers = tuple(_explain_user(u, mrp, rules, test, budget, whole, progress)
                    for u in people)
    merged = merge(robot_domain, robot_problem, people, mrp)
    group = _explain_group(people, mrp, merged, rules, test, budget, whole, progress) \
        if shared else None
    statuses = [u.status for u in answers]
    if Status.BUDGET_EXHAUSTED in statuses or (
            group is not None and group.status == str(Status.BUDGET_EXHAUSTED)):
        status = Status.BUDGET_EXHAUSTED
    elif Status.NO_EXPLANATION in statuses:
        status = Status.NO_EXPLANATION
    else:
        status = Status.FOUND
    result = MultiUserResult(
        status, mrp.plan_names, mrp.plan_cost, answers, group, merged,
        privacy=None if privacy is None else rules.to_dict(),
        seconds=time.perf_counter() - began,
        stats={"search_nodes": sum(u.nodes for u in answers) + (group.nodes if group else 0),
               "planner_calls": test.planner_calls,
               "refuted_by_witness": test.refuted_by_witness})
    checked_at = time.perf_counter()
    report = check(robot, people, result, rules, budget)
    checked = with_check(result, report)
    spent = time.perf_counter() - checked_at
    return replace(checked, check=report, seconds=time.perf_counter() - began,
                   stats={**result.stats, "check_seconds": round(spent, 6)})


def _unfinished() -> Any:
    from xaip.contract import CheckReport

    return CheckReport(None, "the search did not finish; nothing to check")
