"""The learned local model: per-action STRIPS rules over the user's concepts, and what failed.

Why the witnesses are kept: "this effect is not consistent across samples" is a claim about
the black box (a conditional effect, or a concept the vocabulary lacks), and the checker
confirms it by re-running the two witness states, not by trusting the learner's records.
Witness states are simulator values; JSON shows them as text only.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import CheckReport
from xaip.runtime import Status


@dataclass(frozen=True)
class EffectConflict:
    """No unconditional STRIPS effect on ``concept`` fits two samples of the action.

    ``kind`` ``add`` (``delete``): it turns true (false) in ``changed_in`` but not in
    ``unchanged_in``, though it was false (true) before in both. ``toggle``: it turns true
    in ``changed_in`` and false in ``unchanged_in`` (``changed`` / ``unchanged`` count the
    two directions). A conditional effect, or a concept the vocabulary lacks."""

    concept: str
    kind: str
    changed: int  # samples in which it changed
    unchanged: int  # samples with the same value before in which it did not
    changed_in: Hashable = field(compare=False, repr=False)
    unchanged_in: Hashable = field(compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"concept": self.concept, "kind": self.kind, "changed": self.changed,
                "unchanged": self.unchanged, "changed_in": short(self.changed_in),
                "unchanged_in": short(self.unchanged_in)}


@dataclass(frozen=True)
class ActionModel:
    """What the samples say about one action.

    ``precondition`` is the intersection of the concept sets of the sampled states where it
    succeeded; ``add`` / ``delete`` the union of the concepts it made true / false there.
    ``weak`` lists precondition literals no failing sample needs (the action failed in no
    sample where only that literal was false), or all of them when the action succeeded in
    fewer than ``min_support`` samples: candidates for spurious literals.
    ``unexplained_failures`` counts failures in states satisfying the learned precondition
    (the vocabulary cannot say why it failed there).
    """

    name: str
    tried: int
    successes: int
    precondition: tuple[str, ...]
    add: tuple[str, ...]
    delete: tuple[str, ...]
    min_cost: float | None
    max_cost: float | None
    conflicts: tuple[EffectConflict, ...] = ()
    weak: tuple[str, ...] = ()
    unexplained_failures: int = 0

    @property
    def learned(self) -> bool:
        """Whether any sample saw it succeed (else it has no rule at all)."""
        return self.successes > 0

    @property
    def consistent(self) -> bool:
        return not self.conflicts

    @property
    def cost_state_dependent(self) -> bool:
        return self.min_cost is not None and self.min_cost != self.max_cost

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.name, "tried": self.tried, "successes": self.successes,
                "precondition": list(self.precondition), "add": list(self.add),
                "delete": list(self.delete), "min_cost": self.min_cost,
                "max_cost": self.max_cost, "cost_state_dependent": self.cost_state_dependent,
                "consistent": self.consistent,
                "conflicts": [c.to_dict() for c in self.conflicts],
                "weak_preconditions": list(self.weak),
                "unexplained_failures": self.unexplained_failures}


@dataclass(frozen=True)
class LocalModel:
    """The whole local symbolic model of a black box over a sampled region (book 7.1-7.3).

    ``domain_pddl`` / ``problem_pddl`` are the learned model as PDDL text: one parameterless
    action per learned action, the concepts as nullary predicates; the problem's init is
    C(I) and its goal the concepts true in every sampled goal state (``goal_states`` of
    them). ``region`` says how states were drawn (``walks``, ``radius``, ``all``).
    """

    status: Status
    env: str
    actions: tuple[ActionModel, ...]
    concepts: tuple[str, ...]
    initial: tuple[str, ...]
    goal: tuple[str, ...]
    goal_states: int
    samples: int
    distinct_states: int
    region: str
    radius: int | None
    seed: int
    domain_pddl: str
    problem_pddl: str
    seconds: float
    verified: bool = False
    check: CheckReport | None = None
    stats: dict[str, Any] = field(default_factory=dict)

    def action(self, name: str) -> ActionModel:
        for model in self.actions:
            if model.name == name:
                return model
        raise KeyError(name)

    @property
    def assumption_failures(self) -> tuple[str, ...]:
        """One line per failed assumption and action (inconsistent effects, unexplained
        failures, state-dependent costs), and one if no goal state was seen."""
        out: list[str] = []
        for a in self.actions:
            if a.conflicts:
                which = list(dict.fromkeys(c.concept for c in a.conflicts))
                out.append(f"{a.name}: effects not consistent across samples on "
                           f"{len(which)} concepts: {', '.join(which)} -- a conditional effect or "
                           "a missing concept (the JSON has counts and witness states)")
            if a.unexplained_failures:
                out.append(f"{a.name}: fails in {a.unexplained_failures} sampled states that "
                           "satisfy its learned precondition (a missing concept)")
            if a.cost_state_dependent:
                out.append(f"{a.name}: cost is state-dependent ({a.min_cost:g} to "
                           f"{a.max_cost:g}); the PDDL uses the least")
        if self.goal_states == 0:
            out.append("no sampled state is a goal state: the problem's goal is empty")
        return tuple(out)

    def to_dict(self) -> dict[str, Any]:
        return {"family": "localmodel", "status": str(self.status), "env": self.env,
                "verified": self.verified, "seconds": round(self.seconds, 4),
                "samples": self.samples, "distinct_states": self.distinct_states,
                "region": self.region, "radius": self.radius, "seed": self.seed,
                "concepts": list(self.concepts), "initial": list(self.initial),
                "goal": list(self.goal), "goal_states": self.goal_states,
                "actions": [a.to_dict() for a in self.actions],
                "assumption_failures": list(self.assumption_failures),
                "domain_pddl": self.domain_pddl, "problem_pddl": self.problem_pddl,
                "check": None if self.check is None else self.check.to_dict(),
                "stats": dict(self.stats)}


def short(state: Hashable) -> str:
    """A state as at most 200 characters of text (RAM states are long)."""
    text = repr(state)
    return text if len(text) <= 200 else text[:197] + "..."
