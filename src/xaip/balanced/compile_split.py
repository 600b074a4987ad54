"""The compiled MEGA* task without disjunctions: what the built-in planners can solve.

Why split: a guard ``μ → B(f)`` is the disjunction ``¬μ ∨ B(f)``, and "no task action
after the robot's goal" is the negation of a conjunction; :class:`~xaip.planning.task.Task`
has conjunctive preconditions only. Each compiled action becomes one copy per assignment
of the meta fluents its guards read (the copy fixes them, so the guard becomes a plain
literal) times one copy per way the robot's goal can be unmet (literal ``j`` violated,
the earlier ones satisfied). The copies' preconditions are mutually exclusive, so every
compiled state has the same successors, and the same optimal cost, as before. Conditional
effects stay conditional effects.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from xaip.errors import UnsupportedFeature
from xaip.planning.task import ConditionalEffect, GroundAction, bits

if TYPE_CHECKING:
    from xaip.balanced.compile import CompiledAction, CompiledTask

#: More copies than this for one action: the task is too large to split usefully.
MAX_COPIES = 4096


def _goal_cases(task: CompiledTask) -> list[tuple[int, int]]:
    """Disjoint (pre, neg_pre) pairs whose union is "the robot's goal does not hold"."""
    literals = [(b, True) for b in bits(task.robot_goal)] + \
        [(b, False) for b in bits(task.robot_goal_neg)]
    cases: list[tuple[int, int]] = []
    pre = neg = 0
    for index, positive in literals:
        if positive:
            cases.append((pre, neg | 1 << index))
            pre |= 1 << index
        else:
            cases.append((pre | 1 << index, neg))
            neg |= 1 << index
    return cases


def _copies(task: CompiledTask, action: CompiledAction) -> list[tuple[int, int]]:
    """(pre, neg_pre) of each copy of ``action``."""
    mus = sorted({g.mu for g in action.guards})
    if 2 ** len(mus) > MAX_COPIES:
        raise UnsupportedFeature(f"compiled action {action.name} reads {len(mus)} meta "
                                 "fluents in its guards; too many to split")
    out: list[tuple[int, int]] = []
    for values in itertools.product((False, True), repeat=len(mus)):
        pre, neg = action.pre, action.neg_pre
        chosen = dict(zip(mus, values, strict=True))
        for mu, on in chosen.items():
            if on:
                pre |= 1 << mu
            else:
                neg |= 1 << mu
        for guard in action.guards:
            if chosen[guard.mu]:
                if guard.positive:
                    pre |= 1 << guard.belief
                else:
                    neg |= 1 << guard.belief
        if not pre & neg:
            out.append((pre, neg))
    if task.stop_at_goal and action.kind == "task":
        cases = _goal_cases(task)
        out = [(pre | p, neg | n) for pre, neg in out for p, n in cases
               if not (pre | p) & (neg | n)]
    return out


def split_actions(task: CompiledTask) -> tuple[GroundAction, ...]:
    """Every compiled action as plain ground actions named like the compiled one."""
    out: list[GroundAction] = []
    for action in task.actions:
        conditional = tuple(ConditionalEffect(1 << w.mu, 0, w.add, w.delete)
                            for w in action.when) + action.conditional
        for pre, neg in _copies(task, action):
            out.append(GroundAction(action.name, (), pre, action.add, action.delete,
                                    action.cost, neg, conditional))
    return tuple(out)
