"""The independent checker of mixed-observer plans: ``check_mixed(inputs, result)``.

What it shares with the solvers, exactly: the grounded task (its actions' applicability and
effects) and the observers' sensor functions, which define the problem. What it does not
share: the listed state space (:class:`~xaip.observers.mixed.StateSpace`), its transition
table and token table, its belief update, the IP and the search. Beliefs are recomputed
here by applying *every* ground action to every belief state, the plan is re-simulated by
action name, and the tokens, final-belief goals, GD and the ⟨k, j⟩ bounds are compared with
what the result claims.

What it does not check: that an IP plan is optimal (that would be the brute force of
:func:`~xaip.observers.mixed.enumerate_mixed`, run by the tests). An ``unsolvable``
answer within a horizon is confirmed by brute force over every action sequence of at most
that many steps (beliefs carried along, same belief update as above) when there are at
most ``limit`` of them; otherwise, or without a horizon, ``ok`` is ``None``.
"""

from __future__ import annotations

from typing import Any

from xaip.contract import CheckReport
from xaip.observers.mixed import MixedInputs, show_token
from xaip.runtime import Status


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


def _check_none(inputs: MixedInputs, result: Any, limit: int) -> CheckReport:
    """Brute force: no sequence of at most ``horizon`` actions reaches the true goal with
    final beliefs meeting ``k``/``j``."""
    horizon = result.horizon
    if horizon is None:
        return CheckReport(None, "without a horizon, that no plan exists is not re-checked")
    task, goal = inputs.task, inputs.goal_masks[inputs.true_goal]
    bounded = result.k is not None or result.j is not None
    start = tuple(frozenset({task.init} | set(o.initial)) for o in inputs.observers)
    stack: list[tuple[int, int, tuple[frozenset[int], ...]]] = [(task.init, 0, start)]
    seen = work = 0
    per_update = max(1, len(task.actions))
    while stack:
        state, depth, beliefs = stack.pop()
        seen += 1
        if bounded:
            work += per_update * sum(len(b) for b in beliefs)
        if seen > limit or work > 100 * limit:
            return CheckReport(None, f"more than {limit} action sequences within "
                                     f"{horizon} steps; that none works is not re-checked")
        if state & goal == goal and (not bounded or
                                     _meets_bounds(inputs, beliefs, result.k, result.j)):
            return CheckReport(False, f"brute force found a plan of {depth} steps that "
                                      "meets the bounds")
        if depth == horizon:
            continue
        for action in task.actions:
            if action.applicable(state):
                after = task.close(action.apply(state))
                nxt = tuple(_update(inputs, i, b, o.sensor(action, after)) if bounded else b
                            for i, (o, b) in enumerate(zip(inputs.observers, beliefs,
                                                           strict=True)))
                stack.append((after, depth + 1, nxt))
    bounds = f" meeting k={result.k}, j={result.j}" if bounded else ""
    return CheckReport(True, f"none of the {seen} action sequences of at most {horizon} "
                             f"steps reaches the true goal{bounds} (brute force)")


def check_mixed(inputs: MixedInputs, result: Any, limit: int = 20_000) -> CheckReport:
    """Recompute the plan's tokens, final beliefs, goals and GD from scratch."""
    if Status(result.status) == Status.UNSOLVABLE:
        return _check_none(inputs, result, limit)
    if not result.plan and Status(result.status) == Status.BUDGET_EXHAUSTED:
        return CheckReport(None, "no plan to check: the budget ran out")
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
    if result.horizon is not None and result.method == "ip" and \
            len(result.plan) > result.horizon:
        return CheckReport(False, f"the plan has {len(result.plan)} steps, over the "
                                  f"horizon {result.horizon}")
    counts = []
    for i, observer in enumerate(inputs.observers):
        seen = [show_token(t) for t in raw[i]]
        if tuple(seen) != tuple(result.observations.get(observer.name, ())):
            return CheckReport(False, f"observer {observer.name} sees {seen}, not "
                                      f"{list(result.observations.get(observer.name, ()))}")
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
    return CheckReport(True, f"plan reaches the true goal; tokens, final beliefs and "
                             f"GD = {score:.2f} recomputed from scratch")
