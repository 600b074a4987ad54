"""The explicable-behaviour explainers, registered for the conformance tests and the
workbench.

Why the restaurant: the book's own example (ch. 3) is small enough that the most
explicable plan and the optimal design are found and verified by brute force in about a
second, yet a one-node budget (``Budget(max_nodes=1)``) leaves both unfinished.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.explicable.checks import check
from xaip.explicable.design import DesignProblem, design_search, load_design, restaurant_spec
from xaip.explicable.design_check import check_design
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import ExplicableProblem, make_problem
from xaip.runtime import Budget


@cache
def restaurant_design(setting: str = "c") -> DesignProblem:
    """The book's restaurant design problem, one of its settings a, b or c."""
    return load_design(restaurant_spec(), setting)


@cache
def restaurant_problem(task: str = "B2") -> ExplicableProblem:
    """One restaurant task without design: the robot's detour surprises the person."""
    spec = restaurant_design("c")
    chosen = next(t for t in spec.tasks if t.name == task)
    return make_problem(spec.robot_domain, chosen.robot_problem, spec.human_domain,
                        chosen.human_problem)


def _plan_spec(distance: str, max_cost: int | None, method: str = "auto") -> ExplainerSpec:
    def example(budget: Budget) -> Any:
        return explicable_plan(restaurant_problem(), distance, max_cost, method,
                               budget=budget)

    def checker(result: Any) -> CheckReport:
        return check(restaurant_problem(), result)

    name = f"explicable.{'search' if method == 'search' else 'plan'}-{distance}"
    return ExplainerSpec(name=name, family="explicable",
                         example=example, check=checker,
                         description=f"the most explicable restaurant plan under the "
                                     f"{distance} distance")


def _design_example(budget: Budget) -> Any:
    return design_search(restaurant_design("c"), budget=budget)


def _design_check(result: Any) -> CheckReport:
    return check_design(restaurant_design("c"), result)


for _spec in (
    _plan_spec("cost", None),
    _plan_spec("composite", 9),
    _plan_spec("action", 8, "search"),
    ExplainerSpec(name="explicable.design", family="explicable", example=_design_example,
                  check=_design_check,
                  description="environment design for the restaurant robot, horizon 10"),
):
    register_explainer(_spec)
