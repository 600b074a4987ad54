"""Differential test of balanced planning (book ch. 7) against a brute-force oracle.

Each seed generates a small robot/person pair of lifted STRIPS models (0- and 1-ary
predicates over two objects, actions with zero or one parameter, sometimes negative
preconditions) that differ by a few added or removed preconditions, effects, costs,
initial facts and goals; with or without declared action costs and a
``(:metric minimize (total-cost))`` (each problem may differ in that); some goals true
initially and some robots without a plan. Objectives ``balanced``, ``explicable`` and
``explicable-optimal`` with random weights, communication costs and penalties. Some
persons watch the plan (B05): an observable predicate, in three instances of ten one or
two conditional effects shared by both models, and ``--infer-conditions``; both
methods' answers (MEGA* compiles them since issue 25's B05 work) are compared with the
oracle, which simulates the watched beliefs and the inferred conditions (with the facts
used so far) itself. Learning from watching has its own family,
:mod:`tests.differential.balanced_learn`.

The oracle is written from the definitions, sharing nothing with xaip but the PDDL text
it writes: its own feature sets per model, its own candidate list (the features the two
models disagree on), its own model update ``M^R_h + E`` and its own grounding and state
semantics. Costs follow ``docs/semantics.md``: a model counts its declared costs only under
the metric, else 1 per action; an explained cost replaces the person's value. For every
edit set ``E`` it computes ``C*`` of ``M^R_h + E`` by Dijkstra, and every reachable
``(robot state, her state, robot cost, her cost)`` of every robot plan within a cost bound
that provably contains the optimum (declared costs are at least 1, so plans are finitely
many up to equal costs and states); a plan ends at the first state where the robot's goal
holds (the documented convention). The optimum of the objective over all (plan, E) pairs
is compared with both methods (exact model-space search and MEGA*), each run with its
checker: the answer must be verified, score the optimum, and its plan and explanation
must give the reported numbers under the oracle's semantics. The candidate lists of
xaip and the oracle must be the same.
"""

from __future__ import annotations

import heapq
import itertools
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field

CI_INSTANCES = 300

OBJECTS = ("o1", "o2")
Atom = tuple[str, ...]  # (predicate, arg...) with args "?x" or objects
Fact = tuple[str, ...]


@dataclass
class Schema:
    name: str
    param: bool
    pre: set[Atom] = field(default_factory=set)
    neg: set[Atom] = field(default_factory=set)
    add: set[Atom] = field(default_factory=set)
    delete: set[Atom] = field(default_factory=set)
    cost: int = 1
    # conditional effects (B05), the same in both models: (positive condition, negative
    # condition, effect atom, adds?)
    when: list[tuple[tuple[Atom, ...], tuple[Atom, ...], Atom, bool]] = field(
        default_factory=list)

    def copy(self) -> Schema:
        return Schema(self.name, self.param, set(self.pre), set(self.neg), set(self.add),
                      set(self.delete), self.cost, list(self.when))


@dataclass
class Model:
    predicates: dict[str, int]  # name -> arity (0 or 1)
    schemas: dict[str, Schema]
    init: set[Fact]
    goal: set[Fact]
    declares: bool  # the domain declares action costs
    metric: bool    # the problem minimises total-cost
    negative: bool

    @property
    def counts(self) -> bool:
        return self.declares and self.metric

    def value(self, schema: str) -> int:
        """The cost feature of an action: declared when costs count, else 1."""
        return self.schemas[schema].cost if self.counts else 1


# ---------------------------------------------------------------------- generating


def _atoms(predicates: dict[str, int], param: bool) -> list[Atom]:
    out: list[Atom] = []
    for name, arity in sorted(predicates.items()):
        if arity == 0:
            out.append((name,))
        elif param:
            out.append((name, "?x"))
        else:
            out.extend((name, o) for o in OBJECTS)
    return out


def _facts(predicates: dict[str, int]) -> list[Fact]:
    return [(n,) if a == 0 else (n, o) for n, a in sorted(predicates.items())
            for o in ((None,) if a == 0 else OBJECTS)]  # type: ignore[misc]


def generate(seed: int) -> tuple[Model, Model, dict[str, object]]:
    rng = random.Random(seed)
    predicates = {f"p{i}": 0 for i in range(rng.randint(2, 4))}
    predicates.update({f"q{i}": 1 for i in range(rng.randint(0, 2))})
    negative = rng.random() < 0.25
    declares = rng.random() < 0.6
    metric = declares and rng.random() < 0.6 or (not declares and rng.random() < 0.2)
    schemas: dict[str, Schema] = {}
    for i in range(rng.randint(3, 6)):
        param = bool(predicates.keys() - {p for p in predicates if predicates[p] == 0}) \
            and rng.random() < 0.4
        atoms = _atoms(predicates, param)
        s = Schema(f"a{i}", param, cost=rng.randint(1, 3))
        s.pre = set(rng.sample(atoms, rng.randint(0, min(2, len(atoms)))))
        s.add = set(rng.sample(atoms, rng.randint(1, min(2, len(atoms)))))
        if rng.random() < 0.5:  # most goals reachable: some action adds a goal-ish fact
            s.add.add(rng.choice(atoms))
        rest = [a for a in atoms if a not in s.add]
        s.delete = set(rng.sample(rest, rng.randint(0, min(1, len(rest)))))
        if negative and rng.random() < 0.5:
            free = [a for a in atoms if a not in s.pre]
            s.neg = set(rng.sample(free, min(1, len(free))))
        schemas[s.name] = s
    facts = _facts(predicates)
    init = set(rng.sample(facts, rng.randint(1, min(3, len(facts)))))
    missing = [f for f in facts if f not in init] or facts
    goal = set(rng.sample(missing, min(len(missing), rng.randint(1, 2))))
    if rng.random() < 0.08:
        goal = set(rng.sample(sorted(init), 1))  # the goal holds initially
    robot = Model(predicates, schemas, init, goal, declares, metric, negative)
    human = Model(predicates, {k: s.copy() for k, s in schemas.items()}, set(init),
                  set(goal), declares, metric, negative)
    if rng.random() < 0.15:
        human.metric = not human.metric  # the two problems price differently
    _mutate(rng, human, rng.randint(1, 6))
    extra = random.Random(seed * 7919 + 17)  # B05 options: the older draws stay as they were
    conditional = extra.random() < 0.3
    if conditional:
        _conditional_effects(extra, robot, human)
    options: dict[str, object] = {
        "objective": rng.choice(("balanced", "balanced", "explicable", "explicable-optimal")),
        "alpha": rng.choice((1.0, 1.0, 2.0, 0.5)),
        "beta": rng.choice((1.0, 0.5, 0.25, 2.0, 0.0)),
        "gamma": rng.choice((1.0, 1.0, 3.0, 0.5, 0.0)),
        "cost": rng.choice((1.0, 0.5, 0.25, 2.0, 0.0)),
        "penalty": rng.choice(("exp", "exp-1", "linear")),
        # sometimes she watches the plan and sees one predicate (B05)
        "observable": rng.choice(sorted(predicates)) if rng.random() < 0.15 else "",
    }
    if conditional and extra.random() < 0.8:
        options["observable"] = extra.choice(sorted(predicates))
    options["infer"] = bool(options["observable"]) and extra.random() < (
        0.7 if conditional else 0.2)
    return robot, human, options


def _conditional_effects(rng: random.Random, robot: Model, human: Model) -> None:
    """Give one or two of the robot's action schemas a ``(when cond effect)``, the same in
    her model (explanations edit features only: conditional parts must agree)."""
    chosen = rng.sample(sorted(robot.schemas), rng.randint(1, min(2, len(robot.schemas))))
    for name in chosen:
        s = robot.schemas[name]
        atoms = _atoms(robot.predicates, s.param)
        pos = tuple(rng.sample(atoms, rng.randint(1, min(2, len(atoms)))))
        free = [a for a in atoms if a not in pos]
        neg = tuple(rng.sample(free, 1)) if robot.negative and free and rng.random() < 0.4 \
            else ()
        effect = rng.choice(atoms)
        adds = rng.random() < 0.7
        s.when.append((pos, neg, effect, adds))
        human.schemas[name].when.append((pos, neg, effect, adds))


def _mutate(rng: random.Random, human: Model, count: int) -> None:
    """Change ``count`` features of the person's model (some may cancel: fine)."""
    for _ in range(count):
        kind = rng.choice(("pre", "pre", "add", "delete", "cost", "init", "goal", "neg"))
        if kind in ("init", "goal"):
            facts = _facts(human.predicates)
            target = human.init if kind == "init" else human.goal
            fact = rng.choice(facts)
            if fact in target and (kind == "init" or len(target) > 1):
                target.discard(fact)
            else:
                target.add(fact)
            continue
        schema = rng.choice(sorted(human.schemas.values(), key=lambda s: s.name))
        if kind == "cost":
            schema.cost = rng.choice([c for c in (1, 2, 3, 4) if c != schema.cost])
            continue
        if kind == "neg" and not human.negative:
            kind = "pre"
        atoms = _atoms(human.predicates, schema.param)
        target = {"pre": schema.pre, "neg": schema.neg, "add": schema.add,
                  "delete": schema.delete}[kind]
        atom = rng.choice(atoms)
        if atom in target:
            if kind != "add" or len(target) > 1:
                target.discard(atom)
        elif kind == "add" and atom in schema.delete or kind == "delete" and atom in schema.add:
            continue  # never an atom both added and deleted
        elif kind == "pre" and atom in schema.neg or kind == "neg" and atom in schema.pre:
            continue
        else:
            target.add(atom)


# ---------------------------------------------------------------------- PDDL


def _lit(atom: Iterable[str]) -> str:
    return "(" + " ".join(atom) + ")"


def domain_text(m: Model) -> str:
    reqs = [":strips"] + ([":negative-preconditions"] if m.negative else []) + (
        [":action-costs"] if m.declares else []) + (
        [":conditional-effects"] if any(s.when for s in m.schemas.values()) else [])
    preds = " ".join(f"({n})" if a == 0 else f"({n} ?x)" for n, a in sorted(m.predicates.items()))
    lines = [f"(define (domain dd) (:requirements {' '.join(reqs)})",
             f"  (:constants {' '.join(OBJECTS)})", f"  (:predicates {preds})"]
    if m.declares:
        lines.append("  (:functions (total-cost) - number)")
    for s in sorted(m.schemas.values(), key=lambda s: s.name):
        pre = [_lit(a) for a in sorted(s.pre)] + [f"(not {_lit(a)})" for a in sorted(s.neg)]
        eff = [_lit(a) for a in sorted(s.add)] + [f"(not {_lit(a)})" for a in sorted(s.delete)]
        for pos, neg, effect, adds in s.when:
            cond = " ".join([_lit(a) for a in pos] + [f"(not {_lit(a)})" for a in neg])
            eff.append(f"(when (and {cond}) "
                       f"{_lit(effect) if adds else f'(not {_lit(effect)})'})")
        if m.declares:
            eff.append(f"(increase (total-cost) {s.cost})")
        lines.append(f"  (:action {s.name} :parameters ({'?x' if s.param else ''})"
                     f" :precondition (and {' '.join(pre)}) :effect (and {' '.join(eff)}))")
    return "\n".join(lines) + ")\n"


def problem_text(m: Model) -> str:
    init = " ".join(_lit(f) for f in sorted(m.init))
    if m.declares:
        init += " (= (total-cost) 0)"
    goal = " ".join(_lit(f) for f in sorted(m.goal))
    metric = " (:metric minimize (total-cost))" if m.metric and m.declares else ""
    return (f"(define (problem pp) (:domain dd) (:init {init}) (:goal (and {goal}))"
            f"{metric})\n")


# ---------------------------------------------------------------------- the oracle


Key = tuple[str, str, tuple[str, ...]]  # (kind, action or "", atom)


def features(m: Model) -> dict[Key, int | None]:
    """The model's features; cost features carry their value (as the semantics prices)."""
    out: dict[Key, int | None] = {}
    for s in m.schemas.values():
        for kind, atoms in (("precondition", s.pre), ("negative-precondition", s.neg),
                            ("add-effect", s.add), ("delete-effect", s.delete)):
            for atom in atoms:
                out[(kind, s.name, atom)] = None
        out[("cost", s.name, ())] = m.value(s.name)
    for fact in m.init:
        out[("init", "", fact)] = None
    for fact in m.goal:
        out[("goal", "", fact)] = None
    return out


def candidates(robot: Model, human: Model) -> list[tuple[Key, str, int | None]]:
    """The features the models disagree on: (key, op, value)."""
    r, h = features(robot), features(human)
    out: list[tuple[Key, str, int | None]] = []
    for key in sorted(r.keys() | h.keys()):
        if key[0] == "cost":
            if r[key] != h[key]:
                out.append((key, "add", r[key]))
        elif key in r and key not in h:
            out.append((key, "add", None))
        elif key in h and key not in r:
            out.append((key, "remove", None))
    return out


FactSet = frozenset[Fact]
#: a grounded conditional effect: (positive condition, negative condition, adds, deletes)
When = tuple[FactSet, FactSet, FactSet, FactSet]


@dataclass(frozen=True)
class Ground:
    """A grounded model: actions (name, pre, neg, add, delete, cost, conditional effects)
    over fact sets."""

    actions: tuple[tuple[str, FactSet, FactSet, FactSet, FactSet, int,
                         tuple[When, ...]], ...]
    init: frozenset[Fact]
    goal: frozenset[Fact]

    def successors(self, state: frozenset[Fact]):  # type: ignore[no-untyped-def]
        for action in self.actions:
            name, pre, neg = action[:3]
            if pre <= state and not neg & state:
                yield name, apply(action, state)[0], action[5]


def apply(action: tuple, state: FactSet) -> tuple[FactSet, FactSet, list[When]]:  # type: ignore[type-arg]
    """PDDL semantics of one step: conditional effects fire on the state before it, and
    an atom both added and deleted ends true. Returns (next state, every fact the step
    asserts, the conditional effects that fired)."""
    _, _, _, add, delete, _, whens = action
    adds, deletes = set(add), set(delete)
    fired = [w for w in whens if w[0] <= state and not w[1] & state]
    for _, _, w_add, w_delete in fired:
        adds |= w_add
        deletes |= w_delete
    return frozenset((state - deletes) | adds), frozenset(adds | deletes), fired


def updated(robot: Model, human: Model, chosen: list[tuple[Key, str, int | None]]
            ) -> tuple[dict[Key, int | None], Ground]:
    """``M^R_h + E`` from the features (cost features replaced by the robot's values)."""
    feats = features(human)
    for key, op, value in chosen:
        if op == "add":
            feats[key] = value
        else:
            feats.pop(key, None)
    return feats, ground_features(robot, feats)


def ground_features(robot: Model, feats: dict[Key, int | None]) -> Ground:
    actions = []
    for s in sorted(robot.schemas.values(), key=lambda s: s.name):
        for obj in (OBJECTS if s.param else (None,)):
            parts: dict[str, set[Fact]] = {k: set() for k in (
                "precondition", "negative-precondition", "add-effect", "delete-effect")}
            for (kind, action, atom) in feats:
                if action == s.name and kind in parts:
                    parts[kind].add(tuple(obj if a == "?x" else a for a in atom))  # type: ignore[misc]
            cost = feats.get(("cost", s.name, ()))
            name = s.name + (f" {obj}" if obj else "")

            def bind(atoms: Iterable[Atom], obj: str | None = obj) -> FactSet:
                return frozenset(tuple(obj if a == "?x" else a for a in atom)  # type: ignore[misc]
                                 for atom in atoms)

            whens = tuple((bind(pos), bind(neg), bind([eff] if adds else []),
                           bind([] if adds else [eff])) for pos, neg, eff, adds in s.when)
            actions.append((name, frozenset(parts["precondition"]),
                            frozenset(parts["negative-precondition"]),
                            frozenset(parts["add-effect"]),
                            frozenset(parts["delete-effect"]), int(cost or 0), whens))
    init = frozenset(atom for kind, _, atom in feats if kind == "init")
    goal = frozenset(atom for kind, _, atom in feats if kind == "goal")
    return Ground(tuple(actions), init, goal)


def optimum(g: Ground) -> int | None:
    """``C*`` by Dijkstra over fact sets."""
    found = cheapest(g)
    return None if found is None else found[0]


def cheapest(g: Ground) -> tuple[int, tuple[str, ...]] | None:
    """An optimal plan and its cost by Dijkstra over fact sets (``None``: no plan)."""
    heap: list[tuple[int, int, frozenset[Fact], tuple[str, ...]]] = [(0, 0, g.init, ())]
    best = {g.init: 0}
    counter = itertools.count(1)
    while heap:
        cost, _, state, plan = heapq.heappop(heap)
        if cost > best.get(state, math.inf):
            continue
        if g.goal <= state:
            return cost, plan
        for name, nxt, c in g.successors(state):
            if cost + c < best.get(nxt, math.inf):
                best[nxt] = cost + c
                heapq.heappush(heap, (cost + c, next(counter), nxt, (*plan, name)))
    return None


def watched(robot: Ground, name: str, state: FactSet, nxt: FactSet, belief: FactSet,
            observable: str, infer: bool = False, used: FactSet = frozenset()
            ) -> tuple[FactSet, FactSet]:
    """Her belief after watching the robot's ``name`` (B05), and the facts used so far:
    each observable fact the robot's step asserts (fired conditional effects included)
    takes its real value (``nxt``); with ``infer``, a fired conditional effect whose
    effect she sees makes her believe its condition (positive atoms true, negative
    false) for the facts no earlier step mentioned (``used``) and the step itself does
    not assert (the condition is about the state before the step)."""
    if not observable:
        return belief, used
    for action in robot.actions:
        if action[0] == name and action[1] <= state and not action[2] & state:
            _, asserted, fired = apply(action, state)
            seen = {f for f in asserted if f[0] == observable}
            belief = (belief - seen) | (seen & nxt)
            if not infer:
                return belief, used
            for pos, neg, add, delete in fired:
                if any(f[0] == observable for f in add | delete):
                    # the condition held before the step: facts the step asserts
                    # keep the step's value
                    fresh_pos, fresh_neg = pos - used - asserted, neg - used - asserted
                    belief = (belief | fresh_pos) - fresh_neg
            mentioned = set(action[1] | action[2] | action[3] | action[4])
            for when in action[6]:
                mentioned |= when[0] | when[1] | when[2] | when[3]
            return belief, used | frozenset(mentioned)
    return belief, used


def step(g: Ground, name: str, state: frozenset[Fact]) -> tuple[frozenset[Fact], int] | None:
    for action in g.actions:
        if action[0] == name and action[1] <= state and not action[2] & state:
            return apply(action, state)[0], action[5]
    return None


def simulate(g: Ground, plan: Iterable[str], robot: Ground | None = None,
             observable: str = "", infer: bool = False) -> int | None:
    """The plan's cost in ``g`` (``None``: not a plan there); with ``robot`` and an
    ``observable`` predicate, as watched by her (B05)."""
    state, cost = g.init, 0
    r_state = None if robot is None else robot.init
    used: FactSet = frozenset()
    for name in plan:
        moved = step(g, name, state)
        if moved is None:
            return None
        state, cost = moved[0], cost + moved[1]
        if robot is not None and r_state is not None:
            r_moved = step(robot, name, r_state)
            if r_moved is None:
                return None
            state, used = watched(robot, name, r_state, r_moved[0], state, observable,
                                  infer, used)
            r_state = r_moved[0]
    if robot is not None and (r_state is None or not robot.goal <= r_state):
        return None
    return cost if g.goal <= state else None


def penalty(name: str, difference: float) -> float:
    if math.isinf(difference):
        return math.inf
    return {"exp": math.exp, "exp-1": math.expm1, "linear": float}[name](difference)


def score(o: dict[str, object], g_r: int, c_e: float, g_h: int | None, best_h: int | None,
          robot_optimum: int) -> tuple[float, float] | None:
    """(what the objective minimises, the balanced total) of a pair; ``None``: infeasible."""
    alpha, beta, gamma = (float(o[k]) for k in ("alpha", "beta", "gamma"))  # type: ignore[arg-type]
    diff = math.inf if g_h is None or best_h is None else max(0, g_h - best_h)
    p = penalty(str(o["penalty"]), diff)
    total = sum(w * v for w, v in ((alpha, g_r), (beta, c_e), (gamma, p)) if w)
    objective = o["objective"]
    if objective == "balanced":
        return total, total
    if g_h is None or best_h is None or g_h > best_h:
        return None
    if objective == "explicable":
        return alpha * g_r + beta * c_e, total
    if g_r != robot_optimum:
        return None
    return c_e, total


def compare_answer(where: str, result: object, value: tuple[float, float],
                   costs: tuple[int, int | None, int | None], best: float) -> str | None:
    """The answer ``result`` against the oracle's ``value`` (its score and total) of the same
    plan and edits, its ``costs`` (robot plan, human plan, human optimum) and the best
    score ``best``: ``None`` when they agree, else the disagreement."""
    g_r, g_h, best_h = costs
    got = (result.plan_cost, result.human_cost, result.human_optimum)  # type: ignore[attr-defined]
    if costs != got:
        return (f"{where}: plan/human cost/optimum {g_r}/{g_h}/{best_h}, xaip "
                f"{got[0]}/{got[1]}/{got[2]}")
    total = result.total  # type: ignore[attr-defined]
    if not math.isclose(value[1], total, rel_tol=1e-6, abs_tol=1e-6):
        return f"{where}: total {value[1]}, xaip {total}"
    if not math.isclose(value[0], best, rel_tol=1e-6, abs_tol=1e-6):
        return f"{where}: the answer scores {value[0]}, the optimum is {best}"
    return None


def oracle(robot: Model, human: Model, o: dict[str, object]) -> float | None:
    """The optimum over every (plan, edit set) pair (``None``: the robot has no plan)."""
    r_ground = ground_features(robot, features(robot))
    robot_optimum = optimum(r_ground)
    if robot_optimum is None:
        return None
    cands = candidates(robot, human)
    cost = float(o["cost"])  # type: ignore[arg-type]
    watch = str(o["observable"])
    infer = bool(o.get("infer"))
    alpha, beta, gamma = (float(o[k]) for k in ("alpha", "beta", "gamma"))  # type: ignore[arg-type]
    floor = gamma * penalty(str(o["penalty"]), 0) if (
        o["objective"] == "balanced" and gamma) else 0.0
    # an upper bound from two pairs of the oracle's own: the robot's optimal plan with
    # nothing and with everything explained (M^R_h + D is M^R: explicable there)
    found = cheapest(r_ground)
    assert found is not None
    top = math.inf
    for chosen in ((), cands):
        _, h_ground = updated(robot, human, list(chosen))
        value = score(o, robot_optimum, len(chosen) * cost,
                      simulate(h_ground, found[1], r_ground, watch, infer),
                      optimum(h_ground),
                      robot_optimum)
        if value is not None:
            top = min(top, value[0])
    if math.isinf(top):
        raise AssertionError("the robot's optimal plan with every difference explained "
                             "is no pair: the oracle's M^R_h + D is not M^R")
    best = math.inf
    for size in range(len(cands) + 1):
        c_e = size * cost
        if o["objective"] == "explicable-optimal":
            if c_e > top + 1e-9:
                break
            bound = float(robot_optimum)
        else:
            # a pair at least as good has alpha * C(pi) <= top - beta * C(E) - floor
            bound = (top - beta * c_e - floor) / alpha + 1e-9
            if bound < robot_optimum - 1e-9:
                break
        for chosen in itertools.combinations(cands, size):
            _, h_ground = updated(robot, human, list(chosen))
            best_h = optimum(h_ground)
            for g_r, g_h in _outcomes(r_ground, h_ground, bound, watch, infer):
                value = score(o, g_r, c_e, g_h, best_h, robot_optimum)
                if value is not None:
                    best = min(best, value[0])
    return best


def _outcomes(robot: Ground, human: Ground, bound: float, observable: str = "",
              infer: bool = False) -> set[tuple[int, int | None]]:
    """Every (robot cost, her cost or ``None``) of robot plans within ``bound``: all
    reachable (robot state, her state, costs, facts used) explored exhaustively (no
    pruning by dominance); plans end at the robot's first goal state."""
    start: tuple[FactSet, FactSet | None, int, int, FactSet] = (
        robot.init, human.init, 0, 0, frozenset())
    seen = {start}
    stack = [start]
    out: set[tuple[int, int | None]] = set()
    while stack:
        s_r, s_h, g_r, g_h, used = stack.pop()
        if robot.goal <= s_r:
            ok = s_h is not None and human.goal <= s_h
            out.add((g_r, g_h if ok else None))
            continue
        for name, nxt, c in robot.successors(s_r):
            if g_r + c > bound:
                continue
            h_next: FactSet | None = None
            h_cost = -1
            now_used: FactSet = frozenset()
            if s_h is not None:
                moved = step(human, name, s_h)
                if moved is not None:
                    h_next, now_used = watched(robot, name, s_r, nxt, moved[0], observable,
                                               infer, used)
                    h_cost = g_h + moved[1]
            node = (nxt, h_next, g_r + c, h_cost, now_used)
            if node not in seen:
                seen.add(node)
                stack.append(node)
    return out


# ---------------------------------------------------------------------- comparing


def _key_of(edit) -> Key:  # type: ignore[no-untyped-def]
    f = edit.feature
    atom: tuple[str, ...] = ()
    if f.atom is not None:
        atom = (f.atom.predicate, *f.atom.args)
    return (str(f.kind), f.action or "", atom)


def check(seed: int) -> str | None:
    """Run both methods with their checker on the seed's instance; compare with the
    oracle. ``None`` when everything agrees."""
    from xaip.balanced import Weights, balance, balanced_problem
    from xaip.planning.pddl import parse_domain, parse_problem
    from xaip.runtime import Budget, Status

    robot, human, o = generate(seed)
    problem = balanced_problem(
        parse_domain(domain_text(robot)), parse_problem(problem_text(robot)),
        parse_domain(domain_text(human)), parse_problem(problem_text(human)),
        objective=str(o["objective"]),
        weights=Weights(float(o["alpha"]), float(o["beta"]), float(o["gamma"])),  # type: ignore[arg-type]
        default_cost=float(o["cost"]), penalty=str(o["penalty"]),  # type: ignore[arg-type]
        observable=(str(o["observable"]),) if o["observable"] else (),
        infer_conditions=bool(o["infer"]))
    cands = candidates(robot, human)
    theirs = sorted(_key_of(e) for e in problem.differences)
    if theirs != sorted(k for k, _, _ in cands):
        return f"candidates differ: xaip {theirs}, oracle {sorted(k for k, _, _ in cands)}"
    try:
        best = oracle(robot, human, o)
    except AssertionError as error:
        return f"oracle: {error}"
    by_key = {k: (k, op, v) for k, op, v in cands}
    r_ground = ground_features(robot, features(robot))
    robot_optimum = optimum(r_ground)
    for method in ("model-space", "compile"):
        where = f"{method} ({o})"
        result = balance(problem, method=method, budget=Budget(max_seconds=120))
        if best is None:
            if result.status != Status.UNSOLVABLE or not result.verified:
                return f"{where}: the robot has no plan, xaip says {result.status}"
            continue
        if result.status != Status.FOUND or not result.verified:
            return f"{where}: {result.status}, verified {result.verified}: {result.check}"
        chosen = [by_key[_key_of(e)] for e in result.explanation]
        _, h_ground = updated(robot, human, chosen)
        g_r = simulate(r_ground, result.plan)
        g_h = simulate(h_ground, result.plan, r_ground, str(o["observable"]), bool(o["infer"]))
        best_h = optimum(h_ground)
        assert robot_optimum is not None
        c_e = len(chosen) * float(o["cost"])  # type: ignore[arg-type]
        value = None if g_r is None else score(o, g_r, c_e, g_h, best_h, robot_optimum)
        if value is None:
            return f"{where}: the answer {result.plan} with {chosen} is infeasible"
        disagreement = compare_answer(where, result, value, (g_r, g_h, best_h), best)
        if disagreement is not None:
            return disagreement
    return None


if __name__ == "__main__":  # pragma: no cover - a quick look at one seed
    import sys

    r, h, opts = generate(int(sys.argv[1]))
    print(domain_text(r), problem_text(r), domain_text(h), problem_text(h), opts, sep="\n")
    print(check(int(sys.argv[1])))
