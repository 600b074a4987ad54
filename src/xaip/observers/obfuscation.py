"""Obfuscating behaviour for an adversarial observer (book §9.1; O01–O03).

* :func:`ambiguous_plan` — a *k-ambiguous* plan: it reaches the true goal and the final
  belief is consistent with at least ``k`` candidate goals (Def. 39). The book tries one
  ``k``-subset of decoys after another; testing "at least ``k`` goals in the belief"
  directly finds a plan exactly when some subset has one, so no enumeration of subsets is
  needed (``decoys`` fixes the subset when the caller wants particular ones).
* :func:`secure_ambiguous_plan` — the randomised version against an adversary who knows
  the algorithm and can rerun it with every candidate goal as input (§9.1.2): draw a
  ``k``-set containing the true goal uniformly, draw a *decoy true goal* uniformly from it,
  plan k-ambiguously for the decoy, then extract from the belief plan set a plan to the
  *real* goal that emits the same tokens. The tokens depend only on the draw, not on the
  real goal, so the adversary's best guess is right with probability ``1/k`` (Prop. 10;
  when every draw has a plan — a draw without one is redrawn, counted in
  ``decoy["attempts"]``, and can break the symmetry).
* :func:`diverse_plan` — an *ℓ-diverse* plan for a known goal: at least ``ℓ`` plans in
  the BPS, all reaching the goal, every two at least ``d`` apart (Def. 43); needs a cost
  bound.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from xaip.errors import InputError
from xaip.observers.analysis import BPS_CAP, analyse, build_result
from xaip.observers.copp import GoalTest, Node
from xaip.observers.goals import Goal, goals_in
from xaip.observers.guidance import GoalDistance, ambiguity_heuristic, true_goal_heuristic
from xaip.observers.legibility import _positive, bps_test, finish, search
from xaip.observers.planset import check_distance
from xaip.observers.problem import ObserverProblem
from xaip.observers.results import ObserverResult
from xaip.planning.task import GroundAction, State
from xaip.runtime import Budget, BudgetClock, Status


def _check_k(problem: ObserverProblem, k: int) -> None:
    _positive("k", k)
    n = len(problem.goals.goals)
    if k > n:
        raise InputError(f"--k {k} is larger than the number of candidate goals ({n})")


def _ambiguity_test(problem: ObserverProblem, true: Goal, k: int,
                    required: Sequence[Goal] | None) -> GoalTest:
    goals = problem.goals.goals

    def test(node: Node) -> bool:
        if not true.holds(node.state):
            return False
        if required is not None:
            return all(any(g.holds(s) for s in node.belief) for g in required)
        return len(goals_in(node.belief, goals)) >= k

    return test


def ambiguous_plan(problem: ObserverProblem, k: int = 2, decoys: Sequence[str] | None = None,
                   max_cost: int | None = None, horizon: int | None = None, heuristic: str = "hadd",
                   budget: Budget | BudgetClock | None = None,
                   check: bool = True) -> ObserverResult:
    """A k-ambiguous plan for the true goal (with ``decoys``: those goals must stay)."""
    started = time.perf_counter()
    _check_k(problem, k)
    true = problem.true_goal
    fixed = None
    if decoys is not None:
        fixed = [problem.goals.by_name(name) for name in decoys]
        if len({g.name for g in fixed} | {true.name}) < k:
            raise InputError(f"give at least {k - 1} decoys other than the true goal")
    goals = problem.goals.goals
    guide = ambiguity_heuristic(GoalDistance(problem.task, goals, heuristic), goals, true, k,
                                fixed)
    required = None if fixed is None else [true, *fixed]
    outcome = search(problem, _ambiguity_test(problem, true, k, required), guide, heuristic,
                     max_cost, horizon, budget)
    params = {"k": k, "decoys": list(decoys) if decoys else None, "max_cost": max_cost,
              "horizon": horizon, "heuristic": heuristic}
    return finish(problem, outcome, "ambiguous", params, started, check=check, with_bps=False,
                  budget=budget)


def secure_ambiguous_plan(problem: ObserverProblem, k: int = 2, seed: int = 0,
                          max_cost: int | None = None, horizon: int | None = None,
                          heuristic: str = "hadd", budget: Budget | None = None, attempts: int = 20,
                          check: bool = True) -> ObserverResult:
    """Secure goal obfuscation: a k-ambiguous plan planned for a random decoy true goal,
    post-processed into a plan for the real goal with the same tokens (seeded)."""
    started = time.perf_counter()
    _check_k(problem, k)
    params = {"k": k, "seed": seed, "max_cost": max_cost, "horizon": horizon,
              "heuristic": heuristic}
    rng = random.Random(seed)
    true = problem.true_goal
    others = [g.name for g in problem.goals.goals if g.name != true.name]
    clock = (budget or Budget()).start()
    stats: dict[str, int | float] = {"expanded": 0, "attempts": 0}
    status = Status.UNSOLVABLE
    draws: list[list[Any]] = []
    # one compiled heuristic per candidate goal for every draw (the draws change only
    # which goal is the decoy true goal), so its per-state values carry over between draws
    distances = GoalDistance(problem.task, problem.goals.goals, heuristic)
    for attempt in range(1, attempts + 1):
        chosen = sorted([true.name, *rng.sample(others, k - 1)],
                        key=problem.goals.names.index)
        decoy_name = rng.choice(chosen)
        draws.append([chosen, decoy_name])
        decoy = problem.with_true(decoy_name)
        required = [decoy.goals.by_name(n) for n in chosen]
        guide = ambiguity_heuristic(distances, problem.goals.goals, decoy.true_goal, k,
                                    [g for g in required if g.name != decoy_name])
        outcome = search(decoy, _ambiguity_test(decoy, decoy.true_goal, k, required), guide,
                         heuristic, max_cost, horizon, clock)
        stats["expanded"] = int(stats["expanded"]) + outcome.stats.get("expanded", 0)
        stats["attempts"] = attempt
        if outcome.status == Status.BUDGET_EXHAUSTED:
            status = Status.BUDGET_EXHAUSTED
            break
        if outcome.node is None:
            continue
        real = _same_tokens_plan(problem, outcome.node, true)
        if real is None:  # cannot happen: the real goal holds in the final belief
            continue
        view = analyse(problem, real, with_bps=False)
        info = {"goal_set": chosen, "decoy_true_goal": decoy_name, "seed": seed,
                "attempts": attempt, "decoy_plan": [a.name for a in outcome.plan(problem.task)]}
        return build_result(problem, view, "secure-ambiguous", Status.SOLVED, params, started,
                            stats, None if outcome.cheapest else outcome.delta, decoy=info,
                            check=check, budget=budget)
    message = ("the budget ran out" if status == Status.BUDGET_EXHAUSTED
               else f"no k-ambiguous plan for {attempts} random draws")
    # the draws, so that the checker can confirm that none of them has a plan
    return build_result(problem, None, "secure-ambiguous", status, params, started, stats,
                        decoy={"draws": draws}, message=message, check=check, budget=budget)


def _same_tokens_plan(problem: ObserverProblem, node: Node, goal: Goal
                      ) -> tuple[GroundAction, ...] | None:
    """The cheapest plan from the real initial state to ``goal`` that emits ``node``'s
    tokens (the goal-ending part of the BPS): a min-cost pass forward through the token
    layers, then back along the recorded predecessors (exact at any BPS size)."""
    tracker, task = problem.tracker, problem.task
    best: dict[State, tuple[int, tuple[int, ...]]] = {task.init: (0, ())}
    for token in node.tokens():
        after: dict[State, tuple[int, tuple[int, ...]]] = {}
        for state, (cost, plan) in sorted(best.items(), key=lambda item: item[1]):
            for index, nxt in tracker.successors(state).get(token, ()):
                found = (cost + int(task.actions[index].cost), (*plan, index))
                if nxt not in after or found < after[nxt]:
                    after[nxt] = found
        best = after
    ends = [found for state, found in best.items() if goal.holds(state)]
    if not ends:
        return None
    return tuple(task.actions[i] for i in min(ends)[1])


def diverse_plan(problem: ObserverProblem, ell: int = 2, d: float = 0.0,
                 max_cost: int | None = None, horizon: int | None = None, distance: str = "action",
                 heuristic: str = "hadd", budget: Budget | None = None,
                 bps_cap: int = BPS_CAP, spread_guidance: bool = False,
                 check: bool = True) -> ObserverResult:
    """An ℓ-diverse plan: |BPS| ≥ ℓ, all BPS plans reach the goal, min distance ≥ d."""
    started = time.perf_counter()
    _positive("l", ell)
    check_distance(distance)
    if max_cost is None and horizon is None:
        raise InputError("plan obfuscation needs a cost bound (--max-cost) or --horizon")
    if ell > bps_cap:
        raise InputError(f"--l {ell} is larger than the BPS enumeration cap ({bps_cap})")

    def test(node: Node) -> bool:
        found = bps_test(problem, node, distance, bps_cap)
        if found is None:
            return False
        count, low, _, exact = found
        return exact and count >= ell and (low is None or low >= d - 1e-9)

    distances = GoalDistance(problem.task, (problem.true_goal,), heuristic)
    guide = true_goal_heuristic(distances, problem.true_goal,
                                "min" if spread_guidance else None, problem.tracker, distance)
    outcome = search(problem, test, guide, heuristic, max_cost, horizon, budget, history=True)
    params = {"l": ell, "d": d, "distance": distance, "max_cost": max_cost, "horizon": horizon,
              "heuristic": heuristic, "bps_cap": bps_cap,
              "spread_guidance": spread_guidance}
    return finish(problem, outcome, "diverse", params, started, distance, check,
                  budget=budget)
