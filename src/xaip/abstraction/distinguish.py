"""Grounded abstractions and plans that tell two of them apart (the localiser's queries).

Why grounded: a query is useful only if some levels accept it and others do not, so the
localiser evaluates each candidate plan at every remaining level, and searches the product
of two abstractions for a plan valid in one and not in the other; both are fast on the
grounded tasks (bit-set states). Each level is grounded from its own projection: grounding
the concrete task and masking would be wrong, because an abstraction can reach actions the
concrete task never can.

:meth:`Abstractions.distinguishing_plan` searches over pairs of states: the first
component follows the plan in ``a``, the second in ``b`` until an action is not applicable
there (then ``b`` is *dead*); it stops at a pair where ``a`` reaches its goal and ``b`` is
dead or not at its goal. The product is finite, so ``None`` proves that every plan valid in
``a`` is valid in ``b``.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence

from xaip.abstraction.lattice import Level
from xaip.abstraction.projection import project
from xaip.errors import BudgetExhausted
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.task import State, Task
from xaip.runtime.budget import BudgetClock

DEAD = -1


def step(task: Task, state: State, name: str) -> State:
    """The state after the action called ``name`` (``DEAD`` when it is not applicable, or
    not an action of ``task`` at all)."""
    for index in task.action_index.get(name, ()):
        action = task.actions[index]
        if action.applicable(state):
            return action.apply(state)
    return DEAD


def accepts(task: Task, plan: Sequence[str]) -> bool:
    """Is ``plan`` (action names, ``pick-up a``) a plan of ``task``?"""
    state = task.init
    for name in plan:
        state = step(task, state, name)
        if state == DEAD:
            return False
    return task.is_goal(state)


class Abstractions:
    """The grounded projection of each level, built on first use."""

    def __init__(self, domain: Domain, problem: Problem, clock: BudgetClock) -> None:
        self.domain, self.problem, self.clock = domain, problem, clock
        self._tasks: dict[Level, Task] = {}
        self._action_names: dict[int, list[str]] = {}

    def task(self, level: Level) -> Task:
        if level not in self._tasks:
            self._tasks[level] = ground(*project(self.domain, self.problem, sorted(level)),
                                        budget=self.clock)
        return self._tasks[level]

    def accepts(self, level: Level, plan: Sequence[str]) -> bool:
        return accepts(self.task(level), plan)

    def distinguishing_plan(self, a: Level, b: Level) -> tuple[str, ...] | None:
        """A short plan valid at level ``a`` and not at level ``b``, or ``None`` when every
        plan valid at ``a`` is valid at ``b``.

        Best-first over pairs of states, ordered by steps so far plus the goal literals of
        ``a`` still false (pairs where ``b`` is already stuck first among equals): plans are
        short, though not always shortest, and every reachable pair is still seen before
        ``None`` is answered."""
        ta, tb = self.task(a), self.task(b)
        names = self._names(ta)
        start = (ta.init, tb.init)
        parent: dict[tuple[State, State], tuple[tuple[State, State], str] | None] = {
            start: None}
        tie = itertools.count()
        queue = [(_missing(ta, ta.init), 1, 0, next(tie), start)]
        while queue:
            _, _, g, _, pair = heapq.heappop(queue)
            sa, sb = pair
            if ta.is_goal(sa) and (sb == DEAD or not tb.is_goal(sb)):
                return _path(parent, pair)
            if not self.clock.charge():
                raise BudgetExhausted("searching for a distinguishing plan")
            done: set[str] = set()
            for action, name in zip(ta.actions, names, strict=True):
                if name in done or not action.applicable(sa):
                    continue
                done.add(name)
                child = (action.apply(sa), DEAD if sb == DEAD else step(tb, sb, name))
                if child not in parent:
                    parent[child] = (pair, name)
                    stuck = 0 if child[1] == DEAD else 1
                    heapq.heappush(queue, (g + 1 + _missing(ta, child[0]), stuck, g + 1,
                                           next(tie), child))
        return None

    def _names(self, task: Task) -> list[str]:
        names = self._action_names.get(id(task))
        if names is None:
            names = self._action_names[id(task)] = [a.name for a in task.actions]
        return names


def _missing(task: Task, state: State) -> int:
    """Goal literals of ``task`` false in ``state``."""
    return (task.goal & ~state).bit_count() + (task.goal_neg & state).bit_count()


def _path(parent: dict[tuple[State, State], tuple[tuple[State, State], str] | None],
          pair: tuple[State, State]) -> tuple[str, ...]:
    names: list[str] = []
    link = parent[pair]
    while link is not None:
        pair, name = link
        names.append(name)
        link = parent[pair]
    return tuple(reversed(names))

