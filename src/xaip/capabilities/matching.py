"""Matching requirements against known states: which bindings of a capability's parameters
make a set of literals hold in a pool state.

Why separate: matching is the hot inner loop of query generation (millions of calls on the
larger games), with its own caches; the engine only asks "which bindings?".
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.agents.simulator import check_deadline
from xaip.capabilities.lifting import ground_atom
from xaip.capabilities.pal import CapState
from xaip.capabilities.pool import Key, PoolState, gkey, keys_of
from xaip.capabilities.traces import AbstractState
from xaip.planning.pddl.model import Atom

Requirement = tuple[Atom, bool]


@dataclass(frozen=True)
class Compiled:
    """Requirements split into ground literals (checked first, by set membership) and
    literals with variables."""

    ground: tuple[Requirement, ...]
    lifted: tuple[Requirement, ...]
    ground_keys: tuple[tuple[Key, bool], ...] = ()


def compile_requirements(required: Sequence[Requirement]) -> Compiled:
    ground: list[Requirement] = []
    lifted: list[Requirement] = []
    for atom, value in required:
        (lifted if any(t[0] == "?" for t in atom.args) else ground).append((atom, value))
    return Compiled(tuple(ground), tuple(lifted),
                    tuple(((a.predicate, a.args), v) for a, v in ground))


def contradictory(required: Sequence[Requirement]) -> bool:
    values: dict[Atom, bool] = {}
    return any(values.setdefault(atom, value) != value for atom, value in required)


class Matcher:
    """Bindings of capabilities in pool states, with the per-capability context (parameter
    types, objects seen in executions) cached until the capability meets new objects."""

    def __init__(self, objects: Mapping[str, str], max_bindings: int) -> None:
        self.object_type = dict(objects)
        self.max_bindings = max_bindings
        by_type: dict[str, list[str]] = {}
        for obj, typ in sorted(objects.items()):
            by_type.setdefault(typ, []).append(obj)
        self.objects_by_type = by_type
        self._contexts: dict[str, tuple[int, Any]] = {}
        self._keys: dict[AbstractState, frozenset[Key]] = {}
        self._grounded_cache: Any = None

    def _seen_grounded(self, cap: CapState, compiled: Compiled) \
            -> list[tuple[dict[str, str], list[tuple[Key, bool]]]]:
        cached = self._grounded_cache
        if cached is not None and cached[0] is cap and cached[1] is compiled and \
                cached[2] == len(cap.seen_bindings):
            return cached[3]
        found = [(b, [(gkey(a, b), v) for a, v in (*compiled.ground, *compiled.lifted)])
                 for b in cap.seen_bindings]
        self._grounded_cache = (cap, compiled, len(cap.seen_bindings), found)
        return found

    def bindings(self, cap: CapState, compiled: Compiled, ps: PoolState) \
            -> Iterator[dict[str, str]]:
        """Bindings for ``cap`` in ``ps``: first those seen in executions (the cells that
        worked before, now in another context), then any other match."""
        state = ps.keys
        given: list[dict[str, str]] = []
        for binding, grounded in self._seen_grounded(cap, compiled):
            if all((g in state) == v for g, v in grounded):
                given.append(binding)
                yield binding
        for binding in self.match(cap, compiled, ps, {}):
            if binding not in given:
                yield binding

    def match(self, cap: CapState, required: Sequence[Requirement] | Compiled, ps: PoolState,
              bound: Mapping[str, str]) -> Iterator[dict[str, str]]:
        """Bindings of ``cap``'s parameters (injective, type-correct, extending ``bound``)
        under which ``required`` holds in ``ps``."""
        compiled = required if isinstance(required, Compiled) else compile_requirements(
            required)
        state = ps.keys
        for key, value in compiled.ground_keys:
            if (key in state) != value:
                return
        types, preferred, orders = self._match_context(cap)
        positives: list[Atom] = []
        negatives: list[Atom] = []
        for atom, value in compiled.lifted:
            if bound and all(t[0] != "?" or t in bound for t in atom.args):
                if (gkey(atom, bound) in state) != value:
                    return
                continue
            (positives if value else negatives).append(atom)
        index = ps.index
        for atom in positives:
            if atom.predicate not in index:
                return
        positives.sort(key=lambda a: len(index[a.predicate]))
        limit = self.max_bindings
        object_type = self.object_type
        params = cap.params

        def rec(i: int, binding: dict[str, str]) -> Iterator[dict[str, str]]:
            check_deadline()  # each call scans a predicate's entries: long on large grids
            if i == len(positives):
                free = [v for v, _ in params if v not in binding]
                if not free:
                    if all(gkey(a, binding) not in state for a in negatives):
                        yield binding
                    return
                used = set(binding.values())
                pools = [[o for o in orders[v] if o not in used] for v in free]
                for tried, combo in enumerate(itertools.product(*pools)):
                    if tried & 1023 == 1023:
                        check_deadline()  # large grids: millions of combinations
                    if len(set(combo)) != len(combo):
                        continue
                    full = dict(binding)
                    full.update(zip(free, combo, strict=True))
                    if all(gkey(a, full) not in state for a in negatives):
                        yield full
                return
            atom = positives[i]
            terms = atom.args
            entries = index[atom.predicate]
            if preferred:
                hints = [(k, preferred[t]) for k, t in enumerate(terms)
                         if t in preferred and t not in binding]
                if hints:
                    good = [args for args in entries
                            if all(k < len(args) and args[k] in values for k, values in hints)]
                    if good:
                        chosen = set(good)
                        entries = good + [args for args in entries if args not in chosen]
            for args in entries:
                if len(args) != len(terms):
                    continue
                new = binding
                ok = True
                for term, obj in zip(terms, args, strict=True):
                    if term[0] == "?":
                        have = new.get(term)
                        if have is None:
                            if types.get(term) != object_type.get(obj) or \
                                    obj in new.values():
                                ok = False
                                break
                            if new is binding:
                                new = dict(binding)
                            new[term] = obj
                        elif have != obj:
                            ok = False
                            break
                    elif term != obj:
                        ok = False
                        break
                if ok:
                    yield from rec(i + 1, new)

        yield from itertools.islice(rec(0, dict(bound)), limit)

    def _match_context(self, cap: CapState) -> tuple[dict[str, str], dict[str, set[str]],
                                                     dict[str, list[str]]]:
        """Per capability, until it is executed with new objects: its parameters' types,
        the objects each parameter took in executions, and each parameter's candidate
        objects with those first (the cell next to the key worked before, so try it
        first)."""
        found = self._contexts.get(cap.name)
        if found is not None and found[0] == len(cap.seen_bindings):
            return found[1]
        types = cap.signature.var_types()
        preferred: dict[str, set[str]] = {}
        for seen in cap.seen_bindings:
            for var, obj in seen.items():
                preferred.setdefault(var, set()).add(obj)
        orders: dict[str, list[str]] = {}
        for var, _ in cap.params:
            first = [b[var] for b in cap.seen_bindings if var in b]
            orders[var] = list(dict.fromkeys([*first,
                                              *self.objects_by_type.get(types[var], [])]))
        context = (types, preferred, orders)
        self._contexts[cap.name] = (len(cap.seen_bindings), context)
        return context

    def violated(self, binding: Mapping[str, str], reqs: Sequence[Requirement],
                  state: AbstractState) -> list[tuple[Atom, bool]]:
        keys = self._keys.get(state)
        if keys is None:
            if len(self._keys) > 20_000:
                self._keys.clear()
            keys = self._keys[state] = keys_of(state)
        out = []
        for atom, value in reqs:
            if (gkey(atom, binding) in keys) != value:
                out.append((ground_atom(atom, binding), value))
        return out
