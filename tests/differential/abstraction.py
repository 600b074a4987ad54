"""Differential test of the abstraction family (U06, U07) against brute force from the
definitions.

Three seeds in four make a random propositional STRIPS task (3-6 facts, one 0-ary predicate
each, so a predicate is a fluent); every fourth a lifted one (3-5 predicates of arity 0 or 1
over two constants, actions with 0 or 1 parameter, which the oracle grounds itself, so
hiding a predicate hides all its facts). Either has 2-6 actions (2-5 schemas
when lifted) with random preconditions
(sometimes negative), adds and deletes, an initial state and a goal of 1-3 literals
(sometimes negative); action costs absent, declared without a metric (every action then
costs 1) or counted under ``(:metric minimize (total-cost))``. A random 2-4 of the predicates
(1-4 on every fifth seed) are hidden from the person, and she proposes 1-4 foils: random
action sequences, and plans of her abstraction (a random walk in it, completed by a shortest
plan there), so that many foils are valid for her and must be refuted. On every third seed
the robot's plan is given (a random walk completed to the goal, often not optimal), so some
foils are valid and cheaper: unrefutable.

The oracle never calls xaip's code: it keeps its own sets of facts, projects by dropping the
hidden facts from preconditions, effects, the initial state and the goal (book Def. 32-33),
replays each foil, prices the robot's optimal plan by Dijkstra, and enumerates every subset of
the hidden facts by size, in hide order, for the first that refutes every refutable foil (a
foil is refuted when a step is not applicable, the goal is not reached, or it is valid and
costs at least the robot's optimal plan; it is unrefutable when it is valid and cheaper in the
concrete model). xaip must answer the same set, the same status and, per foil, the same kind,
failing step and unmet literals, and be verified.

Every fifth seed also explains without foils: xaip's suggested foil must be an optimal plan
of her projection (the oracle's Dijkstra there) and its answer the oracle's for that foil.
The even seeds and the lifted ones also localise a simulated person at a random level of the
lattice of 2-3 hideable predicates (U07). The oracle computes, from the definitions, which
levels admit exactly the same plans as hers (breadth-first search over pairs of abstract
states for a plan valid in one and not the other); xaip must end with exactly that set of
levels, verified.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from dataclasses import dataclass

from tests.differential.strips_text import Action, State, domain_text, price, problem_text

CI_INSTANCES = 300



@dataclass(frozen=True)
class Task:
    facts: tuple[str, ...]
    actions: tuple[Action, ...]
    init: State
    goal: tuple[tuple[str, bool], ...]
    costs: str  # "none", "ignored", "counted"
    texts: tuple[str, str] | None = None  # the lifted PDDL, when not propositional

    def price(self, action: Action) -> int:
        return price(action, self.costs)

    def domain_text(self) -> str:
        if self.texts is not None:
            return self.texts[0]
        return domain_text("t", self.facts, self.actions, self.costs)

    def problem_text(self) -> str:
        if self.texts is not None:
            return self.texts[1]
        return problem_text("t", self.init, self.goal, self.costs)


# ------------------------------------------------------------------ the definitions


def project(task: Task, hidden: frozenset[str]) -> Task:
    """``f_P(M)``: every fact of a hidden predicate dropped from preconditions, effects,
    init and goal (a fact is ``"pred arg ..."``)."""
    drop = frozenset(f for f in task.facts if f.split()[0] in hidden)
    actions = tuple(Action(a.name, a.pre - drop, a.neg - drop, a.add - drop,
                           a.delete - drop, a.cost) for a in task.actions)
    return Task(tuple(f for f in task.facts if f not in drop), actions,
                task.init - drop, tuple(g for g in task.goal if g[0] not in drop),
                task.costs)


def applies(action: Action, state: State) -> bool:
    return action.pre <= state and not action.neg & state


def successor(action: Action, state: State) -> State:
    return (state - action.delete) | action.add


def goal_holds(task: Task, state: State) -> bool:
    return all((f in state) == pos for f, pos in task.goal)


def replay(task: Task, plan: tuple[str, ...]) -> tuple[str, int | None, frozenset[str], int]:
    """("valid", None, {}, cost) | ("precondition", step (1-based), unmet, 0) | ("goal",
    None, unmet goal literals, 0)."""
    by_name = {a.name: a for a in task.actions}
    state, cost = task.init, 0
    for i, name in enumerate(plan):
        a = by_name[name]
        if not applies(a, state):
            unmet = {f"({f})" for f in a.pre - state} | {f"(not ({f}))" for f in a.neg & state}
            return "precondition", i + 1, frozenset(unmet), 0
        state, cost = successor(a, state), cost + task.price(a)
    if not goal_holds(task, state):
        unmet = {f"({f})" if pos else f"(not ({f}))" for f, pos in task.goal
                 if (f in state) != pos}
        return "goal", None, frozenset(unmet), 0
    return "valid", None, frozenset(), cost


def optimal_cost(task: Task) -> int | None:
    best = {task.init: 0}
    queue = [(0, 0, task.init)]
    tie = itertools.count(1)
    while queue:
        cost, _, state = heapq.heappop(queue)
        if cost > best[state]:
            continue
        if goal_holds(task, state):
            return cost
        for a in task.actions:
            if applies(a, state):
                child, c = successor(a, state), cost + task.price(a)
                if c < best.get(child, c + 1):
                    best[child] = c
                    heapq.heappush(queue, (c, next(tie), child))
    return None


def refuted(task: Task, hidden: frozenset[str], foil: tuple[str, ...],
            plan_cost: int | None) -> bool:
    kind, _, _, cost = replay(project(task, hidden), foil)
    return kind != "valid" or (plan_cost is not None and cost >= plan_cost)


def fewest(task: Task, hide: tuple[str, ...], foils: list[tuple[str, ...]],
           plan_cost: int | None) -> tuple[tuple[str, ...], list[int]]:
    """The first smallest set to make concrete, and the unrefutable foils (indices)."""
    every = frozenset(hide)
    lost = [i for i, f in enumerate(foils) if not refuted(task, frozenset(), f, plan_cost)]
    keep = [f for i, f in enumerate(foils) if i not in lost]
    for k in range(len(hide) + 1):
        for combo in itertools.combinations(hide, k):
            still = every - frozenset(combo)
            if all(refuted(task, still, f, plan_cost) for f in keep):
                return combo, lost
    raise AssertionError("the full set refutes every refutable foil")


def distinguishable(task: Task, a: frozenset[str], b: frozenset[str]) -> bool:
    """Is some plan valid in exactly one of the two projections?"""
    ta, tb = project(task, a), project(task, b)
    start: tuple[State | None, State | None] = (ta.init, tb.init)
    seen = {start}
    queue = deque([start])
    while queue:
        sa, sb = queue.popleft()
        oka = sa is not None and goal_holds(ta, sa)
        okb = sb is not None and goal_holds(tb, sb)
        if oka != okb:
            return True
        for x, y in zip(ta.actions, tb.actions, strict=True):
            na = successor(x, sa) if sa is not None and applies(x, sa) else None
            nb = successor(y, sb) if sb is not None and applies(y, sb) else None
            if (na is not None or nb is not None) and (na, nb) not in seen:
                seen.add((na, nb))
                queue.append((na, nb))
    return False


# ------------------------------------------------------------------ instances


def instance(seed: int) -> tuple[Task, tuple[str, ...], list[tuple[str, ...]],
                                 tuple[str, ...] | None]:
    rng = random.Random(seed)
    task = lifted(rng) if seed % 4 == 3 else propositional(rng)
    preds = tuple(dict.fromkeys(f.split()[0] for f in task.facts))
    hide = tuple(rng.sample(preds, rng.randint(1 if seed % 5 == 0 else 2, min(4, len(preds)))))
    person = project(task, frozenset(hide))
    foils = [_foil(rng, task, person) for _ in range(rng.randint(1, 4))]
    robot = None
    if seed % 3 == 1:  # the robot's own plan, often not optimal: foils may beat it
        shortest = _shortest(task, task.init)
        if shortest is not None:
            robot = _foil(rng, task, task)
            robot = robot if replay(task, robot)[0] == "valid" else tuple(shortest)
    return task, hide, foils, robot


def propositional(rng: random.Random) -> Task:
    facts = tuple(f"f{i}" for i in range(rng.randint(3, 6)))
    actions = []
    for i in range(rng.randint(2, 6)):
        pre = frozenset(rng.sample(facts, rng.randint(0, 3)))
        rest = [f for f in facts if f not in pre]
        neg = frozenset(rng.sample(rest, 1)) if rest and rng.random() < 0.25 else frozenset()
        add = frozenset(rng.sample(facts, rng.randint(1, 2)))
        delete = frozenset(rng.sample(facts, rng.randint(0, 2))) - add
        actions.append(Action(f"a{i}", pre, neg, add, delete, rng.randint(0, 3)))
    init = frozenset(f for f in facts if rng.random() < 0.4)
    goal = tuple((f, rng.random() > 0.15) for f in rng.sample(facts, rng.randint(1, 3)))
    return Task(facts, tuple(actions), init, goal, rng.choice(("none", "ignored", "counted")))


OBJECTS = ("o1", "o2")


def lifted(rng: random.Random) -> Task:
    """3-5 predicates of arity 0 or 1 over the constants o1, o2; 2-5 actions with 0 or 1
    parameter; the oracle grounds them itself (a fact is ``"pred arg"``)."""
    arity = {f"p{i}": rng.randint(0, 1) for i in range(rng.randint(3, 5))}
    facts = tuple(p if n == 0 else f"{p} {o}" for p, n in arity.items()
                  for o in (OBJECTS if n else ("",)))
    costs = rng.choice(("none", "ignored", "counted"))
    schemas, actions = [], []
    for i in range(rng.randint(2, 5)):
        param = rng.random() < 0.7

        def literals(low: int, high: int, param: bool = param) -> list[tuple[str, str]]:
            chosen = rng.sample(sorted(arity), min(len(arity), rng.randint(low, high)))
            return [(p, "" if not arity[p] else
                     "?x" if param and rng.random() < 0.7 else rng.choice(OBJECTS))
                    for p in chosen]

        pre, add = literals(0, 2), literals(1, 2)
        neg = literals(1, 1) if rng.random() < 0.25 else []
        neg = [lit for lit in neg if lit not in pre]
        delete = [lit for lit in literals(0, 2) if lit not in add]
        cost = rng.randint(0, 3)
        text = lambda lits, sign="": " ".join(  # noqa: E731 - a local printer
            (f"(not ({p} {a}))" if sign else f"({p} {a})").replace(" )", ")") for p, a in lits)
        eff = f"{text(add)} {text(delete, 'not')}"
        if costs != "none":
            eff += f" (increase (total-cost) {cost})"
        schemas.append(f"(:action a{i} :parameters ({'?x' if param else ''}) :precondition "
                       f"(and {text(pre)} {text(neg, 'not')}) :effect (and {eff}))")
        for o in (OBJECTS if param else ("",)):
            def ground(lits: list[tuple[str, str]], o: str = o) -> frozenset[str]:
                return frozenset(f"{p} {o if a == '?x' else a}".strip() for p, a in lits)

            actions.append(Action(f"a{i} {o}".strip(), ground(pre), ground(neg), ground(add),
                                  ground(delete) - ground(add), cost))
    init = frozenset(f for f in facts if rng.random() < 0.4)
    goal = tuple((f, rng.random() > 0.15) for f in rng.sample(facts, rng.randint(1, 3)))
    reqs = ":strips :negative-preconditions" + (" :action-costs" if costs != "none" else "")
    domain = "\n".join([
        f"(define (domain t) (:requirements {reqs}) (:constants {' '.join(OBJECTS)})",
        "(:predicates " + " ".join(f"({p}{' ?x' if n else ''})" for p, n in arity.items()) + ")",
        *(["(:functions (total-cost) - number)"] if costs != "none" else []),
        *schemas]) + ")"
    goal_text = " ".join(f"({f})" if pos else f"(not ({f}))" for f, pos in goal)
    problem = (f"(define (problem p) (:domain t) (:init "
               f"{' '.join(f'({f})' for f in sorted(init))}"
               f"{' (= (total-cost) 0)' if costs != 'none' else ''}) (:goal (and {goal_text})) "
               f"{'(:metric minimize (total-cost))' if costs == 'counted' else ''})")
    return Task(facts, tuple(actions), init, goal, costs, (domain, problem))


def _foil(rng: random.Random, task: Task, person: Task) -> tuple[str, ...]:
    names = [a.name for a in task.actions]
    if rng.random() < 0.15 and task is not person:
        return tuple(rng.choice(names) for _ in range(rng.randint(0, 4)))
    state, walk = person.init, []
    for _ in range(rng.randint(0, 3)):
        options = [a for a in person.actions if applies(a, state)]
        if not options:
            break
        a = rng.choice(options)
        state, walk = successor(a, state), walk + [a.name]
    rest = _shortest(person, state)
    return tuple(walk + (rest if rest is not None else []))


def _shortest(task: Task, start: State) -> list[str] | None:
    parent: dict[State, tuple[State, str] | None] = {start: None}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        if goal_holds(task, state):
            path = []
            while (link := parent[state]) is not None:
                state, name = link
                path.append(name)
            return path[::-1]
        for a in task.actions:
            if applies(a, state):
                child = successor(a, state)
                if child not in parent:
                    parent[child] = (state, a.name)
                    queue.append(child)
    return None


# ------------------------------------------------------------------ the comparison


def check(seed: int) -> str | None:
    from xaip.abstraction import explain_by_abstraction
    from xaip.planning.pddl import parse_domain, parse_problem
    from xaip.planning.plans import parse_plan
    from xaip.runtime import Status

    task, hide, foils, robot = instance(seed)
    domain = parse_domain(task.domain_text(), f"<seed {seed}>")
    problem = parse_problem(task.problem_text(), f"<seed {seed}>")
    steps = {f"foil{i}": parse_plan("".join(f"({n})\n" for n in f))
             for i, f in enumerate(foils, 1)}
    given = None if robot is None else parse_plan("".join(f"({n})\n" for n in robot))
    result = explain_by_abstraction(domain, problem, hide, steps, plan=given)
    plan_cost = optimal_cost(task) if robot is None else replay(task, robot)[3]
    want, lost = fewest(task, hide, foils, plan_cost)
    if not result.verified:
        return f"seed {seed}: not verified ({result.check})"
    if result.plan_cost != plan_cost:
        return f"seed {seed}: robot's plan cost {result.plan_cost}, oracle {plan_cost}"
    if result.concretise != want:
        return f"seed {seed}: concretise {result.concretise}, oracle {want}"
    status = Status.NO_EXPLANATION if lost else Status.FOUND
    if result.status != status:
        return f"seed {seed}: status {result.status}, oracle {status}"
    still = frozenset(hide) - frozenset(want)
    for i, (foil, got) in enumerate(zip(foils, result.refutations, strict=True)):
        if i in lost:
            if got.kind != "unrefutable":
                return f"seed {seed}: foil {i + 1} is unrefutable, xaip says {got.kind}"
            continue
        kind, step, unmet, cost = replay(project(task, still), foil)
        expected = "cost" if kind == "valid" else kind
        if (got.kind, got.step) != (expected, step) or set(got.unmet) != set(unmet):
            return (f"seed {seed}: foil {i + 1} {got.kind} at {got.step} {got.unmet}, "
                    f"oracle {expected} at {step} {sorted(unmet)}")
        if kind == "valid" and got.foil_cost != cost:
            return f"seed {seed}: foil {i + 1} costs {got.foil_cost}, oracle {cost}"
    if seed % 5 == 2:
        problem_found = _suggested(seed, task, hide, domain, problem, given, plan_cost)
        if problem_found:
            return problem_found
    if seed % 2 == 0 or seed % 4 == 3:  # the even seeds and the lifted ones
        return _locate(seed, task, domain, problem)
    return None


def _suggested(seed: int, task: Task, hide: tuple[str, ...], domain: object,
               problem: object, given: object, plan_cost: int | None) -> str | None:
    """Without foils, xaip refutes an optimal plan of her model: it must be one (the oracle's
    Dijkstra in her projection), and the fewest set must be the oracle's for it."""
    from xaip.abstraction import explain_by_abstraction

    hers = project(task, frozenset(hide))
    best = optimal_cost(hers)
    if best is None:
        return None
    result = explain_by_abstraction(domain, problem, hide, plan=given)  # type: ignore[arg-type]
    foil = tuple(s[1:-1] for s in result.suggested_plan or ())
    kind, _, _, cost = replay(hers, foil)
    if kind != "valid" or cost != best:
        return f"seed {seed}: suggested foil {foil} is {kind} at cost {cost}, optimal {best}"
    want, _ = fewest(task, hide, [foil], plan_cost)
    if result.concretise != want or not result.verified:
        return (f"seed {seed}: suggested foil: concretise {result.concretise}, oracle {want} "
                f"(verified {result.verified})")
    return None


def _locate(seed: int, task: Task, domain: object, problem: object) -> str | None:
    from xaip.abstraction.localise import localise, simulated_person

    rng = random.Random(seed * 7919 + 1)
    preds = tuple(dict.fromkeys(f.split()[0] for f in task.facts))
    hideable = tuple(rng.sample(preds, rng.randint(2, min(3, len(preds)))))
    levels = [frozenset(c) for k in range(len(hideable) + 1)
              for c in itertools.combinations(hideable, k)]
    truth = rng.choice(levels)
    result = localise(domain, problem, simulated_person(domain, problem, truth),  # type: ignore[arg-type]
                      hideable=hideable, truth=truth)
    same = {lv for lv in levels if lv == truth or not distinguishable(task, truth, lv)}
    if not result.verified:
        return f"seed {seed}: localisation not verified ({result.check})"
    if set(result.candidates) != same or not result.exact:
        return (f"seed {seed}: person at {sorted(truth)} located at "
                f"{[sorted(c) for c in result.candidates]}, oracle {[sorted(c) for c in same]}")
    return None
