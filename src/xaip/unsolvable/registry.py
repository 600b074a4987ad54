"""The unsolvability explainer, registered for the conformance tests and the workbench.

Why this example: the bundled delivery task (``xaip/domains/unsolvable``) whose map lacks
the road to the harbour: 18 reachable states, a one-fact core and a one-fact repair,
verified in milliseconds; a one-node budget leaves the exploration unfinished.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.planning.pddl.model import Domain, Problem
from xaip.runtime import Budget
from xaip.unsolvable.bundled import bundled_task


@cache
def _task() -> tuple[Domain, Problem]:
    return bundled_task()


def _example(budget: Budget) -> Any:
    from xaip.unsolvable.explain import explain_unsolvable

    return explain_unsolvable(*_task(), budget=budget, repair=1)


def _check(result: Any) -> CheckReport:
    from xaip.unsolvable.check import check

    return check(*_task(), result)


register_explainer(ExplainerSpec(
    name="unsolvable.core", family="unsolvable", example=_example, check=_check,
    description="why a task has no plan: minimum unsolvable goal core, unreachable landmark "
                "(delivery truck without a road)"))
