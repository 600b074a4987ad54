"""The result of capability discovery: a parameterised capability model (Def. 3).

Frozen dataclasses with ``to_dict()``; rendering (English cards, PDDL) lives in
:mod:`xaip.render.capabilities`, the independent checks in :mod:`xaip.capabilities.checks`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.planning.pddl.model import Atom

Param = tuple[str, str]


@dataclass(frozen=True)
class Literal:
    """A positive or negative atom over parameters and constants."""

    atom: Atom
    positive: bool = True

    def __str__(self) -> str:
        return str(self.atom) if self.positive else f"(not {self.atom})"


@dataclass(frozen=True)
class OpenTuple:
    """A PAL tuple whose mode was not settled by traces and queries.

    ``reason`` is ``unobservable`` (no valid query distinguishes the modes, e.g. a wall
    under the player), ``ambiguous`` (queries were asked but failures could not be
    attributed) or ``never-true`` (the atom's pattern never held in any state seen).
    ``chosen`` is the mode written into the model.
    """

    location: str
    atom: Atom
    modes: tuple[str, ...]
    chosen: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "location": self.location,
            "atom": str(self.atom),
            "modes": list(self.modes),
            "chosen": self.chosen,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class Capability:
    """A parameterised capability: when the agent can act, and what it then achieves.

    ``text`` is its English card. ``reliable`` is false when the agent's answers
    contradicted each other (a non-deterministic simulator, or a vocabulary that cannot
    express what the agent needs); ``notes`` says why. ``examined`` is false for a
    capability a focused run asked nothing about (:mod:`~xaip.capabilities.focus`): it
    makes no claim, and the checker tests none.
    """

    name: str
    parameters: tuple[Param, ...]
    preconditions: tuple[Literal, ...]
    effects: tuple[Literal, ...]
    text: str = ""
    instances: int = 0
    open: tuple[OpenTuple, ...] = ()
    reliable: bool = True
    notes: tuple[str, ...] = ()
    example: tuple[Any, Any] | None = field(default=None, compare=False, repr=False)
    examined: bool = True

    @property
    def add(self) -> tuple[Atom, ...]:
        return tuple(lit.atom for lit in self.effects if lit.positive)

    @property
    def delete(self) -> tuple[Atom, ...]:
        return tuple(lit.atom for lit in self.effects if not lit.positive)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "parameters": [{"name": v, "type": t} for v, t in self.parameters],
            "preconditions": [str(lit) for lit in self.preconditions],
            "effects": [str(lit) for lit in self.effects],
            "text": self.text,
            "instances": self.instances,
            "reliable": self.reliable,
            "examined": self.examined,
            "notes": list(self.notes),
            "open": [t.to_dict() for t in self.open],
        }


@dataclass(frozen=True)
class CapabilityModel:
    """⟨P̃, C̃⟩ plus the constants (named objects) the capabilities mention."""

    name: str
    predicates: tuple[tuple[str, tuple[str, ...]], ...]
    types: tuple[str, ...]
    constants: tuple[tuple[str, str], ...]
    capabilities: tuple[Capability, ...]

    def capability(self, name: str) -> Capability:
        for cap in self.capabilities:
            if cap.name == name:
                return cap
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "predicates": [
                {"name": n, "parameters": list(params)} for n, params in self.predicates
            ],
            "types": list(self.types),
            "constants": [{"name": n, "type": t} for n, t in self.constants],
            "capabilities": [c.to_dict() for c in self.capabilities],
        }


@dataclass(frozen=True)
class QueryRecord:
    """One state-reachability query put to the agent and its answer."""

    capability: str
    start: str
    goal: str
    status: str
    reached: bool | None
    seconds: float
    cached: bool
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "capability": self.capability,
            "status": self.status,
            "reached": self.reached,
            "seconds": self.seconds,
            "cached": self.cached,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class DiscoveryStats(Mapping[str, Any]):
    """Counts and times of one discovery run.

    Also a read-only mapping of the same counters (``stats["queries"]``), the ``stats``
    shape every explainer result has (:mod:`xaip.contract`)."""

    traces: int
    transitions: int
    ground_candidates: int
    capabilities: int
    pal_tuples: int
    settled_by_traces: int
    settled_by_queries: int
    open_tuples: int
    queries: int
    asked: int
    cached: int
    failed: int
    errors: int
    plans: int
    seconds: float
    query_seconds: float
    trace_seconds: float
    nondeterministic: int = 0
    exhausted: bool = False
    #: Lifted capabilities an unseen binding refuted (see :mod:`~xaip.capabilities.generalise`).
    overgeneral: int = 0
    #: Capabilities still claimed in a state where their prediction cannot come true (game
    #: over or blocked; see :mod:`~xaip.capabilities.gameover`), marked unreliable.
    game_over: int = 0
    #: Refuted lifted capabilities replaced by grounded ones (see
    #: :mod:`~xaip.capabilities.split`).
    split: int = 0

    @property
    def seconds_per_query(self) -> float:
        return self.seconds / self.queries if self.queries else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "traces": self.traces,
            "transitions": self.transitions,
            "ground_candidates": self.ground_candidates,
            "capabilities": self.capabilities,
            "pal_tuples": self.pal_tuples,
            "settled_by_traces": self.settled_by_traces,
            "settled_by_queries": self.settled_by_queries,
            "open_tuples": self.open_tuples,
            "queries": self.queries,
            "asked": self.asked,
            "cached": self.cached,
            "failed": self.failed,
            "errors": self.errors,
            "plans": self.plans,
            "overgeneral": self.overgeneral,
            "game_over": self.game_over,
            "split": self.split,
            "seconds": self.seconds,
            "seconds_per_query": self.seconds_per_query,
            "query_seconds": self.query_seconds,
            "trace_seconds": self.trace_seconds,
            "nondeterministic": self.nondeterministic,
            "exhausted": self.exhausted,
        }

    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())
