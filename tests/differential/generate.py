"""Differential test of the random MRP generator (``xaip.generate.random_mrp``).

Instances: a random small typed STRIPS robot model (0-ary facts ``p0..``, a fact ``q ?x``
over objects of type ``a``; actions without a parameter, or with one parameter of type
``a`` or ``b`` -- so adding ``q ?x`` to a ``b``-action would be ill-typed), some with
declared costs, with or without the ``total-cost`` metric (declared costs only count under
it). A random ``k``, mode (remove/add/mix) and ``need_explanation``. The oracle, written
from the definitions (book ch. 5: the human model is the robot's with ``k`` features
removed or spurious ones added; costs as ``docs/semantics.md``), never from xaip's
feature or planner code, keeps its own model as Python sets and checks:

* the number of features available per mode (its own count: the model's preconditions,
  effects, initial and goal facts; for adding, every well-typed absent one) -- ``k`` above
  it is refused, ``k`` within it is not;
* the ``k`` edits are distinct, of the mode's ops, each removed feature is in the robot's
  model and each added one is absent and well-typed;
* the plan is valid in the robot's model and costs the robot's optimum (Dijkstra over
  sets of facts on its own grounding);
* applying the manifest's edits to its own model gives a human model in which the plan's
  validity, its cost and (with ``need_explanation``) the optimum are those the manifest
  reports -- and xaip's validator on xaip's human model agrees;
* with ``need_explanation`` the plan is not optimal for the human; when xaip refuses
  ("no edit set ... in N tries") the first draw of that seed indeed needs no explanation
  (the oracle cannot replay later draws);
* the same seed gives the same edits, and the instance is verified by xaip's checker.
"""

from __future__ import annotations

import heapq
import itertools
import random
from dataclasses import dataclass, field

from tests.differential.certificates import counting_rejections
from xaip.errors import InputError
from xaip.generate import random_mrp
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.plans import validate

CI_INSTANCES = 200
TYPES = {"a1": "a", "a2": "a", "b1": "b"}
DEFAULT = ("precondition", "add-effect", "delete-effect", "init", "goal")


@dataclass
class Act:
    param: str | None  # None, "a" or "b" (the type of ?x)
    pre: set[str] = field(default_factory=set)
    add: set[str] = field(default_factory=set)
    delete: set[str] = field(default_factory=set)
    cost: int = 1


@dataclass
class Model:
    props: int
    actions: dict[str, Act]
    init: set[str]
    goal: set[str]
    costs: bool  # the domain declares costs
    metric: bool

    def copy(self) -> Model:
        return Model(self.props, {n: Act(a.param, set(a.pre), set(a.add), set(a.delete),
                                          a.cost) for n, a in self.actions.items()},
                     set(self.init), set(self.goal), self.costs, self.metric)


def _atoms(model: Model, param: str | None) -> list[str]:
    """Well-typed atoms of an action with parameter type ``param`` (or a fact, ``"fact"``)."""
    props = [f"p{i}" for i in range(model.props)]
    if param == "a":
        return [*props, "q ?x"]
    if param == "fact":
        return [*props, "q a1", "q a2"]
    return props


def _random_model(rng: random.Random) -> Model:
    costs = rng.random() < 0.5
    model = Model(rng.randint(2, 3), {}, set(), set(), costs, costs and rng.random() < 0.7)
    for i in range(rng.randint(2, 4)):
        param = rng.choice([None, "a", "b"])
        pool = _atoms(model, param)
        act = Act(param, cost=rng.randint(0, 3) if costs else 1)
        act.pre = set(rng.sample(pool, rng.randint(0, 2)))
        act.add = set(rng.sample(pool, rng.randint(1, 2)))
        act.delete = set(rng.sample(pool, rng.randint(0, 1))) - act.add
        model.actions[f"act{i}"] = act
    facts = _atoms(model, "fact")
    model.init = set(rng.sample(facts, rng.randint(0, 2)))
    state = frozenset(model.init)
    for _ in range(rng.randint(2, 6)):  # a reachable goal: a random walk
        moves = list(_successors(model, state))
        if not moves:
            break
        state = rng.choice(moves)[2]
    new = sorted(state - model.init)  # mostly facts the walk made true: plans are not empty
    pool = new if new and rng.random() < 0.85 else sorted(state)
    model.goal = set(rng.sample(pool, min(len(pool), rng.randint(1, 2))))
    return model


def _ground(model: Model) -> list[tuple[str, Act, str | None]]:
    out = []
    for name, act in sorted(model.actions.items()):
        if act.param is None:
            out.append((name, act, None))
        else:
            out.extend((name, act, o) for o in sorted(TYPES) if TYPES[o] == act.param)
    return out


def _bind(atoms: set[str], obj: str | None) -> set[str]:
    return {a.replace("?x", obj) if obj else a for a in atoms}


def _price(model: Model, act: Act) -> int:
    return act.cost if model.costs and model.metric else 1


def _successors(model: Model, state: frozenset[str]):
    for name, act, obj in _ground(model):
        if _bind(act.pre, obj) <= state:
            step = f"{name} {obj}" if obj else name
            yield step, _price(model, act), frozenset((state - _bind(act.delete, obj))
                                                      | _bind(act.add, obj))


def _optimum(model: Model) -> int | None:
    start = frozenset(model.init)
    frontier, best = [(0, 0, start)], {start: 0}
    counter = itertools.count(1)
    while frontier:
        cost, _, state = heapq.heappop(frontier)
        if cost > best.get(state, cost):
            continue
        if model.goal <= state:
            return cost
        for _, price, nxt in _successors(model, state):
            if cost + price < best.get(nxt, cost + price + 1):
                best[nxt] = cost + price
                heapq.heappush(frontier, (cost + price, next(counter), nxt))
    return None


def _run(model: Model, plan: list[str]) -> int | None:
    """The plan's cost in ``model``, ``None`` when it is invalid."""
    state, cost = frozenset(model.init), 0
    for step in plan:
        moves = {s: (p, n) for s, p, n in _successors(model, state)}
        if step not in moves:
            return None
        price, state = moves[step]
        cost += price
    return cost if model.goal <= state else None


def _pddl(model: Model) -> tuple[str, str]:
    preds = " ".join(f"(p{i})" for i in range(model.props)) + " (q ?y - a)"
    reqs = ":strips :typing" + (" :action-costs" if model.costs else "")
    lines = [f"(define (domain gen) (:requirements {reqs}) (:types a b)",
             f"(:predicates {preds})"]
    if model.costs:
        lines.append("(:functions (total-cost) - number)")
    for name, act in sorted(model.actions.items()):
        params = f"?x - {act.param}" if act.param else ""
        effects = [f"({x})" for x in sorted(act.add)] + [f"(not ({x}))"
                                                        for x in sorted(act.delete)]
        if model.costs:
            effects.append(f"(increase (total-cost) {act.cost})")
        pre = " ".join(f"({x})" for x in sorted(act.pre))
        lines.append(f"(:action {name} :parameters ({params}) :precondition (and {pre}) "
                     f":effect (and {' '.join(effects)}))")
    domain = "\n".join(lines) + ")"
    init = " ".join(f"({x})" for x in sorted(model.init))
    if model.metric:
        init += " (= (total-cost) 0)"
    goal = " ".join(f"({x})" for x in sorted(model.goal))
    problem = (f"(define (problem gen-p) (:domain gen) (:objects a1 a2 - a b1 - b) "
               f"(:init {init}) (:goal (and {goal}))"
               + (" (:metric minimize (total-cost))" if model.metric else "") + ")")
    return domain, problem


def _features(model: Model) -> set[tuple[str, str, str]]:
    out = set()
    for name, act in model.actions.items():
        for kind, atoms in (("precondition", act.pre), ("add-effect", act.add),
                            ("delete-effect", act.delete)):
            out.update((kind, name, a) for a in atoms)
    out.update(("init", "", a) for a in model.init)
    out.update(("goal", "", a) for a in model.goal)
    return out


def _possible(model: Model) -> set[tuple[str, str, str]]:
    out = set()
    for name, act in model.actions.items():
        for kind in ("precondition", "add-effect", "delete-effect"):
            out.update((kind, name, a) for a in _atoms(model, act.param))
    for kind in ("init", "goal"):
        out.update((kind, "", a) for a in _atoms(model, "fact"))
    return out


def _key(edit: dict) -> tuple[str, str, str, str]:
    feature = edit["feature"]
    atom = feature["atom"].strip("()")
    if feature["action"] and feature["parameters"]:  # name the parameter ?x as the oracle
        atom = " ".join("?x" if w == feature["parameters"][0] else w for w in atom.split())
    return edit["op"], feature["kind"], feature["action"] or "", atom


def _apply(model: Model, edits: list[tuple[str, str, str, str]]) -> Model:
    human = model.copy()
    for op, kind, action, atom in edits:
        if kind in ("init", "goal"):
            target = human.init if kind == "init" else human.goal
        else:
            act = human.actions[action]
            target = {"precondition": act.pre, "add-effect": act.add,
                      "delete-effect": act.delete}[kind]
        (target.add if op == "add" else target.discard)(atom)
    return human


@counting_rejections
def check(seed: int) -> str | None:
    rng = random.Random(seed)
    model = _random_model(rng)
    domain_text, problem_text = _pddl(model)
    domain, problem = parse_domain(domain_text), parse_problem(problem_text)
    mode = rng.choice(["remove", "add", "mix"])
    have, absent = _features(model), _possible(model) - _features(model)
    available = {"remove": len(have), "add": len(absent), "mix": len(have) + len(absent)}[mode]
    k = rng.randint(0, min(available, 4) + (1 if rng.random() < 0.1 else 0))
    if rng.random() < 0.05:
        k = available + 1
    need = rng.random() < 0.5
    try:
        made = random_mrp(domain, problem, k, seed, mode=mode, need_explanation=need,
                          max_tries=10)
    except InputError as error:
        if k > available:
            return None if f"the {available} features" in str(error) else \
                f"k={k} > {available}: wrong message {error}"
        if need and "tries" in str(error):
            return _first_draw_needs_none(model, domain, problem, k, seed, mode)
        return f"refused k={k} <= {available} ({mode}): {error}"
    if k > available:
        return f"k={k} above the {available} features available ({mode}) was accepted"
    return _compare(model, made, k, mode, need, domain, problem, seed)


def _first_draw_needs_none(model: Model, domain, problem, k: int, seed: int,
                           mode: str) -> str | None:
    first = random_mrp(domain, problem, k, seed, mode=mode)
    human = _apply(model, [_key(e) for e in (x.to_dict() for x in first.edits)])
    plan = [" ".join((s.name, *s.args)) for s in first.plan]
    cost = _run(human, plan)
    if cost is None or (_optimum(human) or 0) < cost:
        return "refused for lack of an explanation-needing draw, but the first draw needs one"
    return None


def _compare(model: Model, made, k: int, mode: str, need: bool, domain, problem,
             seed: int) -> str | None:
    if not made.verified:
        return f"unverified: {made.check_details}"
    edits = [_key(e.to_dict()) for e in made.edits]
    if len(set(edits)) != k:
        return f"{len(set(edits))} distinct edits, not k={k}"
    have, possible = _features(model), _possible(model)
    for op, kind, action, atom in edits:
        if mode != "mix" and op != mode:
            return f"a {op} edit in mode {mode}"
        if op == "remove" and (kind, action, atom) not in have:
            return f"removed {(kind, action, atom)} that the robot model lacks"
        if op == "add" and ((kind, action, atom) in have
                            or (kind, action, atom) not in possible):
            return f"added {(kind, action, atom)}: present or ill-typed"
    plan = [" ".join((s.name, *s.args)) for s in made.plan]
    robot_cost, optimum = _run(model, plan), _optimum(model)
    if robot_cost is None or robot_cost != optimum or made.plan_cost != optimum:
        return f"plan {plan} costs {robot_cost} (xaip {made.plan_cost}), optimum {optimum}"
    human = _apply(model, edits)
    human_cost = _run(human, plan)
    if (human_cost is not None) != made.human_plan_valid or human_cost != made.human_plan_cost:
        return f"plan costs {human_cost} for the human, xaip says {made.human_plan_cost}"
    checked = validate(made.human_domain, made.human_problem, made.plan)
    if checked.valid != (human_cost is not None) or (checked.valid and
                                                     checked.cost != human_cost):
        return f"xaip's human model prices the plan {checked.cost}, the oracle {human_cost}"
    if need:
        human_optimum = _optimum(human)
        if human_cost is not None and made.human_optimal_cost != human_optimum:
            return f"human optimum {made.human_optimal_cost}, oracle {human_optimum}"
        if human_cost is not None and human_optimum is not None and human_optimum >= human_cost:
            return "need_explanation, but the plan is optimal for the human"
    again = random_mrp(domain, problem, k, seed, mode=mode, need_explanation=need,
                       max_tries=10)
    if again.edits != made.edits or again.plan != made.plan:
        return "the same seed drew different edits"
    return None
