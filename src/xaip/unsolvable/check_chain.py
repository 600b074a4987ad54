"""The checker's confirmation of a landmark chain (:mod:`xaip.unsolvable.chain`), by brute
force over every ground instance of every action schema.

It shares nothing with the chain's search: it instantiates each schema with every tuple of
objects of its parameters' types (its own typed-object listing, one budget node per tuple),
substitutes the effect and the precondition itself, and confirms that every chain fact
never holds (the checker's own exploration), that every instance adding a chain fact needs
the next one, and that the instances adding the last fact are exactly those listed, each with
its listed preconditions, which never hold. Conditional, quantified or probabilistic effects
make the chain unconfirmable (the search gives none for such domains).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

from xaip.errors import BudgetExhausted
from xaip.planning.pddl.model import (
    AndEffect,
    Atom,
    Domain,
    Effect,
    Not,
    Problem,
    conjuncts,
)
from xaip.planning.semantics import fact_text
from xaip.runtime.budget import BudgetClock
from xaip.unsolvable.chain import Chain


def _objects(domain: Domain, problem: Problem, type_name: str) -> list[str]:
    below = domain.subtypes_closure()
    kinds = [t.strip() for t in type_name.strip("()").split()[1:]] \
        if type_name.startswith("(either") else [type_name]
    allowed: set[str] = set()
    for kind in kinds:
        allowed |= set(below.get(kind, {kind}))
    return [t.name for t in (*domain.constants, *problem.objects) if t.type in allowed]


def _simple_adds(effect: Effect, sub: Callable[[Atom], str]) -> list[str] | None:
    if isinstance(effect, Atom):
        return [sub(effect)]
    if isinstance(effect, AndEffect):
        out: list[str] = []
        for part in effect.operands:
            adds = _simple_adds(part, sub)
            if adds is None:
                return None
            out += adds
        return out
    if isinstance(effect, Not) or type(effect).__name__ == "Increase":
        return []
    return None


def chain_problems(domain: Domain, problem: Problem, chain: Chain,
                   never: Callable[[str], bool], clock: BudgetClock) -> list[str]:
    """What is wrong with ``chain`` (empty: confirmed). ``never(text)``: the fact never
    holds in a reachable state."""
    problems = [f"{fact} holds in a reachable state" for fact in chain.facts if not never(fact)]
    position = {fact: i for i, fact in enumerate(chain.facts)}
    last = chain.facts[-1]
    adders: dict[str, set[str]] = {}
    for action in domain.actions:
        pools = [_objects(domain, problem, p.type) for p in action.parameters]
        for values in itertools.product(*pools):
            if not clock.charge():
                raise BudgetExhausted("checker instantiated too many actions")
            binding = dict(zip((p.name for p in action.parameters), values, strict=True))

            def sub(atom: Atom, binding: dict[str, str] = binding) -> str:
                return fact_text(atom.predicate, [binding.get(a, a) for a in atom.args])

            adds = _simple_adds(action.effect, sub)
            if adds is None:
                return [f"{action.name} has effects the chain cannot account for"]
            hits = [fact for fact in adds if fact in position]
            if not hits:
                continue
            needed: list[str] = []
            allowed = True
            for part in conjuncts(action.precondition):
                positive = not isinstance(part, Not)
                inner = part.operand if isinstance(part, Not) else part
                if isinstance(inner, Atom) and inner.predicate == "=":
                    args = [binding.get(a, a) for a in inner.args]
                    allowed &= (args[0] == args[1]) == positive
                elif isinstance(inner, Atom) and positive:
                    needed.append(sub(inner))
            if not allowed:
                continue
            name = fact_text(action.name, values)
            for fact in hits:
                if fact == last:
                    adders[name] = set(needed)
                else:
                    after = chain.facts[position[fact] + 1]
                    if after not in needed:
                        problems.append(f"{name} adds {fact} without needing {after}")
    listed = {b.action: b for b in chain.blocked}
    if set(listed) != set(adders):
        problems.append(f"the actions adding {last} are {sorted(adders)}, not {sorted(listed)}")
    for name, blocked in listed.items():
        for fact in blocked.unmet:
            if fact not in adders.get(name, set()) or not never(fact):
                problems.append(f"{name}: {fact} is not a precondition that never holds")
    return problems
