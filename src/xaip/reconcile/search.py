"""Searches in model space: MEGA for minimal explanations, BFS for monotonic ones.

MCE (book Algorithm 4): uniform-cost search from the human model towards the robot's,
over sets of edits, stopping at the first set whose model passes the goal test. Successors
are restricted to *relevant* edits (book Algorithm 5, Prop. 4): edits of actions in the
robot's plan or in the human's cheaper alternative, and edits of the initial state or
goal. Any complete explanation that extends the current set contains such an edit, so the
restriction keeps every minimal explanation reachable while cutting the branching factor.
For MCE's own test on a compiled space the search branches on a *conflict* instead
(:mod:`xaip.reconcile.conflicts`): the edits that can change this node's verdict at all,
usually a handful (logistics with 20 removed features: ~1k nodes instead of over 500k).

MME (book Algorithm 6, Prop. 5): breadth-first search from the robot model towards the
human's, collecting the largest set of reverse edits whose every subset keeps the plan
explained; the MME is the rest of the difference.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xaip.reconcile.conflicts import Conflicts
from xaip.reconcile.goals import GoalTest, OptimalityTest, Verdict
from xaip.reconcile.space import ModelSpace
from xaip.runtime import Budget, Status


@dataclass(frozen=True)
class SearchOutcome:
    """What a model-space search found: candidate indices and the effort it took."""

    status: Status  # found, budget_exhausted or no_explanation
    subset: tuple[int, ...]
    nodes: int
    goal_tests: int


class _Tester:
    """Memoises goal-test verdicts by edit set (one verdict per model)."""

    def __init__(self, test: GoalTest) -> None:
        self.test = test
        self.cache: dict[tuple[int, ...], Verdict] = {}

    def __call__(self, subset: tuple[int, ...]) -> Verdict:
        verdict = self.cache.get(subset)
        if verdict is None:
            verdict = self.test(subset)
            self.cache[subset] = verdict
        return verdict


def relevant_candidates(
    space: ModelSpace, plan: tuple[str, ...], verdict: Verdict
) -> list[int]:
    """Candidate indices that can change the verdict (book Algorithm 5)."""
    schemas = {name.split(" ", 1)[0] for name in plan}
    names = set(plan)
    if verdict.alternative:
        schemas |= {a.schema for a in verdict.alternative}
        names |= {a.name for a in verdict.alternative}
    out = []
    for index, candidate in enumerate(space.candidates):
        action = candidate.action
        if action is None:
            out.append(index)
        elif candidate.instance is None:
            if action in schemas:
                out.append(index)
        elif space.instances[candidate.instance].name in names:
            out.append(index)
    return out


def mce_search(
    space: ModelSpace,
    test: GoalTest,
    plan: tuple[str, ...],
    budget: Budget,
    relevance: bool = True,
    progress: Callable[[int, int], None] | None = None,
    use_conflicts: bool = True,
) -> SearchOutcome:
    """Cheapest edit set (by edit cost, then size) whose model passes ``test``.

    With ``relevance``, a node branches on the edits that can change its verdict: a
    conflict (:mod:`xaip.reconcile.conflicts`) for MCE's optimality test on a compiled
    space (``use_conflicts``), else the relevant edits of book Algorithm 5.
    """
    tester = _Tester(test)
    clock = budget.start()
    counter = itertools.count()
    start: tuple[int, ...] = ()
    frontier: list[tuple[int, int, tuple[int, ...], int]] = [(0, 0, start, next(counter))]
    seen = {start}
    nodes = 0
    every = list(range(len(space.candidates)))
    conflicts = None
    # conflicts reason about MCE's own verdicts (plan invalid, or a cheaper plan valid):
    # the other tests' alternatives (a cheap foil, an expected plan) mean something else
    if (relevance and use_conflicts and isinstance(test, OptimalityTest)
            and Conflicts.available(space)):
        conflicts = Conflicts(space, plan)
    while frontier:
        cost, _, subset, _ = heapq.heappop(frontier)
        if not clock.charge(1):
            return SearchOutcome(Status.BUDGET_EXHAUSTED, subset, nodes, len(tester.cache))
        nodes += 1
        if progress is not None:
            progress(nodes, len(subset))
        verdict = tester(subset)
        if verdict.explained:
            return SearchOutcome(Status.FOUND, subset, nodes, len(tester.cache))
        if verdict.undecided:
            return SearchOutcome(Status.BUDGET_EXHAUSTED, subset, nodes, len(tester.cache))
        chosen = set(subset)
        options: Sequence[int] | None = None
        if conflicts is not None:
            options = conflicts(subset, verdict)
        if options is None:
            options = relevant_candidates(space, plan, verdict) if relevance else every
        for index in options:
            if index in chosen:
                continue
            child = tuple(sorted((*subset, index)))
            if child in seen:
                continue
            seen.add(child)
            heapq.heappush(frontier, (cost + space.edit_costs[index], len(child), child,
                                      next(counter)))
    return SearchOutcome(Status.NO_EXPLANATION, (), nodes, len(tester.cache))


def mme_search(
    space: ModelSpace,
    test: GoalTest,
    budget: Budget,
    progress: Callable[[int, int], None] | None = None,
) -> SearchOutcome:
    """Smallest edit set ``E`` such that every superset of ``E`` passes ``test``.

    Searches over ``R`` = the reverse edits (from the robot's model back towards the
    human's): a set of reverse edits is *safe* when each of its subsets keeps the plan
    explained; the MME is everything outside the largest safe set.
    """
    tester = _Tester(test)
    clock = budget.start()
    everything = tuple(range(len(space.candidates)))
    full = frozenset(everything)
    if not tester(everything).explained:
        return SearchOutcome(Status.NO_EXPLANATION, (), 1, 1)
    queue: deque[tuple[int, ...]] = deque([()])
    failures: list[frozenset[int]] = []
    best: tuple[int, ...] = ()
    nodes = 0
    status = Status.FOUND
    while queue:
        reverse = queue.popleft()
        as_set = frozenset(reverse)
        if any(failure <= as_set for failure in failures):
            continue
        if not clock.charge(1):
            status = Status.BUDGET_EXHAUSTED
            break
        nodes += 1
        if progress is not None:
            progress(nodes, len(reverse))
        verdict = tester(tuple(sorted(full - as_set)))
        if not verdict.explained:
            failures.append(as_set)
            continue
        if len(reverse) > len(best):
            best = reverse
        last = reverse[-1] if reverse else -1
        queue.extend((*reverse, index) for index in everything if index > last)
    return SearchOutcome(status, tuple(sorted(full - frozenset(best))), nodes,
                         len(tester.cache))
