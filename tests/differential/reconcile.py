"""Differential test of model reconciliation (MCE, MME, contrastive) against brute force.

Instances: a random STRIPS robot model (a few facts and actions, some with one parameter
over two objects -- so edits are lifted -- with or without declared ``:action-costs``, with
or without the ``total-cost`` metric), a human
model that differs by added/removed preconditions and effects (and, when the two models
price differently, costs), one shared problem (sometimes with the goal true initially,
sometimes unsolvable for the robot). xaip explains the robot's optimal plan and checks
its answer; the oracle, written from the definitions (book §4.1-4.7, Def. 21; costs as in
``docs/semantics.md``: declared costs only under the metric, else 1), enumerates every
subset of the model difference and every plan by Dijkstra over sets of facts, and must
agree on:

* the robot's plan is valid and optimal in the robot's model (or both say unsolvable);
* MCE size = the smallest subset after which the plan is valid and optimal, and xaip's
  edits are such a subset; verified;
* grounded MCE size (edits of single ground actions) = the smallest subset of the ground
  differences (skipped above 10 of them); verified;
* MME size = the smallest subset every superset of which explains the plan; verified;
* contrastive size for a random ``avoid:``/``use:`` foil = the smallest subset after which
  the plan is valid and no plan of the foil is cheaper; verified;
* the checker refuses the whole difference (the MPE) claimed as an MCE whenever the oracle
  knows a smaller complete set (a test of the checker's minimality proof);
* no LM-cut certificate was rejected by the checker's A* (certified LM-cut: a rejection
  would be a fault in LM-cut, answered there by h^max).

Every instance is within what the oracle enumerates (at most 7 lifted differences); the
grounded comparison alone is skipped when there are more than 10 ground differences.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xaip.errors import InputError
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, search_counts
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.reconcile import check as check_answer
from xaip.reconcile import explain, make_mrp, parse_foil
from xaip.runtime import Budget

CI_INSTANCES = 200
MAX_DIFFERENCES = 7
MAX_GROUND_DIFFERENCES = 10


@dataclass
class Action:
    """A schema: literals are ``"p0"`` or, with the parameter ``?x``, ``"r0 ?x"``."""

    pre: set[str] = field(default_factory=set)
    add: set[str] = field(default_factory=set)
    delete: set[str] = field(default_factory=set)
    cost: int = 1
    lifted: bool = False  # has the one parameter ?x

    def copy(self, cost: int | None = None) -> Action:
        return Action(set(self.pre), set(self.add), set(self.delete),
                      self.cost if cost is None else cost, self.lifted)


@dataclass
class Model:
    actions: dict[str, Action]
    declares: bool
    metric: bool

    def counts(self) -> bool:
        return self.declares and self.metric

    def price(self, name: str) -> int:
        """What one action costs in this model (the oracle's own reading of the rule)."""
        return self.actions[name].cost if self.counts() else 1


# --------------------------------------------------------------------------- instances


def _pool(action: Action) -> list[str]:
    """The literals an action may mention."""
    return FACTS + ([f"{r} ?x" for r in UNARY] if action.lifted else [])


def _random_model(rng: random.Random, count: int) -> Model:
    actions = {}
    for number in range(count):
        action = Action(lifted=rng.random() < 0.4, cost=rng.randint(0, 3))
        facts = _pool(action)
        action.pre = set(rng.sample(facts, rng.randint(0, 2)))
        action.add = set(rng.sample(facts, rng.randint(1, 2)))
        action.delete = set(rng.sample([f for f in facts if f not in action.add],
                                       rng.randint(0, 1)))
        actions[f"a{number}"] = action
    return Model(actions, rng.random() < 0.6, rng.random() < 0.6)


def _perturb(rng: random.Random, robot: Model) -> Model:
    human = Model({n: a.copy() for n, a in robot.actions.items()}, robot.declares,
                  robot.metric)
    if rng.random() < 0.3:  # the person prices differently
        human.declares, human.metric = rng.random() < 0.5, rng.random() < 0.5
        for action in human.actions.values():
            action.cost = rng.randint(0, 3)
    for _ in range(rng.randint(2, 5)):
        action = human.actions[rng.choice(sorted(human.actions))]
        roll = rng.random()
        if roll < 0.4 and action.pre:  # the person thinks the action needs less
            action.pre.discard(rng.choice(sorted(action.pre)))
            continue
        part = "add" if roll < 0.6 else rng.choice(("pre", "add", "delete"))
        chosen: set[str] = getattr(action, part)
        fact = rng.choice(_pool(action))
        if fact in chosen:
            chosen.discard(fact)
        else:
            chosen.add(fact)
        action.delete -= action.add
    return human


def _domain_text(model: Model) -> str:
    lines = ["(define (domain d) (:requirements :strips"
             + (" :action-costs" if model.declares else "") + ")",
             "(:predicates " + " ".join(f"({f})" for f in FACTS)
             + " " + " ".join(f"({r} ?y)" for r in UNARY) + ")"]
    if model.declares:
        lines.append("(:functions (total-cost))")
    for name, action in sorted(model.actions.items()):
        effects = [f"({f})" for f in sorted(action.add)]
        effects += [f"(not ({f}))" for f in sorted(action.delete)]
        if model.declares and action.cost:
            effects.append(f"(increase (total-cost) {action.cost})")
        lines.append(f"(:action {name} :parameters ({'?x' if action.lifted else ''}) "
                     ":precondition (and " + " ".join(f"({f})" for f in sorted(action.pre))
                     + ") :effect (and " + " ".join(effects) + "))")
    return "\n".join(lines) + ")"


def _problem_text(init: set[str], goal: set[str], metric: bool) -> str:
    return ("(define (problem p) (:domain d) (:objects " + " ".join(OBJECTS) + ") (:init "
            + " ".join(f"({f})" for f in sorted(init)) + ") (:goal (and "
            + " ".join(f"({f})" for f in sorted(goal)) + "))"
            + (" (:metric minimize (total-cost))" if metric else "") + ")")


FACTS = ["p0", "p1", "p2", "p3"]
UNARY = ["r0", "r1"]
OBJECTS = ["o1", "o2"]
GROUND_FACTS = FACTS + [f"{r} {o}" for r in UNARY for o in OBJECTS]


def _ground(actions: dict[str, Action]) -> dict[str, Action]:
    """Every ground action (``"a0 o1"``), literals instantiated."""
    out = {}
    for name, action in actions.items():
        for obj in OBJECTS if action.lifted else [None]:
            def bind(literals: set[str], obj: str | None = obj) -> set[str]:
                return {f.replace("?x", obj) if obj else f for f in literals}
            out[name if obj is None else f"{name} {obj}"] = Action(
                bind(action.pre), bind(action.add), bind(action.delete), action.cost)
    return out


def _reachable_goal(rng: random.Random, robot: Model, init: set[str]) -> set[str]:
    """Facts true after a random walk of the robot's actions: a solvable goal."""
    state = set(init)
    ground = _ground(robot.actions)
    for _ in range(rng.randint(3, 6)):
        options = [a for _, a in sorted(ground.items()) if a.pre <= state]
        if not options:
            break
        action = rng.choice(options)
        state = (state - action.delete) | action.add
    new = sorted(state - init) or sorted(state) or [FACTS[-1]]
    return set(rng.sample(new, min(len(new), rng.randint(1, 2))))


# --------------------------------------------------------------------------- the oracle

#: An edit in the oracle's own terms: (what, action, fact or cost value).
OEdit = tuple[str, str, object]


def _differences(human: Model, robot: Model) -> list[OEdit]:
    out: list[OEdit] = []
    for name in sorted(robot.actions):
        mine, theirs = human.actions[name], robot.actions[name]
        for part in ("pre", "add", "delete"):
            for fact in sorted(getattr(mine, part) ^ getattr(theirs, part)):
                out.append((part, name, fact))
        if human.price(name) != robot.price(name):
            out.append(("cost", name, robot.price(name)))
    return out


def _apply(human: Model, robot: Model, edits: Iterable[OEdit]) -> dict[str, Action]:
    """H + edits, every action priced as it costs there (edits move towards the robot)."""
    actions = {n: a.copy(human.price(n)) for n, a in human.actions.items()}
    for part, name, value in edits:
        if part == "cost":
            assert isinstance(value, int)
            actions[name].cost = value
            continue
        assert isinstance(value, str)
        chosen: set[str] = getattr(actions[name], part)
        if value in getattr(robot.actions[name], part):
            chosen.add(value)
        else:
            chosen.discard(value)
    return _ground(actions)


def _run(actions: dict[str, Action], init: frozenset[str], plan: Iterable[str]
         ) -> tuple[frozenset[str], int] | None:
    state, cost = init, 0
    for name in plan:
        action = actions[name]
        if not action.pre <= state:
            return None
        state = (state - (action.delete - action.add)) | action.add
        cost += action.cost
    return state, cost


def _cheapest(actions: dict[str, Action], init: frozenset[str], goal: set[str],
              avoid: str | None = None, use: str | None = None) -> int | None:
    """The cost of a cheapest plan (Dijkstra over (facts, used?)); None: no plan."""
    start = (init, use is None)
    best = {start: 0}
    frontier = [(0, start)]
    while frontier:
        frontier.sort(key=lambda item: item[0])
        cost, (state, used) = frontier.pop(0)
        if cost > best[(state, used)]:
            continue
        if used and goal <= state:
            return cost
        for name, action in actions.items():
            schema = name.split(" ")[0]  # a foil names a schema: every ground action of it
            if schema == avoid or not action.pre <= state:
                continue
            node = ((state - (action.delete - action.add)) | action.add,
                    used or schema == use)
            if cost + action.cost < best.get(node, cost + action.cost + 1):
                best[node] = cost + action.cost
                frontier.append((cost + action.cost, node))
    return None


def _explained(actions: dict[str, Action], init: frozenset[str], goal: set[str],
               plan: tuple[str, ...], foil: tuple[str, str] | None = None) -> bool:
    outcome = _run(actions, init, plan)
    if outcome is None or not goal <= outcome[0]:
        return False
    if foil is None:
        best = _cheapest(actions, init, goal)
    else:
        kind, name = foil
        best = _cheapest(actions, init, goal, avoid=name if kind == "avoid" else None,
                         use=name if kind == "use" else None)
    return best is None or best >= outcome[1]


def _smallest(differences: list[OEdit], good: object) -> int | None:
    for size in range(len(differences) + 1):
        for subset in itertools.combinations(differences, size):
            if good(subset):  # type: ignore[operator]
                return size
    return None


def _to_oracle(edit: object, ground: bool = False) -> OEdit:
    feature = edit.feature  # type: ignore[attr-defined]
    action = " ".join((feature.action, *feature.parameters)) if ground else feature.action
    if feature.kind.value == "cost":
        return ("cost", action, int(feature.value))
    part = {"precondition": "pre", "add-effect": "add", "delete-effect": "delete"}[
        feature.kind.value]
    return (part, action, " ".join((feature.atom.predicate, *feature.atom.args)))


def _grounded(mrp: object, human: Model, robot: Model, start: frozenset[str], goal: set[str],
              plan: tuple[str, ...], budget: Budget) -> list[str]:
    """Grounded MCE (edits of single ground actions) against the oracle over the ground
    differences; skipped (agreement by construction) above MAX_GROUND_DIFFERENCES."""
    def flat(model: Model) -> Model:
        return Model(_ground(model.actions), model.declares, model.metric)

    ground_human, ground_robot = flat(human), flat(robot)
    differences = _differences(ground_human, ground_robot)
    if len(differences) > MAX_GROUND_DIFFERENCES:
        return []

    def explains(subset: Iterable[OEdit]) -> bool:
        return _explained(_apply(ground_human, ground_robot, subset), start, goal, plan)

    result = explain(mrp, "mce", budget=budget, grounded=True)
    want = _smallest(differences, explains)
    edits = [_to_oracle(e, ground=True) for e in result.edits]
    if result.size != want or not explains(edits) or not result.verified:
        return [f"grounded MCE size {result.size} (oracle {want}), explains by oracle "
                f"{explains(edits)}, verified {result.verified} ({result.check})"]
    return []


# --------------------------------------------------------------------------- check


@dataclass
class Instance:
    """One random MRP with the oracle's own view of it (for :func:`check` and the
    checker-speed benchmark, ``benchmarks/reconcile.py --checker``)."""

    robot: Model
    human: Model
    start: frozenset[str]
    goal: set[str]
    differences: list[OEdit]
    optimum: int | None
    robot_actions: dict[str, Action]
    mrp: object = None
    refused: str | None = None  # make_mrp's InputError
    foil: tuple[str, str] = ("avoid", "a0")


def instance(seed: int) -> Instance:
    """The random instance of ``seed`` (``mrp`` is None when ``make_mrp`` refused it)."""
    rng = random.Random(seed)
    robot = _random_model(rng, rng.randint(3, 5))
    human = _perturb(rng, robot)
    init = set(rng.sample(GROUND_FACTS, rng.randint(0, 3)))
    goal = _reachable_goal(rng, robot, init)
    roll = rng.random()
    if roll < 0.08:
        goal = set(init) or {FACTS[0]}  # the goal (often) true initially
    elif roll < 0.16:
        goal = set(rng.sample(GROUND_FACTS, rng.randint(1, 3)))  # often unsolvable
    differences = _differences(human, robot)
    if len(differences) > MAX_DIFFERENCES:  # too many to enumerate: identical models
        human = Model({n: a.copy() for n, a in robot.actions.items()}, robot.declares,
                      robot.metric)
        differences = _differences(human, robot)
    robot_actions = _ground({n: a.copy(robot.price(n)) for n, a in robot.actions.items()})
    start = frozenset(init)
    found = Instance(robot, human, start, goal, differences,
                     _cheapest(robot_actions, start, goal), robot_actions)
    try:
        found.mrp = make_mrp(parse_domain(_domain_text(robot)),
                             parse_problem(_problem_text(init, goal, robot.metric)),
                             parse_domain(_domain_text(human)),
                             parse_problem(_problem_text(init, goal, human.metric)))
    except InputError as error:
        found.refused = str(error)
    # the foil of the contrastive comparison, drawn after the instance (as before)
    name = rng.choice(sorted(robot.actions))
    found.foil = (rng.choice(("avoid", "use")), name)
    return found


def check(seed: int) -> str | None:
    case = instance(seed)
    robot, human, start, goal = case.robot, case.human, case.start, case.goal
    differences, optimum, robot_actions = case.differences, case.optimum, case.robot_actions
    if case.mrp is None:
        assert case.refused is not None
        if optimum is None and "no solution" in case.refused:
            return None
        return f"make_mrp refused: {case.refused} (oracle optimum {optimum})"
    mrp: Any = case.mrp
    if optimum is None:
        return "xaip found a robot plan where the oracle finds none"
    plan = mrp.plan_names
    ran = _run(robot_actions, start, plan)
    if ran is None or not goal <= ran[0] or ran[1] != optimum or mrp.plan_cost != optimum:
        return f"robot plan {plan} is not optimal ({optimum}) in the robot's model"
    budget = Budget(max_seconds=60)

    def explains(subset: Iterable[OEdit], foil: tuple[str, str] | None = None) -> bool:
        return _explained(_apply(human, robot, subset), start, goal, plan, foil)

    problems = []
    rejected = search_counts(CERTIFIED_LMCUT)["rejected"]
    mce = explain(mrp, "mce", budget=budget)
    want = _smallest(differences, explains)
    edits = [_to_oracle(e) for e in mce.edits]
    if mce.size != want or not explains(edits) or not mce.verified:
        problems.append(f"MCE size {mce.size} (oracle {want}), explains by oracle "
                        f"{explains(edits)}, verified {mce.verified} ({mce.check})")

    problems += _grounded(mrp, human, robot, start, goal, plan, budget)

    if want is not None and want < len(differences) and explains(differences):
        # the checker must refuse a complete but larger answer claimed as an MCE
        mpe = explain(mrp, "mpe", budget=budget)
        fake = dataclasses.replace(mpe, type="mce", complete=True, check=None)
        report = check_answer(mrp, fake, budget)
        if report.ok is not False:
            problems.append(f"the checker accepted the MPE (size {mpe.size}) as an MCE "
                            f"(oracle {want}): {report}")

    def monotone(subset: tuple[OEdit, ...]) -> bool:
        rest = [d for d in differences if d not in subset]
        return all(explains((*subset, *extra)) for n in range(len(rest) + 1)
                   for extra in itertools.combinations(rest, n))

    mme = explain(mrp, "mme", budget=budget)
    want = _smallest(differences, monotone)
    if mme.size != want or not mme.verified:
        problems.append(f"MME size {mme.size} (oracle {want}), verified {mme.verified} "
                        f"({mme.check})")
    kind, name = case.foil
    try:
        contrastive = explain(mrp, "contrastive", budget=budget,
                              foils=[parse_foil(f"{kind}:{name}")])
    except InputError as error:
        problems.append(f"contrastive {kind}:{name} refused: {error}")
    else:
        want = _smallest(differences, lambda s: explains(s, (kind, name)))
        if contrastive.size != want or not contrastive.verified:
            problems.append(f"contrastive {kind}:{name} size {contrastive.size} (oracle "
                            f"{want}), verified {contrastive.verified} ({contrastive.check})")
    failed = search_counts(CERTIFIED_LMCUT)["rejected"] - rejected
    if failed:  # the checker stayed right (h^max there), but LM-cut's certificate was wrong
        problems.append(f"{failed} LM-cut certificate(s) rejected by the checker's A*")
    return "; ".join(problems) or None
