"""The "why not?" explainers, registered for the conformance tests and the workbench.

Why these examples: Sokoban-switch level 1 (a push before the switch is turned on fails:
the missing precondition ``switch-on``) and Sokoban-cells level 1 (pushes from pink cells
cost 10: the cost abstraction ``on-pink-cell``). Each finishes, verified by exhaustive
enumeration, in well under a second; a one-node budget (one sample) leaves it unfinished.
Montezuma's Revenge (screen 1, the foil steps left on the ladder: ``not-on-ladder``) is the
black-box case: the quickest bundled pair (about 50 samples to confidence 0.99, a few
seconds with the checker's fresh samples) on the real game through ale-py.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.concepts.bundled import bundled
from xaip.concepts.check import check
from xaip.concepts.explain import why_not
from xaip.concepts.results import Query
from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.runtime import Budget


@cache
def _query(env: str, variant: str) -> Query:
    if env == "montezuma":
        from xaip.concepts.montezuma import montezuma_query

        return montezuma_query(variant, variant)
    return bundled(env, variant=variant)


def _spec(kind: str, env: str, variant: str, description: str) -> ExplainerSpec:
    def example(budget: Budget) -> Any:
        query = _query(env, variant)
        return why_not(query.sim, query.plan, query.foil, query.vocabulary, budget=budget,
                       seed=0)

    def checker(result: Any) -> CheckReport:
        return check(_query(env, variant), result)

    return ExplainerSpec(name=f"concepts.{kind}", family="concepts", example=example,
                         check=checker, description=description)


for _spec_ in (
    _spec("precondition", "sokoban-switch", "precondition",
          "missing precondition of a failing foil action, in the user's concepts "
          "(Sokoban-switch)"),
    _spec("cost", "sokoban-cells", "cost",
          "abstract cost function explaining a costlier foil (Sokoban-cells)"),
    _spec("montezuma", "montezuma", "ladder-left",
          "missing precondition of a failing foil in Montezuma's Revenge (ale-py), checked "
          "on fresh samples"),
):
    register_explainer(_spec_)
