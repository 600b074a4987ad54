"""Backchaining from an unreachable goal fact to what blocks it, on the lifted model.

Why lifted: grounding drops every action that can never apply, so the grounded task cannot
say *why* ``(parcel-at tools harbour)`` is unreachable -- the unloads at the harbour were
dropped. On the lifted model the reason reads naturally: every action that adds the fact
needs ``(truck-at van harbour)``, which never holds; every action that adds that one needs a
road that never holds. The chain follows facts that *every* adding action needs (each a
landmark of any plan reaching the previous one) while they never hold, and ends with the
adding actions of its last fact and their preconditions that never hold.

"Never holds" is exact here: the caller passes what the exhaustive search saw (a fact of some
reachable state, or a static fact). Adding actions come from simple effects; a domain whose
conditional or quantified effects may add the fact gets no chain (it could not be complete).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from xaip.planning.pddl.model import (
    Action,
    AndEffect,
    Atom,
    Domain,
    Effect,
    ForallEffect,
    Not,
    Probabilistic,
    Problem,
    When,
    conjuncts,
    either_members,
)
from xaip.planning.semantics import fact_text

#: Ground instances of adding actions considered per fact, at most.
MAX_INSTANCES = 2000
#: Links of the chain, at most.
MAX_DEPTH = 6


@dataclass(frozen=True)
class Blocked:
    """An action that would add the chain's last fact and preconditions of it that never
    hold (empty: each holds somewhere, never all together)."""

    action: str
    unmet: tuple[str, ...]

    def to_dict(self) -> dict[str, object]:
        return {"action": self.action, "unmet": list(self.unmet)}


@dataclass(frozen=True)
class Chain:
    """``facts[0]`` is the goal fact; every action that adds ``facts[i]`` needs
    ``facts[i + 1]``; none of them ever holds; ``blocked`` lists every action that adds the
    last fact (none: no action adds it)."""

    facts: tuple[str, ...]
    blocked: tuple[Blocked, ...]

    def sentence(self) -> str:
        parts = [f"every action that adds {a} needs {b}, which never holds"
                 for a, b in itertools.pairwise(self.facts)]
        last = self.facts[-1]
        if not self.blocked:
            parts.append(f"no action adds {last}")
        else:
            shown = [f"{b.action} needs {', '.join(b.unmet)}" if b.unmet else
                     f"{b.action} needs preconditions that never hold together"
                     for b in self.blocked[:6]]
            more = len(self.blocked) - len(shown)
            parts.append(f"no action that adds {last} can ever be carried out: "
                         + "; ".join(shown) + (f"; and {more} more" if more > 0 else ""))
        return "; ".join(parts)

    def to_dict(self) -> dict[str, object]:
        return {"facts": list(self.facts), "blocked": [b.to_dict() for b in self.blocked]}


def typed_objects(domain: Domain, problem: Problem) -> Callable[[str], list[str]]:
    """The objects (and constants) of a type name, ``either`` types included."""
    below = domain.subtypes_closure()
    objects = [(t.name, t.type) for t in (*domain.constants, *problem.objects)]

    def of(type_name: str) -> list[str]:
        kinds = either_members(type_name) or (type_name,)
        group = set().union(*(below.get(k, frozenset()) for k in kinds))
        return [name for name, kind in objects if kind in group]

    return of


def _adds(effect: Effect) -> Iterator[Atom]:
    """The simple add atoms of ``effect``; raises ``ValueError`` for effects of other kinds
    that could add something."""
    if isinstance(effect, Atom):
        yield effect
    elif isinstance(effect, AndEffect):
        for part in effect.operands:
            yield from _adds(part)
    elif isinstance(effect, When | ForallEffect | Probabilistic):
        raise ValueError("complex effect")


def _instances(action: Action, fact: Atom, of: Callable[[str], list[str]]
               ) -> list[dict[str, str]] | None:
    """Bindings of ``action`` whose simple effects add ``fact``; ``None`` when unknown."""
    try:
        adds = [a for a in _adds(action.effect) if a.predicate == fact.predicate]
    except ValueError:
        return None
    params = [p.name for p in action.parameters]
    found: list[dict[str, str]] = []
    for atom in adds:
        if len(atom.args) != len(fact.args):
            continue
        binding: dict[str, str] = {}
        if not all(_bind(binding, term, value, params)
                   for term, value in zip(atom.args, fact.args, strict=True)):
            continue
        free = [p for p in action.parameters if p.name not in binding]
        pools = [of(p.type) for p in free]
        if any(name not in of(p.type) for p in action.parameters
               if (name := binding.get(p.name)) is not None):
            continue
        for values in itertools.product(*pools):
            full = {**binding, **dict(zip((p.name for p in free), values, strict=True))}
            if full not in found:
                found.append(full)
            if len(found) > MAX_INSTANCES:
                return None
    return found


def _bind(binding: dict[str, str], term: str, value: str, params: list[str]) -> bool:
    if term not in params:
        return term == value
    return binding.setdefault(term, value) == value


def landmark_chain(domain: Domain, problem: Problem, start: Atom,
                   holds: Callable[[Atom], bool]) -> Chain | None:
    """The chain from ``start`` (a fact that never holds), or ``None`` when the adding
    actions cannot all be listed (complex effects, too many instances)."""
    of = typed_objects(domain, problem)
    facts = [start]
    while True:
        instances: list[tuple[str, list[Atom], list[str]]] = []
        for action in domain.actions:
            found = _instances(action, facts[-1], of)
            if found is None:
                return None
            for binding in found:
                needed, unmet, possible = _preconditions(action, binding, holds)
                if possible:
                    args = [binding[p.name] for p in action.parameters]
                    instances.append((fact_text(action.name, args), needed, unmet))
        shared = [a for a in (instances[0][1] if instances else [])
                  if all(a in needed for _, needed, _ in instances) and a not in facts
                  and not holds(a)]
        if shared and len(facts) < MAX_DEPTH:
            facts.append(shared[0])
            continue
        blocked = tuple(Blocked(name, tuple(unmet)) for name, _, unmet in instances)
        return Chain(tuple(fact_text(f.predicate, f.args) for f in facts), blocked)


def _preconditions(action: Action, binding: dict[str, str], holds: Callable[[Atom], bool]
                   ) -> tuple[list[Atom], list[str], bool]:
    """The positive precondition atoms, the literals that never hold, and whether the
    instance's equality conditions allow it at all."""
    needed: list[Atom] = []
    unmet: list[str] = []
    for part in conjuncts(action.precondition):
        positive = not isinstance(part, Not)
        inner = part.operand if isinstance(part, Not) else part
        if not isinstance(inner, Atom):
            continue
        atom = Atom(inner.predicate, tuple(binding.get(a, a) for a in inner.args))
        if atom.predicate == "=":
            if (atom.args[0] == atom.args[1]) != positive:
                return needed, unmet, False
            continue
        text = fact_text(atom.predicate, atom.args)
        if positive:
            needed.append(atom)
            if not holds(atom):
                unmet.append(text)
    return needed, unmet, True
