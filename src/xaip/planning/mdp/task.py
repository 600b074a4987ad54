"""The grounded probabilistic task: a factored SSP whose actions have weighted outcomes.

Why a separate class from :class:`~xaip.planning.task.Task`: a classical action has one
effect, a PPDDL action a distribution over effects, and everything that solves or explains
a policy needs the distribution (Bellman backups, policy graphs, Monte-Carlo checks). The
representation otherwise matches ``Task`` on purpose — facts are bit positions, states are
Python ints, the fact order is the one :func:`xaip.planning.grounding.ground` produces — so
the all-outcomes determinisation (:mod:`xaip.planning.mdp.determinise`) is a plain ``Task``
on the same bits and landmark code can run on it unchanged.

Semantics of one step: in state ``s`` an applicable action picks outcome ``o`` with
probability ``o.probability``; the successor is ``o.apply(s)`` (conditional effects are
evaluated in ``s``, deletes before adds) and the step costs ``o.cost``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, FactRendering, State, bits

#: Outcome probabilities of one action must sum to 1 within this tolerance.
PROBABILITY_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Outcome:
    """One weighted effect of a probabilistic action."""

    probability: float
    add: int = 0
    delete: int = 0
    conditional: tuple[ConditionalEffect, ...] = ()
    cost: float = 1.0

    def apply(self, state: State) -> State:
        """The successor of ``state`` under this outcome (the caller checked applicability)."""
        if not self.conditional:
            return (state & ~self.delete) | self.add
        add, delete = self.add, self.delete
        for effect in self.conditional:
            if state & effect.cond_pos == effect.cond_pos and not state & effect.cond_neg:
                add |= effect.add
                delete |= effect.delete
        return (state & ~delete) | add

    def _to_dict(self, task: ProbabilisticTask) -> dict[str, Any]:
        """Internal: JSON of this outcome, spelled with ``task``'s facts (see
        :meth:`ProbabilisticTask.to_dict`)."""
        return {
            "probability": self.probability,
            "cost": self.cost,
            "add": task.format_mask(self.add),
            "delete": task.format_mask(self.delete),
            "conditional": [
                {
                    "if": task.format_mask(c.cond_pos),
                    "if_not": task.format_mask(c.cond_neg),
                    "add": task.format_mask(c.add),
                    "delete": task.format_mask(c.delete),
                }
                for c in self.conditional
            ],
        }


@dataclass(frozen=True)
class ProbabilisticAction:
    """A ground action with a distribution over outcomes.

    Several ground actions may share a ``name`` (one per disjunct of a disjunctive
    precondition, as in classical grounding); they then have the same outcomes, so a
    policy can name an action by ``name`` alone.
    """

    schema: str
    args: tuple[str, ...]
    pre: int
    outcomes: tuple[Outcome, ...]
    neg_pre: int = 0

    def __post_init__(self) -> None:
        if not self.outcomes:
            raise ValueError(f"action '{self.name}' has no outcomes")
        total = sum(o.probability for o in self.outcomes)
        if abs(total - 1.0) > PROBABILITY_TOLERANCE or any(
            o.probability <= 0 for o in self.outcomes
        ):
            raise ValueError(
                f"outcome probabilities of '{self.name}' must be positive and sum to 1 "
                f"(they sum to {total})"
            )
        if any(o.cost < 0 for o in self.outcomes):
            raise ValueError(f"action '{self.name}' has a negative cost")

    @property
    def name(self) -> str:
        """The plan-file spelling without parentheses, e.g. ``move-car n1 n2``."""
        return " ".join((self.schema, *self.args))

    def __str__(self) -> str:
        return "(" + self.name + ")"

    @property
    def expected_cost(self) -> float:
        return sum(o.probability * o.cost for o in self.outcomes)

    def applicable(self, state: State) -> bool:
        return state & self.pre == self.pre and not state & self.neg_pre

    def successors(self, state: State) -> dict[State, float]:
        """Successor states with their probabilities; outcomes that coincide in ``state``
        (e.g. a conditional effect that does not fire) are merged."""
        result: dict[State, float] = {}
        for outcome in self.outcomes:
            succ = outcome.apply(state)
            result[succ] = result.get(succ, 0.0) + outcome.probability
        return result

    def _to_dict(self, task: ProbabilisticTask) -> dict[str, Any]:
        """Internal: JSON of this action, spelled with ``task``'s facts (see
        :meth:`ProbabilisticTask.to_dict`)."""
        return {
            "name": self.name,
            "pre": task.format_mask(self.pre),
            "neg_pre": task.format_mask(self.neg_pre),
            "outcomes": [o._to_dict(task) for o in self.outcomes],
        }


@dataclass(frozen=True)
class ProbabilisticTask(FactRendering):
    """A grounded probabilistic planning task (an SSP with a single initial state).

    ``facts[i]`` is the atom of bit ``i``; goal states are those with all ``goal`` bits set
    and no ``goal_neg`` bit set, and they are absorbing. ``cost_model`` records how step
    costs were derived (``"unit"`` or ``"reward"``, see :mod:`xaip.planning.mdp.grounding`).
    """

    name: str
    facts: tuple[Atom, ...]
    actions: tuple[ProbabilisticAction, ...]
    init: State
    goal: int
    goal_neg: int = 0
    static_facts: frozenset[Atom] = frozenset()
    cost_model: str = "unit"
    fact_index: dict[Atom, int] = field(init=False, compare=False, repr=False)
    action_index: dict[str, tuple[int, ...]] = field(init=False, compare=False, repr=False)
    #: ``names[i]`` is ``actions[i].name``; ``canonical[i]`` the first action of that name.
    names: tuple[str, ...] = field(init=False, compare=False, repr=False)
    canonical: tuple[int, ...] = field(init=False, compare=False, repr=False)
    _by_fact: tuple[tuple[int, ...], ...] = field(init=False, compare=False, repr=False)
    _always: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "fact_index", {f: i for i, f in enumerate(self.facts)})
        by_name: dict[str, list[int]] = {}
        for i, action in enumerate(self.actions):
            by_name.setdefault(action.name, []).append(i)
        object.__setattr__(
            self, "action_index", {name: tuple(ids) for name, ids in by_name.items()}
        )
        names = tuple(a.name for a in self.actions)
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "canonical", tuple(by_name[n][0] for n in names))
        # Applicability index: each action is filed under its highest precondition bit, so
        # a state only tests the actions filed under its own true facts.
        by_fact: list[list[int]] = [[] for _ in self.facts]
        always: list[int] = []
        for i, action in enumerate(self.actions):
            if action.pre:
                by_fact[action.pre.bit_length() - 1].append(i)
            else:
                always.append(i)
        object.__setattr__(self, "_by_fact", tuple(tuple(ids) for ids in by_fact))
        object.__setattr__(self, "_always", tuple(always))

    # ------------------------------------------------------------------ queries

    @property
    def num_facts(self) -> int:
        return len(self.facts)

    def is_goal(self, state: State) -> bool:
        return state & self.goal == self.goal and not state & self.goal_neg

    def applicable_ids(self, state: State) -> list[int]:
        """Indices of the actions applicable in ``state``, in increasing order."""
        found = [i for i in self._always if not state & self.actions[i].neg_pre]
        for fact in bits(state):
            for i in self._by_fact[fact]:
                action = self.actions[i]
                if state & action.pre == action.pre and not state & action.neg_pre:
                    found.append(i)
        found.sort()
        return found

    def applicable(self, state: State) -> Iterator[ProbabilisticAction]:
        for i in self.applicable_ids(state):
            yield self.actions[i]

    def applicable_names(self, state: State) -> list[str]:
        """Names of the applicable actions, each once, in action order."""
        return list(dict.fromkeys(self.actions[i].name for i in self.applicable_ids(state)))

    def action_named(self, name: str, state: State) -> ProbabilisticAction | None:
        """The action called ``name`` that is applicable in ``state``, if any."""
        for i in self.action_index.get(name, ()):
            if self.actions[i].applicable(state):
                return self.actions[i]
        return None


    def state_key(self, state: State) -> list[str]:
        """The state as its sorted true facts spelled as strings (the policy-file key)."""
        return sorted(str(self.facts[i]) for i in bits(state))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "cost_model": self.cost_model,
            "facts": [str(f) for f in self.facts],
            "init": self.format_mask(self.init),
            "goal": self.format_mask(self.goal),
            "goal_neg": self.format_mask(self.goal_neg),
            "actions": [a._to_dict(self) for a in self.actions],
        }
