"""The observer-aware planners, registered for the conformance tests and the workbench.

Why the port and medkit grids: they are the book's own examples (ch. 4 and 9), tiny enough
that the checker re-derives every answer in milliseconds, yet each search expands
more than one node, so a one-node budget (``Budget(max_nodes=1)``) leaves it unfinished.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.observers.check import check
from xaip.observers.legibility import legible_goal_plan, legible_plan
from xaip.observers.obfuscation import ambiguous_plan, diverse_plan, secure_ambiguous_plan
from xaip.observers.problem import example_problem
from xaip.runtime import Budget


def _spec(name: str, instance: str, run: Callable[[Any, Budget], Any],
          description: str) -> ExplainerSpec:
    def example(budget: Budget) -> Any:
        return run(example_problem(instance), budget)

    def checker(result: Any) -> CheckReport:
        return check(example_problem(instance), result)

    return ExplainerSpec(name=f"observers.{name}", family="observers", example=example,
                         check=checker, description=description)


for _spec_item in (
    _spec("legible-goal", "port", lambda p, b: legible_goal_plan(p, j=1, budget=b),
          "port management: ship the red crate so the supervisor knows which (j = 1)"),
    _spec("ambiguous", "port", lambda p, b: ambiguous_plan(p, k=3, budget=b),
          "port management: ship the red crate keeping all three crates possible (k = 3)"),
    _spec("secure-ambiguous", "port",
          lambda p, b: secure_ambiguous_plan(p, k=2, seed=0, budget=b),
          "port management: randomised decoy true goal, k = 2, seed 0"),
    _spec("legible-plan", "medkit",
          lambda p, b: legible_plan(p, m=2, d=0.5, max_cost=8, budget=b),
          "medkit grid: a plan whose look-alikes are at most 0.5 apart (m = 2)"),
    _spec("diverse", "medkit",
          lambda p, b: diverse_plan(p, ell=12, d=0.25, max_cost=8, budget=b),
          "medkit grid: at least 12 look-alike plans, pairwise at least 0.25 apart"),
):
    register_explainer(_spec_item)

import xaip.observers.mixed_registry  # noqa: E402, F401  (mixed observers, deception)
