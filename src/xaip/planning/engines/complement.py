"""Negative conditions made positive for the compiled search: one complement fact per fact
that a precondition or the goal requires false.

Why: the delete relaxation behind h_max, h_add, h_FF and LM-cut ignores negative
conditions, so on a task that constrains mostly by ``(not (occupied ?p))`` the heuristics
see almost nothing (IPC 2023 quantum-layout p01: 2.4 million A* + LM-cut expansions).
Adding a fact ``not-f`` that holds exactly when ``f`` does not, required where ``(not f)``
was, keeps the task the same task (every state maps to one state with the complements
filled in, with the same applicable actions and goal test) while the relaxation now has to
achieve ``not-f`` by an action that deletes ``f``: the same task takes 34 expansions. Fast
Downward's translator gets the same effect from its multi-valued variables.

Which facts: those in an action's negative precondition or the negative goal, except
derived facts (recomputed by the axioms, so no action could keep a complement in step) and
facts that a conditional effect adds or deletes (whether ``not-f`` then holds depends on
which effects fire together; such facts keep their negative test). The heuristics stay
admissible: the relaxation of the reformulated task is still a relaxation of the task.

Why not :func:`xaip.planning.landmarks.negations.compile_negations`: that compilation is for
relaxed reasoning only (an action that deletes and adds ``p`` still adds "not p", and
conditional effects and axioms are folded in loosely), so a real search on it could reach
states where both ``p`` and "not p" hold. The search needs an exact reformulation, hence
the narrower choice of facts here.
"""

from __future__ import annotations

from dataclasses import dataclass

from xaip.planning.task import Task, bits


@dataclass(frozen=True)
class Complemented:
    """The task's masks with complements: ``actions`` holds (pre, add, delete, neg_pre)."""

    num_facts: int
    actions: tuple[tuple[int, int, int, int], ...]
    init: int
    goal: int
    goal_neg: int
    added: int  # how many complement facts


def complement_negative_conditions(task: Task) -> Complemented | None:
    """The reformulated masks, or ``None`` when no fact qualifies (nothing to change)."""
    negative = task.goal_neg
    touched = task.derived
    for action in task.actions:
        negative |= action.neg_pre
        for effect in action.conditional:
            touched |= effect.add | effect.delete
    eligible = negative & ~touched
    if not eligible:
        return None
    n = task.num_facts
    position = {fact: n + rank for rank, fact in enumerate(bits(eligible))}

    def complement(mask: int) -> int:
        out = 0
        for fact in bits(mask & eligible):
            out |= 1 << position[fact]
        return out

    actions = tuple(
        (action.pre | complement(action.neg_pre),
         action.add | complement(action.delete & ~action.add),
         action.delete | complement(action.add),
         action.neg_pre & ~eligible)
        for action in task.actions)
    everything = (1 << n) - 1
    return Complemented(
        num_facts=n + len(position),
        actions=actions,
        init=task.init | complement(~task.init & everything),
        goal=task.goal | complement(task.goal_neg),
        goal_neg=task.goal_neg & ~eligible,
        added=len(position),
    )
