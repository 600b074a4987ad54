"""The independent checker of mixed-observer plans: ``check_mixed(inputs, result, budget)``.

What it shares with the solvers, exactly: the grounded task (its actions' applicability,
effects and prices -- grounding priced them by :mod:`xaip.planning.semantics`) and the
observers' sensor functions, which define the problem. What it does not share: the listed
state space (:class:`~xaip.observers.mixed.StateSpace`), its transition table and token
table, its belief update, the IP and the search. Beliefs are recomputed here by applying
*every* ground action to every belief state, the plan is re-simulated by action name, and
the tokens, final-belief goals, GD and the ⟨k, j⟩ bounds are compared with what the result
claims.

Claims of optimality and of "no plan" are re-proved by the checker's own breadth-first
search over (robot state, every observer's belief), each pair kept at the fewest steps that
reach it (:func:`_best_reachable`): an IP answer claims the best GD over plans of at most
``horizon`` steps and, among those, the fewest steps; the search confirms both. An
``unsolvable`` answer is confirmed when no pair within the horizon (without one: no
reachable pair at all -- they are finite) reaches the true goal meeting ``k``/``j``.

Budget: the checker runs under the solver's budget, started afresh, one node per pair;
when it runs out the report is "unverified: checker budget"
(:func:`xaip.contract.checker_budget_report`).
"""

from __future__ import annotations

from typing import Any

from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted
from xaip.observers.mixed import MixedInputs, show_token
from xaip.runtime import Budget, BudgetClock, Status


def _update(inputs: MixedInputs, observer: int, belief: frozenset[int], token: Any
            ) -> frozenset[int]:
    """The checker's own belief update: every ground action tried on every belief state."""
    task, sensor = inputs.task, inputs.observers[observer].sensor
    out = set()
    for state in belief:
        for action in task.actions:
            if action.applicable(state):
                after = task.close(action.apply(state))
                if sensor(action, after) == token:
                    out.add(after)
    return frozenset(out)


def _goals_of(inputs: MixedInputs, belief: frozenset[int]) -> set[int]:
    """The candidate goals some state of ``belief`` satisfies."""
    return {g for g, mask in enumerate(inputs.goal_masks)
            if any(s & mask == mask for s in belief)}


def _belief_goals(inputs: MixedInputs, observer: int, tokens: list[Any]) -> set[int]:
    """The goals left in ``observer``'s final belief after ``tokens``."""
    belief = frozenset({inputs.task.init} | set(inputs.observers[observer].initial))
    for token in tokens:
        belief = _update(inputs, observer, belief, token)
    return _goals_of(inputs, belief)


def _meets_bounds(inputs: MixedInputs, beliefs: tuple[frozenset[int], ...], k: int | None,
                  j: int | None) -> bool:
    for observer, belief in zip(inputs.observers, beliefs, strict=True):
        kept = len(_goals_of(inputs, belief))
        if observer.role == "adversary" and k is not None and kept < k:
            return False
        if observer.role == "friend" and j is not None and kept > j:
            return False
    return True


Beliefs = tuple[frozenset[int], ...]


def _best_reachable(inputs: MixedInputs, k: int | None, j: int | None, horizon: int | None,
                    clock: BudgetClock) -> tuple[float | None, int | None, int]:
    """Breadth first over (robot state, beliefs) within ``horizon`` steps (all reachable
    pairs without one): the best GD of a pair whose state satisfies the true goal and whose
    beliefs meet ``k``/``j``, the fewest steps reaching that GD, and the pairs seen."""
    task, goal = inputs.task, inputs.goal_masks[inputs.true_goal]
    start = (task.init, tuple(frozenset({task.init} | set(o.initial))
                              for o in inputs.observers))
    updates: dict[tuple[int, frozenset[int], Any], frozenset[int]] = {}

    def update(i: int, belief: frozenset[int], token: Any) -> frozenset[int]:
        key = (i, belief, token)
        found = updates.get(key)
        if found is None:
            found = updates[key] = _update(inputs, i, belief, token)
        return found

    seen = {start}
    layer = [start]
    best: tuple[float | None, int | None] = (None, None)
    depth = 0
    while layer:
        for state, beliefs in layer:
            if not clock.charge():
                raise BudgetExhausted("the checker's budget ran out", phase="checker")
            if state & goal == goal and _meets_bounds(inputs, beliefs, k, j):
                score = inputs.goal_difference([len(_goals_of(inputs, b)) for b in beliefs])
                if best[0] is None or score > best[0] + 1e-9:
                    best = (score, depth)
        if horizon is not None and depth >= horizon:
            break
        nxt = []
        for state, beliefs in layer:
            for action in task.actions:
                if not action.applicable(state):
                    continue
                after = task.close(action.apply(state))
                child = (after, tuple(update(i, b, o.sensor(action, after)) for i, (o, b)
                                      in enumerate(zip(inputs.observers, beliefs, strict=True))))
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
        layer = nxt
        depth += 1
    return best[0], best[1], len(seen)


def _check_none(inputs: MixedInputs, result: Any, clock: BudgetClock) -> CheckReport:
    """No plan (within the horizon) reaches the true goal with beliefs meeting k/j."""
    score, steps, pairs = _best_reachable(inputs, result.k, result.j, result.horizon, clock)
    if score is not None:
        return CheckReport(False, f"the checker's search found a plan of {steps} steps that "
                                  f"meets the bounds (GD {score:.2f})")
    within = f" of at most {result.horizon} steps" if result.horizon is not None else ""
    bounds = f" meeting k={result.k}, j={result.j}" if result.k or result.j else ""
    return CheckReport(True, f"no plan{within} reaches the true goal{bounds} (the checker's "
                             f"search over {pairs} (state, beliefs) pairs)")


def _check_optimal(inputs: MixedInputs, result: Any, score: float, clock: BudgetClock
                   ) -> str | None:
    """Why the IP's claim (best GD within the horizon, then fewest steps) is false."""
    best, steps, _ = _best_reachable(inputs, result.k, result.j, result.horizon, clock)
    if best is None or best > score + 1e-9:
        return (f"not GD-optimal: a plan of {steps} steps within the horizon has GD "
                f"{best:.3f} > {score:.3f}" if best is not None else
                "the checker's search finds no plan meeting the bounds")
    if steps is not None and steps < len(result.plan):
        return (f"not the shortest GD-optimal plan: {steps} steps reach GD {score:.3f}, "
                f"the plan has {len(result.plan)}")
    return None


def check_mixed(inputs: MixedInputs, result: Any,
                budget: Budget | BudgetClock | None = None) -> CheckReport:
    """Recompute the plan's tokens, final beliefs, goals and GD from scratch, and re-prove
    the IP's optimality and any "no plan" (module docstring), within ``budget``."""
    fresh = budget.budget if isinstance(budget, BudgetClock) else budget
    clock = (fresh or Budget()).start()
    if Status(result.status) == Status.UNSOLVABLE:
        return run_checker(lambda: _check_none(inputs, result, clock))
    if not result.plan and Status(result.status) == Status.BUDGET_EXHAUSTED:
        return CheckReport(None, "no plan to check: the budget ran out")
    return run_checker(lambda: _check_plan(inputs, result, clock))


def _check_plan(inputs: MixedInputs, result: Any, clock: BudgetClock) -> CheckReport:
    task = inputs.task
    state = task.init
    raw: list[list[Any]] = [[] for _ in inputs.observers]
    for number, step in enumerate(result.plan, start=1):
        action = next((task.actions[i] for i in task.action_index.get(step, ())
                       if task.actions[i].applicable(state)), None)
        if action is None:
            return CheckReport(False, f"step {number} ({step}) is not applicable")
        state = task.close(action.apply(state))
        for i, observer in enumerate(inputs.observers):
            raw[i].append(observer.sensor(action, state))
    goal = inputs.goal_masks[inputs.true_goal]
    if state & goal != goal:
        return CheckReport(False, "the plan does not reach the true goal")
    if result.horizon is not None and len(result.plan) > result.horizon:
        return CheckReport(False, f"the plan has {len(result.plan)} steps, over the "
                                  f"horizon {result.horizon}")
    counts = []
    for i, observer in enumerate(inputs.observers):
        seen = [show_token(t) for t in raw[i]]
        if tuple(seen) != tuple(result.observations.get(observer.name, ())):
            return CheckReport(False, f"observer {observer.name} sees {' '.join(seen)}, not "
                                      f"{' '.join(result.observations.get(observer.name, ()))}")
        goals = _belief_goals(inputs, i, raw[i])
        labels = {inputs.goal_labels[g] for g in goals}
        claimed = set(result.goals_in_final_belief.get(observer.name, ()))
        if labels != claimed:
            return CheckReport(False, f"observer {observer.name}'s final belief holds "
                                      f"{len(labels)} goals, the result says {len(claimed)}")
        counts.append(len(goals))
        if observer.role == "adversary" and result.k is not None and len(goals) < result.k:
            return CheckReport(False, f"adversary {observer.name} keeps {len(goals)} goals, "
                                      f"fewer than k = {result.k}")
        if observer.role == "friend" and result.j is not None and len(goals) > result.j:
            return CheckReport(False, f"friend {observer.name} keeps {len(goals)} goals, "
                                      f"more than j = {result.j}")
    score = inputs.goal_difference(counts)
    if result.score is None or abs(score - result.score) > 1e-9:
        return CheckReport(False, f"GD is {score:.3f}, the result says {result.score}")
    details = (f"plan reaches the true goal; what each observer sees, the goals it keeps "
               f"and GD = {score:.2f} recomputed from scratch")
    if result.method == "ip":
        wrong = _check_optimal(inputs, result, score, clock)
        if wrong is not None:
            return CheckReport(False, wrong)
        details += (f"; no plan of at most {result.horizon} steps has a higher GD or reaches "
                    "it in fewer steps (the checker's own search)")
    return CheckReport(True, details)
