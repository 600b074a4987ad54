"""Negative conditions as positive facts, so the delete relaxation does not drop them.

Why: the relaxation ignores negative preconditions, effect conditions and goals. A task
whose goal is ``(not (ispoint pos0-4))`` (IPC snake) then looks solved by doing nothing,
and facts every plan needs (the snake's head entering ``pos0-4`` to eat the point) are not
found as landmarks. As Fast Downward does, each fact ``p`` that occurs negated gets a
companion fact "not p": true initially iff ``p`` is false, added by every effect that may
delete ``p``, deleted by every effect that adds ``p``; negative conditions on ``p`` become
positive conditions on "not p".

The compiled task is for relaxed reasoning only: an effect that deletes ``p`` while
another effect of the same action adds it still adds "not p". That over-approximates
what can make "not p" true, which only makes the relaxation more permissive, so every
landmark found on it is still a landmark of the original task.
"""

from __future__ import annotations

from dataclasses import replace

from xaip.planning.axioms import axioms_as_actions
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, GroundAction, Task, bits


def negated_atom(atom: Atom) -> Atom:
    """The name of the companion fact: ``(not (p a b))`` (cannot clash with a PDDL atom)."""
    return Atom("not", (str(atom),))


def compile_negations(task: Task) -> Task:
    """``task`` with its negative conditions compiled into positive companion facts.

    The original facts keep their indices; companions come after them (index
    ``task.num_facts`` onwards), and the actions keep their order, so landmark and action
    indices found on the result mean the same in ``task``. Returns ``task`` itself when it
    has no negative conditions. Axioms (derived predicates) become zero-cost actions first
    (:func:`~xaip.planning.axioms.axioms_as_actions`).
    """
    task = axioms_as_actions(task)
    negated = task.goal_neg
    for action in task.actions:
        negated |= action.neg_pre
        for effect in action.conditional:
            negated |= effect.cond_neg
    if not negated:
        return task
    n = task.num_facts
    companion = {p: n + i for i, p in enumerate(bits(negated))}

    def lift(mask: int) -> int:
        """The companions of the negated facts in ``mask``."""
        out = 0
        for p in bits(mask & negated):
            out |= 1 << companion[p]
        return out

    actions = []
    for action in task.actions:
        conditional = tuple(
            ConditionalEffect(
                cond_pos=effect.cond_pos | lift(effect.cond_neg),
                cond_neg=0,
                add=effect.add | lift(effect.delete),
                delete=effect.delete | lift(effect.add),
            )
            for effect in action.conditional
        )
        actions.append(GroundAction(
            schema=action.schema,
            args=action.args,
            pre=action.pre | lift(action.neg_pre),
            add=action.add | lift(action.delete),
            delete=action.delete | lift(action.add),
            cost=action.cost,
            neg_pre=0,
            conditional=conditional,
        ))
    facts = (*task.facts, *(negated_atom(task.facts[p]) for p in companion))
    init = task.init | lift(negated & ~task.init)
    return replace(
        task,
        facts=facts,
        actions=tuple(actions),
        init=init,
        goal=task.goal | lift(task.goal_neg),
        goal_neg=0,
    )
