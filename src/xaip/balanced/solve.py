"""The one solver entry the CLI, the registry and users call: ``balance``.

Why one entry: two methods answer the same question — model-space search
(:mod:`xaip.balanced.model_space`) and the MEGA* compilation
(:mod:`xaip.balanced.megastar`) — and both results go through the same independent
checker (:func:`xaip.balanced.check.check`) before anyone sees ``verified``.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable

from xaip.balanced.objectives import BalancedProblem
from xaip.balanced.results import BalancedResult
from xaip.contract import with_check
from xaip.errors import EngineUnavailable, InputError
from xaip.runtime import Budget, Progress

METHODS = ("model-space", "compile")


def balance(
    problem: BalancedProblem,
    *,
    method: str = "model-space",
    exact: bool = True,
    budget: Budget | None = None,
    progress: Progress | None = None,
    check: bool = True,
) -> BalancedResult:
    """The best plan and explanation for ``problem.objective``.

    ``method="model-space"`` searches over edit sets (``exact=False``: the approximate
    mode of the original work); ``method="compile"`` runs MEGA* over the compiled task
    (always exact). With ``check`` the independent checker sets ``verified``; it runs
    under ``budget`` too, started afresh ("unverified: checker budget" when it runs out).
    """
    if method == "model-space":
        from xaip.balanced.model_space import model_space_search

        result = model_space_search(problem, exact=exact, budget=budget, progress=progress)
    elif method == "compile":
        result = megastar_solver()(problem, budget=budget, progress=progress)
    else:
        raise InputError(f"unknown method {method!r}; use one of {', '.join(METHODS)}")
    if not check:
        return result
    from xaip.balanced.check import check as check_result

    # the checker runs under the user's budget, started afresh
    report = check_result(problem, result, budget)
    return with_check(dataclasses.replace(result, check=report), report)


def megastar_solver() -> Callable[..., BalancedResult]:
    """MEGA*'s ``solve(problem, budget=..., progress=...)``, or :class:`EngineUnavailable`
    when the compilation is not installed in this copy of xaip."""
    try:
        module = importlib.import_module("xaip.balanced.megastar")
    except ModuleNotFoundError as error:
        if error.name != "xaip.balanced.megastar":
            raise
        raise EngineUnavailable("method compile (MEGA*) is not available in this copy of "
                                "xaip; use --method model-space") from None
    solver: Callable[..., BalancedResult] = module.solve
    return solver
