"""Differential test of ``xaip foil`` against brute force on random tiny tasks.

Each seed generates a task as plain Python data (2-3 objects, unary and nullary predicates,
2-3 action schemas of arity 0-1 with positive and negative preconditions, adds, deletes and,
in half the instances, declared costs 1-3 under ``(:metric minimize (total-cost))``) and 1-4
random constraints of every kind (``use``, ``A then B``, ``use A before B``, ``never C
after D``, ``avoid``, ``sequence``; arguments are objects or ``?variables``). Both are
written as text; xaip reads the text. The oracle reads the *same data* by the definitions
(PDDL state transitions; the constraint meanings of ``docs/foils.md``), sharing no code with
xaip: it enumerates every applicable action sequence of at most :data:`DEPTH` steps, keeps
those ending in a goal state, and for each records its cost and which constraints it meets.

Compared (action costs >= 1, so a plan longer than DEPTH costs more than DEPTH):

* the answer must be verified by xaip's checker;
* the robot's optimal cost and the witness's cost equal the oracle's minimum whenever that
  minimum is at most DEPTH + 1 (else xaip's must be above DEPTH and not above the oracle's);
* the oracle simulates xaip's witness itself: valid, every constraint met, cost as reported;
* a foil the oracle realises must not be called unrealisable, a task with a plan not called
  unsolvable; no listed conflict, and no maximal set plus one more constraint, may have an
  oracle plan;
* when the oracle's plans realise every listed maximal set (the decisive case, counted by
  :func:`decisive`), the oracle's own minimal conflicts and maximal realisable sets, read off
  its plans, must equal xaip's exactly.
Instances are never skipped; undecided cases fall under the weaker checks above.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass

from tests.differential.certificates import counting_rejections

CI_INSTANCES = 200
#: The oracle enumerates every plan of at most this many steps.
DEPTH = 5

Ground = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class Schema:
    name: str
    arity: int  # 0 or 1 (parameter ?x)
    pre: tuple[tuple[str, bool], ...]  # (predicate, positive); unary ones take ?x
    add: tuple[str, ...]
    delete: tuple[str, ...]
    cost: int


@dataclass(frozen=True)
class Instance:
    objects: tuple[str, ...]
    unary: tuple[str, ...]
    nullary: tuple[str, ...]
    schemas: tuple[Schema, ...]
    init: frozenset[Ground]
    goal: tuple[Ground, ...]
    costs: bool
    constraints: tuple[tuple[str, tuple[tuple[str, tuple[str | None, ...]], ...]], ...]


def _atom(pred: str, unary: tuple[str, ...], obj: str | None) -> Ground:
    return (pred, (obj,)) if pred in unary and obj is not None else (pred, ())


def generate(seed: int) -> Instance:
    """The instance of ``seed``; tasks without a plan within DEPTH steps are redrawn (up to
    20 times) in 85% of the draws, so most instances exercise foils on a solvable task."""
    rng = random.Random(seed)
    for _ in range(20):
        inst = _draw(rng)
        if rng.random() < 0.15 or any(True for _ in _goal_plans(inst, stop_first=True)):
            return inst
    return inst


def _draw(rng: random.Random) -> Instance:
    objects = tuple(f"o{i}" for i in range(rng.randint(2, 3)))
    unary = ("p", "q")
    nullary = ("r",) if rng.random() < 0.7 else ()
    preds = unary + nullary
    schemas = []
    for k in range(rng.randint(2, 3)):
        arity = 1 if rng.random() < 0.8 else 0
        usable = preds if arity else nullary or preds[:0]
        chosen = rng.sample(usable, rng.randint(0, min(2, len(usable))))
        pre = tuple((p, rng.random() < 0.7) for p in chosen)
        add = tuple(rng.sample(usable, rng.randint(1, min(2, len(usable))))) if usable else ()
        delete = tuple(p for p in rng.sample(usable, rng.randint(0, min(2, len(usable))))
                       if p not in add)
        schemas.append(Schema(f"act{k}", arity, pre, add, delete, rng.randint(1, 3)))
    atoms = [(p, (o,)) for p in unary for o in objects] + [(p, ()) for p in nullary]
    init = frozenset(a for a in atoms if rng.random() < 0.3)
    goal = tuple(rng.sample(atoms, rng.randint(1, 2)))
    constraints = tuple(_constraint(rng, schemas, objects) for _ in range(rng.randint(1, 4)))
    return Instance(objects, unary, nullary, tuple(schemas), init, goal, rng.random() < 0.5,
                    constraints)


def _pattern(rng: random.Random, schemas: list[Schema], objects: tuple[str, ...]
             ) -> tuple[str, tuple[str | None, ...]]:
    schema = rng.choice(schemas)
    args = tuple(None if rng.random() < 0.4 else rng.choice(objects)
                 for _ in range(schema.arity))
    return schema.name, args


def _constraint(rng: random.Random, schemas: list[Schema], objects: tuple[str, ...]
                ) -> tuple[str, tuple[tuple[str, tuple[str | None, ...]], ...]]:
    kind = rng.choice(("use", "then", "before", "never", "avoid", "sequence"))
    size = {"use": 1, "avoid": 1, "then": 2, "before": 2, "never": 2}.get(kind, rng.randint(1, 3))
    return kind, tuple(_pattern(rng, schemas, objects) for _ in range(size))


# --------------------------------------------------------------------------- as text


def domain_text(inst: Instance) -> str:
    preds = " ".join([f"({p} ?x)" for p in inst.unary] + [f"({p})" for p in inst.nullary])
    lines = ["(define (domain rnd)", "  (:requirements :strips :negative-preconditions"
             + (" :action-costs)" if inst.costs else ")"), f"  (:predicates {preds})"]
    if inst.costs:
        lines.append("  (:functions (total-cost))")
    for s in inst.schemas:
        def lit(p: str) -> str:
            return f"({p} ?x)" if p in inst.unary else f"({p})"
        pre = " ".join(lit(p) if pos else f"(not {lit(p)})" for p, pos in s.pre)
        eff = [lit(p) for p in s.add] + [f"(not {lit(p)})" for p in s.delete]
        if inst.costs:
            eff.append(f"(increase (total-cost) {s.cost})")
        params = "(?x)" if s.arity else "()"
        lines.append(f"  (:action {s.name} :parameters {params} :precondition (and {pre}) "
                     f":effect (and {' '.join(eff)}))")
    return "\n".join(lines) + ")\n"


def _ground_text(atom: Ground) -> str:
    return "(" + " ".join((atom[0], *atom[1])) + ")"


def problem_text(inst: Instance) -> str:
    init = " ".join(_ground_text(a) for a in sorted(inst.init))
    if inst.costs:
        init += " (= (total-cost) 0)"
    goal = " ".join(_ground_text(a) for a in inst.goal)
    metric = "  (:metric minimize (total-cost))\n" if inst.costs else ""
    return (f"(define (problem p) (:domain rnd) (:objects {' '.join(inst.objects)})\n"
            f"  (:init {init})\n  (:goal (and {goal}))\n{metric})\n")


def foil_text(inst: Instance) -> str:
    lines = []
    for k, (kind, patterns) in enumerate(inst.constraints):
        acts = []
        for j, (name, args) in enumerate(patterns):
            words = [name] + [a if a is not None else f"?v{k}{j}" for a in args]
            acts.append("(" + " ".join(words) + ")")
        if kind == "use":
            lines.append(f"use {acts[0]}")
        elif kind == "avoid":
            lines.append(f"avoid {acts[0]}")
        elif kind == "then":
            lines.append(f"{acts[0]} then {acts[1]}")
        elif kind == "before":
            lines.append(f"use {acts[0]} before {acts[1]}")
        elif kind == "never":  # never C after D: patterns are (D, C) in time order
            lines.append(f"never {acts[1]} after {acts[0]}")
        else:
            lines.append("sequence " + " ".join(acts))
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- the oracle


def _matches(pattern: tuple[str, tuple[str | None, ...]], action: Ground) -> bool:
    name, args = pattern
    return name == action[0] and all(a is None or a == b
                                     for a, b in zip(args, action[1], strict=True))


def meets(kind: str, patterns: tuple, plan: list[Ground]) -> bool:
    """The definition of each kind on an action sequence (docs/foils.md)."""
    n = len(plan)
    if kind == "use":
        return any(_matches(patterns[0], a) for a in plan)
    if kind == "avoid":
        return not any(_matches(patterns[0], a) for a in plan)
    if kind == "never":
        return not any(_matches(patterns[0], plan[i]) and _matches(patterns[1], plan[j])
                       for i in range(n) for j in range(i + 1, n))
    return any(all(_matches(p, plan[i]) for p, i in zip(patterns, idx, strict=True))
               for idx in itertools.combinations(range(n), len(patterns)))


def _ground_actions(inst: Instance) -> list[tuple[Ground, Schema]]:
    out = []
    for s in inst.schemas:
        for args in ([(o,) for o in inst.objects] if s.arity else [()]):
            out.append(((s.name, args), s))
    return out


def _apply(inst: Instance, state: frozenset[Ground], schema: Schema, args: tuple[str, ...]
           ) -> frozenset[Ground] | None:
    obj = args[0] if args else None
    for p, positive in schema.pre:
        if (_atom(p, inst.unary, obj) in state) != positive:
            return None
    dels = {_atom(p, inst.unary, obj) for p in schema.delete}
    adds = {_atom(p, inst.unary, obj) for p in schema.add}
    return frozenset((state - dels) | adds)


def simulate(inst: Instance, plan: list[Ground]) -> int | None:
    """The plan's cost if it is applicable and ends in a goal state, else None."""
    by_name = {s.name: s for s in inst.schemas}
    state, cost = inst.init, 0
    for name, args in plan:
        nxt = _apply(inst, state, by_name[name], args)
        if nxt is None:
            return None
        state, cost = nxt, cost + (by_name[name].cost if inst.costs else 1)
    return cost if all(g in state for g in inst.goal) else None


def _goal_plans(inst: Instance, stop_first: bool = False
                ) -> Iterator[tuple[int, list[Ground]]]:
    """(cost, plan) of every applicable sequence of at most DEPTH steps ending in a goal."""
    actions = _ground_actions(inst)

    def visit(state: frozenset[Ground], plan: list[Ground], cost: int
              ) -> Iterator[tuple[int, list[Ground]]]:
        if all(g in state for g in inst.goal):
            yield cost, plan
            if stop_first:
                return
        if len(plan) == DEPTH:
            return
        for ground, schema in actions:
            nxt = _apply(inst, state, schema, ground[1])
            if nxt is not None:
                plan.append(ground)
                yield from visit(nxt, plan, cost + (schema.cost if inst.costs else 1))
                plan.pop()

    yield from visit(inst.init, [], 0)


def plans(inst: Instance) -> list[tuple[int, int]]:
    """(cost, mask of constraints met) of every plan of at most DEPTH steps."""
    return [(cost, sum(1 << k for k, (kind, pats) in enumerate(inst.constraints)
                       if meets(kind, pats, plan)))
            for cost, plan in _goal_plans(inst)]


# --------------------------------------------------------------------------- comparing


def _cost_agrees(xaip: object, oracle: int | None) -> bool:
    if oracle is not None and oracle <= DEPTH + 1:
        return xaip == oracle
    return isinstance(xaip, int) and xaip > DEPTH and (oracle is None or xaip <= oracle)


def run(seed: int) -> tuple[Instance, object, list[tuple[int, int]]]:
    from xaip.foils import explain_foils
    from xaip.planning.pddl import parse_domain, parse_problem

    inst = generate(seed)
    domain, problem = parse_domain(domain_text(inst)), parse_problem(problem_text(inst))
    return inst, explain_foils(domain, problem, foil_text(inst)), plans(inst)


def _parsed(steps: tuple[str, ...]) -> list[Ground]:
    out = []
    for text in steps:
        words = text.strip("()").split()
        out.append((words[0], tuple(words[1:])))
    return out


@counting_rejections
def check(seed: int) -> str | None:
    inst, result, found = run(seed)
    n = len(inst.constraints)
    full = (1 << n) - 1
    if not result.verified:  # type: ignore[attr-defined]
        return f"not verified: {result.check}"  # type: ignore[attr-defined]
    robot = min((c for c, _ in found), default=None)
    if result.task_solvable is False:  # type: ignore[attr-defined]
        return None if robot is None else f"task called unsolvable, oracle plan costs {robot}"
    if not _cost_agrees(result.robot_cost, robot):  # type: ignore[attr-defined]
        return f"robot cost {result.robot_cost} vs oracle {robot}"  # type: ignore[attr-defined]
    best = min((c for c, m in found if m == full), default=None)
    if result.realisable:  # type: ignore[attr-defined]
        witness = _parsed(result.witness)  # type: ignore[attr-defined]
        cost = simulate(inst, witness)
        if cost is None or cost != result.witness_cost:  # type: ignore[attr-defined]
            return f"witness {witness} invalid or mis-priced ({cost})"
        broken = [k + 1 for k, (kind, pats) in enumerate(inst.constraints)
                  if not meets(kind, pats, witness)]
        if broken:
            return f"witness breaks constraints {broken}"
        if not _cost_agrees(cost, best):
            return f"witness cost {cost} vs oracle {best}"
        return None
    if best is not None:
        return f"foil called unrealisable, oracle plan of cost {best} meets it"
    realised = {m for _, m in found}

    def oracle_real(mask: int) -> bool:
        return any(mask & r == mask for r in realised)

    conflicts = [sum(1 << i for i in c) for c in result.conflicts]  # type: ignore[attr-defined]
    maximal = [sum(1 << i for i in m) for m in result.maximal]  # type: ignore[attr-defined]
    for c in conflicts:
        if oracle_real(c):
            return f"conflict {c:b} has an oracle plan"
    for m in maximal:
        for i in range(n):
            if not m >> i & 1 and oracle_real(m | 1 << i):
                return f"maximal {m:b} + {i} has an oracle plan"
    if all(oracle_real(m) for m in maximal):
        subsets = range(1 << n)
        o_conf = {s for s in subsets if not oracle_real(s)
                  and all(oracle_real(s & ~(1 << i)) for i in range(n) if s >> i & 1)}
        o_max = {s for s in subsets if oracle_real(s)
                 and all(not oracle_real(s | 1 << i) for i in range(n) if not s >> i & 1)}
        if o_conf != set(conflicts) or o_max != set(maximal):
            return (f"conflicts {sorted(conflicts)} vs oracle {sorted(o_conf)}; maximal "
                    f"{sorted(maximal)} vs oracle {sorted(o_max)}")
    return None


def decisive(seed: int) -> bool:
    """Was the instance fully decided by the oracle (costs within DEPTH + 1, every claimed
    maximal set realised within DEPTH steps)? For campaign statistics."""
    inst, result, found = run(seed)
    full = (1 << len(inst.constraints)) - 1
    if getattr(result, "realisable", None):
        best = min((c for c, m in found if m == full), default=None)
        return best is not None and best <= DEPTH + 1
    realised = {m for _, m in found}
    return all(any(m & r == m for r in realised)
               for m in (sum(1 << i for i in ms) for ms in getattr(result, "maximal", ())))
