"""The delete relaxation used by every landmark method, and the exact relaxed oracle.

Why a separate relaxed-operator list: a conditional effect ``(when c e)`` of action ``a``
can only fire when ``pre(a)`` *and* ``c`` hold, so for relaxed reasoning it behaves like an
action of its own with precondition ``pre(a) | c``. Splitting every action into one
*relaxed operator* per effect (the unconditional one plus one per conditional effect)
makes conditional effects ordinary STRIPS for all algorithms in this package.
Negative preconditions, negative effect conditions and negative goals are ignored: that
only makes more things reachable, which keeps everything derived from unreachability
sound.

Soundness argument used throughout: along any real plan, every effect that fires had its
(positive) condition true in a state of the plan, and every fact that is ever true is the
initial state's or was added by such an effect. So the facts true somewhere along a plan
are reachable in the relaxation using only the effects that fired on that plan.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xaip.errors import BudgetExhausted
from xaip.planning.task import Task, bits, mask_of
from xaip.runtime.budget import Budget, BudgetClock

# BudgetExhausted (from xaip.errors) is raised only where no partial answer makes sense
# (the yes/no oracle :func:`is_landmark`); find_landmarks instead returns a sound partial
# graph with ``complete=False``.


class _Exhausted(Exception):
    """Internal: unwinds an algorithm when the meter runs out."""


class Meter:
    """A :class:`BudgetClock` that raises instead of returning ``False``.

    Why: relaxed explorations are nested deep inside the landmark algorithms; raising lets
    each algorithm catch the exhaustion at the one place where it knows what part of its
    answer is still sound.
    """

    __slots__ = ("clock",)

    def __init__(self, budget: Budget | None) -> None:
        self.clock: BudgetClock | None = None if budget is None else budget.start()

    def charge(self, nodes: int = 1) -> None:
        if self.clock is not None and not self.clock.charge(nodes):
            raise _Exhausted

    @property
    def exhausted(self) -> bool:
        return self.clock is not None and self.clock.exhausted


@dataclass(frozen=True)
class RelaxedOp:
    """One effect of one action, seen by the delete relaxation.

    ``pre`` includes the effect condition; ``delete`` is what is certainly deleted when the
    effect fires (the action's unconditional deletes plus the effect's own), and
    ``action_add`` is everything the action might add through any of its effects (used to
    decide whether a delete is certainly final).
    """

    action: int
    pre: int
    add: int
    delete: int
    action_add: int


class Relaxation:
    """The relaxed operators of a task with the indexes the explorations need.

    Built once per landmark computation, in time linear in the task's size.
    """

    def __init__(self, task: Task) -> None:
        self.task = task
        ops: list[RelaxedOp] = []
        for index, action in enumerate(task.actions):
            every_add = action.add
            for effect in action.conditional:
                every_add |= effect.add
            if action.add:
                ops.append(RelaxedOp(index, action.pre, action.add, action.delete, every_add))
            for effect in action.conditional:
                if effect.add:
                    ops.append(
                        RelaxedOp(
                            index,
                            action.pre | effect.cond_pos,
                            effect.add,
                            action.delete | effect.delete,
                            every_add,
                        )
                    )
        self.ops: tuple[RelaxedOp, ...] = tuple(ops)
        n = task.num_facts
        users: list[list[int]] = [[] for _ in range(n)]
        adders: list[list[int]] = [[] for _ in range(n)]
        counts: list[int] = []
        for o, op in enumerate(self.ops):
            pre = list(bits(op.pre))
            counts.append(len(pre))
            for p in pre:
                users[p].append(o)
            for f in bits(op.add):
                adders[f].append(o)
        self.pre_count: tuple[int, ...] = tuple(counts)
        self.users: tuple[tuple[int, ...], ...] = tuple(tuple(u) for u in users)
        self.adders: tuple[tuple[int, ...], ...] = tuple(tuple(a) for a in adders)
        self.size = sum(counts) + len(self.ops) + n

    # ------------------------------------------------------------------ explorations

    def explore(
        self,
        start: int,
        *,
        block_adders_of: int = 0,
        forbidden: int = 0,
        meter: Meter | None = None,
    ) -> int:
        """Facts reachable in the relaxation from ``start``.

        ``block_adders_of``: operators adding any of these facts never fire (the task
        "without any action achieving them"). ``forbidden``: these facts never become true,
        but operators adding them still fire and add their other facts (the task in which
        the facts are never *used*). Counter-based, linear in the task's size.
        """
        reached = start & ~forbidden
        missing = list(self.pre_count)
        ops = self.ops
        queue: deque[int] = deque(bits(reached))

        def fire(o: int) -> None:
            nonlocal reached
            op = ops[o]
            if op.add & block_adders_of:
                return
            new = op.add & ~reached & ~forbidden
            if new:
                reached |= new
                queue.extend(bits(new))

        for o, count in enumerate(missing):
            if count == 0:
                fire(o)
        charged = 0
        while queue:
            f = queue.popleft()
            users = self.users[f]
            charged += len(users) + 1
            if meter is not None and charged > 1024:
                meter.charge(charged)
                charged = 0
            for o in users:
                missing[o] -= 1
                if missing[o] == 0:
                    fire(o)
        if meter is not None:
            meter.charge(charged)
        return reached

    def levels(self) -> list[int | None]:
        """The relaxed-planning-graph layer (h^max with unit costs) of every fact.

        ``None`` for relaxed-unreachable facts. Used only to sort landmarks so that the ones
        reached early come first in the output.
        """
        level: list[int | None] = [None] * self.task.num_facts
        missing = list(self.pre_count)
        reached = self.task.init
        queue: deque[int] = deque(bits(reached))
        for f in bits(reached):
            level[f] = 0

        def fire(o: int, layer: int) -> None:
            nonlocal reached
            new = self.ops[o].add & ~reached
            if new:
                reached |= new
                for g in bits(new):
                    level[g] = layer
                    queue.append(g)

        for o, count in enumerate(missing):
            if count == 0:
                fire(o, 1)
        while queue:
            f = queue.popleft()
            layer = level[f]
            assert layer is not None
            for o in self.users[f]:
                missing[o] -= 1
                if missing[o] == 0:
                    fire(o, layer + 1)
        return level

    # ------------------------------------------------------------------ achievers

    def adder_ops(self, facts: int) -> list[int]:
        """Relaxed operators adding at least one of ``facts``, in index order."""
        found: set[int] = set()
        for f in bits(facts):
            found.update(self.adders[f])
        return sorted(found)

    def first_achiever_ops(self, facts: int, meter: Meter | None = None) -> list[int]:
        """Relaxed operators that can make ``facts`` (a disjunction) true for the first time.

        Those adding one of the facts whose precondition is relaxed-reachable without any of
        the facts ever being true (start without them, block everything that adds them).
        Why this is the right set: in a real plan, the effect that first makes one of the
        facts true fired in a state reached without them, so it is one of these. Empty for
        landmarks that are already true initially (they are never "first achieved").
        """
        if facts & self.task.init:
            return []
        reached = self.explore(self.task.init & ~facts, block_adders_of=facts, meter=meter)
        return [o for o in self.adder_ops(facts) if self.ops[o].pre & ~reached == 0]

    def actions_of(self, op_indices: Iterable[int]) -> tuple[int, ...]:
        """The distinct action indices behind some relaxed operators, sorted."""
        return tuple(sorted({self.ops[o].action for o in op_indices}))

    def goal_reachable(self, reached: int) -> bool:
        return self.task.goal & ~reached == 0


def _as_mask(facts: int | Iterable[int]) -> int:
    if isinstance(facts, int):
        return 1 << facts
    return mask_of(facts)


def is_landmark(
    task: Task,
    facts: int | Iterable[int],
    budget: Budget | None = None,
    *,
    causal: bool = False,
    relaxation: Relaxation | None = None,
) -> bool:
    """Exact test: is ``facts`` (one fact index, or a set read as a disjunction) a landmark
    of the delete relaxation?

    Negative conditions count: they are compiled into positive facts first
    (:mod:`~xaip.planning.landmarks.negations`). The task is changed so that none of the
    facts is initially true and no relaxed
    operator adding one of them can fire; the facts are a landmark iff the goal is then
    relaxed-unreachable. Such a fact set is true in some state of every real plan.

    With ``causal=True`` the test is for *causal* landmarks (Zhu and Givan): the facts are
    never true but operators adding them still fire for their other effects, so the answer
    is yes iff every relaxed plan *uses* one of the facts (as a precondition or a goal).
    Every causal landmark is a landmark; the converse fails for facts that are only ever
    side effects of necessary actions.

    When the goal is relaxed-unreachable in the task itself, there are no plans and every
    fact set is (vacuously) a landmark: the answer is ``True``. Raises
    :class:`BudgetExhausted` when ``budget`` runs out.
    """
    from xaip.planning.landmarks.negations import compile_negations

    mask = _as_mask(facts)
    relax = relaxation if relaxation is not None else Relaxation(compile_negations(task))
    init = relax.task.init
    meter = Meter(budget)
    try:
        if causal:
            reached = relax.explore(init & ~mask, forbidden=mask, meter=meter)
        else:
            reached = relax.explore(init & ~mask, block_adders_of=mask, meter=meter)
    except _Exhausted as stop:
        facts_text = sorted(bits(mask))
        raise BudgetExhausted(f"budget exhausted while testing facts {facts_text}") from stop
    return not relax.goal_reachable(reached)


def shared_preconditions(relax: Relaxation, op_indices: Sequence[int]) -> int:
    """Facts in the precondition of every given relaxed operator (0 for none given)."""
    if not op_indices:
        return 0
    shared = -1
    for o in op_indices:
        shared &= relax.ops[o].pre
    return shared


def relaxed_plan(relax: Relaxation, meter: Meter | None = None) -> list[int] | None:
    """One relaxed plan (relaxed operator indices), or ``None`` if the goal is unreachable.

    Each fact is supported by the operator that first added it in a counter-based
    exploration; the plan collects supporters backwards from the goal. Used as a cheap
    filter: a fact this plan neither uses, adds nor has as a goal is no landmark.
    """
    task = relax.task
    reached = task.init
    supporter: dict[int, int] = {}
    missing = list(relax.pre_count)
    queue: deque[int] = deque(bits(reached))

    def fire(o: int) -> None:
        nonlocal reached
        new = relax.ops[o].add & ~reached
        if new:
            reached |= new
            for g in bits(new):
                supporter[g] = o
                queue.append(g)

    for o, count in enumerate(missing):
        if count == 0:
            fire(o)
    while queue:
        f = queue.popleft()
        if meter is not None:
            meter.charge(len(relax.users[f]) + 1)
        for o in relax.users[f]:
            missing[o] -= 1
            if missing[o] == 0:
                fire(o)
    if task.goal & ~reached:
        return None
    plan: set[int] = set()
    open_facts = [g for g in bits(task.goal) if g in supporter]
    seen = set(open_facts)
    while open_facts:
        f = open_facts.pop()
        o = supporter[f]
        if o in plan:
            continue
        plan.add(o)
        for p in bits(relax.ops[o].pre):
            if p in supporter and p not in seen:
                seen.add(p)
                open_facts.append(p)
    return sorted(plan)
