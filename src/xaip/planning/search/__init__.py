"""The built-in search engine: one entry point, :func:`solve`, over several algorithms.

Why a single ``solve``: the planner facade, the explainers and the tests select the
algorithm and heuristic by name and always get the same kind of answer, a
:class:`~xaip.planning.search.result.PlanResult` whose ``optimal`` flag says whether
optimality is *guaranteed*:

=========  =================================================  =========================
algorithm  what it is                                         optimal when solved
=========  =================================================  =========================
astar      A* with re-opening, ties on (f, h, insertion)      heuristic is admissible
ucs        uniform-cost search (priority g)                   always
gbfs       greedy best-first search (priority h)              never
ehc        enforced hill-climbing, falls back to gbfs         never
bfs        breadth-first search                               all actions cost the same
=========  =================================================  =========================

Plan enumeration lives in :mod:`xaip.planning.search.enumerate` (:func:`all_plans`,
:func:`top_k_plans`).
"""

from __future__ import annotations

from xaip.errors import BudgetExhausted, InputError
from xaip.planning.heuristics import ADMISSIBLE, HEURISTICS, HFF, make_heuristic
from xaip.planning.search.astar import best_first
from xaip.planning.search.bfs import breadth_first, uniform_costs
from xaip.planning.search.common import BUDGET_EXHAUSTED, SOLVED, Outcome
from xaip.planning.search.ehc import enforced_hill_climbing
from xaip.planning.search.enumerate import all_plans, top_k_plans
from xaip.planning.search.preferred import greedy_preferred, use_preferred
from xaip.planning.search.result import PlanResult, PlanSet
from xaip.planning.search.successors import Successors
from xaip.planning.task import Task
from xaip.runtime import Budget, Status

ALGORITHMS = ("astar", "ucs", "gbfs", "ehc", "bfs")


def solve(
    task: Task,
    algorithm: str = "astar",
    heuristic: str = "lmcut",
    budget: Budget | None = None,
    cost_bound: int | None = None,
    preferred: bool | None = None,
) -> PlanResult:
    """Search ``task`` for a plan.

    ``preferred`` adds h_FF's preferred operators (:mod:`xaip.planning.search.preferred`);
    ``None`` (the default) turns them on exactly for ``gbfs`` with ``hff``, ``False`` gives
    plain GBFS, ``True`` with another search or heuristic is an error.

    ``cost_bound=c`` asks for a plan of cost strictly less than ``c``; "unsolvable" then
    means no such plan exists. Every search charges one node per expansion to ``budget``
    and answers "budget_exhausted" when it runs out. For ``ucs`` and ``bfs`` the heuristic
    only prunes (dead ends, and nodes that cannot beat the bound when it is admissible);
    ``blind`` costs nothing there.
    """
    if algorithm not in ALGORITHMS:
        raise InputError(f"unknown search '{algorithm}' (one of {', '.join(ALGORITHMS)})")
    if heuristic not in HEURISTICS:
        raise InputError(f"unknown heuristic '{heuristic}' (one of {', '.join(HEURISTICS)})")
    preferred = use_preferred(preferred, algorithm, heuristic)
    negative = next((a for a in task.actions if a.cost < 0), None)
    if negative is not None:
        raise InputError(f"action {negative} has negative cost {negative.cost}")
    clock = (budget or Budget()).start()
    h = make_heuristic(heuristic, task, clock)
    admissible = heuristic in ADMISSIBLE
    succ = Successors(task)
    outcome: Outcome
    optimal = False
    try:
        if preferred:
            assert isinstance(h, HFF)
            outcome = greedy_preferred(task, h, clock, cost_bound, succ)
        elif algorithm in ("astar", "ucs", "gbfs"):
            outcome = best_first(task, h, clock, algorithm, cost_bound, admissible, succ)
            optimal = algorithm == "ucs" or (algorithm == "astar" and admissible)
        elif algorithm == "ehc":
            outcome = enforced_hill_climbing(task, h, clock, cost_bound, admissible, succ)
        else:
            pruning = None if heuristic == "blind" else h
            outcome = breadth_first(task, clock, pruning, cost_bound, admissible, succ)
            optimal = uniform_costs(task)
    except BudgetExhausted:  # raised inside a heuristic evaluation past the deadline
        outcome = Outcome(BUDGET_EXHAUSTED, (), clock.nodes, 0)
    solved = outcome.status == SOLVED
    plan = tuple(task.actions[a] for a in outcome.plan)
    return PlanResult(
        status=Status(outcome.status),
        plan=plan,
        cost=sum(a.cost for a in plan) if solved else None,
        optimal=optimal and solved,
        expanded=outcome.expanded,
        generated=outcome.generated,
        seconds=clock.elapsed(),
        engine="builtin",
        search=algorithm,
        heuristic=heuristic,
        has_costs=task.has_costs,
        costs_ignored=task.costs_ignored,
        task=task,
    )


__all__ = [
    "ALGORITHMS",
    "PlanResult",
    "PlanSet",
    "Successors",
    "all_plans",
    "best_first",
    "breadth_first",
    "enforced_hill_climbing",
    "greedy_preferred",
    "solve",
    "top_k_plans",
]
