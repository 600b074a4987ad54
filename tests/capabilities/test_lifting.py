"""Units of Algorithm 1 against brute force: candidates, lifting and unification, and the
mode pruning (observations, failure clauses, unit propagation)."""

from __future__ import annotations

import itertools
import random

from xaip.capabilities.candidates import (
    ABSENT,
    ALL_MODES,
    NEG,
    POS,
    eff_result,
    ground_candidates,
    pre_satisfied,
)
from xaip.capabilities.lifting import (
    Signature,
    ground_atom,
    lift,
    lifted_atoms,
    merge,
    unify,
)
from xaip.capabilities.pal import CapState, observe, propagate, refute
from xaip.capabilities.traces import AbstractTrace
from xaip.planning.pddl.model import Atom

OBJECTS = {"link": "player", "key": "key", **{f"c{i}": "cell" for i in range(4)}}
CELL = frozenset({"cell"})


def A(text: str) -> Atom:  # noqa: N802 - reads like the atoms it builds
    name, *args = text.split()
    return Atom(name, tuple(args))


def state(*atoms: str) -> frozenset[Atom]:
    return frozenset(A(a) for a in atoms)


def test_ground_candidates_deduplicate_and_count() -> None:
    s0 = state("at link c0", "clear c1")
    s1 = state("at link c1", "clear c0")
    trace = AbstractTrace((s0, s1, s0, s1), (0, 1, 2, 3))
    found = ground_candidates([trace])
    assert len(found) == 2
    first = found[0]
    assert first.add == state("at link c1", "clear c0") and first.seen == 2
    assert first.allowed_pre(A("at link c0")) == {POS, ABSENT}
    assert first.allowed_pre(A("clear c0")) == {NEG, ABSENT}


def test_lifting_numbers_objects_in_order_and_merges_moves() -> None:
    right = ground_candidates([AbstractTrace((state("at link c0", "clear c1"),
                                              state("at link c1", "clear c0")), (0, 1))])[0]
    left = ground_candidates([AbstractTrace((state("at link c3", "clear c2"),
                                             state("at link c2", "clear c3")), (0, 1))])[0]
    signature, binding = lift(right, OBJECTS, CELL)
    assert signature.params == (("?cell1", "cell"), ("?cell2", "cell"))
    assert A("at link ?cell1") in signature.add and binding["?cell1"] == "c1"
    merged = merge([right, left], OBJECTS, CELL)
    assert len(merged) == 1 and len(merged[0].groundings) == 2
    for grounding in merged[0].groundings:
        b = grounding.as_dict()
        assert {ground_atom(a, b) for a in merged[0].signature.add} == grounding.candidate.add


def _brute_unify(a: Signature, b: Signature) -> bool:
    va = [v for v, _ in a.params]
    vb = [v for v, _ in b.params]
    if len(va) != len(vb):
        return False
    for perm in itertools.permutations(vb):
        mapping = dict(zip(va, perm, strict=True))
        if any(dict(a.params)[x] != dict(b.params)[y] for x, y in mapping.items()):
            continue
        if {ground_atom(x, mapping) for x in a.add} == b.add and \
                {ground_atom(x, mapping) for x in a.delete} == b.delete:
            return True
    return False


def test_unify_agrees_with_brute_force_on_random_signatures() -> None:
    rng = random.Random(7)
    preds = [("p", 1), ("q", 2), ("r", 1)]
    for _ in range(300):
        def make() -> Signature:
            n = rng.randint(1, 3)
            params = tuple((f"?cell{i + 1}", "cell") for i in range(n))
            terms = [v for v, _ in params] + ["link"]
            atoms = set()
            for _ in range(rng.randint(1, 4)):
                name, arity = rng.choice(preds)
                atoms.add(Atom(name, tuple(rng.choice(terms) for _ in range(arity))))
            atoms_list = sorted(atoms, key=str)
            split = rng.randint(0, len(atoms_list))
            return Signature(params, frozenset(atoms_list[:split]), frozenset(atoms_list[split:]))

        a, b = make(), make()
        assert (unify(a, b) is not None) == _brute_unify(a, b)
        renamed = a.rename({v: f"?x{i}" for i, (v, _) in enumerate(a.params)})
        renamed = Signature(tuple((f"?cell{i + 1}", "cell") for i in range(len(a.params))),
                            frozenset(ground_atom(x, {f"?x{i}": f"?cell{len(a.params) - i}"
                                                      for i in range(len(a.params))})
                                      for x in renamed.add),
                            frozenset(ground_atom(x, {f"?x{i}": f"?cell{len(a.params) - i}"
                                                      for i in range(len(a.params))})
                                      for x in renamed.delete))
        assert unify(a, renamed) is not None  # a permutation of itself always unifies


def test_lifted_atoms_are_typed_and_never_repeat_a_term() -> None:
    atoms = lifted_atoms([("at", ("object", "cell")), ("has_key", ())],
                         (("?cell1", "cell"), ("?cell2", "cell")), {"link": "player"})
    texts = {str(a) for a in atoms}
    assert "(at link ?cell1)" in texts and "(at ?cell1 ?cell2)" in texts
    assert "(at ?cell1 ?cell1)" not in texts and "(has_key)" in texts
    assert "(at ?cell1 link)" not in texts


# --------------------------------------------------------------------------- pruning


ATOMS = [A("p ?cell1"), A("q"), A("r ?cell1")]
CELLS = ["c0", "c1"]


def _fresh() -> CapState:
    sig = Signature((("?cell1", "cell"),), frozenset(), frozenset())
    pre = {a: set(ALL_MODES) for a in ATOMS}
    eff = {a: set(ALL_MODES) for a in ATOMS}
    return CapState("c", sig, list(ATOMS), pre, eff, {a: set(m) for a, m in pre.items()},
                    {a: set(m) for a, m in eff.items()})


def _predicts_success(model: dict[tuple[str, Atom], str], binding: dict[str, str],
                      before: frozenset[Atom], after: frozenset[Atom]) -> bool:
    for atom in ATOMS:
        g = ground_atom(atom, binding)
        b = g in before
        if not pre_satisfied(model[("pre", atom)], b):  # type: ignore[arg-type]
            return False
        if eff_result(model[("eff", atom)], b) != (g in after):  # type: ignore[arg-type]
            return False
    return True


def test_pruning_is_sound_against_brute_force_over_all_models() -> None:
    """After random successes and failures, every mode used by some model consistent with
    all of them is still possible, and every settled tuple agrees with brute force."""
    rng = random.Random(3)
    keys = [(loc, a) for a in ATOMS for loc in ("pre", "eff")]
    for _ in range(40):
        hidden = {k: rng.choice(sorted(ALL_MODES)) for k in keys}
        cap = _fresh()
        events = []
        for _ in range(rng.randint(1, 6)):
            binding = {"?cell1": rng.choice(CELLS)}
            ground = [ground_atom(a, binding) for a in ATOMS]
            before = frozenset(g for g in ground if rng.random() < 0.5)
            if rng.random() < 0.5:
                # the hidden model's own execution, if it is applicable
                if not all(pre_satisfied(hidden[("pre", a)], g in before)  # type: ignore[arg-type]
                           for a, g in zip(ATOMS, ground, strict=True)):
                    continue
                after = frozenset(g for a, g in zip(ATOMS, ground, strict=True)
                                  if eff_result(hidden[("eff", a)], g in before))  # type: ignore[arg-type]
                observe(cap, binding, before, after)
                events.append((True, binding, before, after))
            else:
                target = frozenset(g for g in ground if rng.random() < 0.5)
                if _predicts_success(hidden, binding, before, target):
                    continue
                refute(cap, binding, before, target)
                events.append((False, binding, before, target))
        propagate(cap)
        consistent = []
        for values in itertools.product(sorted(ALL_MODES), repeat=len(keys)):
            model = dict(zip(keys, values, strict=True))
            if all(_predicts_success(model, b, s, t) == ok for ok, b, s, t in events):
                consistent.append(model)
        assert hidden in consistent
        for loc, atom in keys:
            used = {m[(loc, atom)] for m in consistent}
            assert used <= cap.table(loc)[atom], (loc, atom, used, cap.table(loc)[atom])
