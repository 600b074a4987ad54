"""Delete-relaxation heuristics h_max, h_add and h_FF over one shared relaxed exploration.

Why one module: the three heuristics differ only in how an operator combines the costs of
its preconditions (``max`` or ``sum``) and in what is read off at the end (the goal cost, or
a relaxed plan extracted through best supporters). They share the compiled
:class:`RelaxedTask` and a generalised Dijkstra exploration (Knuth's algorithm for
superior functions: ``max`` and ``+`` over non-negative costs are monotone, so facts are
settled in non-decreasing cost order and the exploration can stop as soon as the last goal
fact is settled).

What the relaxation ignores, and why this keeps ``inf`` a sound dead-end test:

* delete effects (the classic delete relaxation);
* negative preconditions, negative effect conditions and negative goals (``goal_neg``):
  dropping a condition only makes more actions applicable, so relaxed reachability still
  over-approximates real reachability and h_max stays admissible;
* a conditional effect becomes its own *unary operator* whose precondition is the action's
  precondition plus the effect condition and whose cost is the full action cost. h_max and
  h_add charge the cost per operator; h_FF counts each action at most once in its relaxed
  plan however many of its effects the plan uses.

* an axiom (derived predicate) becomes a zero-cost operator whose precondition is its
  positive body; its negative body is ignored like any negative condition. Its operators
  have ``op_action`` ``-1`` and never appear in a relaxed plan's actions.

Operators with nothing new to add (adds minus preconditions) are dropped: they never help a
relaxed plan.
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

from xaip.errors import BudgetExhausted
from xaip.planning.task import Task, bits
from xaip.runtime.budget import BudgetClock

INF = math.inf


@dataclass(frozen=True)
class RelaxedTask:
    """A task compiled for relaxed exploration (built once per task, reused for every state).

    ``pre_of[f]`` lists the operators that have ``f`` as a precondition; exploration keeps a
    per-operator counter of unsatisfied preconditions, so every (fact, operator) pair is
    touched once per state instead of rescanning all operators until a fixpoint.
    """

    num_facts: int
    op_pre: tuple[tuple[int, ...], ...]
    op_add: tuple[tuple[int, ...], ...]
    op_cost: tuple[int, ...]
    op_action: tuple[int, ...]
    op_npre: tuple[int, ...]
    pre_of: tuple[tuple[int, ...], ...]
    no_pre_ops: tuple[int, ...]
    goal: tuple[int, ...]
    goal_mask: int

    @classmethod
    def from_task(cls, task: Task) -> RelaxedTask:
        op_pre: list[tuple[int, ...]] = []
        op_add: list[tuple[int, ...]] = []
        op_cost: list[int] = []
        op_action: list[int] = []

        def add_op(action_id: int, pre: int, add: int, cost: int) -> None:
            add &= ~pre  # a fact that must already hold is never newly achieved
            if not add:
                return
            op_pre.append(tuple(bits(pre)))
            op_add.append(tuple(bits(add)))
            op_cost.append(cost)
            op_action.append(action_id)

        for index, action in enumerate(task.actions):
            add_op(index, action.pre, action.add, action.cost)
            for effect in action.conditional:
                add_op(index, action.pre | effect.cond_pos, effect.add, action.cost)
        for axiom in task.axioms:
            add_op(-1, axiom.pos, 1 << axiom.head, 0)

        pre_of: list[list[int]] = [[] for _ in range(task.num_facts)]
        for op, pre in enumerate(op_pre):
            for fact in pre:
                pre_of[fact].append(op)
        return cls(
            num_facts=task.num_facts,
            op_pre=tuple(op_pre),
            op_add=tuple(op_add),
            op_cost=tuple(op_cost),
            op_action=tuple(op_action),
            op_npre=tuple(len(pre) for pre in op_pre),
            pre_of=tuple(tuple(ops) for ops in pre_of),
            no_pre_ops=tuple(op for op, pre in enumerate(op_pre) if not pre),
            goal=tuple(bits(task.goal)),
            goal_mask=task.goal,
        )

    @property
    def num_ops(self) -> int:
        return len(self.op_pre)


@dataclass
class Exploration:
    """The outcome of one relaxed exploration from one state.

    ``cost[f]`` is the fact's h_max/h_add cost (``inf`` if relaxed-unreachable or not
    settled before the exploration stopped; facts costlier than the last goal fact may be
    unsettled). ``supporter[f]`` is the operator that achieved ``f`` at that cost (``-1`` for
    facts of the state); ``stamp[op]`` orders operators by when they became applicable,
    which is a valid relaxed execution order.
    """

    cost: list[float]
    supporter: list[int] | None
    stamp: list[int] | None


def explore(
    rt: RelaxedTask,
    state: int,
    additive: bool,
    supporters: bool = False,
    stop_at_goal: bool = True,
) -> Exploration:
    """Relaxed exploration from ``state`` combining precondition costs by ``sum`` or ``max``.

    Heap entries are single ints ``cost * stride + fact`` (integer action costs), which
    compare faster than tuples.
    """
    num_facts = rt.num_facts
    stride = 1 << max(1, num_facts.bit_length())
    mask = stride - 1
    shift = stride.bit_length() - 1
    cost: list[float] = [INF] * num_facts
    unsat = list(rt.op_npre)
    acc = [0] * len(unsat)
    op_add = rt.op_add
    op_cost = rt.op_cost
    pre_of = rt.pre_of
    supporter: list[int] | None = [-1] * num_facts if supporters else None
    stamp: list[int] | None = [0] * len(unsat) if supporters else None
    clock = 0
    heap: list[int] = []
    push = heapq.heappush
    pop = heapq.heappop

    for fact in bits(state):
        cost[fact] = 0
        heap.append(fact)  # ascending keys: already a valid heap
    for op in rt.no_pre_ops:
        value = op_cost[op]
        if stamp is not None:
            clock += 1
            stamp[op] = clock
        for fact in op_add[op]:
            if value < cost[fact]:
                cost[fact] = value
                if supporter is not None:
                    supporter[fact] = op
                push(heap, value * stride + fact)

    goal_left = {fact for fact in rt.goal if not (state >> fact) & 1} if stop_at_goal else None
    if goal_left is not None and not goal_left:
        return Exploration(cost, supporter, stamp)

    while heap:
        key = pop(heap)
        fact = key & mask
        value = key >> shift
        if value > cost[fact]:
            continue
        if goal_left is not None:
            goal_left.discard(fact)
            if not goal_left:
                break
        for op in pre_of[fact]:
            if additive:
                acc[op] += value
            elif value > acc[op]:
                acc[op] = value
            unsat[op] -= 1
            if unsat[op]:
                continue
            if stamp is not None:
                clock += 1
                stamp[op] = clock
            new = acc[op] + op_cost[op]
            for added in op_add[op]:
                if new < cost[added]:
                    cost[added] = new
                    if supporter is not None:
                        supporter[added] = op
                    push(heap, new * stride + added)
    return Exploration(cost, supporter, stamp)


def check_clock(clock: BudgetClock | None, name: str) -> None:
    """Raise :class:`BudgetExhausted` once ``clock``'s deadline has passed.

    Why here and not only in the search: one evaluation explores the whole relaxed task, and
    a search evaluates every child of an expansion before charging the next node, so on a
    large task the time between two charges can be many seconds.
    """
    if clock is not None and not clock.tick():
        raise BudgetExhausted(f"budget exhausted while evaluating {name}", phase="search")


class HMax:
    """h_max (Bonet & Geffner 2001): the costliest goal fact under the relaxation. Admissible."""

    name = "hmax"
    admissible = True

    def __init__(self, task: Task, relaxed: RelaxedTask | None = None,
                 clock: BudgetClock | None = None) -> None:
        self.relaxed = relaxed or RelaxedTask.from_task(task)
        self.clock = clock

    def __call__(self, state: int) -> float:
        rt = self.relaxed
        if state & rt.goal_mask == rt.goal_mask:
            return 0
        check_clock(self.clock, self.name)
        cost = explore(rt, state, additive=False).cost
        return max(cost[fact] for fact in rt.goal)


class HAdd:
    """h_add: the sum of goal-fact costs, counting shared sub-plans repeatedly. Inadmissible,
    but more informative than h_max for greedy search."""

    name = "hadd"
    admissible = False

    def __init__(self, task: Task, relaxed: RelaxedTask | None = None,
                 clock: BudgetClock | None = None) -> None:
        self.relaxed = relaxed or RelaxedTask.from_task(task)
        self.clock = clock

    def __call__(self, state: int) -> float:
        rt = self.relaxed
        if state & rt.goal_mask == rt.goal_mask:
            return 0
        check_clock(self.clock, self.name)
        cost = explore(rt, state, additive=True).cost
        return sum(cost[fact] for fact in rt.goal)


class HFF:
    """h_FF (Hoffmann & Nebel 2001): the cost of a relaxed plan extracted from h_add best
    supporters (as in Fast Downward's ``ff()``), counting each action once. Inadmissible.

    Besides the value, :meth:`relaxed_plan` returns the plan itself and
    :meth:`helpful_actions` the plan's actions applicable in the state (FF's helpful
    actions / preferred operators), which enforced hill-climbing uses to prune successors.
    """

    name = "hff"
    admissible = False

    def __init__(self, task: Task, relaxed: RelaxedTask | None = None,
                 clock: BudgetClock | None = None) -> None:
        self.task = task
        self.clock = clock
        self.relaxed = relaxed or RelaxedTask.from_task(task)
        self._costs = tuple(action.cost for action in task.actions)

    def relaxed_plan(self, state: int) -> tuple[int, ...] | None:
        """Indices (into ``task.actions``) of a relaxed plan from ``state``, in an order that
        is executable under the relaxation; ``None`` when the goal is relaxed-unreachable.

        Each unary operator used appears at the position where the exploration found it
        applicable, so an action whose relaxed plan uses several of its conditional effects
        appears once per effect (their conditions may only hold at different times); the
        heuristic value still charges each action once, as FF does.
        """
        rt = self.relaxed
        if state & rt.goal_mask == rt.goal_mask:
            return ()
        check_clock(self.clock, self.name)
        found = explore(rt, state, additive=True, supporters=True)
        cost, supporter, stamp = found.cost, found.supporter, found.stamp
        assert supporter is not None and stamp is not None
        if any(cost[fact] == INF for fact in rt.goal):
            return None
        used: set[int] = set()
        op_pre = rt.op_pre
        seen = state
        stack = [fact for fact in rt.goal if not (state >> fact) & 1]
        for fact in stack:
            seen |= 1 << fact
        while stack:
            op = supporter[stack.pop()]
            used.add(op)
            for pre in op_pre[op]:
                if not (seen >> pre) & 1:
                    seen |= 1 << pre
                    stack.append(pre)
        op_action = rt.op_action
        return tuple(op_action[op] for op in sorted(used, key=stamp.__getitem__)
                     if op_action[op] >= 0)

    def helpful_actions(self, state: int) -> tuple[int, ...]:
        """Relaxed-plan actions applicable in ``state`` (empty at dead ends and goals)."""
        plan = self.relaxed_plan(state)
        if not plan:
            return ()
        actions = self.task.actions
        return tuple(a for a in plan if actions[a].applicable(state))

    def evaluate(self, state: int) -> tuple[float, tuple[int, ...] | None]:
        """The heuristic value together with the relaxed plan it counts."""
        plan = self.relaxed_plan(state)
        if plan is None:
            return INF, None
        costs = self._costs
        return sum(costs[a] for a in set(plan)), plan

    def __call__(self, state: int) -> float:
        return self.evaluate(state)[0]
