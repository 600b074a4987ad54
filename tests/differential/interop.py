"""Differential test of the unified-planning integration against brute force.

Each seed generates a small planning task as plain Python data (one or two types, a few
objects, boolean fluents of arity 0-2, action schemas with positive and negative
preconditions, unconditional and conditional effects, goals that may hold initially or be
unreachable, and one of three quality metrics: none, plan length, or action costs 0-3),
builds it as a unified-planning ``Problem`` with UP's own API, and compares:

* **xaip-opt** (through UP's factory, ``OneshotPlanner(name="xaip-opt")``) with Dijkstra
  over the task's explicit state space, computed by the oracle below from the *data* under
  the definitions (a state is the set of true ground atoms; an action applies when its
  positive preconditions hold and its negative ones do not; conditional effects read the
  state before the action; a plan costs the metric's action costs, else 1 per action): the
  same solvable/unsolvable answer, the optimal cost, ``SOLVED_OPTIMALLY`` and
  ``verified`` metrics; the plan must reach the goal in the oracle's simulation and be
  ``VALID`` for UP's own ``sequential_plan_validator``, whose metric value must equal the
  oracle's cost.
* **xaip** (satisficing) the same, except that only validity (not the cost) is compared.
* **xaip's PlanValidator** with the oracle's simulation on random action sequences (and on
  UP's validator): the verdict, the inapplicable action (the first step that does not
  apply), unmet goals, and the metric value of valid plans.
* **the front door** ``xaip.planning.plan(up_problem, optimal=True)``: the oracle's cost.

The generator never gives an action two effects on one fluent (so no instance depends on
how a library resolves an add and a delete of one atom), and every action a declared cost
under the action-costs metric. Tasks have at most :data:`MAX_ATOMS` ground atoms, so the
state space is enumerable; no instance is skipped. Needs the ``xaip[up]`` extra.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass
from typing import Any

CI_INSTANCES = 200
#: At most this many ground atoms per task.
MAX_ATOMS = 12

Atom = tuple[str, tuple[str, ...]]
State = frozenset[Atom]


@dataclass(frozen=True)
class Literal:
    fluent: str
    args: tuple[str, ...]  # parameter names of the schema
    positive: bool = True


@dataclass(frozen=True)
class Quantified:
    """``exists``/``forall`` ``v`` of ``of_type``: ``literal`` (which may name ``v``)."""

    kind: str
    of_type: str
    literal: Literal


@dataclass(frozen=True)
class Equality:
    left: str
    right: str
    positive: bool = True


@dataclass(frozen=True)
class Schema:
    name: str
    params: tuple[tuple[str, str], ...]  # (name, type)
    pre: tuple[Literal, ...]
    effects: tuple[Literal, ...]  # positive = add, negative = delete
    conditional: tuple[tuple[Literal, Literal], ...]  # (condition, effect)
    cost: int
    quantified: tuple[Quantified, ...] = ()
    equalities: tuple[Equality, ...] = ()
    #: effects on every object of a type: (type, literal naming the variable ``v``)
    forall_effects: tuple[tuple[str, Literal], ...] = ()


@dataclass(frozen=True)
class Instance:
    types: tuple[str, ...]
    parents: tuple[tuple[str, str], ...]  # (type, its parent) for subtypes
    objects: tuple[tuple[str, str], ...]  # (name, type)
    fluents: tuple[tuple[str, tuple[str, ...]], ...]  # (name, argument types)
    schemas: tuple[Schema, ...]
    init: frozenset[Atom]
    goal: tuple[tuple[Atom, bool], ...]
    metric: str  # "none" | "length" | "costs"


# --------------------------------------------------------------------------- instances


def is_a(of_type: str, wanted: str, parents: tuple[tuple[str, str], ...]) -> bool:
    """Is ``of_type`` ``wanted`` or below it (PDDL/UP typing: a subtype's objects are
    objects of every type above it)?"""
    up = dict(parents)
    while of_type != wanted and of_type in up:
        of_type = up[of_type]
    return of_type == wanted


def members(wanted: str, objects: Any, parents: tuple[tuple[str, str], ...]) -> list[str]:
    return [o for o, t in objects if is_a(t, wanted, parents)]


def _atoms(fluents: Any, objects: Any, parents: tuple[tuple[str, str], ...]) -> list[Atom]:
    out = []
    for name, arg_types in fluents:
        pools = [members(a, objects, parents) for a in arg_types]
        out.extend((name, args) for args in itertools.product(*pools))
    return out


def generate(seed: int) -> Instance:
    rng = random.Random(seed)
    types = ("t0",) if rng.random() < 0.5 else ("t0", "t1")
    # t1 is sometimes a subtype of t0 (then t0's objects include t1's)
    parents = (("t1", "t0"),) if len(types) == 2 and rng.random() < 0.5 else ()
    while True:
        objects = tuple((f"o{i}", rng.choice(types)) for i in range(rng.randint(1, 3)))
        if all(any(t == ty for _, t in objects) for ty in types):
            break
    fluents = tuple((f"p{i}", tuple(rng.choice(types) for _ in range(rng.randint(0, 2))))
                    for i in range(rng.randint(2, 4)))
    atoms = _atoms(fluents, objects, parents)
    while len(atoms) > MAX_ATOMS:
        fluents = fluents[:-1]
        atoms = _atoms(fluents, objects, parents)
    schemas = tuple(_schema(rng, f"a{i}", types, fluents) for i in range(rng.randint(1, 4)))
    init = frozenset(a for a in atoms if rng.random() < 0.35)
    goal_atoms = rng.sample(atoms, k=min(len(atoms), rng.randint(1, 3)))
    goal = tuple((a, rng.random() < 0.85) for a in goal_atoms)
    metric = rng.choice(("none", "length", "costs"))
    return Instance(types, parents, objects, fluents, schemas, init, goal, metric)


def _literal(rng: random.Random, fluent: tuple[str, tuple[str, ...]],
             params: tuple[tuple[str, str], ...], positive: bool) -> Literal | None:
    """A literal over ``params`` whose declared types equal the fluent's (so every
    instance is well typed under any hierarchy)."""
    name, arg_types = fluent
    args = []
    for ty in arg_types:
        choices = [p for p, t in params if t == ty]
        if not choices:
            return None
        args.append(rng.choice(choices))
    return Literal(name, tuple(args), positive)


def _with_variable(rng: random.Random, fluents: Any, params: tuple[tuple[str, str], ...],
                   types: tuple[str, ...], positive: bool) -> tuple[str, Literal] | None:
    """A literal naming the quantified variable ``v`` (of a type the fluent takes)."""
    name, arg_types = rng.choice(fluents)
    if not arg_types:
        return None
    slot = rng.randrange(len(arg_types))
    scope = (*params, ("v", arg_types[slot]))
    literal = _literal(rng, (name, arg_types), scope, positive)
    if literal is None:
        return None
    args = list(literal.args)
    args[slot] = "v"
    return arg_types[slot], Literal(name, tuple(args), positive)


def _schema(rng: random.Random, name: str, types: tuple[str, ...],
            fluents: tuple[tuple[str, tuple[str, ...]], ...]) -> Schema:
    params = tuple((f"x{i}", rng.choice(types)) for i in range(rng.randint(0, 2)))
    pre = []
    for fluent in rng.sample(fluents, k=rng.randint(0, min(2, len(fluents)))):
        lit = _literal(rng, fluent, params, rng.random() < 0.7)
        if lit is not None:
            pre.append(lit)
    quantified = []
    if rng.random() < 0.3:
        found = _with_variable(rng, fluents, params, types, rng.random() < 0.7)
        if found is not None:
            quantified.append(Quantified(rng.choice(("exists", "forall")), *found))
    equalities = []
    if len(params) == 2 and params[0][1] == params[1][1] and rng.random() < 0.4:
        equalities.append(Equality(params[0][0], params[1][0], rng.random() < 0.5))
    effects: list[Literal] = []
    conditional: list[tuple[Literal, Literal]] = []
    forall_effects: list[tuple[str, Literal]] = []
    # one effect per fluent at most: no instance depends on add-versus-delete rules
    for fluent in rng.sample(fluents, k=rng.randint(1, len(fluents))):
        positive = rng.random() < 0.6
        if fluent[1] and rng.random() < 0.15:
            found = _with_variable(rng, [fluent], params, types, positive)
            if found is not None:
                forall_effects.append(found)
                continue
        lit = _literal(rng, fluent, params, positive)
        if lit is None:
            continue
        if rng.random() < 0.25:
            condition = _literal(rng, rng.choice(fluents), params, rng.random() < 0.7)
            if condition is not None:
                conditional.append((condition, lit))
                continue
        effects.append(lit)
    return Schema(name, params, tuple(pre), tuple(effects), tuple(conditional),
                  rng.randint(0, 3), tuple(quantified), tuple(equalities),
                  tuple(forall_effects))


# --------------------------------------------------------------------------- the oracle


def ground(instance: Instance) -> list[tuple[str, tuple[str, ...], Schema, dict[str, str]]]:
    out = []
    for schema in instance.schemas:
        pools = [members(ty, instance.objects, instance.parents) for _, ty in schema.params]
        for combo in itertools.product(*pools):
            binding = dict(zip((p for p, _ in schema.params), combo, strict=True))
            out.append((schema.name, tuple(combo), schema, binding))
    return out


def _bound(lit: Literal, binding: dict[str, str]) -> Atom:
    return lit.fluent, tuple(binding[a] for a in lit.args)


def _holds(lit: Literal, binding: dict[str, str], state: State) -> bool:
    return (_bound(lit, binding) in state) == lit.positive


def applies(instance: Instance, schema: Schema, binding: dict[str, str], state: State
            ) -> bool:
    if not all(_holds(lit, binding, state) for lit in schema.pre):
        return False
    if not all((binding[e.left] == binding[e.right]) == e.positive
               for e in schema.equalities):
        return False
    for q in schema.quantified:
        values = [_holds(q.literal, {**binding, "v": o}, state)
                  for o in members(q.of_type, instance.objects, instance.parents)]
        if not (any(values) if q.kind == "exists" else all(values)):
            return False
    return True


def successor(instance: Instance, schema: Schema, binding: dict[str, str], state: State
              ) -> State:
    adds, dels = set(), set()
    for lit in schema.effects:
        (adds if lit.positive else dels).add(_bound(lit, binding))
    for of_type, lit in schema.forall_effects:
        for o in members(of_type, instance.objects, instance.parents):
            (adds if lit.positive else dels).add(_bound(lit, {**binding, "v": o}))
    for condition, lit in schema.conditional:
        if (_bound(condition, binding) in state) == condition.positive:
            (adds if lit.positive else dels).add(_bound(lit, binding))
    return frozenset((state - dels) | adds)


def is_goal(instance: Instance, state: State) -> bool:
    return all((atom in state) == positive for atom, positive in instance.goal)


def price(instance: Instance, schema: Schema) -> int:
    return schema.cost if instance.metric == "costs" else 1


def optimum(instance: Instance) -> int | None:
    """Dijkstra over the explicit state space: the optimal cost, ``None`` if unsolvable."""
    actions = ground(instance)
    start: State = frozenset(instance.init)
    best = {start: 0}
    queue = [(0, 0, start)]
    counter = itertools.count(1)
    while queue:
        cost, _, state = heapq.heappop(queue)
        if cost > best[state]:
            continue
        if is_goal(instance, state):
            return cost
        for _, _, schema, binding in actions:
            if applies(instance, schema, binding, state):
                nxt = successor(instance, schema, binding, state)
                new = cost + price(instance, schema)
                if new < best.get(nxt, new + 1):
                    best[nxt] = new
                    heapq.heappush(queue, (new, next(counter), nxt))
    return None


def simulate(instance: Instance, steps: list[tuple[str, tuple[str, ...]]]
             ) -> tuple[int | None, bool, int]:
    """(index of the first inapplicable step or None, goal reached, cost)."""
    by_key = {(name, args): (schema, binding) for name, args, schema, binding in ground(instance)}
    state: State = frozenset(instance.init)
    cost = 0
    for index, key in enumerate(steps):
        schema, binding = by_key[key]
        if not applies(instance, schema, binding, state):
            return index, False, cost
        state = successor(instance, schema, binding, state)
        cost += price(instance, schema)
    return None, is_goal(instance, state), cost


# --------------------------------------------------------------------------- as UP


def to_up(instance: Instance) -> Any:
    from unified_planning.model import (
        Fluent,
        InstantaneousAction,
        Object,
        Problem,
    )
    from unified_planning.model.metrics import (
        MinimizeActionCosts,
        MinimizeSequentialPlanLength,
    )
    from unified_planning.shortcuts import (
        BoolType,
        Equals,
        Exists,
        Forall,
        Int,
        Not,
        UserType,
        Variable,
    )

    types: dict[str, Any] = {}
    for name in instance.types:  # parents first: t0 before t1
        parent = dict(instance.parents).get(name)
        types[name] = UserType(name, types[parent]) if parent else UserType(name)
    fluents = {name: Fluent(name, BoolType(), **{f"y{i}": types[t] for i, t in enumerate(args)})
               for name, args in instance.fluents}
    objects = {name: Object(name, types[t]) for name, t in instance.objects}
    problem = Problem(f"random{hash(instance) % 1000}")
    for fluent in fluents.values():
        problem.add_fluent(fluent, default_initial_value=False)
    problem.add_objects(list(objects.values()))
    actions = {}
    for schema in instance.schemas:
        action = InstantaneousAction(schema.name, **{p: types[t] for p, t in schema.params})

        def expr(lit: Literal, action: Any = action, variable: Any = None) -> Any:
            atom = fluents[lit.fluent](*(variable if a == "v" else action.parameter(a)
                                         for a in lit.args))
            return atom if lit.positive else Not(atom)

        for lit in schema.pre:
            action.add_precondition(expr(lit))
        for e in schema.equalities:
            same = Equals(action.parameter(e.left), action.parameter(e.right))
            action.add_precondition(same if e.positive else Not(same))
        for q in schema.quantified:
            v = Variable("v", types[q.of_type])
            body = expr(q.literal, variable=v)
            action.add_precondition(Exists(body, v) if q.kind == "exists" else Forall(body, v))
        for lit in schema.effects:
            action.add_effect(expr(Literal(lit.fluent, lit.args)), lit.positive)
        for condition, lit in schema.conditional:
            action.add_effect(expr(Literal(lit.fluent, lit.args)), lit.positive,
                              condition=expr(condition))
        for of_type, lit in schema.forall_effects:
            v = Variable("v", types[of_type])
            action.add_effect(expr(Literal(lit.fluent, lit.args), variable=v), lit.positive,
                              forall=[v])
        problem.add_action(action)
        actions[schema.name] = action
    for name, args in instance.init:
        problem.set_initial_value(fluents[name](*(objects[a] for a in args)), True)
    for (name, args), positive in instance.goal:
        atom = fluents[name](*(objects[a] for a in args))
        problem.add_goal(atom if positive else Not(atom))
    if instance.metric == "length":
        problem.add_quality_metric(MinimizeSequentialPlanLength())
    elif instance.metric == "costs":
        problem.add_quality_metric(MinimizeActionCosts(
            {actions[s.name]: Int(s.cost) for s in instance.schemas}))
    return problem


def _keys(plan: Any) -> list[tuple[str, tuple[str, ...]]]:
    return [(step.action.name, tuple(p.object().name for p in step.actual_parameters))
            for step in plan.actions]


def _up_plan(problem: Any, steps: list[tuple[str, tuple[str, ...]]]) -> Any:
    from unified_planning.plans import ActionInstance, SequentialPlan

    return SequentialPlan([ActionInstance(problem.action(name),
                                          [problem.object(o) for o in args])
                           for name, args in steps], problem.environment)


# --------------------------------------------------------------------------- the check


def check(seed: int) -> str | None:
    try:
        import unified_planning  # noqa: F401
    except ImportError:  # the xaip[up] extra is installed in CI
        import pytest

        pytest.skip("unified-planning is not installed (pip install 'xaip[up]')")
    from unified_planning.engines import PlanGenerationResultStatus as S
    from unified_planning.engines import ValidationResultStatus as V
    from unified_planning.shortcuts import OneshotPlanner, PlanValidator

    import xaip.interop.unified_planning  # noqa: F401  (registers the engines)
    from xaip.planning import plan

    instance = generate(seed)
    problem = to_up(instance)
    best = optimum(instance)
    with OneshotPlanner(name="xaip-opt") as planner:
        answer = planner.solve(problem)
    with OneshotPlanner(name="xaip") as planner:
        greedy = planner.solve(problem)
    with PlanValidator(name="sequential_plan_validator") as up_validator, \
            PlanValidator(name="xaip") as validator:
        # UP recomputes the problem's kind on every call (the slow part of this test);
        # xaip's engines check the kind themselves when they convert the problem
        up_validator.skip_checks = validator.skip_checks = True
        if best is None:
            for name, result in (("xaip-opt", answer), ("xaip", greedy)):
                if result.status != S.UNSOLVABLE_PROVEN:
                    return f"{name}: {result.status.name}, the oracle finds no plan"
        else:
            if answer.status != S.SOLVED_OPTIMALLY or answer.metrics.get("verified") != "true":
                return f"xaip-opt: {answer.status.name} {answer.log_messages}; optimum {best}"
            for name, result in (("xaip-opt", answer), ("xaip", greedy)):
                failed, reached, cost = simulate(instance, _keys(result.plan))
                if failed is not None or not reached:
                    return f"{name}: plan {_keys(result.plan)} fails in the oracle"
                if name == "xaip-opt" and cost != best:
                    return f"xaip-opt: cost {cost}, the optimum is {best}"
                verdict = up_validator.validate(problem, result.plan)
                if verdict.status != V.VALID:
                    return f"{name}: UP's validator says {verdict.status.name}"
                values = list((verdict.metric_evaluations or {}).values())
                if values and values != [cost]:
                    return f"{name}: UP's validator prices the plan {values}, oracle {cost}"
            front = plan(problem, optimal=True)
            if front.cost != best:
                return f"plan(up_problem): cost {front.cost}, the optimum is {best}"
        return _check_validator(instance, problem, validator, up_validator, seed)


def _check_validator(instance: Instance, problem: Any, validator: Any, up_validator: Any,
                     seed: int) -> str | None:
    from unified_planning.engines import ValidationResultStatus as V
    from unified_planning.engines.results import FailedValidationReason as R

    rng = random.Random(seed + 1)
    keys = [(name, args) for name, args, _, _ in ground(instance)]
    for _ in range(3):
        steps = [rng.choice(keys) for _ in range(rng.randint(0, 4))]
        up_plan = _up_plan(problem, steps)
        failed, reached, cost = simulate(instance, steps)
        verdict = validator.validate(problem, up_plan)
        theirs = up_validator.validate(problem, up_plan)
        if (verdict.status == V.VALID) != (failed is None and reached):
            return f"validator: {verdict.status.name} on {steps}; oracle failed={failed} " \
                   f"reached={reached}"
        if verdict.status != theirs.status:
            return f"validator: {verdict.status.name}, UP's {theirs.status.name} on {steps}"
        if failed is not None:
            if verdict.reason != R.INAPPLICABLE_ACTION or \
                    verdict.inapplicable_action is not up_plan.actions[failed]:
                return f"validator: step {failed + 1} of {steps} is the inapplicable one"
        elif not reached and verdict.reason != R.UNSATISFIED_GOALS:
            return f"validator: {verdict.reason} on {steps}; the goal is unmet"
        elif reached and instance.metric != "none":
            values = list((verdict.metric_evaluations or {}).values())
            if values != [cost]:
                return f"validator: metric {values} on {steps}; oracle {cost}"
    return None
