"""The lifted validator's derived-predicate fixpoint against a naive one, on random rules.

``xaip.planning.plans`` evaluates ``:derived`` rules with a work list (a false body waits on
the missing atoms of its own stratum it looked up). The oracle here is the definition: per
stratum, apply every rule to every binding until nothing changes, with its own evaluator of
the condition on tuples. Random programs mix recursion, quantifiers, disjunction and negated
atoms of lower strata.
"""

from __future__ import annotations

import itertools
import random

import pytest

from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.pddl.model import Atom
from xaip.planning.plans import _Derivation, _World
from xaip.planning.plans import _holds as _xaip_holds

OBJECTS = ("o1", "o2", "o3", "o4")
#: name -> (arity, level); level 0 is basic (never derived).
PREDICATES = {"b1": (1, 0), "b2": (2, 0), "d1": (2, 1), "d2": (1, 2), "d3": (1, 3)}

#: ("atom", pred, vars) | ("not", atom) | ("and"|"or", parts) | ("exists"|"forall", var, body)
Formula = tuple


def _formula(rng: random.Random, scope: list[str], level: int, depth: int,
             fresh: list[int]) -> Formula:
    kind = rng.choice(["atom", "atom", "not", "and", "or", "exists", "forall"] if depth
                      else ["atom", "not"])
    if kind in ("atom", "not"):
        negated = kind == "not"
        names = [p for p, (_, lv) in PREDICATES.items()
                 if lv < level or (lv == level and not negated)]
        pred = rng.choice(names)
        # Prefer the newest variables, so parts mention several quantified ones.
        newest = scope[-3:]
        atom = ("atom", pred, tuple(rng.choice(newest if rng.random() < 0.7 else scope)
                                    for _ in range(PREDICATES[pred][0])))
        return ("not", atom) if negated else atom
    if kind in ("and", "or"):
        return (kind, tuple(_formula(rng, scope, level, depth - 1, fresh)
                            for _ in range(rng.randint(2, 3))))
    fresh[0] += 1
    var = f"?q{fresh[0]}"
    if depth > 1 and rng.random() < 0.5:  # a nest of one kind, read as one quantifier
        fresh[0] += 1
        inner = f"?q{fresh[0]}"
        body = _formula(rng, [*scope, var, inner], level, depth - 1, fresh)
        return (kind, var, (kind, inner, body))
    return (kind, var, _formula(rng, [*scope, var], level, depth - 1, fresh))


def _pddl(f: Formula) -> str:
    if f[0] == "atom":
        return f"({f[1]} {' '.join(f[2])})"
    if f[0] == "not":
        return f"(not {_pddl(f[1])})"
    if f[0] in ("and", "or"):
        return f"({f[0]} {' '.join(_pddl(p) for p in f[1])})"
    return f"({f[0]} ({f[1]} - obj) {_pddl(f[2])})"


def _holds(f: Formula, state: set[tuple[str, ...]], env: dict[str, str]) -> bool:
    if f[0] == "atom":
        return (f[1], *(env[v] for v in f[2])) in state
    if f[0] == "not":
        return not _holds(f[1], state, env)
    if f[0] == "and":
        return all(_holds(p, state, env) for p in f[1])
    if f[0] == "or":
        return any(_holds(p, state, env) for p in f[1])
    values = (_holds(f[2], state, {**env, f[1]: o}) for o in OBJECTS)
    return any(values) if f[0] == "exists" else all(values)


def _program(seed: int) -> tuple[str, dict[str, tuple[list[str], Formula]]]:
    rng = random.Random(seed)
    rules = {}
    for pred, (arity, level) in PREDICATES.items():
        if level == 0:
            continue
        params = [f"?p{i}" for i in range(arity)]
        rules[pred] = (params, _formula(rng, params, level, rng.randint(1, 3), [0]))
    text = ["(define (domain rand) (:requirements :adl :derived-predicates) (:types obj)",
            "(:predicates " + " ".join(
                f"({p} {' '.join(f'?a{i} - obj' for i in range(a))})"
                for p, (a, _) in PREDICATES.items()) + ")"]
    for pred, (params, body) in rules.items():
        head = " ".join(f"{v} - obj" for v in params)
        text.append(f"(:derived ({pred} {head}) {_pddl(body)})")
    text.append("(:action noop :parameters () :precondition (and) :effect (and)))")
    return "\n".join(text), rules


def _naive(rules: dict[str, tuple[list[str], Formula]],
           basic: set[tuple[str, ...]]) -> set[tuple[str, ...]]:
    state = set(basic)
    for level in sorted({PREDICATES[p][1] for p in rules}):
        changed = True
        while changed:
            changed = False
            for pred, (params, body) in rules.items():
                if PREDICATES[pred][1] != level:
                    continue
                for values in itertools.product(OBJECTS, repeat=len(params)):
                    head = (pred, *values)
                    env = dict(zip(params, values, strict=True))
                    if head not in state and _holds(body, state, env):
                        state.add(head)
                        changed = True
    return state


@pytest.mark.parametrize("seed", range(120))
def test_work_list_fixpoint_equals_the_naive_one(seed: int) -> None:
    text, rules = _program(seed)
    domain = parse_domain(text)
    problem = parse_problem(
        "(define (problem p) (:domain rand) (:objects " + " ".join(OBJECTS) +
        " - obj) (:init) (:goal (and)))")
    derive = _Derivation(domain, _World(domain, problem))
    rng = random.Random(seed * 7919)
    for _ in range(5):
        basic = {("b1", o) for o in OBJECTS if rng.random() < 0.5}
        basic |= {("b2", a, b) for a in OBJECTS for b in OBJECTS if rng.random() < 0.3}
        got = derive({Atom(t[0], t[1:]) for t in basic})
        assert {(a.predicate, *a.args) for a in got} == _naive(rules, basic), text


@pytest.mark.parametrize("seed", range(200))
def test_quantified_conditions_equal_trying_every_assignment(seed: int) -> None:
    """Staged quantifiers (conjuncts tested as soon as their variables have values)."""
    rng = random.Random(seed)
    text, _ = _program(seed)
    domain = parse_domain(text)
    problem = parse_problem(
        "(define (problem p) (:domain rand) (:objects " + " ".join(OBJECTS) +
        " - obj) (:init) (:goal (and)))")
    world = _World(domain, problem)
    for _ in range(4):
        formula = _formula(rng, ["?p0", "?p1"], 99, 4, [0])
        condition = parse_domain(text.replace(
            "(:action noop :parameters () :precondition (and)",
            f"(:action noop :parameters (?p0 - obj ?p1 - obj) :precondition {_pddl(formula)}"
        )).actions[0].precondition
        state = {("b1", o) for o in OBJECTS if rng.random() < 0.5}
        state |= {(p, a, b) for p in ("b2", "d1") for a in OBJECTS for b in OBJECTS
                  if rng.random() < 0.35}
        state |= {(p, o) for p in ("d2", "d3") for o in OBJECTS if rng.random() < 0.5}
        atoms = frozenset(Atom(t[0], t[1:]) for t in state)
        for a, b in itertools.product(OBJECTS[:2], OBJECTS[1:3]):
            env = {"?p0": a, "?p1": b}
            assert _xaip_holds(condition, atoms, env, world) == _holds(formula, state, env), \
                _pddl(formula)
