"""The goal as a list of literals in the order the problem states them.

Why a list: an unsolvable core is a subset of the goal, and "the first in goal order" among
equally small cores needs the order the person wrote, which the grounded goal masks lose.
Each literal is evaluated on grounded states (a bit of the state, or a constant when its
atom is static or no action can ever make it true).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xaip.errors import InputError
from xaip.planning.pddl.model import Atom, Not, Problem, conjuncts
from xaip.planning.semantics import fact_text
from xaip.planning.task import State, Task


@dataclass(frozen=True)
class GoalLiteral:
    """One goal conjunct: ``atom`` must hold (``positive``) or must not hold."""

    atom: Atom
    positive: bool

    @property
    def text(self) -> str:
        atom = fact_text(self.atom.predicate, self.atom.args)
        return atom if self.positive else f"(not {atom})"


def goal_literals(problem: Problem) -> tuple[GoalLiteral, ...]:
    """The goal's literals in the problem's order, without repeats.

    Raises :class:`InputError` for a goal that is not a conjunction of literals (a
    disjunctive or quantified goal has no "goal facts" to choose a core from)."""
    out: list[GoalLiteral] = []
    for part in conjuncts(problem.goal):
        positive = not isinstance(part, Not)
        atom = part.operand if isinstance(part, Not) else part
        if not isinstance(atom, Atom) or atom.predicate == "=":
            raise InputError("xaip unsolvable explains goals that are a conjunction of facts "
                             "and negated facts; this goal has another kind of condition")
        literal = GoalLiteral(Atom(atom.predicate, atom.args), positive)
        if literal not in out:
            out.append(literal)
    return tuple(out)


class GoalMasks:
    """Which goal literals hold in a grounded state, as a bitmask over goal positions."""

    def __init__(self, task: Task, literals: Sequence[GoalLiteral]) -> None:
        self.constant = 0  # literals that hold in every state (static facts)
        self.pos: list[tuple[int, int]] = []  # (fact bit, goal bit)
        self.neg: list[tuple[int, int]] = []
        for position, literal in enumerate(literals):
            index = task.fact_index.get(literal.atom)
            if index is None:  # static: true when among the static facts, else never true
                if (literal.atom in task.static_facts) == literal.positive:
                    self.constant |= 1 << position
            elif literal.positive:
                self.pos.append((1 << index, 1 << position))
            else:
                self.neg.append((1 << index, 1 << position))

    def of(self, state: State) -> int:
        mask = self.constant
        for fact, goal in self.pos:
            if state & fact:
                mask |= goal
        for fact, goal in self.neg:
            if not state & fact:
                mask |= goal
        return mask
