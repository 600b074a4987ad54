"""Abstractions as bit sets over a numbering of ground atoms: the listing's representation.

Why: the guard's listing (:mod:`~xaip.capabilities.region`) abstracts every state the
simulator reaches from the start, up to hundreds of thousands of them, nearly all with an
abstraction of their own on Cook-Me-Pasta 8x8 (367,779 states). Through the
:class:`~xaip.capabilities.traces.Abstractor` each cost a frozenset of ``Atom`` objects
for the full abstraction and one for its fluent part, both kept in the abstractor's cache
(2.5 GB after the listing) and hashed atom by atom. Here an abstraction is a Python ``int``
with one bit per ground atom (a few hundred bits: tens of bytes), computed straight from
the vocabulary's argument tuples, so equality and hashing are cheap and a precondition's
ground part is two mask tests. The same abstraction as ``Abstractor.fluent`` (the type
atoms left out), decoded back to atoms only where a capability needs them
(:meth:`AtomTable.decode`); ``tests/capabilities/test_compact.py`` compares the two on
every state of random levels.

The vocabulary's checks still run: an argument tuple never seen before is validated
against the state's objects as ``Vocabulary.abstract`` would (a bad vocabulary is still a
one-line error), one seen before under the same objects was valid then and is valid now.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from xaip.capabilities.pool import Key
from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.planning.pddl.model import Atom
from xaip.vocab.core import Vocabulary


class AtomTable:
    """A numbering of the ground atoms met (in the order met): atom ``i`` is bit ``i``."""

    def __init__(self) -> None:
        self.ids: dict[Key, int] = {}
        self.keys: list[Key] = []
        self._atoms: dict[Key, Atom] = {}
        #: The :class:`CompactAbstractor` filling this table (:func:`compact_abstractor`).
        self.compact: CompactAbstractor | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "compact": None, "_atoms": {}}

    def __len__(self) -> int:
        return len(self.keys)

    def bit(self, key: Key) -> int:
        """The bit of ``key`` (numbered now if it is new)."""
        found = self.ids.get(key)
        if found is None:
            found = self.ids[key] = len(self.keys)
            self.keys.append(key)
        return 1 << found

    def known(self, key: Key) -> int:
        """The bit of ``key``, 0 when it was never met (no listed abstraction holds it)."""
        found = self.ids.get(key)
        return 0 if found is None else 1 << found

    def encode_known(self, fluent: Iterable[Atom]) -> int | None:
        """The bits of an abstraction given as atoms, ``None`` when it holds an atom never
        met (then no listed abstraction is equal to it)."""
        bits = 0
        ids = self.ids
        for atom in fluent:
            found = ids.get((atom.predicate, atom.args))
            if found is None:
                return None
            bits |= 1 << found
        return bits

    def encode(self, fluent: Iterable[Atom]) -> int:
        """The bits of an abstraction given as atoms."""
        bits = 0
        for atom in fluent:
            bits |= self.bit((atom.predicate, atom.args))
        return bits

    def key_list(self, bits: int) -> list[Key]:
        """The keys of the atoms in ``bits``, in numbering order."""
        out = []
        keys = self.keys
        while bits:
            low = bits & -bits
            out.append(keys[low.bit_length() - 1])
            bits ^= low
        return out

    def decode(self, bits: int) -> AbstractState:
        """The abstraction ``bits`` stands for, as atoms (one ``Atom`` per key, shared)."""
        atoms = self._atoms
        out = []
        for key in self.key_list(bits):
            atom = atoms.get(key)
            if atom is None:
                atom = atoms[key] = Atom(*key)
            out.append(atom)
        return frozenset(out)


class CompactAbstractor:
    """``state -> bits`` of ``Abstractor.fluent(state)``, without its cache.

    The objects of every state abstracted join the abstractor's (as abstracting there
    would add them). Argument tuples are validated the first time they are met under a
    given set of objects (see the module docstring)."""

    def __init__(self, abstractor: Abstractor, table: AtomTable) -> None:
        self.abstractor = abstractor
        self.table = table
        vocabulary = abstractor.vocabulary
        self.vocabulary = vocabulary
        self._typed: dict[str, str] | None = None
        self._valid: set[Key] = set()
        self._fluent = [p for p in vocabulary.predicates if p.name not in abstractor.type_names]

    def __call__(self, state: Any) -> int:
        vocabulary = self.vocabulary
        typed = vocabulary.objects(state)
        if typed != self._typed:
            self._typed = typed
            self._valid = set()
            for obj, kind in typed.items():
                self.abstractor.objects.setdefault(obj, kind)
        valid = self._valid
        table = self.table
        ids = table.ids
        bits = 0
        for pred in self._fluent:
            name = pred.name
            for args in _arguments(vocabulary, pred, state, typed):
                key = (name, args)
                if key not in valid:
                    _validate(vocabulary, pred, args, typed, state)
                    valid.add(key)
                found = ids.get(key)
                bits |= 1 << found if found is not None else table.bit(key)
        return bits


class BitKeys(AbstractSet[Key]):
    """The keys of an abstraction's atoms as a set backed by its bits: what the guard's
    exclusion reads of a case's state (``key in keys``). Why not a frozenset: a guard can
    keep hundreds of thousands of cases (the lifted move on Cook-Me-Pasta 8x8), and a
    frozenset of 65 keys per state was gigabytes."""

    __slots__ = ("bits", "table")

    def __init__(self, bits: int, table: AtomTable) -> None:
        self.bits = bits
        self.table = table

    def __contains__(self, key: object) -> bool:
        found = self.table.ids.get(key)  # type: ignore[call-overload]
        return found is not None and bool(self.bits >> found & 1)

    def __iter__(self) -> Iterator[Key]:
        return iter(self.table.key_list(self.bits))

    def __len__(self) -> int:
        return self.bits.bit_count()


def has(bitmap: bytes, i: int) -> bool:
    """Whether bit ``i`` is set in a little-endian ``bitmap``. Why bytes and not an int:
    testing bit ``i`` of an int (``n >> i & 1``) copies the int's upper part, and the sets
    of abstractions reachable from a state are ints of hundreds of thousands of bits (a
    copy of tens of kilobytes per test, millions of tests in a guard)."""
    byte = i >> 3
    return byte < len(bitmap) and bool(bitmap[byte] >> (i & 7) & 1)


def bitmap(bits: int) -> bytes:
    """``bits`` as a little-endian bitmap (see :func:`has`)."""
    return bits.to_bytes((bits.bit_length() + 7) // 8, "little")


def both(a: bytes, b: bytes) -> bytes:
    """The bits set in both bitmaps."""
    return bitmap(int.from_bytes(a, "little") & int.from_bytes(b, "little"))


def compact_abstractor(abstractor: Abstractor, table: AtomTable) -> CompactAbstractor:
    """The compact abstractor of ``abstractor`` filling ``table`` (one per table: its
    cache of validated argument tuples lasts as long as the table)."""
    found = table.compact
    if found is None or found.abstractor is not abstractor:
        found = table.compact = CompactAbstractor(abstractor, table)
    return found


def _arguments(vocabulary: Vocabulary, pred: Any, state: Any,
               typed: dict[str, str]) -> frozenset[tuple[str, ...]]:
    """The argument tuples ``pred`` holds for in ``state``, unvalidated (as
    ``Vocabulary.true_args`` computes them before its check)."""
    if pred.style == "test":
        return vocabulary._tested(pred, state, typed)
    return vocabulary._normalise(pred, vocabulary._call(pred, state), state)


def _validate(vocabulary: Vocabulary, pred: Any, args: tuple[str, ...],
              typed: dict[str, str], state: Any) -> None:
    if vocabulary.check:
        vocabulary._validate(pred, frozenset((args,)), typed, state)


__all__ = ["AtomTable", "BitKeys", "CompactAbstractor", "bitmap", "both", "compact_abstractor",
           "has"]
