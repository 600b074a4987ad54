"""The checker's proof that no pair beats a balanced-planning answer (its optimality claim).

Why a separate proof: both searches claim the *best* pair ``(π, E)`` for their objective;
re-deriving the answer's own numbers (:mod:`xaip.balanced.check`) does not show that no
other pair is better, and a claim the checker does not check must not be made.

How (shares neither the product-model planner, nor the engines' A*, nor MEGA*'s
compilation): for every edit set ``E`` whose lower bound could beat the answer's value
``V`` — ``α·C*_{M^R} + β·C(E) (+ γ·P(0))`` for ``balanced`` and ``explicable``, ``C(E)``
for ``explicable-optimal``, enumerated depth first in candidate order and cut where the
bound reaches ``V`` (bounds only grow along a branch, prices being non-negative) — the
person's model ``M^R_h + E`` is built (by the caller: the model space), its optimum
``C*_E`` found by this module's own A* (:func:`optimum`), and a *bi-objective
label-correcting search* over the product of the robot's and her grounded tasks (actions
matched by name, the robot's plans ending at its first goal state as the searches'
convention) keeps every label (robot cost, her cost) not dominated at its product state
and not cut by the bound. A label reaching both goals that scores below ``V`` refutes
the answer.

Why it scales: both searches prune with LM-cut of each task (admissible), one estimate
per edit set serving her ``C*_E`` and her side of the product search, the robot's built
once for every edit set. With h_max instead the proof took more than 60 s on 9 of the 12
logistics MRPs whose MEGA* answers came in 1–15 s (issue 21). Where her ``C*_E`` is hard
(more than :data:`EASY_EXPANSIONS` A* expansions) the product search first runs as if
``C*_E`` were infinite — a relaxation of every objective (the penalty at least ``P(0)``,
no optimality condition for her), so finding no pair there proves there is none and
``C*_E`` is never needed; otherwise ``C*_E`` is finished and the exact search runs.

What it shares with the search: what the caller passes (the checker: the model space's
tasks of her models), the planning core's successor generator and its LM-cut values (the
C core's, as MEGA*'s bounds; an LM-cut that overestimated would mislead both, which the
differential campaign against a brute-force oracle that uses no heuristic would catch),
the penalty and, when the person watches (B05), the belief update
:meth:`xaip.balanced.epistemic.Watcher.step`. Not shared: every search loop, the
pruning rules, the bookkeeping of labels. Everything runs on the caller's budget clock;
running out raises :class:`~xaip.errors.BudgetExhausted` (the caller reports
"unverified: checker budget").
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterator

from xaip.balanced.check_search import INF, Estimate, Unfinished, estimate, optimum
from xaip.balanced.objectives import BalancedProblem, Objective
from xaip.errors import BudgetExhausted, UnsupportedFeature
from xaip.planning.search.successors import Successors
from xaip.planning.task import GroundAction, State, Task
from xaip.runtime.budget import BudgetClock

_EPS = 1e-9

#: A* expansions after which her ``C*_E`` counts as hard: the proof then first tries the
#: relaxation that needs no ``C*_E`` (on logistics the relaxation costs more than ``C*_E``,
#: which LM-cut makes easy; on blocksworld d1/p4 three models need 10^5 expansions).
EASY_EXPANSIONS = 5_000
#: The grounded task of ``M^R_h + E`` for candidate indices ``E``.
HumanTask = Callable[[tuple[int, ...]], Task]


def refute(problem: BalancedProblem, value: float, robot: Task, robot_optimum: int,
           human_task: HumanTask, clock: BudgetClock) -> str:
    """A description of a pair scoring below ``value`` under ``problem.objective`` (empty:
    none exists). ``robot`` is a fresh grounding of the robot's model with optimum
    ``robot_optimum``."""
    costs = [float(c) for c in problem.edit_costs]
    robot_side = _Side(robot, clock)  # built once: every edit set pairs with this robot
    limit = value - _EPS * max(1.0, abs(value))

    def bound(cost: float) -> float:
        w = problem.weights
        if problem.objective is Objective.EXPLICABLE_OPTIMAL:
            return cost
        low = w.alpha * robot_optimum + w.beta * cost
        if problem.objective is Objective.BALANCED and w.gamma:
            low += w.gamma * problem.penalty(0)
        return low

    for subset, cost in _subsets(costs, lambda c: bound(c) < limit):
        if not clock.charge():
            raise BudgetExhausted("budget exhausted", phase="checking optimality")
        found = _best_in(problem, subset, cost, robot_side, robot_optimum, human_task,
                         limit, clock)
        if found is not None:
            told = ", ".join(str(i) for i in subset) or "nothing"
            return (f"a better pair exists: candidates [{told}] with the plan "
                    f"{' '.join(f'({s})' for s in found[1]) or '(empty)'} scores "
                    f"{round(found[0], 6)}, below the answer's {round(value, 6)}")
    return ""


def _subsets(costs: list[float], keep: Callable[[float], bool]
             ) -> Iterator[tuple[tuple[int, ...], float]]:
    """Every candidate subset whose price passes ``keep`` (monotone: a superset costs at
    least as much), depth first."""
    stack: list[tuple[tuple[int, ...], float]] = [((), 0.0)]
    while stack:
        subset, cost = stack.pop()
        if not keep(cost):
            continue
        yield subset, cost
        start = subset[-1] + 1 if subset else 0
        for index in range(len(costs) - 1, start - 1, -1):
            stack.append(((*subset, index), cost + costs[index]))


def _best_in(problem: BalancedProblem, subset: tuple[int, ...], cost_e: float,
             robot_side: _Side, robot_optimum: int, human_task: HumanTask, limit: float,
             clock: BudgetClock) -> tuple[float, tuple[str, ...]] | None:
    """A pair with edit set ``subset`` scoring below ``limit`` (value, plan), if any."""
    w, objective = problem.weights, problem.objective
    if objective is Objective.BALANCED and not w.gamma:
        # the penalty is ignored (0·∞ = 0): the robot's optimal plan pairs best
        value = w.alpha * robot_optimum + w.beta * cost_e
        return (value, ("<the robot's optimal plan>",)) if value < limit else None
    human = human_task(subset)
    if problem.learn_from_watching:
        # her final model depends on the plan (what she learns watching it): no shortcut
        # through her model for E alone; C* of each final model at the goal labels
        learning = _Learning(problem, robot_side.task, subset, human_task, clock)
        return _product(problem, cost_e, robot_side, robot_optimum, human,
                        estimate(human, clock), INF, limit, clock, learning)
    if not relaxed_reachable(human):
        return None  # no plan for her (not even ignoring deletes): infeasible, as below
    her_estimate = estimate(human, clock)
    try:
        best_h = optimum(human, her_estimate, clock, max_expansions=EASY_EXPANSIONS)
    except Unfinished:
        # A model hard to solve optimally: first the product search as if C*_E were
        # infinite (no penalty above P(0), no optimality condition for her). That is a
        # relaxation, so no pair there means no pair at all, and C*_E is not needed.
        if _product(problem, cost_e, robot_side, robot_optimum, human, her_estimate, INF,
                    limit, clock) is None:
            return None
        best_h = optimum(human, her_estimate, clock)
    if best_h is None:
        return None  # every plan is inexecutable for her: infinite penalty, infeasible
    return _product(problem, cost_e, robot_side, robot_optimum, human, her_estimate, best_h,
                    limit, clock)


def _product(problem: BalancedProblem, cost_e: float, robot_side: _Side, robot_optimum: int,
             human: Task, her_estimate: Estimate, best_h: float, limit: float,
             clock: BudgetClock, learning: _Learning | None = None
             ) -> tuple[float, tuple[str, ...]] | None:
    """The bi-objective product search: a pair with her model ``human`` (optimum
    ``best_h``; ``INF`` for the relaxation) scoring below ``limit``, if any. With
    ``learning`` her model changes along the plan (labels carry what she learned) and
    each complete pair is scored with ``C*`` of her final model; partial ones are
    pruned as by the relaxation."""
    w, objective = problem.weights, problem.objective
    step = _human_step(problem, robot_side.task, human)

    def score(g_r: float, g_h: float, best_h: float = best_h) -> float | None:
        """The objective of a complete pair, ``None`` when it is infeasible."""
        if objective is Objective.BALANCED:
            return w.alpha * g_r + w.beta * cost_e + w.gamma * problem.penalty(
                max(0, g_h - best_h))
        if g_h > best_h:
            return None
        if objective is Objective.EXPLICABLE:
            return w.alpha * g_r + w.beta * cost_e
        return cost_e if g_r == robot_optimum else None

    penalties: dict[float, float] = {}

    def penalty(g_h: float) -> float:
        """``γ·P(max(0, g_h − C*))``, memoised (costs are few distinct integers)."""
        found = penalties.get(g_h)
        if found is None:
            found = penalties[g_h] = w.gamma * problem.penalty(max(0, g_h - best_h))
        return found

    def hopeless(g_r: float, g_h: float) -> bool:
        """No extension of a partial plan with these costs can score below ``limit``."""
        if objective is Objective.BALANCED:
            return w.alpha * g_r + w.beta * cost_e + penalty(g_h) >= limit
        if g_h > best_h:
            return True
        if objective is Objective.EXPLICABLE:
            return w.alpha * g_r + w.beta * cost_e >= limit
        return g_r > robot_optimum

    robot, moves, h_robot = robot_side.task, robot_side.moves, robot_side.estimate
    # her watched beliefs may cost less than her model predicts: no estimate for her then
    h_human = None if problem.watched else her_estimate
    human_by_name: dict[str, list[GroundAction]] = {}
    for action in human.actions:
        human_by_name.setdefault(action.name, []).append(action)
    # her actions of each robot action's name, by the robot action's index
    hers = [human_by_name.get(action.name, []) for action in robot.actions]
    start = (robot.init, human.init, 0, 0)
    labels: dict[tuple[State, State, int, int], list[tuple[int, int]]] = {start: [(0, 0)]}
    Label = tuple[tuple[State, State, int, int], int, int]
    parents: dict[Label, tuple[Label, int] | None] = {(start, 0, 0): None}

    def plan_of(label: Label) -> tuple[str, ...]:
        names: list[str] = []
        at = parents[label]
        while at is not None:
            names.append(robot.actions[at[1]].name)
            at = parents[at[0]]
        return tuple(reversed(names))

    heap: list[tuple[int, int, int, tuple[State, State, int, int]]] = [(0, 0, 0, start)]
    counter = 0
    while heap:
        g_r, g_h, _, node = heapq.heappop(heap)
        if (g_r, g_h) not in labels.get(node, ()):
            continue  # dominated since it was queued
        if not clock.charge():
            raise BudgetExhausted("budget exhausted", phase="checking optimality")
        s_r, s_h, used, learned = node
        label = (node, g_r, g_h)
        if robot.is_goal(s_r):  # the robot's plan ends here (the searches' convention)
            if human.is_goal(s_h):
                if learning is None:
                    scored = score(g_r, g_h)
                else:
                    final = learning.optimum(learned)
                    scored = None if final is None else score(g_r, g_h, final)
                if scored is not None and scored < limit:
                    return scored, plan_of(label)
            continue
        options, now_step = hers, step
        if learning is not None:
            options, now_step = learning.side(learned)
        for index, next_r, _ in moves(s_r):
            action = robot.actions[index]
            next_learned = learned
            if learning is not None:
                next_learned |= learning.learner.step(action, s_r, next_r)
            for mine in options[index]:
                if not mine.applicable(s_h):
                    continue
                next_h, next_used = now_step(action, s_r, next_r, s_h, mine, used)
                r, h = g_r + action.cost, g_h + mine.cost
                if hopeless(r, h):
                    continue
                rest_r = h_robot(next_r)
                rest_h = 0.0 if h_human is None else h_human(next_h)
                if rest_r == INF or rest_h == INF or hopeless(r + rest_r, h + rest_h):
                    continue  # admissible estimates: no completion can score below V
                child = (next_r, next_h, next_used, next_learned)
                front = labels.setdefault(child, [])
                if any(a <= r and b <= h for a, b in front):
                    continue
                front[:] = [(a, b) for a, b in front if not (r <= a and h <= b)]
                front.append((r, h))
                parents[(child, r, h)] = (label, index)
                counter += 1
                heapq.heappush(heap, (r, h, counter, child))
    return None



def relaxed_reachable(task: Task) -> bool:
    """Is the goal reachable when deletes and negative conditions are ignored? (Necessary
    for a plan; cheaper than the optimal planner on the many edit sets without one.)"""
    # a conditional effect is an operator of its own: the action's and its conditions
    pending = [(a.pre, a.add) for a in task.actions]
    pending += [(a.pre | c.cond_pos, c.add) for a in task.actions for c in a.conditional]
    reached, grew = task.init, True
    while grew:
        grew, rest = False, []
        for pre, add in pending:
            if reached & pre == pre:
                grew = grew or bool(add & ~reached)
                reached |= add
            else:
                rest.append((pre, add))
        pending = rest
    return reached & task.goal == task.goal


class _Learning:
    """Her changing model in the proof when she learns from watching
    (:mod:`xaip.balanced.learning`): her task, successor table and belief update per
    learned set, and ``C*`` of each final model, all on top of the edit set ``told``."""

    def __init__(self, problem: BalancedProblem, robot: Task, told: tuple[int, ...],
                 human_task: HumanTask, clock: BudgetClock) -> None:
        from xaip.balanced.learning import Learner

        if not problem.space.compiled:
            raise UnsupportedFeature("learning from watching needs models whose actions "
                                     "are conjunctions of literals")
        self.problem, self.robot, self.told = problem, robot, told
        self.human_task, self.clock = human_task, clock
        self.learner = Learner(problem, robot)
        self._sides: dict[int, tuple[list[list[GroundAction]], Step]] = {}
        self._optima: dict[int, float | None] = {}

    def task(self, learned: int) -> Task:
        extra = {i for i in range(learned.bit_length()) if learned >> i & 1}
        return self.human_task(tuple(sorted(set(self.told) | extra)))

    def side(self, learned: int) -> tuple[list[list[GroundAction]], Step]:
        """Her actions by robot action index, and her step, after learning ``learned``."""
        found = self._sides.get(learned)
        if found is None:
            human = self.task(learned)
            by_name: dict[str, list[GroundAction]] = {}
            for action in human.actions:
                by_name.setdefault(action.name, []).append(action)
            found = self._sides[learned] = (
                [by_name.get(a.name, []) for a in self.robot.actions],
                _human_step(self.problem, self.robot, human))
        return found

    def optimum(self, learned: int) -> float | None:
        """``C*`` of her final model (``None``: it has no plan)."""
        if learned not in self._optima:
            human = self.task(learned)
            self._optima[learned] = optimum(human, estimate(human, self.clock), self.clock) \
                if relaxed_reachable(human) else None
        return self._optima[learned]


class _Side:
    """The robot's half of every product search: its task, successor generator and
    estimate, built once for all edit sets."""

    def __init__(self, task: Task, clock: BudgetClock) -> None:
        self.task = task
        self.moves = Successors(task)
        self.estimate = estimate(task, clock)


Step = Callable[[GroundAction, State, State, State, GroundAction, int], tuple[State, int]]


def _human_step(problem: BalancedProblem, robot: Task, human: Task) -> Step:
    """Her side of one product step: her model's action, or the watched update (B05)."""
    if problem.watched:
        from xaip.balanced.epistemic import Watcher

        return Watcher(robot, human, problem.observable, problem.infer_conditions).step

    def plain(action: GroundAction, s_r: State, next_r: State, belief: State,
              mine: GroundAction, used: int) -> tuple[State, int]:
        return mine.apply(belief), 0

    return plain
