"""Result types: landmarks, orderings between them, and the graph that holds both.

Landmarks and orderings refer to facts and actions by index into the :class:`Task` they
were computed for, so the graph is small and hashable; the graph keeps its task (not compared)
to render names for people. Drawings come from :mod:`xaip.render.planning`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from xaip.planning.task import Task

OrderingKind = Literal["greedy-necessary", "natural", "reasonable"]
ORDERING_KINDS: tuple[OrderingKind, ...] = ("greedy-necessary", "natural", "reasonable")

@dataclass(frozen=True)
class Landmark:
    """A fact set that holds in some state of every plan.

    ``facts`` are fact indices, sorted. A non-disjunctive landmark has exactly one fact; a
    disjunctive one means "at least one of these". ``is_initial``: some fact is true in the
    initial state (then ``first_achievers`` is empty: it is never first achieved).
    ``is_goal``: a goal fact. ``causal``: every relaxed plan *uses* it (as a precondition
    or a goal), not only produces it as a side effect; summaries of policies rely on causal
    landmarks only. ``first_achievers``: actions that can make the landmark true for the
    first time (relaxed-reachable before it); ``achievers``: all actions that can add it.
    """

    facts: tuple[int, ...]
    disjunctive: bool = False
    is_initial: bool = False
    is_goal: bool = False
    causal: bool = True
    first_achievers: tuple[int, ...] = ()
    achievers: tuple[int, ...] = ()

    def names(self, task: Task) -> list[str]:
        return [str(task.facts[f]) for f in self.facts]

    def to_dict(self, task: Task) -> dict[str, Any]:
        return {
            "facts": self.names(task),
            "disjunctive": self.disjunctive,
            "is_initial": self.is_initial,
            "is_goal": self.is_goal,
            "causal": self.causal,
            "first_achievers": [task.actions[a].name for a in self.first_achievers],
        }


@dataclass(frozen=True)
class Ordering:
    """``before`` → ``after`` between landmark indices of the same graph.

    Meanings (t(L) = first time step at which L holds on a plan):

    * ``greedy-necessary``: ``before`` holds in the state right before ``after`` first
      becomes true, on every plan.
    * ``natural``: ``before`` holds at some step strictly earlier than t(``after``), on every
      plan (greedy-necessary implies natural; only the stronger kind is reported).
    * ``reasonable``: heuristic, not true on every plan: achieving ``after`` before
      ``before`` would waste effort, because ``after`` would have to be achieved again at
      or after t(``before``).
    """

    before: int
    after: int
    kind: OrderingKind

    def to_dict(self) -> dict[str, Any]:
        return {"before": self.before, "after": self.after, "kind": self.kind}


@dataclass(frozen=True)
class LandmarkGraph:
    """Landmarks of one task and the orderings found between them.

    ``solvable`` is ``False`` when the goal is unreachable even in the delete relaxation:
    then the task has no plan, every fact is vacuously a landmark, and the graph is empty
    on purpose. ``complete`` is ``False`` when the budget ran out: everything reported is
    still sound, but landmarks or orderings the method would find may be missing, and the
    ``first_achievers`` of landmarks not processed yet fall back to all their achievers.
    """

    landmarks: tuple[Landmark, ...]
    orderings: tuple[Ordering, ...]
    method: str = "rhw"
    solvable: bool = True
    complete: bool = True
    task: Task | None = field(default=None, compare=False, repr=False)

    def find(self, fact: int) -> int | None:
        """Index of the (non-disjunctive) landmark of fact ``fact``, if it is one."""
        for i, landmark in enumerate(self.landmarks):
            if not landmark.disjunctive and landmark.facts == (fact,):
                return i
        return None

    def predecessors(self, index: int, kinds: tuple[str, ...] = ORDERING_KINDS) -> list[int]:
        return [o.before for o in self.orderings if o.after == index and o.kind in kinds]

    def successors(self, index: int, kinds: tuple[str, ...] = ORDERING_KINDS) -> list[int]:
        return [o.after for o in self.orderings if o.before == index and o.kind in kinds]

    def to_dict(self, task: Task | None = None) -> dict[str, Any]:
        task = task or self.task
        if task is None:
            raise ValueError("this landmark graph was built without its task")
        return {
            "status": "complete" if self.complete else "budget_exhausted",
            "method": self.method,
            "solvable": self.solvable,
            "complete": self.complete,
            "landmarks": [landmark.to_dict(task) for landmark in self.landmarks],
            "orderings": [ordering.to_dict() for ordering in self.orderings],
        }
