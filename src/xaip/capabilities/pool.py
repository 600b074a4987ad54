"""The pool of known concrete states: the possible first states of queries (AIA's random
states), each with its abstraction indexed for fast matching.

Why indexed: matching requirements against every pool state is the inner loop of query
generation; atoms as plain tuples and per-predicate argument lists are several times
cheaper to hash and scan than ``Atom`` dataclasses.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.planning.pddl.model import Atom

Key = tuple[str, tuple[str, ...]]


def keys_of(state: AbstractState) -> frozenset[Key]:
    """The atoms of ``state`` as plain tuples: hashing and building tuples is several times
    cheaper than for ``Atom`` dataclasses, and matching does it millions of times."""
    return frozenset((a.predicate, a.args) for a in state)


def gkey(atom: Atom, binding: Mapping[str, str]) -> Key:
    """The key of ``atom`` grounded by ``binding``."""
    return (atom.predicate, tuple(map(binding.get, atom.args, atom.args)))


@dataclass
class PoolState:
    """A concrete state known to exist, with its abstraction indexed by predicate (and as
    tuple keys for fast membership tests: any set, the guard's cases keep theirs as bits,
    :class:`~xaip.capabilities.compact.BitKeys`)."""

    concrete: Any
    fluent: AbstractState
    index: dict[str, list[tuple[str, ...]]]
    keys: AbstractSet[Key] = frozenset()

    def __post_init__(self) -> None:
        if not self.keys:
            self.keys = keys_of(self.fluent)


class CaseState:
    """What the guard's exclusion reads of a case's state: the concrete state and its
    atoms' keys (bits, :class:`~xaip.capabilities.compact.BitKeys`). Why not a
    :class:`PoolState`: the guard makes one per closed entry holding a case (330,240 on
    Cook-Me-Pasta 8x8), and a dataclass with its checks cost four times as much."""

    __slots__ = ("concrete", "keys")

    def __init__(self, concrete: Any, keys: AbstractSet[Key]) -> None:
        self.concrete = concrete
        self.keys = keys


class StatePool:
    """Concrete states from traces, random walks and answered queries: the possible first
    states of queries (AIA's random states)."""

    def __init__(self, abstractor: Abstractor) -> None:
        self.abstractor = abstractor
        self.states: list[PoolState] = []
        self._seen: set[Any] = set()
        self._abstract: set[AbstractState] = set()
        #: While true, :meth:`add` keeps nothing (the engine's speculative look-ahead must
        #: not change the pool the real run sees).
        self.frozen = False

    def add(self, concrete: Any) -> None:
        if self.frozen or concrete in self._seen:
            return
        self._seen.add(concrete)
        fluent = self.abstractor.fluent(concrete)
        if fluent in self._abstract:
            return  # one concrete representative per abstract state is enough
        self._abstract.add(fluent)
        self.states.append(PoolState(concrete, fluent, index_state(fluent)))

    def __len__(self) -> int:
        return len(self.states)


def index_state(state: AbstractState) -> dict[str, list[tuple[str, ...]]]:
    """Argument tuples per predicate, sorted (set order varies between processes, and
    runs must be reproducible for a store to resume them)."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for atom in state:
        index.setdefault(atom.predicate, []).append(atom.args)
    for args in index.values():
        args.sort()
    return index


def pool_state(state: AbstractState) -> PoolState:
    return PoolState(None, state, index_state(state))

