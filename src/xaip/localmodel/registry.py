"""The local-model learner, registered for the conformance tests and the workbench.

Why this example: bundled Sokoban-switch level 1 with the whole Sokoban concept library,
every state within 15 steps of the plan's states (the exhaustive limit: a few hundred
states, well under a second): the learned push actions need ``switch-on``, the paper's
point. A one-node budget (one state) leaves it unfinished.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from typing import Any

from xaip.concepts.bundled import bundled
from xaip.concepts.results import Query
from xaip.concepts.simulator import run_trace
from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.localmodel import check_local_model, learn_and_check
from xaip.runtime import Budget


@cache
def _example() -> tuple[Query, tuple[Hashable, ...]]:
    query = bundled("sokoban-switch")
    return query, tuple(run_trace(query.sim, query.plan).states)


def _run(budget: Budget) -> Any:
    query, starts = _example()
    return learn_and_check(query.sim, query.vocabulary, starts, samples=None, budget=budget)


def _check(result: Any) -> CheckReport:
    query, starts = _example()
    return check_local_model(query.sim, query.vocabulary, starts, result)


register_explainer(ExplainerSpec(
    name="localmodel.sokoban-switch", family="localmodel", example=_run, check=_check,
    description="the whole local STRIPS model of a black box in the user's concepts, "
                "learned from samples and checked on the region (Sokoban-switch)"))
