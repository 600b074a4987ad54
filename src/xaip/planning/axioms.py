"""Ground axioms (derived predicates) and closing a state under them.

Why states are closed rather than derived facts looked up on demand: every consumer of a
:class:`~xaip.planning.task.Task` tests preconditions and goals with two ``&`` on the
state's bits. Keeping derived facts as ordinary bits, recomputed from the basic facts after
every transition, keeps all of them correct without knowing about axioms.

Semantics (PDDL 2.2, as in Fast Downward): derived facts are first all removed, then the
axioms are evaluated stratum by stratum; within a stratum the least fixpoint is computed.
A negative body literal is on a basic fact or on a derived fact of a lower stratum, which
is final by then, so it can be tested once when the stratum starts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from xaip.planning.task import ConditionalEffect, GroundAction, State, Task, bits


@dataclass(frozen=True)
class GroundAxiom:
    """``head`` becomes true when all of ``pos`` hold and none of ``neg`` does."""

    head: int
    pos: int
    neg: int
    stratum: int = 0


class _Layer:
    """One stratum compiled for counter-based propagation.

    Why counters: a sweep "fire every axiom whose body holds" until nothing changes costs
    one sweep per step of the longest derivation chain (IPC psr's ``upstream`` chains are
    long); counting each axiom's missing body facts once per state (one ``bit_count`` per
    axiom) and decrementing them as heads become true costs one pass.
    """

    def __init__(self, axioms: Sequence[GroundAxiom]) -> None:
        self.heads = tuple(a.head for a in axioms)
        self.pos = tuple(a.pos for a in axioms)
        self.blockable = tuple((i, a.neg) for i, a in enumerate(axioms) if a.neg)
        users: dict[int, list[int]] = {}
        for index, axiom in enumerate(axioms):
            for fact in bits(axiom.pos):
                users.setdefault(fact, []).append(index)
        self.users = {fact: tuple(ids) for fact, ids in users.items()}

    def close(self, state: State) -> State:
        heads, users = self.heads, self.users
        absent = ~state
        missing = [(pos & absent).bit_count() for pos in self.pos]
        for index, neg in self.blockable:
            if state & neg:
                missing[index] = -1  # a negative body literal fails for the whole stratum
        queue = [index for index, count in enumerate(missing) if count == 0]
        while queue:
            head = heads[queue.pop()]
            if (state >> head) & 1:
                continue
            state |= 1 << head
            for user in users.get(head, ()):
                count = missing[user] - 1
                if count >= 0:
                    missing[user] = count
                    if count == 0:
                        queue.append(user)
        return state


class AxiomEvaluator:
    """``evaluator(state)``: ``state`` with its derived facts recomputed from its basic ones."""

    def __init__(self, axioms: Sequence[GroundAxiom], derived: int) -> None:
        self.derived = derived
        self.keep = ~derived
        strata = sorted({a.stratum for a in axioms})
        self.layers = tuple(_Layer([a for a in axioms if a.stratum == s]) for s in strata)

    def __call__(self, state: State) -> State:
        state &= self.keep
        for layer in self.layers:
            state = layer.close(state)
        return state


@dataclass(frozen=True)
class ClosingAction(GroundAction):
    """A ground action of a task with axioms: its successor states are closed.

    Why a subclass: many callers apply actions directly (plan simulation, explainers);
    closing inside :meth:`apply` keeps them all correct, and tasks without axioms keep the
    plain :class:`GroundAction` and pay nothing.
    """

    closure: Callable[[State], State] | None = field(default=None, compare=False, repr=False)

    def apply(self, state: State) -> State:
        successor = GroundAction.apply(self, state)
        return successor if self.closure is None else self.closure(successor)


def closing(action: GroundAction, closure: Callable[[State], State]) -> ClosingAction:
    """``action`` as a :class:`ClosingAction` that closes its successors with ``closure``."""
    return ClosingAction(action.schema, action.args, action.pre, action.add, action.delete,
                         action.cost, action.neg_pre, action.conditional, closure=closure)


def axioms_as_actions(task: Task) -> Task:
    """``task`` for relaxed reasoning (landmarks): each axiom becomes a zero-cost action
    ``derived:PRED args`` after the task's own actions, which keep their indices.

    Negative conditions on derived facts are dropped (actions' preconditions, effect
    conditions, the goal, axiom bodies): nothing deletes a derived fact in this view, so
    keeping them could only make the relaxation claim too much. Dropping conditions only
    makes the relaxation more permissive, so its landmarks are landmarks of ``task``.
    Returns ``task`` itself when it has no axioms.
    """
    if not task.axioms and not task.derived:
        return task
    keep = ~task.derived
    actions: list[GroundAction] = []
    for action in task.actions:
        conditional = tuple(
            ConditionalEffect(e.cond_pos, e.cond_neg & keep, e.add, e.delete)
            for e in action.conditional)
        actions.append(GroundAction(action.schema, action.args, action.pre, action.add,
                                    action.delete, action.cost, action.neg_pre & keep,
                                    conditional))
    for axiom in task.axioms:
        head = task.facts[axiom.head]
        actions.append(GroundAction(f"derived:{head.predicate}", head.args, axiom.pos,
                                    1 << axiom.head, 0, 0, axiom.neg & keep))
    return replace(task, actions=tuple(actions), goal_neg=task.goal_neg & keep, axioms=(),
                   derived=0)
