"""A fast, sound screen for the guard: which closed places may hold an offending case.

Why: the guard (:mod:`~xaip.capabilities.gameover`) looks, for every capability, at
every abstraction of closed listed states and every binding under which the capability's
precondition holds there, for a prediction that is not among the abstractions reachable
from it. On Cook-Me-Pasta 8x8 that is 367,865 abstractions, and the lifted move alone
holds under about 46 bindings in each; through the matcher on atom sets (a ``Place`` per
abstraction, the prediction built as a frozenset of atoms and hashed) it took 0.67 ms per
abstraction, minutes for the level. Nearly every prediction is reachable, so most places
hold no case at all.

What this module does: the same test on the listing's bit sets
(:mod:`~xaip.capabilities.compact`). A precondition's ground part is two mask tests;
its lifted positive literals are matched against the bits a place holds (each literal's
candidate atoms numbered once, with the part of a binding each implies); per binding
(cached) the grounded negative literals and effects are masks, so the prediction is
``(bits & ~deletes) | adds`` and its reachability one dictionary look-up and one bit
test. :meth:`Screen.suspect` says whether a place *may* hold an offending case; it is
sound (it enumerates every binding the matcher can yield -- type-correct and injective,
a superset where the matcher stops early -- and ignores only the refinement test, which
can only remove cases), so a place it clears holds none, and the guard runs the exact
test (:func:`~xaip.capabilities.gameover._offending`, unchanged, in the same order) on
the places it does not clear. ``tests/capabilities/test_screen.py`` checks both on random
levels.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from xaip.capabilities.candidates import POS
from xaip.capabilities.compact import has
from xaip.capabilities.matching import Matcher, compile_requirements
from xaip.capabilities.pal import CapState, _effect_list
from xaip.capabilities.pool import gkey

if TYPE_CHECKING:
    from xaip.capabilities.region import Closed

#: :meth:`Screen.offends`: the prediction is reached from nowhere listed ...
OFFENDS = 1
#: ... and some listed state has exactly its abstraction (it describes a state).
LISTED = 2

#: A binding's masks: negative literals, effects adding, effects deleting, and whether an
#: effect adds an atom no listed state holds (the prediction is then reached from nowhere).
Masks = tuple[int, int, int, bool]


class Screen:
    """:meth:`suspect` for one capability over one :class:`~xaip.capabilities.region.
    Closed` view, with ``matcher``'s objects (the guard's matcher over every binding)."""

    def __init__(self, cap: CapState, view: Closed, matcher: Matcher) -> None:
        from xaip.capabilities.gameover import precondition  # gameover imports this module

        self.view = view
        table = view.table
        compiled = compile_requirements(precondition(cap))
        self.never = False
        pos = neg = 0
        for key, value in compiled.ground_keys:
            bit = table.known(key)
            if value:
                self.never = self.never or not bit  # required, and held nowhere listed
                pos |= bit
            else:
                neg |= bit
        self.pos, self.neg = pos, neg
        self.params = [v for v, _ in cap.params]
        types = cap.signature.var_types()
        object_type = matcher.object_type
        # each lifted positive literal: its candidate atoms' bits, and per bit the
        # (variable, object) pairs it binds
        literals = []
        for atom, value in compiled.lifted:
            if not value:
                continue
            mask = 0
            binds: dict[int, tuple[tuple[str, str], ...]] = {}
            for index, (predicate, args) in enumerate(table.keys):
                if predicate != atom.predicate or len(args) != len(atom.args):
                    continue
                pairs = _unify(atom.args, args, types, object_type)
                if pairs is not None:
                    mask |= 1 << index
                    binds[index] = pairs
            if not mask:
                self.never = True
            literals.append((mask, binds))
        literals.sort(key=lambda lit: len(lit[1]))
        self.literals = literals
        # free parameters (in no positive literal) range over the objects of their type
        # and those seen bound to them (the matcher's candidates; the screen needs the set)
        bound = {t for atom, value in compiled.lifted if value for t in atom.args}
        self.free: list[tuple[str, list[str]]] = []
        for var in self.params:
            if var in bound:
                continue
            pool = dict.fromkeys([b[var] for b in cap.seen_bindings if var in b])
            pool.update(dict.fromkeys(matcher.objects_by_type.get(types[var], [])))
            self.free.append((var, list(pool)))
        self.negatives = [atom for atom, value in compiled.lifted if not value]
        self.effects = [(atom, mode == POS) for atom, mode in _effect_list(cap)]
        self._masks: dict[tuple[str, ...], Masks] = {}

    def suspect(self, k: int) -> bool:
        """Whether place ``k`` may hold a case: a binding under which the precondition
        holds there and the prediction differs from the place's abstraction and is not
        among those it reaches. ``False`` is exact: the place holds no case."""
        if self.never:
            return False
        view = self.view
        bits = view.bits[k]
        if bits & self.pos != self.pos or bits & self.neg:
            return False
        reach = view.reach[k]
        ids = view.ids
        masks = self._masks
        for binding in self._bindings(bits):
            found = masks.get(binding)
            if found is None:
                found = masks[binding] = self._ground(binding)
            negative, adds, deletes, unknown = found
            if bits & negative:
                continue
            if unknown:
                return True
            target = (bits & ~deletes) | adds
            if target == bits:
                continue
            tid = ids.get(target)
            if tid is None or not has(reach, tid):
                return True
        return False

    def offends(self, k: int, binding: dict[str, str]) -> int:
        """Whether the prediction under ``binding`` (one the matcher found in place ``k``)
        differs from the place's abstraction and is not among those it reaches: the test
        :func:`~xaip.capabilities.gameover._offending` makes with atom sets, on bits.
        ``OFFENDS`` it does, ``LISTED`` it does and a listed state has exactly the
        predicted abstraction (so the prediction describes a state), 0 it does not."""
        values = tuple(binding[v] for v in self.params)
        found = self._masks.get(values)
        if found is None:
            found = self._masks[values] = self._ground(values)
        _, adds, deletes, unknown = found
        if unknown:
            return OFFENDS
        bits = self.view.bits[k]
        target = (bits & ~deletes) | adds
        if target == bits:
            return 0
        tid = self.view.ids.get(target)
        if tid is None:
            return OFFENDS
        return 0 if has(self.view.reach[k], tid) else LISTED

    def _ground(self, values: tuple[str, ...]) -> Masks:
        binding = dict(zip(self.params, values, strict=True))
        table = self.view.table
        negative = 0
        for atom in self.negatives:
            negative |= table.known(gkey(atom, binding))
        final: dict[tuple[str, tuple[str, ...]], bool] = {}
        for atom, value in self.effects:  # applied in order: the last one wins
            final[gkey(atom, binding)] = value
        adds = deletes = 0
        unknown = False
        for key, value in final.items():
            bit = table.known(key)
            if value:
                unknown = unknown or not bit
                adds |= bit
            else:
                deletes |= bit
        return negative, adds, deletes, unknown

    def _bindings(self, bits: int) -> Iterator[tuple[str, ...]]:
        """Every injective binding of the parameters whose lifted positive literals hold
        in ``bits`` (as object tuples in parameter order)."""
        params = self.params
        literals = self.literals
        free = self.free

        def rec(i: int, binding: dict[str, str]) -> Iterator[tuple[str, ...]]:
            if i == len(literals):
                yield from _complete(binding, free, params)
                return
            mask, binds = literals[i]
            hits = bits & mask
            while hits:
                low = hits & -hits
                hits ^= low
                new = binding
                for var, obj in binds[low.bit_length() - 1]:
                    have = new.get(var)
                    if have is None:
                        if obj in new.values():
                            break
                        if new is binding:
                            new = dict(binding)
                        new[var] = obj
                    elif have != obj:
                        break
                else:
                    yield from rec(i + 1, new)

        yield from rec(0, {})


def _complete(binding: dict[str, str], free: list[tuple[str, list[str]]],
              params: list[str]) -> Iterator[tuple[str, ...]]:
    """``binding`` extended injectively over the free parameters."""
    missing = [(var, pool) for var, pool in free if var not in binding]
    if not missing:
        yield tuple(binding[v] for v in params)
        return
    var, pool = missing[0]
    used = set(binding.values())
    for obj in pool:
        if obj not in used:
            yield from _complete({**binding, var: obj}, free, params)


def _unify(terms: tuple[str, ...], args: tuple[str, ...], types: dict[str, str],
           object_type: dict[str, str]) -> tuple[tuple[str, str], ...] | None:
    """The (variable, object) pairs under which the literal's ``terms`` match the ground
    ``args`` (type-correct, one object per variable, distinct objects for distinct
    variables), ``None`` when they cannot."""
    pairs: dict[str, str] = {}
    for term, obj in zip(terms, args, strict=True):
        if term[0] != "?":
            if term != obj:
                return None
            continue
        have = pairs.get(term)
        if have is None:
            if types.get(term) != object_type.get(obj) or obj in pairs.values():
                return None
            pairs[term] = obj
        elif have != obj:
            return None
    return tuple(pairs.items())


__all__ = ["LISTED", "OFFENDS", "Screen"]
