"""The grounded planning task: facts as bit positions, states as Python ints.

Why ints: a state is an immutable, hashable bitset, an applicability test is two ``&``
operations on machine-word-sized chunks, and applying an action is ``(s & ~del) | add``.
Everything that searches, validates or extracts landmarks works on this one
representation; the lifted names are kept so results can be rendered for people.

Semantics (PDDL): an action is applicable when all ``pre`` bits are set and no ``neg_pre``
bit is set. Its conditional effects are evaluated in the state *before* the action; all
deletes happen before all adds, so a fact both added and deleted ends up true.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from xaip.planning.pddl.model import Atom

if TYPE_CHECKING:
    from xaip.planning.axioms import GroundAxiom

State = int


def bits(mask: int) -> Iterator[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def mask_of(indices: Iterable[int]) -> int:
    mask = 0
    for index in indices:
        mask |= 1 << index
    return mask


@dataclass(frozen=True)
class ConditionalEffect:
    """``(when cond effect)`` grounded: fires when ``cond_pos`` holds and ``cond_neg`` does not."""

    cond_pos: int
    cond_neg: int
    add: int
    delete: int


@dataclass(frozen=True)
class GroundAction:
    """One ground action. ``schema`` and ``args`` name its lifted origin."""

    schema: str
    args: tuple[str, ...]
    pre: int
    add: int
    delete: int
    cost: int = 1
    neg_pre: int = 0
    conditional: tuple[ConditionalEffect, ...] = ()

    @property
    def name(self) -> str:
        """The plan-file spelling without parentheses, e.g. ``pick-up b1``."""
        return " ".join((self.schema, *self.args))

    def __str__(self) -> str:
        return "(" + self.name + ")"

    def applicable(self, state: State) -> bool:
        return state & self.pre == self.pre and not state & self.neg_pre

    def apply(self, state: State) -> State:
        """The successor state; the caller has checked applicability."""
        if not self.conditional:
            return (state & ~self.delete) | self.add
        add, delete = self.add, self.delete
        for effect in self.conditional:
            if state & effect.cond_pos == effect.cond_pos and not state & effect.cond_neg:
                add |= effect.add
                delete |= effect.delete
        return (state & ~delete) | add


class FactRendering:
    """Fact-level helpers shared by deterministic and probabilistic tasks."""

    facts: tuple[Atom, ...]
    fact_index: dict[Atom, int]

    def true_facts(self, state: State) -> list[Atom]:
        return [self.facts[i] for i in bits(state)]

    def state_of(self, atoms: Iterable[Atom]) -> State:
        """The state in which exactly ``atoms`` (non-static, known) hold."""
        return mask_of(self.fact_index[a] for a in atoms if a in self.fact_index)

    def format_state(self, state: State) -> str:
        return " ".join(str(a) for a in self.true_facts(state))

    def format_mask(self, mask: int) -> list[str]:
        return [str(self.facts[i]) for i in bits(mask)]


@dataclass(frozen=True)
class Task(FactRendering):
    """A grounded STRIPS task with negative preconditions, conditional effects and costs.

    ``facts[i]`` is the atom of bit ``i``. Static facts (true in every reachable state) were
    removed by grounding and are kept in ``static_facts`` for rendering only.
    ``goal_neg`` holds facts that must be false at the goal.

    Derived predicates: ``derived`` marks the derived facts and ``axioms`` computes them
    (:mod:`xaip.planning.axioms`); ``init`` and every successor are closed under the axioms
    (the actions of such a task close the states they produce).
    """

    name: str
    facts: tuple[Atom, ...]
    actions: tuple[GroundAction, ...]
    init: State
    goal: int
    goal_neg: int = 0
    static_facts: frozenset[Atom] = frozenset()
    has_costs: bool = False
    #: The domain declares action costs but the problem has no ``(:metric minimize
    #: (total-cost))``, so (as in Fast Downward and VAL) every action costs 1.
    costs_ignored: bool = False
    axioms: tuple[GroundAxiom, ...] = ()
    derived: int = 0
    fact_index: dict[Atom, int] = field(init=False, compare=False, repr=False)
    action_index: dict[str, tuple[int, ...]] = field(init=False, compare=False, repr=False)
    _closure: Callable[[State], State] | None = field(
        default=None, init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fact_index", {f: i for i, f in enumerate(self.facts)})
        object.__setattr__(self, "action_index", _action_index(a.name for a in self.actions))

    @classmethod
    def sharing_index(cls, fact_index: dict[Atom, int], action_names: Iterable[str],
                      **fields: Any) -> Task:
        """``Task(**fields)`` with ``fact_index`` as its fact index (the caller built it
        once for ``fields["facts"]``) and its action index read from ``action_names``
        (``actions[i].name``, which the caller already knows).

        Why: the constructor rebuilds both indexes, and a model-space search builds
        thousands of tasks over one fact list (a third of MCE's goal-test time on
        logistics went to it)."""
        task = object.__new__(cls)
        # a frozen dataclass without slots: its fields live in the instance dictionary
        vars(task).update(_field_defaults(), **fields, fact_index=fact_index,
                          action_index=_action_index(action_names))
        return task

    def close(self, state: State) -> State:
        """``state`` with its derived facts recomputed from its basic facts (see
        :mod:`xaip.planning.axioms`); ``state`` itself when the task has no axioms."""
        if not self.axioms and not self.derived:
            return state
        if self._closure is None:
            from xaip.planning.axioms import AxiomEvaluator  # imports this module

            object.__setattr__(self, "_closure", AxiomEvaluator(self.axioms, self.derived))
        assert self._closure is not None
        return self._closure(state)

    # ------------------------------------------------------------------ queries

    @property
    def num_facts(self) -> int:
        return len(self.facts)

    def is_goal(self, state: State) -> bool:
        return state & self.goal == self.goal and not state & self.goal_neg

    def applicable(self, state: State) -> Iterator[GroundAction]:
        """All actions applicable in ``state`` (simple scan; searches use faster generators)."""
        for action in self.actions:
            if state & action.pre == action.pre and not state & action.neg_pre:
                yield action

    def has_conditional_effects(self) -> bool:
        return any(action.conditional for action in self.actions)

    def has_negative_conditions(self) -> bool:
        return bool(self.goal_neg) or any(action.neg_pre for action in self.actions) or any(
            effect.cond_neg for action in self.actions for effect in action.conditional
        )


def _action_index(names: Iterable[str]) -> dict[str, tuple[int, ...]]:
    """Action name -> the indices of the actions of that name (a task may have several)."""
    by_name: dict[str, list[int]] = {}
    for i, name in enumerate(names):
        by_name.setdefault(name, []).append(i)
    return {name: tuple(ids) for name, ids in by_name.items()}


@cache
def _defaults() -> dict[str, object]:
    found: dict[str, object] = {}
    for spec in dataclasses.fields(Task):
        assert spec.default_factory is dataclasses.MISSING  # none yet: add them here
        if spec.default is not dataclasses.MISSING:
            found[spec.name] = spec.default
    return found


def _field_defaults() -> dict[str, object]:
    """Fresh default values of :class:`Task`'s fields, read from the dataclass (so a field
    added later gets its default in :meth:`Task.sharing_index` too)."""
    return dict(_defaults())
