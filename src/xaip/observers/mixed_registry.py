"""The mixed-observer and deception explainers, registered for the conformance tests and
the workbench (imported by :mod:`xaip.observers.registry`).

Why the truck and the tiny grid: the book's truck (§9.2) is solved and re-checked in well
under a second by both methods, and the tiny grid's deceptive path is re-derived by an
independent BFS; listing the truck's 16 states, or the grid's first BFS layer, takes more
than one node, so a one-node budget leaves both unfinished.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.observers.deception import bundled_grids, check_deceptive, deceptive_plan, read_grid
from xaip.observers.mixed import MixedInputs, load_task, make_inputs, solve_mixed
from xaip.observers.mixed_check import check_mixed
from xaip.runtime import Budget


@cache
def truck_inputs() -> tuple[Any, Any, Any]:
    """(task, observers, goals) of the bundled truck."""
    from xaip.domains.observers import truck

    return truck.load()


def _truck() -> MixedInputs:
    task, observers, goals = truck_inputs()
    return make_inputs(load_task(task), observers, goals)


def _mixed_spec(method: str) -> ExplainerSpec:
    def example(budget: Budget) -> Any:
        task, observers, goals = truck_inputs()
        return solve_mixed(task, observers, goals, method=method, horizon=4, budget=budget)

    def checker(result: Any) -> CheckReport:
        return check_mixed(_truck(), result)

    what = "the GD-optimal plan within 4 steps (integer program)" if method == "ip" \
        else "a plan meeting k = 6 for X and j = 1 for C (bounded search)"
    return ExplainerSpec(name=f"observers.mixed-{method}", family="observers",
                         example=example, check=checker,
                         description=f"truck: legible to C, obscure to X; {what}")


def _grid() -> Any:
    return read_grid(bundled_grids()["tiny"])


register_explainer(_mixed_spec("ip"))
register_explainer(_mixed_spec("search"))
register_explainer(ExplainerSpec(
    name="observers.deceptive", family="observers",
    example=lambda budget: deceptive_plan(_grid(), budget=budget),
    check=lambda result: check_deceptive(_grid(), result),
    description="tiny grid: head for the decoy until the last deceptive point"))
