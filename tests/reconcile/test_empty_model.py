"""A06: the MCE against an empty human model (plan visualisation), found by the direct
search of :mod:`xaip.reconcile.empty_model`, against a brute force written from the
definitions (book Def. 21 and section 9.6): enumerate sets of the robot model's features by
size, build each model, validate the plan and find the model's optimal cost by
breadth-first search over its states."""

from __future__ import annotations

import itertools
import random
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest

from xaip.planning.pddl import parse_domain, parse_problem
from xaip.reconcile import explain, make_mrp
from xaip.reconcile.empty_model import applies
from xaip.reconcile.problem import empty_model
from xaip.reconcile.space import ModelSpace
from xaip.runtime import Budget, Status

OBJECTS = ("o1", "o2")
BLOCKS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "blocksworld"


@dataclass(frozen=True)
class Tiny:
    """A tiny random STRIPS task: unary predicates ``p0..``, nullary ``q0..``, schemas
    ``a0..`` with zero or one parameter ``?x``. A feature is (kind, schema, atom text),
    atoms over ``?x`` or the objects; init and goal features have schema ``""``."""

    unary: int
    nullary: int
    schemas: tuple[tuple[str, bool], ...]  # (name, has ?x)
    features: tuple[tuple[str, str, str], ...]

    def atoms(self, schema_has_x: bool) -> list[str]:
        out = [f"(q{i})" for i in range(self.nullary)]
        for i in range(self.unary):
            out += [f"(p{i} ?x)"] if schema_has_x else [f"(p{i} {o})" for o in OBJECTS]
        return out

    def pddl(self) -> tuple[str, str]:
        preds = " ".join([f"(p{i} ?x)" for i in range(self.unary)]
                         + [f"(q{i})" for i in range(self.nullary)])
        actions = []
        for name, has_x in self.schemas:
            pre = [a for k, s, a in self.features if s == name and k == "pre"]
            eff = [a for k, s, a in self.features if s == name and k == "add"]
            eff += [f"(not {a})" for k, s, a in self.features if s == name and k == "del"]
            actions.append(f"(:action {name} :parameters ({'?x' if has_x else ''})"
                           f" :precondition (and {' '.join(pre)})"
                           f" :effect (and {' '.join(eff)}))")
        domain = (f"(define (domain tiny) (:requirements :strips) "
                  f"(:constants {' '.join(OBJECTS)}) (:predicates {preds}) "
                  + " ".join(actions) + ")")
        init = " ".join(a for k, _, a in self.features if k == "init")
        goal = " ".join(a for k, _, a in self.features if k == "goal")
        problem = (f"(define (problem t) (:domain tiny) "
                   f"(:init {init}) (:goal (and {goal})))")
        return domain, problem


def random_tiny(seed: int) -> Tiny:
    rng = random.Random(seed)
    unary, nullary = rng.randint(0, 2), rng.randint(1, 2)
    schemas = tuple((f"a{i}", rng.random() < 0.5) for i in range(rng.randint(2, 3)))
    shell = Tiny(unary, nullary, schemas, ())
    features: list[tuple[str, str, str]] = []
    for name, has_x in schemas:
        atoms = shell.atoms(has_x)
        for kind, count in (("pre", rng.randint(0, 2)), ("add", rng.randint(1, 2)),
                            ("del", rng.randint(0, 1))):
            for atom in rng.sample(atoms, min(count, len(atoms))):
                if (("add" if kind == "del" else "del"), name, atom) not in features:
                    features.append((kind, name, atom))
    ground = shell.atoms(False)
    features += [("init", "", a) for a in rng.sample(ground, min(len(ground), rng.randint(0, 2)))]
    features += [("goal", "", a) for a in rng.sample(ground, min(len(ground), rng.randint(1, 2)))]
    return Tiny(unary, nullary, schemas, tuple(features))


# ------------------------------------------------------------------ the brute force


def _ground(tiny: Tiny, chosen: frozenset[tuple[str, str, str]]
            ) -> tuple[dict[str, tuple[set[str], set[str], set[str]]], set[str], set[str]]:
    """Ground actions (name -> pre, add, del), initial state and goal of the model whose
    features are ``chosen``."""
    actions = {}
    for name, has_x in tiny.schemas:
        for obj in OBJECTS if has_x else ("",):
            parts: tuple[set[str], set[str], set[str]] = (set(), set(), set())
            for kind, schema, atom in chosen:
                if schema == name:
                    ground_atom = atom.replace("?x", obj)
                    parts[("pre", "add", "del").index(kind)].add(ground_atom)
            actions[f"{name} {obj}".strip()] = parts
    init = {a for k, _, a in chosen if k == "init"}
    goal = {a for k, _, a in chosen if k == "goal"}
    return actions, init, goal


def _cost_of(plan: tuple[str, ...], model: tuple) -> int | None:
    actions, state, goal = model
    state = set(state)
    for step in plan:
        pre, add, delete = actions[step]
        if not pre <= state:
            return None
        state = (state - delete) | add
    return len(plan) if goal <= state else None


def _optimum(model: tuple) -> int | None:
    actions, init, goal = model
    start = frozenset(init)
    seen = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if goal <= state:
            return seen[state]
        for pre, add, delete in actions.values():
            if pre <= state:
                nxt = frozenset((state - delete) | add)
                if nxt not in seen:
                    seen[nxt] = seen[state] + 1
                    queue.append(nxt)
    return None


def brute_force_mce(tiny: Tiny, plan: tuple[str, ...]) -> int:
    """The size of the smallest feature set in which ``plan`` is valid and optimal."""
    universe = list(tiny.features)
    for size in range(len(universe) + 1):
        for subset in itertools.combinations(universe, size):
            model = _ground(tiny, frozenset(subset))
            cost = _cost_of(plan, model)
            if cost is not None and _optimum(model) == cost:
                return size
    raise AssertionError("the whole robot model explains its own optimal plan")


# ------------------------------------------------------------------ the tests


def _instances(count: int) -> list[tuple[int, Tiny]]:
    out = []
    seed = 0
    while len(out) < count:
        seed += 1
        tiny = random_tiny(seed)
        model = _ground(tiny, frozenset(tiny.features))
        if len(tiny.features) <= 14 and (_optimum(model) or 0) >= 2:
            out.append((seed, tiny))
    return out


CASES = _instances(40)


@pytest.mark.parametrize(("seed", "tiny"), CASES, ids=[f"seed{s}" for s, _ in CASES])
def test_matches_brute_force(seed: int, tiny: Tiny) -> None:
    domain_text, problem_text = tiny.pddl()
    domain, problem = parse_domain(domain_text), parse_problem(problem_text)
    human, human_problem = empty_model(domain, problem)
    mrp = make_mrp(domain, problem, human, human_problem)
    space = ModelSpace(domain, problem, human, human_problem)
    assert applies(space)
    result = explain(mrp, "mce", budget=Budget(max_seconds=60))
    assert result.status == Status.FOUND and result.verified, result.check
    plan = mrp.plan_names
    assert len(result.edits) == brute_force_mce(tiny, plan), (seed, result.edits)
    # the answer itself explains the plan, read back into the brute force's features
    chosen = frozenset(_brute_feature(e) for e in result.edits)
    model = _ground(tiny, chosen)
    assert _cost_of(plan, model) == _optimum(model)


def _brute_feature(edit: object) -> tuple[str, str, str]:
    from xaip.planning.features import FeatureKind

    feature = edit.feature  # type: ignore[attr-defined]
    kinds = {FeatureKind.PRECONDITION: "pre", FeatureKind.ADD_EFFECT: "add",
             FeatureKind.DELETE_EFFECT: "del", FeatureKind.INIT: "init",
             FeatureKind.GOAL: "goal"}
    atom = feature.atom
    text = "(" + " ".join((atom.predicate, *atom.args)) + ")"
    return kinds[feature.kind], feature.action or "", text


def test_not_used_for_a_real_human_model() -> None:
    tiny = _instances(1)[0][1]
    domain_text, problem_text = tiny.pddl()
    domain, problem = parse_domain(domain_text), parse_problem(problem_text)
    assert not applies(ModelSpace(domain, problem, domain, problem))


def test_budget_exhausted_is_said() -> None:
    from xaip.reconcile.problem import load_mrp

    root = str(BLOCKS) + "/"
    mrp = load_mrp(root + "domain.pddl", "empty", root + "problem-5.pddl")
    result = explain(mrp, "mce", budget=Budget(max_nodes=3))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


def test_five_blocks_finish_verified() -> None:
    """A06's instance: before the direct search, MEGA exhausted 120 s here."""
    from xaip.reconcile.problem import load_mrp

    root = str(BLOCKS) + "/"
    mrp = load_mrp(root + "domain.pddl", "empty", root + "problem-5.pddl")
    result = explain(mrp, "mce", budget=Budget(max_seconds=600))
    assert result.status == Status.FOUND and result.verified, result.check
    assert len(result.edits) == 11
