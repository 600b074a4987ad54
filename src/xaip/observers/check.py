"""The independent checker of every single-observer result (legibility, obfuscation, score).

What it recomputes, and how (in its own world of atom-set states, :mod:`.check_world`):

1. the plan on the *lifted* model with :func:`xaip.planning.validate` (its own state
   progression over atoms): executable, its cost (priced by :mod:`xaip.planning.semantics`),
   and the true goal's atoms at the end;
2. the tokens, with :meth:`ObservationModel.observe_atoms` -- the observation rules
   evaluated on those lifted atom sets, not the cached bitset ``observe`` of the search;
3. the observer's beliefs ``b_i`` and |BPS| by counting consistent action sequences
   forward, token by token, over its own successor lists (no belief tracker, no successor
   cache grouped by token); the BPS itself is listed when it has at most
   :data:`~.check_search.BPS_LISTED_LIMIT` members (for the distance extremes);
4. the mode's test (at most ``j`` goals, at least ``k``, fixed decoys, the secure run's goal
   set, decoy plan and cheapest real-goal plan with the same tokens, ``m``/``ℓ`` and the
   distance bound ``d``) and every number the result reports (cost, tokens, belief sizes,
   goals left, |BPS|, distance extremes);
5. every claim of optimality: an answer that says ``cheapest`` is confirmed by the
   checker's own exhaustive uniform-cost search (:func:`.check_search.first_passing`)
   finding no passing plan that costs less within the bounds; an ``unsolvable`` answer by
   the same search finding none at all (for the goal modes the (state, belief) pairs are
   finite, so no bound is needed; the plan modes need their cost bound or horizon; a
   secure run's answer by searching each of its recorded draws).

What it shares with the search: the grounded action list (which actions exist and their
prices), the parsed observation rules (the file is read once) and, for distances other
than ``action``, :mod:`xaip.explicable.distances` (the action distance is recomputed here
as 1 − Jaccard of action-name sets).

Budget: the checker runs under the same budget as the search, started afresh (one node per
expansion of its exhaustive search); when it runs out the report is
:func:`xaip.contract.checker_budget_report` ("unverified: checker budget") and the answer
is not verified.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from xaip.contract import CheckReport, run_checker
from xaip.observers.check_search import (
    BPS_LISTED_LIMIT,
    GOAL_MODES,
    Look,
    failures,
    first_passing,
    look,
)
from xaip.observers.check_world import AtomState, World
from xaip.observers.problem import ObserverProblem
from xaip.observers.results import ObserverResult
from xaip.observers.sensors import Token, format_token
from xaip.planning.plans import parse_plan, validate
from xaip.runtime import Budget, BudgetClock, Status


def check(problem: ObserverProblem, result: ObserverResult,
          budget: Budget | BudgetClock | None = None) -> CheckReport:
    """Recompute ``result`` from its plan (see the module docstring), within ``budget``
    (the search's own, started afresh; a running clock counts as its budget)."""
    fresh = budget.budget if isinstance(budget, BudgetClock) else budget
    world = World(problem, (fresh or Budget()).start())
    # a scored plan is checked even when empty and short of the goal (it is still scored)
    if result.plan or result.mode == "score" or Status(result.status) == Status.SOLVED:
        return run_checker(lambda: _check_plan(problem, world, result))
    return run_checker(lambda: _check_none(problem, world, result))


@dataclass(frozen=True)
class _Lifted:
    """A plan run on the lifted model: its cost, the tokens its steps emit (evaluated on
    the lifted states) and those states (static facts left out)."""

    cost: int
    tokens: tuple[Token, ...]
    trace: list[AtomState]


def _run_lifted(problem: ObserverProblem, world: World, plan: Sequence[str]) -> _Lifted | str:
    """``plan`` re-simulated by :func:`xaip.planning.validate`; a string says why not."""
    if problem.domain is None or problem.problem is None:
        return "no lifted model to re-simulate on"
    steps = parse_plan("\n".join(f"({s})" for s in plan))
    lifted = validate(problem.domain, problem.problem, steps, keep_trace=True)
    if lifted.failed_step is not None and lifted.failed_step < len(steps):
        return f"the plan is not executable: {lifted.reason}"
    trace = [frozenset(str(a).lower() for a in state) - world.statics
             for state in lifted.trace]
    tokens = tuple(world.token(world.by_name[" ".join((st.name, *st.args)).lower()],
                               trace[i + 1])
                   for i, st in enumerate(steps))
    return _Lifted(int(lifted.cost), tokens, trace)


def _required(result: ObserverResult) -> list[str] | None:
    """Goals that must stay in the final belief: fixed decoys, or the secure draw."""
    if result.mode == "secure-ambiguous":
        return list((result.decoy or {}).get("goal_set", ()))
    decoys = result.params.get("decoys")
    return [result.true_goal, *decoys] if decoys else None


def _check_plan(problem: ObserverProblem, world: World, result: ObserverResult) -> CheckReport:
    lifted = _run_lifted(problem, world, list(result.plan))
    if isinstance(lifted, str):
        return CheckReport(False if "executable" in lifted else None, lifted)
    cap = int(result.params.get("bps_cap", 0))
    seen = look(world, lifted.tokens, str(result.params.get("distance", "action")),
                with_spread=result.bps_count is not None, limit=max(BPS_LISTED_LIMIT, cap))
    problems = list(_compare(problem, result, lifted, seen))
    true = problem.true_goal
    problems += failures(world, result.mode, result.params, seen,
                         world.holds(true, lifted.trace[-1]), true, _required(result))
    if result.mode == "secure-ambiguous":
        problems += _secure_test(problem, world, result, lifted)
    if problems:
        return CheckReport(False, "; ".join(problems))
    details = (f"lifted re-simulation and the checker's own belief count agree: "
               f"{seen.count} consistent plan(s); goals it still thinks possible: "
               f"{', '.join(seen.goals) or 'none'}")
    if result.cheapest:
        cheaper = _cheaper(world, result, lifted.cost)
        if cheaper is not None:
            return CheckReport(False, cheaper)
        details += "; no cheaper plan passes (the checker's exhaustive search)"
    return CheckReport(True, details)


def _compare(problem: ObserverProblem, result: ObserverResult, lifted: _Lifted, seen: Look
             ) -> Iterator[str]:
    """Every number the result reports against the recomputed one."""
    if lifted.cost != result.cost:
        yield f"cost {lifted.cost} recomputed, {result.cost} reported"
    shown = tuple(format_token(t) for t in lifted.tokens)
    if shown != tuple(result.observations):
        yield f"tokens {list(shown)} recomputed, {list(result.observations)} reported"
    if seen.layers != tuple(result.beliefs):
        yield f"belief sizes {list(seen.layers)} recomputed, {list(result.beliefs)} reported"
    reported = tuple(result.goals_in_final_belief.get(problem.model.name, ()))
    if seen.goals != reported:
        yield f"goals in the final belief {seen.goals} recomputed, {reported} reported"
    if result.bps_count is not None and result.bps_count != seen.count:
        yield f"|BPS| {seen.count} recomputed, {result.bps_count} reported"
    listed = int(result.params.get("bps_cap", seen.count))
    if result.bps_count is not None and seen.listing is not None and seen.count <= listed and (
            not _close(seen.low, result.distance_min)
            or not _close(seen.high, result.distance_max)):
        yield (f"distances min {seen.low} max {seen.high} recomputed, "
               f"{result.distance_min} {result.distance_max} reported")


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) < 1e-6


def _bounds(result: ObserverResult) -> tuple[float, float]:
    bound, horizon = result.params.get("max_cost"), result.params.get("horizon")
    return (math.inf if bound is None else int(bound),
            math.inf if horizon is None else int(horizon))


def _cheaper(world: World, result: ObserverResult, cost: int) -> str | None:
    """Why the ``cheapest`` claim is false (a cheaper passing plan), or ``None``."""
    max_cost, max_steps = _bounds(result)
    found = first_passing(world, result.mode, result.params, world.problem.true_goal,
                          min(max_cost, cost - 1), max_steps, _required(result))
    if found.names is None:
        return None
    shown = " ".join(f"({n})" for n in found.names) or "the empty plan"
    return f"not the cheapest: {shown} (cost {found.cost}) also passes"


def _secure_test(problem: ObserverProblem, world: World, result: ObserverResult,
                 lifted: _Lifted) -> Iterator[str]:
    info = result.decoy or {}
    chosen = list(info.get("goal_set", ()))
    if len(set(chosen)) < int(result.params["k"]) or problem.goals.true not in chosen:
        yield f"the drawn goal set {chosen} is not k goals with the true goal"
    decoy = _run_lifted(problem, world, list(info.get("decoy_plan", ())))
    if isinstance(decoy, str):
        yield "the decoy plan is not executable"
        return
    if decoy.tokens != lifted.tokens:
        yield "the decoy plan's tokens differ from the plan's"
    decoy_goal = problem.goals.by_name(str(info.get("decoy_true_goal")))
    if decoy_goal.name not in chosen or not world.holds(decoy_goal, decoy.trace[-1]):
        yield "the decoy plan does not reach the decoy true goal"
    best = world.cheapest_along(lifted.tokens, problem.true_goal)
    if best is not None and best[0] < lifted.cost:
        yield (f"a cheaper plan with the same tokens reaches the true goal: "
               f"{' '.join(f'({n})' for n in best[1])} (cost {best[0]})")


def _check_none(problem: ObserverProblem, world: World, result: ObserverResult) -> CheckReport:
    """Confirm "no plan within the bounds passes" by the checker's exhaustive search."""
    if result.status != Status.UNSOLVABLE or result.mode == "score":
        return CheckReport(None, "no plan to check")
    max_cost, max_steps = _bounds(result)
    if result.mode not in GOAL_MODES and max_cost == max_steps == math.inf:
        return CheckReport(None, "a plan mode's 'no plan' needs a cost bound or a horizon "
                                 "to be checked")
    runs: list[tuple[str, list[str] | None]] = [(problem.goals.true, _required(result))]
    if result.mode == "secure-ambiguous":
        draws = (result.decoy or {}).get("draws")
        if not draws:
            return CheckReport(None, "the secure run recorded no draws to re-check")
        runs = [(str(decoy), list(chosen)) for chosen, decoy in draws]
    expanded = 0
    for true_name, required in runs:
        found = first_passing(world, result.mode, result.params,
                              problem.goals.by_name(true_name), max_cost, max_steps, required)
        expanded += found.expanded
        if found.names is not None:
            shown = " ".join(f"({n})" for n in found.names) or "the empty plan"
            return CheckReport(False, f"{shown} passes the test")
    within = " and ".join(x for x in (max_cost < math.inf and f"cost {int(max_cost)}",
                                      max_steps < math.inf and f"{int(max_steps)} steps")
                          if x) or "any bound"
    draws_text = f" for each of the {len(runs)} draws" if len(runs) > 1 else ""
    return CheckReport(True, f"no plan within {within} passes{draws_text} (the checker's "
                             f"exhaustive search, {expanded} nodes)")
