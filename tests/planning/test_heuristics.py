"""Heuristics against brute force on small random tasks.

The random tasks (seeded) have 5-10 facts and 5-15 actions with random preconditions,
adds, deletes, costs 0-3 and, in some, negative preconditions and conditional effects.
Ground truth is computed here independently: h* by a backward Dijkstra over the explicit
reachable state space, h_max/h_add by a naive Bellman-Ford fixpoint over the relaxation.
The helpers are shared with ``test_search.py``.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterator

import pytest

from xaip.errors import InputError
from xaip.planning.heuristics import (
    ADMISSIBLE,
    HFF,
    Blind,
    LMCut,
    make_heuristic,
)
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, GroundAction, Task, bits, mask_of

INF = math.inf

# ----------------------------------------------------------------------------- helpers


def _subset(rng: random.Random, n: int, low: int, high: int) -> int:
    return mask_of(rng.sample(range(n), rng.randint(low, min(high, n))))


def random_task(
    seed: int,
    costs: tuple[int, ...] = (0, 1, 1, 2, 3),
    conditional: bool | None = None,
    negative: bool | None = None,
) -> Task:
    """A random task; ``conditional``/``negative`` default to a coin flip per task."""
    rng = random.Random(seed)
    n = rng.randint(5, 10)
    if conditional is None:
        conditional = rng.random() < 0.3
    if negative is None:
        negative = rng.random() < 0.3
    actions = []
    for i in range(rng.randint(5, 15)):
        pre = _subset(rng, n, 0, 3)
        neg_pre = _subset(rng, n, 0, 1) & ~pre if negative and rng.random() < 0.4 else 0
        effects: list[ConditionalEffect] = []
        if conditional and rng.random() < 0.5:
            for _ in range(rng.randint(1, 2)):
                effects.append(
                    ConditionalEffect(
                        cond_pos=_subset(rng, n, 1, 2),
                        cond_neg=_subset(rng, n, 0, 1) if negative else 0,
                        add=_subset(rng, n, 0, 2),
                        delete=_subset(rng, n, 0, 1),
                    )
                )
        actions.append(
            GroundAction(
                schema=f"a{i}",
                args=(),
                pre=pre,
                add=_subset(rng, n, 1, 3),
                delete=_subset(rng, n, 0, 2),
                cost=rng.choice(costs),
                neg_pre=neg_pre,
                conditional=tuple(effects),
            )
        )
    return Task(
        name=f"random-{seed}",
        facts=tuple(Atom("p", (str(i),)) for i in range(n)),
        actions=tuple(actions),
        init=_subset(rng, n, 1, 4),
        goal=_subset(rng, n, 1, 3),
        goal_neg=_subset(rng, n, 0, 1) if negative and rng.random() < 0.3 else 0,
    )


def successors(task: Task, state: int) -> Iterator[tuple[int, int, int]]:
    """(action index, successor, cost), by the task's own semantics."""
    for index, action in enumerate(task.actions):
        if action.applicable(state):
            yield index, action.apply(state), action.cost


def reachable(task: Task) -> set[int]:
    seen = {task.init}
    stack = [task.init]
    while stack:
        state = stack.pop()
        for _, child, _ in successors(task, state):
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def goal_distances(task: Task) -> dict[int, float]:
    """h* of every reachable state (inf for dead ends), by backward Dijkstra."""
    states = reachable(task)
    reverse: dict[int, list[tuple[int, int]]] = {s: [] for s in states}
    for state in states:
        for _, child, cost in successors(task, state):
            reverse[child].append((state, cost))
    distance: dict[int, float] = dict.fromkeys(states, INF)
    heap = [(0, s) for s in states if task.is_goal(s)]
    for _, s in heap:
        distance[s] = 0
    heapq.heapify(heap)
    while heap:
        d, state = heapq.heappop(heap)
        if d > distance[state]:
            continue
        for before, cost in reverse[state]:
            if d + cost < distance[before]:
                distance[before] = d + cost
                heapq.heappush(heap, (d + cost, before))
    return distance


def reference_relaxed(task: Task, state: int, additive: bool) -> float:
    """h_max / h_add by the textbook fixpoint (conditional effects as extra operators)."""
    ops = []
    for action in task.actions:
        ops.append((action.pre, action.add, action.cost))
        for effect in action.conditional:
            ops.append((action.pre | effect.cond_pos, effect.add, action.cost))
    cost = [INF] * task.num_facts
    for fact in bits(state):
        cost[fact] = 0

    def combine(mask: int) -> float:
        values = [cost[f] for f in bits(mask)]
        if not values:
            return 0
        return sum(values) if additive else max(values)

    changed = True
    while changed:
        changed = False
        for pre, add, op_cost in ops:
            value = combine(pre) + op_cost
            for fact in bits(add):
                if value < cost[fact]:
                    cost[fact] = value
                    changed = True
    return combine(task.goal)


def relaxed_goal_reached(task: Task, state: int, plan: tuple[int, ...]) -> bool:
    """Execute ``plan`` under the delete relaxation (negative conditions ignored)."""
    for index in plan:
        action = task.actions[index]
        if state & action.pre != action.pre:
            return False
        add = action.add
        for effect in action.conditional:
            if state & effect.cond_pos == effect.cond_pos:
                add |= effect.add
        state |= add
    return state & task.goal == task.goal


SEEDS = range(120)

# ----------------------------------------------------------------------------- tests


@pytest.mark.parametrize("seed", SEEDS)
def test_relaxation_heuristics_match_reference_and_bound_h_star(seed: int) -> None:
    task = random_task(seed)
    hstar = goal_distances(task)
    hmax = make_heuristic("hmax", task)
    hadd = make_heuristic("hadd", task)
    hff = make_heuristic("hff", task)
    lmcut = make_heuristic("lmcut", task)
    blind = make_heuristic("blind", task)
    for state in sorted(hstar):
        goal_pos_holds = state & task.goal == task.goal
        expected_max = 0 if goal_pos_holds else reference_relaxed(task, state, additive=False)
        expected_add = 0 if goal_pos_holds else reference_relaxed(task, state, additive=True)
        assert hmax(state) == expected_max
        assert hadd(state) == expected_add
        value_ff = hff(state)
        value_lm = lmcut(state)
        # dead ends: all relaxation heuristics agree, and they are real dead ends
        assert (value_ff == INF) == (value_lm == INF) == (expected_max == INF)
        if expected_max == INF:
            assert hstar[state] == INF
            continue
        # admissibility and dominance: hmax <= lmcut <= h*, blind <= h*
        assert expected_max <= value_lm <= hstar[state]
        assert blind(state) <= hstar[state]
        assert expected_max <= value_ff <= expected_add or task.has_conditional_effects()


@pytest.mark.parametrize("seed", SEEDS)
def test_lmcut_without_conditional_effects_often_beats_hmax(seed: int) -> None:
    """LM-cut >= h_max on every reachable state; on conditional tasks it equals h_max."""
    task = random_task(seed, conditional=seed % 4 == 0)
    hmax = make_heuristic("hmax", task)
    lmcut = make_heuristic("lmcut", task)
    for state in sorted(reachable(task)):
        if task.has_conditional_effects():
            assert lmcut(state) == hmax(state)
        else:
            assert lmcut(state) >= hmax(state)


def test_lmcut_strictly_better_than_hmax_somewhere() -> None:
    """Guards against LM-cut silently degenerating into h_max."""
    better = 0
    for seed in SEEDS:
        task = random_task(seed, conditional=False)
        hmax = make_heuristic("hmax", task)
        lmcut = make_heuristic("lmcut", task)
        better += sum(lmcut(s) > hmax(s) for s in reachable(task))
    assert better > 10


@pytest.mark.parametrize("seed", SEEDS)
def test_hff_relaxed_plan_is_a_relaxed_plan(seed: int) -> None:
    task = random_task(seed)
    hff = make_heuristic("hff", task)
    assert isinstance(hff, HFF)
    for state in sorted(reachable(task)):
        plan = hff.relaxed_plan(state)
        if plan is None:
            assert hff(state) == INF
            continue
        if not task.has_conditional_effects():
            assert len(set(plan)) == len(plan)
        assert relaxed_goal_reached(task, state, plan)
        assert hff(state) == sum(task.actions[i].cost for i in set(plan))
        helpful = hff.helpful_actions(state)
        assert set(helpful) <= set(plan)
        assert all(task.actions[i].applicable(state) for i in helpful)
        if plan and not task.has_negative_conditions():
            assert helpful  # the first relaxed-plan step is applicable


def _task(facts: int, actions: list[GroundAction], init: int, goal: int) -> Task:
    return Task(
        name="hand",
        facts=tuple(Atom(f"f{i}") for i in range(facts)),
        actions=tuple(actions),
        init=init,
        goal=goal,
    )


def _act(name: str, pre: int, add: int, cost: int = 1, delete: int = 0) -> GroundAction:
    return GroundAction(name, (), pre=pre, add=add, delete=delete, cost=cost)


def test_lmcut_hand_computed_values() -> None:
    # Two independent goals, each needs one action of cost 2 or 3: hmax 3, lmcut 5 = h*.
    task = _task(3, [_act("a", 0b1, 0b010, 2), _act("b", 0b1, 0b100, 3)], 0b1, 0b110)
    assert make_heuristic("hmax", task)(task.init) == 3
    assert make_heuristic("lmcut", task)(task.init) == 5
    assert make_heuristic("hadd", task)(task.init) == 5
    assert make_heuristic("hff", task)(task.init) == 5


def test_lmcut_with_zero_cost_actions() -> None:
    # f0 -(0)-> f1 -(2)-> f2 -(0)-> f3 (goal), or {f0, f1} -(1)-> f4 -(0)-> f3, and a
    # zero-cost loop back to f0: h* = 1. Zero-cost edges must not yield empty cuts or loops.
    actions = [
        _act("z1", 0b00001, 0b00010, 0),
        _act("c2", 0b00010, 0b00100, 2),
        _act("z3", 0b00100, 0b01000, 0),
        _act("c1", 0b00011, 0b10000, 1),
        _act("z4", 0b10000, 0b01000, 0),
        _act("loop", 0b01000, 0b00001, 0),
    ]
    task = _task(5, actions, 0b00001, 0b01000)
    lmcut = make_heuristic("lmcut", task)
    hstar = goal_distances(task)
    assert hstar[task.init] == 1
    assert lmcut(task.init) == 1
    # all-zero-cost task: h is 0 but finite everywhere reachable
    free = _task(3, [_act("x", 0b001, 0b010, 0), _act("y", 0b010, 0b100, 0)], 0b001, 0b100)
    assert make_heuristic("lmcut", free)(free.init) == 0
    assert make_heuristic("hmax", free)(free.init) == 0


def test_lmcut_dead_end_and_empty_precondition() -> None:
    task = _task(3, [_act("a", 0, 0b010, 1), _act("b", 0b100, 0b001, 1)], 0, 0b011)
    assert make_heuristic("lmcut", task)(task.init) == INF
    task = _task(3, [_act("a", 0, 0b010, 1), _act("b", 0, 0b001, 4)], 0, 0b011)
    assert make_heuristic("lmcut", task)(task.init) == 5


def test_negative_goals_and_preconditions_are_relaxed_away() -> None:
    action = GroundAction("a", (), pre=0b01, add=0b10, delete=0, cost=1, neg_pre=0b01)
    task = Task("neg", (Atom("f0"), Atom("f1")), (action,), init=0b01, goal=0b10, goal_neg=0b01)
    # relaxed: a is applicable, so h = 1; really a is never applicable: h* = inf
    for name in ("hmax", "hadd", "hff", "lmcut"):
        assert make_heuristic(name, task)(task.init) == 1
    assert goal_distances(task)[task.init] == INF
    # positive goal holds but the negative one does not: relaxations say 0, blind says 1
    at_goal = Task("neg2", task.facts, (action,), init=0b11, goal=0b10, goal_neg=0b01)
    assert make_heuristic("lmcut", at_goal)(at_goal.init) == 0
    assert make_heuristic("blind", at_goal)(at_goal.init) == 1


def test_blind_and_factory() -> None:
    task = random_task(3)
    blind = make_heuristic("blind", task)
    assert isinstance(blind, Blind)
    cheapest = min(a.cost for a in task.actions)
    for state in reachable(task):
        assert blind(state) == (0 if task.is_goal(state) else cheapest)
    assert isinstance(make_heuristic("lmcut", task), LMCut)
    assert {"blind", "hmax", "lmcut"} == ADMISSIBLE
    with pytest.raises(InputError, match="unknown heuristic"):
        make_heuristic("hgc", task)
