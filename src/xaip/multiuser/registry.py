"""The multi-user explainer, registered for the conformance tests and the workbench.

Why this example: the bundled firefighting models with the privacy map (two users, one of
whom cannot be told everything): a handful of planner calls, verified in well under a
second; a one-node budget leaves it unfinished.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.runtime import Budget


@cache
def _inputs() -> tuple[Any, Any, Any]:
    from xaip.multiuser.bundled import USERS, bundled_files
    from xaip.multiuser.models import User
    from xaip.multiuser.privacy import read_privacy
    from xaip.planning.pddl import read_domain, read_problem

    files = bundled_files()
    robot = (read_domain(files["robot"]), read_problem(files["problem"]))
    users = tuple(User(name, read_domain(files[name]), robot[1]) for name in USERS)
    privacy = read_privacy(files["privacy"], USERS, [robot[0], *(u.domain for u in users)])
    return robot, users, privacy


def _example(budget: Budget) -> Any:
    from xaip.multiuser.explain import explain_to_users

    robot, users, privacy = _inputs()
    return explain_to_users(robot, users, privacy=privacy, budget=budget)


def _check(result: Any) -> CheckReport:
    from xaip.multiuser.checks import check

    robot, users, privacy = _inputs()
    return check(robot, users, result, privacy)


register_explainer(ExplainerSpec(
    name="multiuser.ma-radar", family="multiuser", example=_example, check=_check,
    description="several users with their own models and a privacy map (MA-RADAR): "
                "per-user and shared explanations (firefighting)"))
