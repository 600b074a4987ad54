"""The assistant, registered for the conformance tests and the workbench.

Why this example: the bundled 5-block blocksworld, a two-step prefix and one vetoed schema:
a few optimal-planner calls, verified in about a second; a one-node budget leaves it
unfinished.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.planning.pddl.model import Domain, Problem
from xaip.runtime import Budget

#: The example's partial plan and veto (``blocksworld/problem-5.pddl``).
EXAMPLE_PREFIX = ("(unstack b1 b2)", "(put-down b1)")
EXAMPLE_VETOES = ("(stack b1 b2)",)


def bundled_files() -> dict[str, Path]:
    root = resources.files("xaip") / "domains" / "blocksworld"
    return {key: Path(str(root / name)) for key, name in
            (("domain", "domain.pddl"), ("problem", "problem-5.pddl"))}


@cache
def _task() -> tuple[Domain, Problem]:
    from xaip.planning.pddl import read_domain, read_problem

    files = bundled_files()
    return read_domain(files["domain"]), read_problem(files["problem"])


def _example(budget: Budget) -> Any:
    from xaip.assist.assistant import Assistant

    return Assistant(*_task(), EXAMPLE_PREFIX, EXAMPLE_VETOES).suggest(budget)


def _check(result: Any) -> CheckReport:
    from xaip.assist.check import check

    return check(*_task(), result)


register_explainer(ExplainerSpec(
    name="assist.radar", family="assist", example=_example, check=_check,
    description="decision support (RADAR): completion, next-step suggestion with reasons, "
                "plan check and repair under vetoes (5-block blocksworld)"))
