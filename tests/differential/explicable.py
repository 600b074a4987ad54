"""Differential test of the explicable family: explicable planning per distance and the
environment-design objective against brute force written from the definitions.

Each seed makes a random STRIPS pair (robot model, the person's model of the robot): 3-5
propositional facts, 3-5 actions with random preconditions, adds and deletes; the person's
model is the robot's with 0-3 changes (a precondition or effect added or removed, a cost
changed); action costs are absent, declared without a metric, or declared with
``(:metric minimize (total-cost))`` (costs 1-3), and the person may see another initial
state (``--human-problem``) whose metric differs. Goals are sometimes true initially and
sometimes unreachable. xaip's :func:`~xaip.explicable.explicable_plan` (search and its
checker) runs for the cost distance with and without a robot cost bound and for the action,
causal, state and composite distances under a bound; every other seed also runs the anytime
reconciliation search (one trace distance) and the cost distance by enumeration; two seeds
in nine run just the cost distance (with and without a bound) and one trace distance under
the square or saturating mapping ``F``; every fourth seed also runs
:func:`~xaip.explicable.design_search` on a random design problem over the pair.

The oracle never calls xaip's planning code: it reads its own description of the models
(Python sets, the text below is written from them), prices actions as the definitions say
(declared costs only under the metric, else 1, per model with its own problem), lists
plans by brute force -- every action sequence within a cost bound that is executable and
ends at its first goal state (the plan convention of ``xaip.planning.search.enumerate``)
-- and computes the distances from book-spec ch. 3 §2.3 with xaip's documented conventions
(links from ``init`` and to ``goal``; states are sets of all true facts; composite = the
mean). IE is ``min`` over the person's optimal plans, identity mapping. Without a bound
(cost distance) the oracle first finds any plan valid in both models by breadth-first
search over pairs of states; a better one costs the person no more, so (every action costing
at least 1) has at most that many steps, and those are all enumerated. The design oracle
evaluates the objective of every subset of modifications.
"""

from __future__ import annotations

import itertools
import math
import random
import tempfile
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

CI_INSTANCES = 200

INF = math.inf
State = frozenset[str]


@dataclass(frozen=True)
class Action:
    name: str
    pre: frozenset[str]
    add: frozenset[str]
    delete: frozenset[str]
    cost: int = 1


@dataclass(frozen=True)
class Model:
    """One model with its problem, priced as the definitions say."""

    actions: tuple[Action, ...]
    init: State
    goal: frozenset[str]
    declares: bool
    metric: bool

    def price(self, action: Action) -> int:
        return action.cost if self.declares and self.metric else 1

    def step(self, state: State, name: str) -> State | None:
        for action in self.actions:
            if action.name == name and action.pre <= state:
                return (state - action.delete) | action.add
        return None

    def applicable(self, state: State) -> Iterator[Action]:
        return (a for a in self.actions if a.pre <= state)

    def is_goal(self, state: State) -> bool:
        return self.goal <= state

    def by_name(self, name: str) -> Action:
        return next(a for a in self.actions if a.name == name)


# ------------------------------------------------------------------ random instances


def _subset(rng: random.Random, facts: list[str], low: int, high: int) -> frozenset[str]:
    return frozenset(rng.sample(facts, rng.randint(low, min(high, len(facts)))))


def _mutate(rng: random.Random, action: Action, facts: list[str], costs: bool) -> Action:
    kind = rng.choice(["pre+", "pre-", "add+", "add-", "del+", "del-"]
                      + (["cost"] if costs else []))
    fact = rng.choice(facts)
    if kind == "pre+":
        return replace(action, pre=action.pre | {fact})
    if kind == "pre-":
        return replace(action, pre=action.pre - {fact} if fact in action.pre
                       else frozenset(list(action.pre)[1:]))
    if kind == "add+":
        return replace(action, add=action.add | {fact}, delete=action.delete - {fact})
    if kind == "add-":
        return replace(action, add=action.add - {fact})
    if kind == "del+":
        return replace(action, delete=action.delete | {fact}, add=action.add - {fact})
    if kind == "del-":
        return replace(action, delete=action.delete - {fact})
    return replace(action, cost=rng.randint(1, 3))


@dataclass(frozen=True)
class Instance:
    facts: tuple[str, ...]
    robot: Model
    human: Model
    bound: int
    two_problems: bool
    design: dict | None = field(default=None, compare=False)


def generate(seed: int) -> Instance:
    rng = random.Random(seed)
    facts = [f"p{i}" for i in range(rng.randint(3, 5))]
    costs = rng.random() < 0.6
    metric = costs and rng.random() < 0.6
    actions = []
    for i in range(rng.randint(3, 5)):
        add = _subset(rng, facts, 1, 2)
        delete = _subset(rng, [f for f in facts if f not in add], 0, 2)
        actions.append(Action(f"a{i}", _subset(rng, facts, 0, 2), add, delete,
                              rng.randint(1, 3) if costs else 1))
    init = _subset(rng, facts, 0, 3)
    goal = (_subset(rng, list(init), 1, 2) if init and rng.random() < 0.1
            else _subset(rng, facts, 1, 2))
    human_actions = list(actions)
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        index = rng.randrange(len(human_actions))
        human_actions[index] = _mutate(rng, human_actions[index], facts, costs)
    two = rng.random() < 0.3
    human_init, human_metric = init, metric
    if two:
        human_init = init ^ {rng.choice(facts)}
        human_metric = costs and rng.random() < 0.5
    robot = Model(tuple(actions), init, goal, costs, metric)
    human = Model(tuple(human_actions), frozenset(human_init), goal, costs, human_metric)
    instance = Instance(tuple(facts), robot, human, rng.randint(1, 7), two)
    if seed % 4 == 0:
        instance = replace(instance, design=_design(rng, instance))
    return instance


def _design(rng: random.Random, instance: Instance) -> dict:
    facts = list(instance.facts)
    mods = []
    for i in range(rng.randint(1, 3)):
        kind = rng.choice(["human_init_remove", "human_init_add", "robot_init_add",
                           "robot_init_remove"])
        mods.append({"name": f"m{i}", "cost": rng.choice([0, 0.5, 1, 2, 3]),
                     kind: [f"({f})" for f in _subset(rng, facts, 1, 2)]})
    tasks = [{"goal": instance.robot.goal, "probability": 1.0}]
    if rng.random() < 0.5:
        tasks = [{"goal": instance.robot.goal, "probability": 0.5},
                 {"goal": _subset(rng, facts, 1, 2), "probability": 0.5}]
    return {"modifications": mods, "tasks": tasks, "horizon": rng.randint(1, 3),
            "discount": rng.choice([1.0, 0.9, 0.5]),
            "weights": {"alpha": rng.choice([0, 1, 2]), "beta": rng.choice([0, 1]),
                        "gamma": rng.choice([0, 0.5, 1])},
            "distance": rng.choice(["cost", "cost", "action", "state"])}


# ------------------------------------------------------------------ PDDL text


def domain_text(model: Model, facts: tuple[str, ...]) -> str:
    costs = model.declares
    lines = ["(define (domain rnd)",
             f"  (:requirements :strips{' :action-costs' if costs else ''})",
             "  (:predicates " + " ".join(f"({f})" for f in facts) + ")"]
    if costs:
        lines.append("  (:functions (total-cost) - number)")
    for action in model.actions:
        pre = " ".join(f"({f})" for f in sorted(action.pre))
        effect = [f"({f})" for f in sorted(action.add)]
        effect += [f"(not ({f}))" for f in sorted(action.delete)]
        if costs:
            effect.append(f"(increase (total-cost) {action.cost})")
        lines.append(f"  (:action {action.name} :parameters ()\n"
                     f"    :precondition (and {pre})\n    :effect (and {' '.join(effect)}))")
    return "\n".join(lines) + ")\n"


def problem_text(model: Model, init: State | None = None, goal: frozenset[str] | None = None
                 ) -> str:
    init = model.init if init is None else init
    goal = model.goal if goal is None else goal
    facts = " ".join(f"({f})" for f in sorted(init))
    numeric = " (= (total-cost) 0)" if model.declares else ""
    metric = "\n  (:metric minimize (total-cost))" if model.metric else ""
    return (f"(define (problem rnd) (:domain rnd)\n  (:init {facts}{numeric})\n"
            f"  (:goal (and {' '.join(f'({f})' for f in sorted(goal))})){metric})\n")


# ------------------------------------------------------------------ the oracle


def plans(model: Model, bound: float, max_steps: int | None = None
          ) -> Iterator[tuple[tuple[str, ...], int]]:
    """Every plan of cost <= bound (and at most ``max_steps`` steps), stopping at the first
    goal state: plain depth-first search over action sequences."""
    def extend(state: State, prefix: list[str], cost: int
               ) -> Iterator[tuple[tuple[str, ...], int]]:
        if model.is_goal(state):
            yield tuple(prefix), cost
            return
        if max_steps is not None and len(prefix) >= max_steps:
            return
        for action in model.applicable(state):
            price = model.price(action)
            if cost + price <= bound:
                prefix.append(action.name)
                yield from extend((state - action.delete) | action.add, prefix, cost + price)
                prefix.pop()

    yield from extend(model.init, [], 0)


def optimum(model: Model) -> int | None:
    """C* by Dijkstra over sets of facts."""
    import heapq

    best = {model.init: 0}
    queue = [(0, sorted(model.init), model.init)]
    while queue:
        g, _, state = heapq.heappop(queue)
        if g > best[state]:
            continue
        if model.is_goal(state):
            return g
        for action in model.applicable(state):
            child = (state - action.delete) | action.add
            if g + model.price(action) < best.get(child, INF):
                best[child] = g + model.price(action)
                heapq.heappush(queue, (best[child], sorted(child), child))
    return None


def run(model: Model, plan: tuple[str, ...]) -> list[State] | None:
    states = [model.init]
    for name in plan:
        nxt = model.step(states[-1], name)
        if nxt is None:
            return None
        states.append(nxt)
    return states


def human_cost(human: Model, plan: tuple[str, ...]) -> int | None:
    states = run(human, plan)
    if states is None or not human.is_goal(states[-1]):
        return None
    cost, state = 0, human.init
    for name in plan:
        action = next(a for a in human.actions if a.name == name and a.pre <= state)
        cost += human.price(action)
        state = (state - action.delete) | action.add
    return cost


def jaccard(a: frozenset, b: frozenset) -> float:
    union = a | b
    return 0.0 if not union else 1 - len(a & b) / len(union)


def links(model: Model, plan: tuple[str, ...]) -> frozenset[tuple[str, str, str]]:
    """<producer, fact, consumer>: the last step adding the fact before the consumer (or
    ``init``); consumers are the steps needing it and ``goal``."""
    states = run(model, plan)
    assert states is not None
    achiever: dict[str, str] = {f: "init" for f in model.init}
    out = set()
    for index, name in enumerate(plan):
        action = next(a for a in model.actions if a.name == name and a.pre <= states[index])
        out |= {(achiever[f], f, name) for f in action.pre}
        for fact in action.add:
            achiever[fact] = name
    out |= {(achiever[f], f, "goal") for f in model.goal}
    return frozenset(out)


def distance(kind: str, robot: Model, mine: tuple[str, ...], human: Model,
             theirs: tuple[str, ...]) -> float:
    if kind == "composite":
        return sum(distance(k, robot, mine, human, theirs)
                   for k in ("action", "causal", "state")) / 3
    if kind == "action":
        return jaccard(frozenset(mine), frozenset(theirs))
    if kind == "causal":
        return jaccard(links(robot, mine), links(human, theirs))
    a, b = run(robot, mine), run(human, theirs)
    assert a is not None and b is not None
    longer, shorter = max(len(mine), len(theirs)), min(len(mine), len(theirs))
    if longer == 0:
        return 0.0
    return (sum(jaccard(a[i], b[i]) for i in range(1, shorter + 1)) + longer - shorter) / longer


def expected(human: Model) -> tuple[int | None, list[tuple[str, ...]]]:
    best = optimum(human)
    return best, ([] if best is None else [p for p, _ in plans(human, best)])


def ie(kind: str, robot: Model, human: Model, plan: tuple[str, ...],
       best: int | None, listed: list[tuple[str, ...]]) -> float:
    if kind == "cost":
        cost = human_cost(human, plan)
        return INF if cost is None or best is None else float(cost - best)
    if not listed:
        return INF
    return min(distance(kind, robot, plan, human, other) for other in listed)


def joint_plan_exists(robot: Model, human: Model) -> int | None:
    """Breadth-first over pairs of states: the person's cost of some plan valid in both
    (``None``: there is none)."""
    start = (robot.init, human.init, 0)
    seen = {(robot.init, human.init)}
    queue = deque([start])
    while queue:
        s_r, s_h, cost = queue.popleft()
        if robot.is_goal(s_r):
            if human.is_goal(s_h):
                return cost
            continue
        for action in robot.applicable(s_r):
            theirs = next((a for a in human.actions if a.name == action.name
                           and a.pre <= s_h), None)
            if theirs is None:
                continue
            pair = ((s_r - action.delete) | action.add, (s_h - theirs.delete) | theirs.add)
            if pair not in seen:
                seen.add(pair)
                queue.append((*pair, cost + human.price(theirs)))
    return None


#: Increasing mappings F from the minimum distance to IE, written from their definitions.
MAPPINGS = {"identity": lambda d: d, "square": lambda d: d * d,
            "saturating": lambda d: d if d == INF else d / (1 + d)}


def best(kind: str, robot: Model, human: Model, bound: float,
         mapping: Callable[[float], float] = MAPPINGS["identity"]
         ) -> tuple[float, int | None]:
    """The least (F(IE), robot cost) over the robot's plans within ``bound``
    (``(inf, None)``: no robot plan)."""
    best_cost, listed = expected(human)
    if bound == INF:
        assert kind == "cost"
        some = joint_plan_exists(robot, human)
        if some is None:
            found = optimum(robot)
            return INF, found
        candidates = plans(robot, INF, max_steps=some)
    else:
        candidates = plans(robot, bound)
    keys = [(_rounded(mapping(ie(kind, robot, human, p, best_cost, listed))), c)
            for p, c in candidates]
    if not keys:
        return INF, None
    return min(keys)


def _rounded(value: float) -> float:
    """Equal IEs summed in another order differ in the last bits: rank them equal."""
    return value if math.isinf(value) else round(value, 9)


# ------------------------------------------------------------------ comparing


def _same(a: float | None, b: float | None) -> bool:
    a = INF if a is None else a
    b = INF if b is None else b
    return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) < 1e-6)


def _write(folder: Path, instance: Instance) -> tuple[Path, Path, Path, Path]:
    files = (folder / "robot.pddl", folder / "human.pddl", folder / "p.pddl",
             folder / "ph.pddl")
    files[0].write_text(domain_text(instance.robot, instance.facts))
    files[1].write_text(domain_text(instance.human, instance.facts))
    files[2].write_text(problem_text(instance.robot))
    files[3].write_text(problem_text(instance.human))
    return files


def check(seed: int) -> str | None:
    from xaip.explicable import explicable_plan, load_problem
    from xaip.runtime import Status

    instance = generate(seed)
    with tempfile.TemporaryDirectory() as folder:
        robot_d, human_d, problem, human_p = _write(Path(folder), instance)
        task = load_problem(robot_d, human_d, problem, human_p)
        kinds = ("action", "causal", "state", "composite")
        runs = [("cost", None, "auto"), ("cost", instance.bound, "auto")] + [
            (kind, instance.bound, "auto") for kind in kinds]
        # every other seed: the anytime reconciliation search and cost by enumeration
        runs += [] if seed % 2 else [(kinds[seed // 2 % 4], instance.bound, "search"),
                                     ("cost", instance.bound, "enumerate")]
        # every third seed: an increasing mapping F other than the identity
        mapping = ("identity", "square", "saturating")[seed // 3 % 3] if seed % 3 == 0 \
            else "identity"
        if mapping != "identity":
            runs = [("cost", None, "auto"), ("cost", instance.bound, "auto"),
                    (kinds[seed % 4], instance.bound, "auto")]
        for kind, bound, method in runs:
            answer = explicable_plan(task, kind, bound, method, mapping)
            want_ie, want_cost = best(kind, instance.robot, instance.human,
                                      INF if bound is None else bound, MAPPINGS[mapping])
            where = f"{kind} distance, bound {bound}, method {method}, mapping {mapping}"
            if want_cost is None:
                if answer.status != Status.UNSOLVABLE or answer.has_plan:
                    return f"{where}: no robot plan, xaip says {answer.status}"
            elif not answer.has_plan:
                return f"{where}: xaip finds no plan, the oracle ({want_ie}, {want_cost})"
            elif not (_same(answer.inexplicability, want_ie)
                      and answer.robot_cost == want_cost):
                return (f"{where}: xaip ({answer.inexplicability}, {answer.robot_cost}) "
                        f"{answer.plan}, oracle ({want_ie}, {want_cost})")
            if not answer.verified:
                return f"{where}: the answer agrees but is not verified: {answer.check}"
        if instance.design is not None:
            return _check_design(Path(folder), instance)
    return None


# ------------------------------------------------------------------ design


def _design_models(instance: Instance, task: dict, chosen: list[dict]
                   ) -> tuple[Model, Model]:
    robot_init, human_init = set(instance.robot.init), set(instance.human.init)
    for mod in chosen:
        for fact in mod.get("human_init_remove", ()):
            human_init.discard(fact.strip("()"))
        for fact in mod.get("robot_init_remove", ()):
            robot_init.discard(fact.strip("()"))
    for mod in chosen:
        human_init |= {f.strip("()") for f in mod.get("human_init_add", ())}
        robot_init |= {f.strip("()") for f in mod.get("robot_init_add", ())}
    return (replace(instance.robot, init=frozenset(robot_init), goal=task["goal"]),
            replace(instance.human, init=frozenset(human_init), goal=task["goal"]))


def design_objective(instance: Instance, chosen: list[dict]) -> float:
    """Book ch. 3 eq. 3.4-3.6 from its terms, each task's E* and C(Λ*) by brute force."""
    spec = instance.design
    assert spec is not None
    kind = spec["distance"]
    surprise = cost = 0.0
    for task in spec["tasks"]:
        robot, human = _design_models(instance, task, chosen)
        if kind == "cost":
            value, robot_cost = best("cost", robot, human, INF)
        else:
            least = optimum(robot)
            value, robot_cost = (INF, None) if least is None else best(kind, robot, human,
                                                                       2 * least)
        surprise += task["probability"] * value
        cost += task["probability"] * (INF if robot_cost is None else robot_cost)
    w = spec["weights"]
    felt = sum(spec["discount"] ** t for t in range(spec["horizon"]))
    first = 0.0 if w["alpha"] == 0 else w["alpha"] * felt * surprise
    last = 0.0 if w["gamma"] == 0 else w["gamma"] * spec["horizon"] * cost
    return first + w["beta"] * sum(m["cost"] for m in chosen) + last


def _check_design(folder: Path, instance: Instance) -> str | None:
    from xaip.explicable import design_search, load_design

    spec = instance.design
    assert spec is not None
    entries = []
    for index, task in enumerate(spec["tasks"]):
        robot_p, human_p = folder / f"t{index}.pddl", folder / f"t{index}h.pddl"
        robot_p.write_text(problem_text(instance.robot, goal=task["goal"]))
        human_p.write_text(problem_text(instance.human, goal=task["goal"]))
        entries.append({"name": f"T{index}", "problem": robot_p.name,
                        "human_problem": human_p.name, "probability": task["probability"]})
    data = {"robot_domain": "robot.pddl", "human_domain": "human.pddl", "tasks": entries,
            "modifications": spec["modifications"], "weights": spec["weights"],
            "horizon": spec["horizon"], "discount": spec["discount"],
            "distance": spec["distance"]}
    import json

    (folder / "design.json").write_text(json.dumps(data))
    problem = load_design(folder / "design.json")
    mods = spec["modifications"]
    values = [(design_objective(instance, [mods[i] for i in subset]), len(subset))
              for size in range(len(mods) + 1)
              for subset in itertools.combinations(range(len(mods)), size)]
    want = min((_rounded(v), n) for v, n in values)
    for prune in (True, False):
        answer = design_search(problem, prune=prune)
        if not _same(answer.objective, want[0]):
            return (f"design (pruning {prune}): xaip objective {answer.objective} "
                    f"{answer.design}, oracle {want[0]}")
        if len(answer.design) != min(n for v, n in values if _same(v, want[0])):
            return f"design (pruning {prune}): {answer.design} is not a smallest optimum"
        if not answer.verified:
            return f"design (pruning {prune}): agrees but not verified: {answer.check}"
    return None
