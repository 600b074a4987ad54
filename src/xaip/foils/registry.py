"""The foil explainer, registered for the conformance tests and the workbench.

Why this example: the bundled 5-block blocksworld with three foils that cannot all hold
(:data:`EXAMPLE_FOILS`): a handful of optimal-planner calls, verified in well under a second;
a one-node budget leaves it unfinished.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.foils.bundled import EXAMPLE_FOILS, bundled_task
from xaip.planning.pddl.model import Domain, Problem
from xaip.runtime import Budget


@cache
def _task() -> tuple[Domain, Problem]:
    return bundled_task()


def _example(budget: Budget) -> Any:
    from xaip.foils.explain import explain_foils

    return explain_foils(*_task(), EXAMPLE_FOILS, budget=budget)


def _check(result: Any) -> CheckReport:
    from xaip.foils.check import check

    return check(*_task(), result)


register_explainer(ExplainerSpec(
    name="foils.radar-x", family="foils", example=_example, check=_check,
    description="partial-plan foils (RADAR-X): witness plan and cost gap, or minimal "
                "conflicts and maximal realisable subsets (5-block blocksworld)"))
