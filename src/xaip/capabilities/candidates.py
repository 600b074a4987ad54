"""Grounded candidate capabilities with partial descriptions (Alg. 1 line 2).

Every distinct abstract transition ⟨s̃, s̃'⟩ of the traces becomes a grounded candidate
capability c*_{s̃,s̃'}: its add effects are s̃' \\ s̃, its delete effects s̃ \\ s̃', and —
as in Stern and Juba's safe model learning — the state it was executed in constrains its
precondition: an atom true in s̃ cannot be a *negative* precondition, an atom false in s̃
cannot be a *positive* one.

Modes: for each (capability, atom, location ∈ {pre, eff}) — a PAL tuple — the atom is
positive (``+``), negative (``-``) or absent (``0``). This module holds the small algebra
of which modes an observation leaves possible; the learner keeps one set of possible modes
per PAL tuple.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from xaip.capabilities.traces import AbstractState, AbstractTrace
from xaip.planning.pddl.model import Atom

Mode = Literal["+", "-", "0"]
POS: Mode = "+"
NEG: Mode = "-"
ABSENT: Mode = "0"
ALL_MODES: frozenset[Mode] = frozenset({"+", "-", "0"})
Location = Literal["pre", "eff"]


def pre_modes_allowed(true_before: bool) -> frozenset[Mode]:
    """Precondition modes of an atom left possible by one successful execution."""
    return frozenset({POS, ABSENT}) if true_before else frozenset({NEG, ABSENT})


def eff_modes_allowed(true_before: bool, true_after: bool) -> frozenset[Mode]:
    """Effect modes of an atom left possible by one successful execution."""
    if true_after and not true_before:
        return frozenset({POS})
    if true_before and not true_after:
        return frozenset({NEG})
    return frozenset({POS, ABSENT}) if true_before else frozenset({NEG, ABSENT})


def pre_satisfied(mode: Mode, value: bool) -> bool:
    """Whether an atom with truth ``value`` satisfies a precondition of ``mode``."""
    return mode == ABSENT or (mode == POS) == value


def eff_result(mode: Mode, before: bool) -> bool:
    """The truth of an atom after an effect of ``mode`` when it was ``before``."""
    return before if mode == ABSENT else mode == POS


@dataclass(frozen=True)
class GroundCandidate:
    """A grounded candidate capability: one distinct abstract transition.

    ``add``/``delete`` are its (partial) effects; ``before`` constrains its precondition
    (see :func:`pre_modes_allowed`). ``seen`` counts how often the transition occurred;
    ``example``/``example_after`` are concrete states before and after it (for pictures).
    """

    before: AbstractState
    after: AbstractState
    add: frozenset[Atom]
    delete: frozenset[Atom]
    seen: int = 1
    example: Any = None
    example_after: Any = None

    def objects(self) -> frozenset[str]:
        """Objects that occur in the effects."""
        return frozenset(arg for atom in (*self.add, *self.delete) for arg in atom.args)

    def allowed_pre(self, atom: Atom) -> frozenset[Mode]:
        """Precondition constraint of the observed state on ``atom`` (a ground atom)."""
        return pre_modes_allowed(atom in self.before)

    def to_dict(self) -> dict[str, Any]:
        return {
            "add": sorted(str(a) for a in self.add),
            "delete": sorted(str(a) for a in self.delete),
            "seen": self.seen,
        }


def ground_candidates(traces: Iterable[AbstractTrace]) -> list[GroundCandidate]:
    """The de-duplicated grounded candidates of all abstract traces, in order of first
    appearance."""
    found: dict[tuple[AbstractState, AbstractState], GroundCandidate] = {}
    for trace in traces:
        for i, (before, after) in enumerate(trace.transitions()):
            key = (before, after)
            old = found.get(key)
            if old is None:
                found[key] = GroundCandidate(
                    before, after, after - before, before - after, 1, trace.concrete[i],
                    trace.concrete[i + 1],
                )
            else:
                found[key] = GroundCandidate(
                    before, after, old.add, old.delete, old.seen + 1, old.example,
                    old.example_after,
                )
    return list(found.values())
