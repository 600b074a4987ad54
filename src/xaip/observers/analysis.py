"""Everything an observer makes of one plan: tokens, beliefs, goals left, BPS and its
spread — and the result record built from it.

Why one place: the planners (after their search), the score of a given plan (M02) and the
CLI all describe a plan the same way, so the numbers in every result come from this one
function, computed from scratch from the plan (not read off the search node).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from xaip.contract import with_check
from xaip.errors import InputError
from xaip.observers.beliefs import Belief, BeliefPlanSet, belief_plan_set
from xaip.observers.goals import goals_in
from xaip.observers.planset import Spread, spread
from xaip.observers.problem import ObserverProblem
from xaip.observers.results import ObserverResult
from xaip.observers.sensors import Token, format_token
from xaip.planning.task import GroundAction
from xaip.runtime import Budget, BudgetClock, Status

#: How many BPS members are listed (and compared pairwise) by default.
BPS_CAP = 200


@dataclass(frozen=True)
class PlanView:
    """One plan as its observer sees it."""

    plan: tuple[GroundAction, ...]
    tokens: tuple[Token, ...]
    beliefs: tuple[Belief, ...]
    goals: tuple[str, ...]
    bps: BeliefPlanSet | None
    spread: Spread | None

    @property
    def cost(self) -> int:
        # grounding priced each action by xaip.planning.semantics
        return int(sum(a.cost for a in self.plan))


def analyse(problem: ObserverProblem, plan: Sequence[GroundAction], distance: str = "action",
            bps_cap: int = BPS_CAP, with_bps: bool = True) -> PlanView:
    """Tokens, belief sequence, goals in the final belief and (``with_bps``) the BPS."""
    tracker = problem.tracker
    try:
        tokens = tracker.tokens_of(plan)
    except ValueError as exc:
        raise InputError(f"the plan is not executable: {exc}") from None
    beliefs = tracker.sequence(tokens)
    goals = goals_in(beliefs[-1], problem.goals.goals)
    bps = spread_of = None
    if with_bps:
        bps = belief_plan_set(tracker, beliefs, tokens, cap=bps_cap)
        spread_of = spread(problem.task, bps, distance)
    return PlanView(tuple(plan), tokens, beliefs, goals, bps, spread_of)


def build_result(problem: ObserverProblem, view: PlanView | None, mode: str, status: Status,
                 params: Mapping[str, Any], started: float, stats: Mapping[str, int | float],
                 delta: int | None = None, decoy: Mapping[str, Any] | None = None,
                 message: str = "", check: bool = True, cheapest: bool = False,
                 budget: Budget | BudgetClock | None = None) -> ObserverResult:
    """The result record for ``view`` (``None``: nothing found), checked when finished;
    ``cheapest`` claims no passing plan within the bounds costs less (the checker tests
    it). The checker runs under ``budget`` (the search's, started afresh)."""
    score_name = {"legible-plan": "max_distance", "diverse": "min_distance"}.get(mode, "goals")
    common: dict[str, Any] = dict(
        mode=mode, true_goal=problem.goals.true, goals=problem.goals.names,
        observer=problem.model.name, params=dict(params), delta=delta, decoy=decoy,
        stats=dict(stats), message=message, cheapest=cheapest and view is not None)
    if view is None:
        result = ObserverResult(status=status, plan=(), cost=None, observations=(),
                                goals_in_final_belief={}, score=None, score_name=score_name,
                                seconds=time.perf_counter() - started, **common)
        return _checked(problem, result, budget) if check and status.finished else result
    spread_of = view.spread
    low = spread_of.minimum if spread_of is not None else None
    high = spread_of.maximum if spread_of is not None else None
    score: float | None = float(len(view.goals))
    if score_name == "max_distance":
        score = high if high is not None else 0.0
    elif score_name == "min_distance":
        score = low
    bps = view.bps
    result = ObserverResult(
        status=status, plan=tuple(a.name for a in view.plan), cost=view.cost,
        observations=tuple(format_token(t) for t in view.tokens),
        goals_in_final_belief={problem.model.name: view.goals}, score=score,
        score_name=score_name, seconds=time.perf_counter() - started,
        beliefs=tuple(len(b) for b in view.beliefs),
        bps_count=None if bps is None else bps.count,
        bps_listed=() if bps is None else tuple(p.names(problem.task) for p in bps.plans[:20]),
        distance_min=low, distance_max=high, **common)
    return _checked(problem, result, budget) if check and status.finished else result


def _checked(problem: ObserverProblem, result: ObserverResult,
             budget: Budget | BudgetClock | None) -> ObserverResult:
    from xaip.observers.check import check as run_check  # the checker imports this module

    report = run_check(problem, result, budget)
    return with_check(replace(result, check=report), report)
