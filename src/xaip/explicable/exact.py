"""The checkers' own optimum: the lowest ``(IE, robot cost)`` over the robot's plans, computed
from the definitions without the planner's searches.

Why a module of its own: the explicable checker (:mod:`xaip.explicable.checks`) and the
design checker (:mod:`xaip.explicable.design_check`) both need the true optimum of a task,
and both must reach it by code that does not share the search that found the answer. Every
function here (but :func:`cheapest` on large tasks) is plain Python written for the checker
(its own applicability index, no plan enumeration of :mod:`xaip.planning.search`; the one
heuristic is the certified LM-cut of :mod:`xaip.explicable.bounds`, a lower bound whose
every value the core's certificate checker verified) and charges one node per expansion
to the clock it is given; running out raises :class:`~xaip.errors.BudgetExhausted`,
which :func:`xaip.contract.run_checker` turns into "unverified: checker budget".

What a plan is (as in :mod:`xaip.planning.search.enumerate`): an action sequence executable
from the initial state that ends in a goal state and does not pass through a goal state
before its end. A plan's cost sums the grounded action costs, which the grounder prices by
:func:`xaip.planning.semantics.counts_action_costs` of that model's domain and problem.

* :func:`cheapest` -- ``C*`` by uniform-cost search: the checker's own for small tasks,
  the planning core's compiled one for large tasks (the one place a checker calls a
  planner: another search than the planner's A* with LM-cut in pure Python).
* :func:`goal_distances` -- exact goal distances of every state on a plan within a bound
  (a forward sweep within the bound, pruned where ``g`` plus the certified LM-cut exceeds
  the bound, then a backward sweep from the goal states): the proper lower bound that
  makes :func:`plans_within` enumerate plans, never dead prefixes, so its work is
  proportional to the plans it lists.
* :func:`joint_front` -- the plans valid in both models, as a bi-objective label-setting
  search over product states ``(s_R, s_H)`` with labels ``(person's cost, robot cost)``:
  every label no other label at its state dominates, so a robot cost bound and any
  increasing mapping ``F`` are exact (the planner's product search instead puts the robot's
  cost into the state and keeps one label).
* :func:`best_key` -- the optimum ``(IE, robot cost)`` and a plan reaching it, per distance.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from xaip.errors import BudgetExhausted
from xaip.explicable.bounds import LowerBound, certified_bound, zero
from xaip.explicable.distances import DistanceParams, PlanTrace, trace_distance, trace_of
from xaip.explicable.problem import ExplicableProblem
from xaip.planning.task import GroundAction, State, Task
from xaip.runtime.budget import BudgetClock

INF = math.inf
Plan = tuple[GroundAction, ...]


class InfinitelyManyPlans(Exception):
    """A cycle of zero-cost actions lies on plans within the bound: no finite listing."""


def _charge(clock: BudgetClock) -> None:
    if not clock.charge():
        raise BudgetExhausted("the checker ran out of its budget", phase="check",
                              sizes={"nodes": clock.nodes})


def _path(parent: dict[State, tuple[State, GroundAction] | None], state: State) -> Plan:
    out = []
    link = parent[state]
    while link is not None:
        state, action = link
        out.append(action)
        link = parent[state]
    return tuple(reversed(out))


class Applicable:
    """The checker's own applicability test, indexed: each action filed under one of its
    precondition facts (actions without one are always tried), so a state looks only at
    the actions filed under its true facts. Plain Python, no code of the planner's
    successor generators."""

    def __init__(self, task: Task) -> None:
        self.free: list[GroundAction] = []
        self.by_fact: dict[int, list[GroundAction]] = {}
        for action in task.actions:
            if action.pre:
                lowest = (action.pre & -action.pre).bit_length() - 1
                self.by_fact.setdefault(lowest, []).append(action)
            else:
                self.free.append(action)

    def __call__(self, state: State) -> Iterator[GroundAction]:
        for action in self.free:
            if action.applicable(state):
                yield action
        rest = state
        while rest:
            low = rest & -rest
            for action in self.by_fact.get(low.bit_length() - 1, ()):
                if action.applicable(state):
                    yield action
            rest ^= low


_APPLICABLE: dict[int, tuple[Task, Applicable]] = {}


def applicable(task: Task) -> Applicable:
    """The index of ``task`` (kept for the few tasks a check visits)."""
    known = _APPLICABLE.get(id(task))
    if known is None or known[0] is not task:
        if len(_APPLICABLE) > 32:
            _APPLICABLE.clear()
        known = _APPLICABLE[id(task)] = (task, Applicable(task))
    return known[1]


#: ``C*`` of a large task comes from the checkers' proof search
#: (:mod:`xaip.planning.proofs`: the compiled core's A* with the *certified* LM-cut, whose
#: every cut is verified by ``certify.c``; h^max without the core). The planner uses A* with
#: the pure-Python LM-cut: another implementation, whose values the checker never reads.


#: Below this many actions the checker's own uniform-cost search is quicker than handing the
#: task to the compiled core.
SMALL_TASK = 60


def relaxed_reachable(task: Task) -> bool:
    """Is the goal reachable when deletes are ignored? ``False`` proves the task has no plan
    (a cheap proof where a search would sweep every state). Tasks with derived facts are
    not judged (``True``)."""
    if task.axioms or task.derived:
        return True
    reached = task.init
    while True:
        grown = reached
        for action in task.actions:
            if action.pre & grown == action.pre:
                grown |= action.add
                for effect in action.conditional:
                    grown |= effect.add
        if grown & task.goal == task.goal:
            return True
        if grown == reached:
            return False
        reached = grown


def cheapest(task: Task, clock: BudgetClock) -> tuple[int, Plan] | None:
    """``C*`` and an optimal plan (``None``: no plan): the checker's own uniform-cost search
    on small tasks, the checkers' proof search (:mod:`xaip.planning.proofs`) on large ones."""
    if not task.is_goal(task.init) and not relaxed_reachable(task):
        return None
    if len(task.actions) < SMALL_TASK:
        return _uniform_cost(task, clock)
    from xaip.planning.engines import get_engine
    from xaip.planning.proofs import CHECK_ALGORITHM, check_heuristic
    from xaip.runtime import Status

    if not clock.tick():
        raise BudgetExhausted("the checker ran out of its budget", phase="check")
    found = get_engine("default", search=CHECK_ALGORITHM,
                       heuristic=check_heuristic("default")).solve(
        task, optimal=True, budget=clock.remaining())
    clock.charge(max(0, found.expanded))
    if found.status == Status.BUDGET_EXHAUSTED:
        raise BudgetExhausted("the checker ran out of its budget", phase="check")
    if found.status != Status.SOLVED or found.cost is None:
        return None
    return int(found.cost), tuple(found.plan)


def _uniform_cost(task: Task, clock: BudgetClock) -> tuple[int, Plan] | None:
    """The checker's own uniform-cost search (small tasks)."""
    queue: list[tuple[int, int, State]] = [(0, 0, task.init)]
    best = {task.init: 0}
    parent: dict[State, tuple[State, GroundAction] | None] = {task.init: None}
    scan = applicable(task)
    tie = 0
    while queue:
        g, _, state = heapq.heappop(queue)
        if g > best[state]:
            continue
        if task.is_goal(state):
            return g, _path(parent, state)
        _charge(clock)
        for action in scan(state):
            child, cost = action.apply(state), g + action.cost
            if cost < best.get(child, INF):
                best[child] = cost
                parent[child] = (state, action)
                tie += 1
                heapq.heappush(queue, (cost, tie, child))
    return None


def goal_distances(task: Task, bound: float, clock: BudgetClock,
                   lower: LowerBound | None = None) -> dict[State, int]:
    """``h*(s)`` for every state ``s`` on some plan of cost ``<= bound`` (goal states are
    the ends of plans, so they are not expanded).

    The forward sweep keeps a state only when ``g + lower(state) <= bound`` (default: the
    certified LM-cut of :mod:`xaip.explicable.bounds`, admissible, so every state on a plan
    within the bound is kept and the distances stay exact); without a bound on the cost
    still to come the sweep would hold every state of cost ``<= bound``."""
    if bound == INF:
        lower = zero  # nothing to prune against
    elif lower is None:
        lower = certified_bound(task)
    if lower(task.init) > bound:
        return {}
    best = {task.init: 0}
    queue: list[tuple[int, State]] = [(0, task.init)]
    reverse: dict[State, list[tuple[State, int]]] = {}
    goals: list[State] = []
    done: set[State] = set()
    scan = applicable(task)
    while queue:
        g, state = heapq.heappop(queue)
        if state in done:
            continue
        done.add(state)
        if task.is_goal(state):
            goals.append(state)
            continue
        _charge(clock)
        for action in scan(state):
            child, cost = action.apply(state), g + action.cost
            if cost > bound or cost + lower(child) > bound:
                continue
            reverse.setdefault(child, []).append((state, action.cost))
            if cost < best.get(child, INF):
                best[child] = cost
                heapq.heappush(queue, (cost, child))
    distance: dict[State, int] = {}
    back = [(0, state) for state in goals]
    heapq.heapify(back)
    while back:
        d, state = heapq.heappop(back)
        if state in distance:
            continue
        distance[state] = d
        clock.tick()
        for before, cost in reverse.get(state, ()):
            if before not in distance:
                heapq.heappush(back, (d + cost, before))
    return {s: d for s, d in distance.items() if best.get(s, INF) + d <= bound}


def plans_within(task: Task, bound: float, clock: BudgetClock,
                 lower: LowerBound | None = None) -> Iterator[tuple[Plan, int]]:
    """Every plan of cost ``<= bound`` with its cost (depth-first, pruned by ``h*``;
    ``lower`` as for :func:`goal_distances`).

    Raises :class:`InfinitelyManyPlans` when a zero-cost cycle lies on such plans.
    """
    distance = goal_distances(task, bound, clock, lower)
    if task.init not in distance:
        return
    prefix: list[GroundAction] = []
    # Depth-first with an explicit stack of (state, cost, iterator, states since the last
    # positive-cost step): plans can be long, recursion is not.
    stack: list[tuple[State, int, Iterator[GroundAction], frozenset[State]]] = []

    scan = applicable(task)

    def push(state: State, g: int, loop: frozenset[State]) -> None:
        stack.append((state, g, scan(state), loop))

    if task.is_goal(task.init):
        yield (), 0
        return
    push(task.init, 0, frozenset((task.init,)))
    while stack:
        state, g, actions, loop = stack[-1]
        action = next(actions, None)
        if action is None:
            stack.pop()
            if prefix:
                prefix.pop()
            continue
        child = action.apply(state)
        rest = distance.get(child)
        cost = g + action.cost
        if rest is None or cost + rest > bound:
            continue
        _charge(clock)
        if task.is_goal(child):
            yield (*prefix, action), cost
            continue
        if action.cost == 0:
            if child in loop:
                raise InfinitelyManyPlans(task.format_state(child))
            next_loop = loop | {child}
        else:
            next_loop = frozenset((child,))
        prefix.append(action)
        push(child, cost, next_loop)


def optimal_plans(task: Task, clock: BudgetClock) -> tuple[int | None, list[Plan]]:
    """``C*`` and every optimal plan (``(None, [])``: the task has no plan)."""
    found = cheapest(task, clock)
    if found is None:
        return None, []
    return found[0], [plan for plan, _ in plans_within(task, found[0], clock)]


@dataclass(frozen=True)
class JointLabel:
    """A plan valid in both models: its cost for the person and for the robot."""

    human_cost: int
    robot_cost: int
    plan: Plan


def _human_variants(robot: Task, human: Task) -> dict[int, tuple[GroundAction, ...]]:
    """For each robot action (by ``id``), the person's actions of the same name in index
    order: the first applicable one is her move, as a plan file's step is read
    (:func:`xaip.explicable.problem.ground_plan`)."""
    return {id(action): tuple(human.actions[i] for i in human.action_index.get(action.name, ()))
            for action in robot.actions}


def joint_front(problem: ExplicableProblem, bound: float, clock: BudgetClock,
                first_only: bool) -> list[JointLabel]:
    """Plans valid in both models with robot cost ``<= bound``: the non-dominated
    ``(person's cost, robot cost)`` pairs at the ends of plans, in lexicographic order
    (with ``first_only``, just the lexicographically least one)."""
    robot, human = problem.robot_task, problem.human_task
    Node = tuple[State, State]
    # label records: (node, parent record index, action); the heap holds (hc, rc, index).
    records: list[tuple[Node, int, GroundAction | None]] = [((robot.init, human.init), -1,
                                                              None)]
    heap: list[tuple[int, int, int]] = [(0, 0, 0)]
    settled_rc: dict[Node, int] = {}
    out: list[JointLabel] = []
    # Without a bound the first label at a node is the only one that can end a
    # lexicographically least plan (the same suffix follows every label).
    single = first_only and bound == INF
    scan = applicable(robot)
    variants = _human_variants(robot, human)
    while heap:
        hc, rc, index = heapq.heappop(heap)
        node = records[index][0]
        if rc >= settled_rc.get(node, INF) or (single and node in settled_rc):
            continue  # dominated: a label popped earlier has no larger cost on either side
        settled_rc[node] = rc
        s_r, s_h = node
        if robot.is_goal(s_r):
            if human.is_goal(s_h):
                out.append(JointLabel(hc, rc, _label_plan(records, index)))
                if first_only:
                    return out
            continue
        _charge(clock)
        for action in scan(s_r):
            if rc + action.cost > bound:
                continue
            theirs = next((h for h in variants[id(action)] if h.applicable(s_h)), None)
            if theirs is None:
                continue
            child = (action.apply(s_r), theirs.apply(s_h))
            next_rc = rc + action.cost
            if next_rc >= settled_rc.get(child, INF):
                continue
            records.append((child, index, action))
            heapq.heappush(heap, (hc + theirs.cost, next_rc, len(records) - 1))
    return out


def _label_plan(records: list[tuple[tuple[State, State], int, GroundAction | None]],
                index: int) -> Plan:
    out = []
    while index > 0:
        _, parent, action = records[index]
        assert action is not None
        out.append(action)
        index = parent
    return tuple(reversed(out))


@dataclass(frozen=True)
class Optimum:
    """The lowest ``(IE, robot cost)`` of a task within a bound and a plan reaching it
    (``plan`` ``None``: the robot has no plan within the bound)."""

    inexplicability: float
    robot_cost: int | None
    plan: Plan | None
    plans_scored: int


#: The mappings known to be strictly increasing on [0, inf): with them the cheapest joint
#: plan for the person is the most explicable one, so the front can stop at its first label.
Mapping = Callable[[float], float]


def best_key(problem: ExplicableProblem, distance: str, bound: float,
             expected: Sequence[Plan], human_optimum: int | None, mapping: Mapping,
             weights: DistanceParams, clock: BudgetClock, strictly_increasing: bool
             ) -> Optimum:
    """The optimum over the robot's plans of cost ``<= bound`` (``inf``: no bound) of
    ``(F(min over expected plans of δ), robot cost)``."""
    robot = problem.robot_task
    if distance == "cost":
        front = ([] if human_optimum is None else
                 joint_front(problem, bound, clock, first_only=strictly_increasing))
        best: tuple[tuple[float, int], Plan] | None = None
        for label in front:
            key = (mapping(float(label.human_cost - human_optimum)),  # type: ignore[operator]
                   label.robot_cost)
            if best is None or key < best[0]:
                best = (key, label.plan)
        if best is not None:
            return Optimum(best[0][0], best[0][1], best[1], len(front))
        found = cheapest(robot, clock)
        if found is None or found[0] > bound:
            return Optimum(INF, None, None, 0)
        return Optimum(INF, found[0], found[1], 1)
    if bound == INF:
        raise ValueError("trace distances need a robot cost bound")
    traces = [trace_of(problem.human_task, plan) for plan in expected]
    ranked: tuple[tuple[float, int], float, Plan] | None = None
    count = 0
    for plan, cost in plans_within(robot, bound, clock):
        count += 1
        value = score_trace(robot, plan, traces, distance, mapping, weights)
        key = (value if math.isinf(value) else round(value, 9), cost)
        if ranked is None or key < ranked[0]:
            ranked = (key, value, plan)
    if ranked is None:
        return Optimum(INF, None, None, 0)
    return Optimum(ranked[1], ranked[0][1], ranked[2], count)


def score_trace(robot: Task, plan: Sequence[GroundAction], traces: Sequence[PlanTrace],
                distance: str, mapping: Mapping, weights: DistanceParams) -> float:
    """``F(min over expected traces of δ)`` for a robot plan (``inf`` with no expected
    plan)."""
    if not traces:
        return INF
    own = trace_of(robot, plan)
    return mapping(min(trace_distance(distance, own, other, weights) for other in traces))
