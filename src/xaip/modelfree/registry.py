"""The model-free explainer, registered for the conformance tests and the workbench.

Why the bundled synthetic Fetch data: learning takes well under a second, the exact search
examines a handful of message sets, and a one-node budget stops it after the first (the
empty set, which does not make the plan look explicable).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.modelfree.bundled import bundled
from xaip.modelfree.checks import check
from xaip.modelfree.explain import LearnedPerson, explain_plan, learn
from xaip.runtime import Budget


@cache
def example_person() -> LearnedPerson:
    data = bundled()
    return learn(data.records, data.messages)


def _example(budget: Budget) -> Any:
    return explain_plan(example_person(), bundled().plan, budget=budget)


def _check(result: Any) -> CheckReport:
    return check(example_person(), result)


register_explainer(ExplainerSpec(
    name="modelfree.messages", family="modelfree", example=_example, check=_check,
    description="the cheapest messages that make the bundled Fetch plan look explicable to "
                "a labeller learned from labelled plans"))
