"""Differential test of learning from watching (B05, ``--learn-from-watching``) in MEGA*.

The instances are those of :mod:`tests.differential.balanced` (small lifted STRIPS pairs
with random objectives, weights, prices and penalties) without conditional effects (the
MEGA* compilation takes conjunctions of literals), each with one observable predicate; in
seven of ten her model gets one or two extra effect differences on it (missing an effect
of the robot's, or having one the robot's lacks), and otherwise it is mostly one the
models' effects already disagree on, so that watching has something to teach.

The oracle is written from the definition in docs/balanced.md §6 (the words, not
xaip's code): she watches the robot's ground step ``a(o)``; every observable fact the
step asserts takes its real value in her beliefs; for every candidate edit about an
effect of schema ``a`` whose atom, bound to ``o``, is such a seen fact ``f``: an effect
only the robot has is learned when ``f`` ends with the effect's value (true for add,
false for delete), an effect only she has is unlearned when ``f`` ends with the
opposite value. A learned edit is part of her model from the next step on, free of
charge; the plan is judged against ``C*`` of her final model ``M^R_h + E ∪ L``. For every
explained set ``E`` within the bound, it walks every reachable (robot state, her belief,
robot cost, her cost, learned set) of every robot plan within the cost bound (plans end
at the robot's first goal state), with her step model rebuilt from its own features for
each learned set, and scores each complete pair. MEGA* (with its checker) must be
verified and score that optimum, and its plan, explanation and learned set must give
the reported numbers under the oracle's semantics; so must the model-space search.
"""

from __future__ import annotations

import itertools
import math
import random

from tests.differential.balanced import (
    Fact,
    FactSet,
    Ground,
    Model,
    _atoms,
    _key_of,
    apply,
    candidates,
    cheapest,
    compare_answer,
    domain_text,
    features,
    generate,
    ground_features,
    optimum,
    problem_text,
    score,
    step,
    updated,
    watched,
)

CI_INSTANCES = 200

Cand = tuple[tuple[str, str, tuple[str, ...]], str, int | None]


def generate_learning(seed: int) -> tuple[Model, Model, dict[str, object]]:
    """The seed's instance: :func:`tests.differential.balanced.generate` without
    conditional effects, an observable predicate, maybe extra effect differences on it."""
    robot, human, o = generate(seed)
    for model in (robot, human):
        for schema in model.schemas.values():
            schema.when = []
    rng = random.Random(seed * 104729 + 3)
    watch = rng.choice(sorted(robot.predicates))
    if rng.random() < 0.7:
        _effect_differences(rng, human, watch, rng.randint(1, 2))
    effects = sorted({key[2][0] for key, _, _ in candidates(robot, human)
                      if key[0] in ("add-effect", "delete-effect")})
    if watch not in effects and effects and rng.random() < 0.85:
        watch = rng.choice(effects)
    o["observable"] = watch
    o["infer"] = False
    return robot, human, o


def _effect_differences(rng: random.Random, human: Model, predicate: str,
                        count: int) -> None:
    """Add or remove ``count`` effects on ``predicate`` in her model (never an atom both
    added and deleted, never the last add effect)."""
    for _ in range(count):
        schema = rng.choice(sorted(human.schemas.values(), key=lambda s: s.name))
        atoms = [a for a in _atoms(human.predicates, schema.param) if a[0] == predicate]
        if not atoms:
            continue
        atom = rng.choice(atoms)
        target, other = (schema.add, schema.delete) if rng.random() < 0.5 else (
            schema.delete, schema.add)
        if atom in target:
            if target is not schema.add or len(target) > 1:
                target.discard(atom)
        elif atom not in other:
            target.add(atom)


def learned_by(cands: list[Cand], robot: Ground, name: str, state: FactSet, nxt: FactSet,
               observable: str) -> frozenset[int]:
    """The candidates (indices into ``cands``) she learns watching the robot's ``name``
    go from ``state`` to ``nxt`` (the definition in the module docstring)."""
    schema, *args = name.split()
    asserted: FactSet = frozenset()
    for action in robot.actions:
        if action[0] == name and action[1] <= state and not action[2] & state:
            asserted = apply(action, state)[1]
            break
    out = set()
    for index, ((kind, action_name, atom), op, _) in enumerate(cands):
        if action_name != schema or kind not in ("add-effect", "delete-effect"):
            continue
        fact: Fact = tuple(args[0] if a == "?x" and args else a for a in atom)
        if fact[0] != observable or fact not in asserted:
            continue
        value = fact in nxt
        if (value == (kind == "add-effect")) == (op == "add"):
            out.add(index)
    return frozenset(out)


class Models:
    """Her grounded model and its optimum per edit set (explained ∪ learned), cached."""

    def __init__(self, robot: Model, human: Model, cands: list[Cand]) -> None:
        self.robot, self.human, self.cands = robot, human, cands
        self._ground: dict[frozenset[int], Ground] = {}
        self._optimum: dict[frozenset[int], int | None] = {}

    def ground(self, chosen: frozenset[int]) -> Ground:
        if chosen not in self._ground:
            self._ground[chosen] = updated(self.robot, self.human,
                                           [self.cands[i] for i in sorted(chosen)])[1]
        return self._ground[chosen]

    def optimum(self, chosen: frozenset[int]) -> int | None:
        if chosen not in self._optimum:
            self._optimum[chosen] = optimum(self.ground(chosen))
        return self._optimum[chosen]


def simulate(models: Models, r_ground: Ground, told: frozenset[int], plan: tuple[str, ...],
             observable: str) -> tuple[int | None, frozenset[int]]:
    """Her watched cost of ``plan`` after hearing ``told`` and what she learned."""
    learned: frozenset[int] = frozenset()
    her = models.ground(told)
    belief, cost, r_state = her.init, 0, r_ground.init
    alive = True
    for name in plan:
        r_moved = step(r_ground, name, r_state)
        if r_moved is None:
            return None, learned
        if alive:
            moved = step(models.ground(told | learned), name, belief)
            if moved is None:
                alive = False
            else:
                belief, _ = watched(r_ground, name, r_state, r_moved[0], moved[0], observable)
                cost += moved[1]
        learned |= learned_by(models.cands, r_ground, name, r_state, r_moved[0], observable)
        r_state = r_moved[0]
    if not alive or not her.goal <= belief or not r_ground.goal <= r_state:
        return None, learned
    return cost, learned


def outcomes(models: Models, r_ground: Ground, told: frozenset[int], bound: float,
             observable: str) -> set[tuple[int, int | None, frozenset[int]]]:
    """Every (robot cost, her cost or ``None``, learned set) of robot plans within
    ``bound``, exhaustively (plans end at the robot's first goal state)."""
    start = (r_ground.init, models.ground(told).init, 0, 0, frozenset[int]())
    seen = {start}
    stack = [start]
    out: set[tuple[int, int | None, frozenset[int]]] = set()
    while stack:
        s_r, s_h, g_r, g_h, learned = stack.pop()
        if r_ground.goal <= s_r:
            ok = s_h is not None and models.ground(told).goal <= s_h
            out.add((g_r, g_h if ok else None, learned))
            continue
        her = models.ground(told | learned)
        for name, nxt, c in r_ground.successors(s_r):
            if g_r + c > bound:
                continue
            h_next: FactSet | None = None
            h_cost = -1
            if s_h is not None:
                moved = step(her, name, s_h)
                if moved is not None:
                    h_next, _ = watched(r_ground, name, s_r, nxt, moved[0], observable)
                    h_cost = g_h + moved[1]
            now = learned | learned_by(models.cands, r_ground, name, s_r, nxt, observable)
            node = (nxt, h_next, g_r + c, h_cost, now)
            if node not in seen:
                seen.add(node)
                stack.append(node)  # type: ignore[arg-type]
    return out


def oracle(robot: Model, human: Model, o: dict[str, object]) -> float | None:
    """The optimum over every (plan, explained set) pair (``None``: no robot plan)."""
    r_ground = ground_features(robot, features(robot))
    found = cheapest(r_ground)
    if found is None:
        return None
    robot_optimum = found[0]
    cands = candidates(robot, human)
    models = Models(robot, human, cands)
    cost = float(o["cost"])  # type: ignore[arg-type]
    watch = str(o["observable"])
    alpha, beta, gamma = (float(o[k]) for k in ("alpha", "beta", "gamma"))  # type: ignore[arg-type]
    from tests.differential.balanced import penalty

    floor = gamma * penalty(str(o["penalty"]), 0) if (
        o["objective"] == "balanced" and gamma) else 0.0
    top = math.inf
    everything = frozenset(range(len(cands)))
    for told in (frozenset[int](), everything):
        g_h, learned = simulate(models, r_ground, told, found[1], watch)
        value = score(o, robot_optimum, len(told) * cost, g_h,
                      models.optimum(told | learned), robot_optimum)
        if value is not None:
            top = min(top, value[0])
    if math.isinf(top):
        raise AssertionError("the robot's optimal plan with every difference explained "
                             "is no pair")
    best = math.inf
    for size in range(len(cands) + 1):
        c_e = size * cost
        if o["objective"] == "explicable-optimal":
            if c_e > top + 1e-9:
                break
            bound = float(robot_optimum)
        else:
            bound = (top - beta * c_e - floor) / alpha + 1e-9
            if bound < robot_optimum - 1e-9:
                break
        for chosen in itertools.combinations(range(len(cands)), size):
            told = frozenset(chosen)
            for g_r, g_h, learned in outcomes(models, r_ground, told, bound, watch):
                value = score(o, g_r, c_e, g_h, models.optimum(told | learned),
                              robot_optimum)
                if value is not None:
                    best = min(best, value[0])
    return best


def check(seed: int) -> str | None:
    """Both methods with learning from watching, each with its checker, against the
    oracle."""
    from xaip.balanced import Weights, balanced_problem
    from xaip.planning.pddl import parse_domain, parse_problem

    robot, human, o = generate_learning(seed)
    problem = balanced_problem(
        parse_domain(domain_text(robot)), parse_problem(problem_text(robot)),
        parse_domain(domain_text(human)), parse_problem(problem_text(human)),
        objective=str(o["objective"]),
        weights=Weights(float(o["alpha"]), float(o["beta"]), float(o["gamma"])),  # type: ignore[arg-type]
        default_cost=float(o["cost"]), penalty=str(o["penalty"]),  # type: ignore[arg-type]
        observable=(str(o["observable"]),), learn_from_watching=True)
    cands = candidates(robot, human)
    theirs = [_key_of(e) for e in problem.differences]
    if sorted(theirs) != sorted(k for k, _, _ in cands):
        return f"candidates differ: xaip {sorted(theirs)}, oracle {[k for k, _, _ in cands]}"
    index = {key: i for i, (key, _, _) in enumerate(cands)}
    try:
        best = oracle(robot, human, o)
    except AssertionError as error:
        return f"oracle: {error}"
    for method in ("model-space", "compile"):
        found = _compare(method, problem, robot, human, o, cands, index, best)
        if found:
            return found
    return None


def _compare(method: str, problem: object, robot: Model, human: Model,
             o: dict[str, object], cands: list[Cand], index: dict[object, int],
             best: float | None) -> str | None:
    """One method's answer (with its checker) against the oracle's optimum."""
    from xaip.balanced import balance
    from xaip.runtime import Budget, Status

    where = f"{method} ({o})"
    result = balance(problem, method=method, budget=Budget(max_seconds=120))  # type: ignore[arg-type]
    if best is None:
        if result.status != Status.UNSOLVABLE or not result.verified:
            return f"{where}: the robot has no plan, xaip says {result.status}"
        return None
    if result.status != Status.FOUND or not result.verified:
        return f"{where}: {result.status}, verified {result.verified}: {result.check}"
    r_ground = ground_features(robot, features(robot))
    models = Models(robot, human, cands)
    told = frozenset(index[_key_of(e)] for e in result.explanation)
    g_h, learned = simulate(models, r_ground, told, result.plan, str(o["observable"]))
    theirs_learned = frozenset(index[_key_of(e)] for e in result.learned)
    if learned - told != theirs_learned:
        return (f"{where}: she learns {sorted(cands[i][0] for i in learned - told)}, xaip "
                f"says {sorted(cands[i][0] for i in theirs_learned)}")
    found = cheapest(r_ground)
    assert found is not None
    moved_state, g_r = r_ground.init, 0
    for name in result.plan:
        moved = step(r_ground, name, moved_state)
        if moved is None:
            return f"{where}: the plan is not the robot's"
        moved_state, g_r = moved[0], g_r + moved[1]
    best_h = models.optimum(told | learned)
    value = score(o, g_r, len(told) * float(o["cost"]), g_h, best_h, found[0])  # type: ignore[arg-type]
    if value is None:
        return f"{where}: the answer {result.plan} with {sorted(told)} is infeasible"
    return compare_answer(where, result, value, (g_r, g_h, best_h), best)


if __name__ == "__main__":  # pragma: no cover - a quick look at one seed
    import sys

    r, h, opts = generate_learning(int(sys.argv[1]))
    print(domain_text(r), problem_text(r), domain_text(h), problem_text(h), opts, sep="\n")
    print(check(int(sys.argv[1])))
