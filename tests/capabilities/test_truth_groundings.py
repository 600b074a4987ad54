"""The checker's grounding enumerator (``truth.groundings``) against a reference written
from its definition: every injective, type-correct binding under which the precondition
holds, in the order of the objects' names (the sampler shuffles and the enumeration
samples from this list with a seed, so the order is part of the answer).

Why: the enumerator skips objects a positive literal rules out (Zelda 8x8's checker took
10x discovery's time trying every cell for every parameter); a skip that dropped a real
binding would hide a refuted prediction from the checker."""

from __future__ import annotations

import itertools
import random

import pytest

from xaip.capabilities.model import Capability, Literal
from xaip.capabilities.truth import groundings
from xaip.planning.pddl.model import Atom


def _reference(cap: Capability, state: frozenset[Atom], objects: dict[str, str]
               ) -> list[dict[str, str]]:
    by_type = {t: sorted(o for o, ty in objects.items() if ty == t)
               for t in set(objects.values())}
    names = [v for v, _ in cap.parameters]
    out = []
    for values in itertools.product(*(by_type.get(t, []) for _, t in cap.parameters)):
        if len(set(values)) < len(values):
            continue
        binding = dict(zip(names, values, strict=True))
        if all((Atom(lit.atom.predicate, tuple(binding.get(a, a) for a in lit.atom.args))
                in state) == lit.positive for lit in cap.preconditions):
            out.append(binding)
    return out


def _instance(seed: int) -> tuple[Capability, frozenset[Atom], dict[str, str]]:
    rng = random.Random(seed)
    objects = {f"c{i}": "cell" for i in range(rng.randint(2, 6))}
    objects.update({f"k{i}": "key" for i in range(rng.randint(0, 2))})
    preds = {"at": 2, "empty": 1, "near": 2, "flag": 0}
    obj_names = sorted(objects)
    state = frozenset(
        Atom(p, args) for p, n in preds.items()
        for args in itertools.product(obj_names, repeat=n) if rng.random() < 0.3)
    params = tuple((f"?p{i}", rng.choice(["cell", "cell", "key"]))
                   for i in range(rng.randint(0, 3)))
    terms = [v for v, _ in params] + obj_names[:2]  # parameters and a few constants
    pre = []
    for _ in range(rng.randint(0, 4)):
        p = rng.choice(list(preds))
        pre.append(Literal(Atom(p, tuple(rng.choice(terms) for _ in range(preds[p]))),
                           rng.random() < 0.7))
    return Capability("c", params, tuple(pre), ()), state, objects


@pytest.mark.parametrize("seed", range(300))
def test_groundings_equal_the_definition_in_order(seed: int) -> None:
    cap, state, objects = _instance(seed)
    assert list(groundings(cap, state, objects)) == _reference(cap, state, objects)


def test_a_repeated_parameter_in_the_guiding_literal() -> None:
    """``(near ?a ?a)`` guides ``?a``: only objects near themselves pass."""
    state = frozenset({Atom("near", ("c1", "c1")), Atom("near", ("c2", "c3"))})
    cap = Capability("c", (("?a", "cell"),), (Literal(Atom("near", ("?a", "?a"))),), ())
    objects = {"c1": "cell", "c2": "cell", "c3": "cell"}
    assert list(groundings(cap, state, objects)) == [{"?a": "c1"}]
