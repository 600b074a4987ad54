"""The balanced-planning explainers, registered for the conformance tests and the
workbench.

Why the USAR instance: it is the book's own example (ch. 7), its three answers are known
(13.39, 57, 106 with 50 per explanation item), it is solved and checked in a fraction of
a second, and a one-node budget (``Budget(max_nodes=1)``) stops the search before the
robot's optimal plan is known.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.balanced.check import check
from xaip.balanced.instances import usar_problem
from xaip.balanced.objectives import BalancedProblem, Objective
from xaip.balanced.solve import balance
from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.runtime import Budget


@cache
def example_problem(objective: Objective = Objective.BALANCED) -> BalancedProblem:
    """The bundled USAR instance with the book's prices."""
    return usar_problem(objective)


def _spec(objective: Objective, method: str, exact: bool = True) -> ExplainerSpec:
    def example(budget: Budget) -> Any:
        return balance(example_problem(objective), method=method, exact=exact,
                       budget=budget)

    def checker(result: Any) -> CheckReport:
        return check(example_problem(objective), result)

    mode = "" if exact else "-approximate"
    return ExplainerSpec(
        name=f"balanced.{method}{mode}-{objective.value}", family="balanced",
        example=example, check=checker,
        description=f"the {objective.value} plan and explanation for the book's USAR "
                    f"robot ({method}{', approximate' if not exact else ''})")


for _spec_ in (
    _spec(Objective.BALANCED, "model-space"),
    _spec(Objective.EXPLICABLE, "model-space"),
    _spec(Objective.EXPLICABLE_OPTIMAL, "model-space"),
    _spec(Objective.EXPLICABLE, "model-space", exact=False),
    _spec(Objective.BALANCED, "compile"),
):
    register_explainer(_spec_)


def _legibility_example(budget: Budget) -> Any:
    from xaip.balanced.legibility import balance_legibility, example_problem

    return balance_legibility(example_problem(), budget=budget)


def _legibility_check(result: Any) -> CheckReport:
    from xaip.balanced.legibility import check_legibility, example_problem

    return check_legibility(example_problem(), result)


register_explainer(ExplainerSpec(
    name="balanced.legibility", family="balanced", example=_legibility_example,
    check=_legibility_check,
    description="a plan and goal hints that convey the goal within one step (B07)"))
