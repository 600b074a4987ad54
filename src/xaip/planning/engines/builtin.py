"""The built-in engine: xaip's own searches and heuristics, in this process.

Why a class around :func:`~xaip.planning.search.solve`: the engine is configured once
(search algorithm, heuristic) and then used like any other engine. Asking for an optimal
plan with a search or heuristic that cannot guarantee optimality is rejected up front
rather than silently answered.
"""

from __future__ import annotations

from xaip.errors import InputError
from xaip.planning.engines.base import ground_and_solve
from xaip.planning.heuristics import ADMISSIBLE
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.result import PlanResult
from xaip.planning.task import Task
from xaip.runtime import Budget

OPTIMAL_SEARCHES = frozenset({"astar", "ucs", "bfs"})


def choose(optimal: bool, search: str | None, heuristic: str | None) -> tuple[str, str]:
    """The search and heuristic to use, with the defaults filled in and checked."""
    search = search or ("astar" if optimal else "gbfs")
    if heuristic is None:
        heuristic = "blind" if search in ("ucs", "bfs") else ("lmcut" if optimal else "hff")
    if optimal:
        if search not in OPTIMAL_SEARCHES:
            raise InputError(
                f"--optimal needs one of the searches {', '.join(sorted(OPTIMAL_SEARCHES))}, "
                f"not '{search}'"
            )
        if search == "astar" and heuristic not in ADMISSIBLE:
            raise InputError(
                f"--optimal needs an admissible heuristic ({', '.join(sorted(ADMISSIBLE))}); "
                f"'{heuristic}' may overestimate"
            )
    return search, heuristic


class BuiltinEngine:
    """A*, UCS, GBFS, EHC or BFS with blind, h_max, h_add, h_FF or LM-cut (pure Python).

    ``search``/``heuristic`` of ``None`` pick per call: A* + LM-cut when ``optimal``,
    GBFS + h_FF otherwise. ``preferred`` adds h_FF's preferred operators (default: on for
    GBFS with h_FF; see :func:`~xaip.planning.search.preferred.use_preferred`).
    """

    name = "builtin"

    def __init__(self, search: str | None = None, heuristic: str | None = None,
                 preferred: bool | None = None) -> None:
        self.search = search
        self.heuristic = heuristic
        self.preferred = preferred

    def available(self) -> bool:
        return True

    def unsupported(self, task: Task) -> str | None:
        return None

    def solve(self, task: Task, *, optimal: bool = False, cost_bound: int | None = None,
              budget: Budget | None = None) -> PlanResult:
        from xaip.planning.search import solve

        search, heuristic = choose(optimal, self.search, self.heuristic)
        return solve(task, algorithm=search, heuristic=heuristic, budget=budget or Budget(),
                     cost_bound=cost_bound, preferred=self.preferred)

    def solve_model(self, domain: Domain, problem: Problem, *, optimal: bool = False,
                    cost_bound: int | None = None, budget: Budget | None = None
                    ) -> PlanResult:
        return ground_and_solve(self, domain, problem, optimal=optimal,
                                cost_bound=cost_bound, budget=budget)
