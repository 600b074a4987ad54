"""Differential test of the planning core: optimal plans, validation and landmarks against
brute force on random small STRIPS tasks.

Each seed generates a task as plain Python data (a few objects, predicates of arity 0-2,
action schemas with random positive and negative preconditions, adds, deletes and costs),
writes it as PDDL text, and compares what xaip answers from the text with an oracle that
reads the *same data* under the definitions (PDDL's state-transition semantics and
``docs/semantics.md``), sharing no code with xaip's reader, grounding, search or
validator:

* **Costs.** The oracle prices an action by the declared ``(increase (total-cost) ...)``
  (0 without one) only when the domain declares ``:action-costs`` *and* the problem says
  ``(:metric minimize (total-cost))``; otherwise every action costs 1. Instances cover all
  four combinations of declared costs and metric, constant and per-object costs.
* **Optimal plans.** Dijkstra over the explicit state space (states are sets of ground
  atoms; an action applies when its positive preconditions hold and its negative ones do
  not; the successor is ``(s - del) | add``). xaip's ``plan(optimal=True)`` with the
  ``builtin`` and the ``compiled`` engines must agree on solvable/unsolvable and on the
  optimal cost, its plan must reach the goal under the oracle's simulation at that cost,
  and ``cost_bound`` must be strict (no plan cheaper than the optimum, one cheaper than
  optimum + 1). Goals true initially: the empty plan, cost 0, optimal.
* **Validation.** ``validate`` on the found plan, its prefixes, the empty plan and random
  action sequences against the oracle's own simulation: validity, the 0-based failing
  index, the 1-based number people read (``failed_step`` in JSON), goal failures and cost.
* **Landmarks.** Every fact landmark (disjunctive ones too) of ``find_landmarks`` must hold
  on every plan: the goal must be unreachable in the state space without states where it
  holds. Greedy-necessary and natural orderings must hold on every plan (searched for a
  counterexample plan). Reasonable orderings are heuristic by definition and not checked;
  completeness is not claimed by xaip and not checked. A task xaip calls relaxed-unsolvable
  must be unsolvable.

Tasks have at most :data:`MAX_ATOMS` ground atoms, so the state space is enumerable; there
is no instance the oracle skips.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xaip.planning.landmarks.graph import Landmark, LandmarkGraph
    from xaip.planning.pddl.model import Domain, Problem

CI_INSTANCES = 200
#: At most this many ground atoms per task (2**14 states at most).
MAX_ATOMS = 14

GroundAtom = tuple[str, tuple[str, ...]]
State = frozenset[GroundAtom]


# --------------------------------------------------------------------------- instances


@dataclass(frozen=True)
class Literal:
    positive: bool
    predicate: str
    args: tuple[str, ...]  # variables (schemas) or objects (goals)


@dataclass(frozen=True)
class Schema:
    name: str
    params: tuple[str, ...]
    pre: tuple[Literal, ...]
    add: tuple[Literal, ...]
    delete: tuple[Literal, ...]
    cost: int | str | None  # constant, a parameter priced by (weight ?p), or no increase


@dataclass(frozen=True)
class Instance:
    objects: tuple[str, ...]
    predicates: dict[str, int]
    schemas: tuple[Schema, ...]
    init: frozenset[GroundAtom]
    goal: tuple[Literal, ...]
    declares_costs: bool
    metric: bool
    weights: dict[str, int]

    @property
    def counts_costs(self) -> bool:
        """The definition: declared costs count only under the total-cost metric."""
        return self.declares_costs and self.metric

    @property
    def negative(self) -> bool:
        return any(not lit.positive for s in self.schemas for lit in s.pre) or any(
            not lit.positive for lit in self.goal)


def generate(seed: int) -> Instance:
    rng = random.Random(seed)
    while True:
        objects = tuple(f"o{i}" for i in range(rng.choice((1, 2, 2, 3, 3))))
        predicates = {f"p{i}": rng.choice((0, 1, 1, 1, 2)) for i in range(rng.randint(2, 4))}
        if sum(len(objects) ** a for a in predicates.values()) <= MAX_ATOMS:
            break
    declares = rng.random() < 0.6
    metric = rng.random() < 0.6
    schemas = tuple(_schema(rng, f"a{i}", predicates, declares)
                    for i in range(rng.randint(2, 6)))
    atoms = _all_atoms(objects, predicates)
    init = frozenset(a for a in atoms if rng.random() < 0.35)
    # Goals mostly over predicates some action adds (else most tasks are unsolvable).
    added = {lit.predicate for s in schemas for lit in s.add}
    wanted = [a for a in atoms if a[0] in added] if rng.random() < 0.8 else atoms
    pool = wanted or atoms
    if rng.random() < 0.15:  # the goal holds initially
        goal_atoms = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
        goal = tuple(Literal(a in init, a[0], a[1]) for a in goal_atoms)
    else:
        for _ in range(10):  # else rarely: a random goal often holds initially
            goal_atoms = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
            goal = tuple(Literal(rng.random() < 0.85, a[0], a[1]) for a in goal_atoms)
            if any((a in init) != lit.positive for a, lit in zip(goal_atoms, goal, strict=True)):
                break
    weights = {o: rng.randint(0, 4) for o in objects}
    return Instance(objects, predicates, schemas, init, goal, declares, metric, weights)


def _schema(rng: random.Random, name: str, predicates: dict[str, int],
            declares: bool) -> Schema:
    params = tuple(f"?v{i}" for i in range(rng.choice((0, 1, 1, 2, 2))))

    def literal(positive: bool) -> Literal | None:
        usable = [p for p, a in predicates.items() if a == 0 or params]
        if not usable:
            return None
        predicate = rng.choice(usable)
        args = tuple(rng.choice(params) for _ in range(predicates[predicate]))
        return Literal(positive, predicate, args)

    pre: dict[tuple[str, tuple[str, ...]], Literal] = {}
    for _ in range(rng.randint(0, 3)):  # one sign per atom: no contradictory preconditions
        lit = literal(rng.random() < 0.75)
        if lit is not None:
            pre.setdefault((lit.predicate, lit.args), lit)
    add = [lit for _ in range(rng.randint(1, 2)) if (lit := literal(True)) is not None]
    delete = [lit for _ in range(rng.randint(0, 2)) if (lit := literal(False)) is not None]
    if rng.random() < 0.6:  # actions usually consume a precondition
        delete += [Literal(False, lit.predicate, lit.args) for lit in pre.values()
                   if lit.positive][:1]
    cost: int | str | None = None
    if declares:
        roll = rng.random()
        if roll < 0.5:
            cost = rng.randint(0, 5)
        elif roll < 0.75 and params:
            cost = rng.choice(params)
    return Schema(name, params, tuple(pre.values()), _unique(add), _unique(delete), cost)


def _unique(items: Iterable[Literal]) -> tuple[Literal, ...]:
    return tuple(dict.fromkeys(items))


def _all_atoms(objects: Sequence[str], predicates: dict[str, int]) -> list[GroundAtom]:
    return [(p, args) for p, arity in predicates.items()
            for args in itertools.product(objects, repeat=arity)]


# --------------------------------------------------------------------------- PDDL text


def _lit(lit: Literal) -> str:
    atom = "(" + " ".join((lit.predicate, *lit.args)) + ")"
    return atom if lit.positive else f"(not {atom})"


def domain_text(inst: Instance) -> str:
    requirements = [":strips"]
    if inst.negative:
        requirements.append(":negative-preconditions")
    if inst.declares_costs:
        requirements.append(":action-costs")
    preds = " ".join("(" + " ".join((p, *(f"?x{i}" for i in range(a)))) + ")"
                     for p, a in inst.predicates.items())
    lines = [f"(define (domain rnd) (:requirements {' '.join(requirements)})",
             f" (:predicates {preds})"]
    if inst.declares_costs:
        lines.append(" (:functions (total-cost) (weight ?x))")
    for s in inst.schemas:
        effects = [_lit(lit) for lit in (*s.add, *s.delete)]
        if isinstance(s.cost, int):
            effects.append(f"(increase (total-cost) {s.cost})")
        elif isinstance(s.cost, str):
            effects.append(f"(increase (total-cost) (weight {s.cost}))")
        pre = " ".join(_lit(lit) for lit in s.pre)
        lines.append(f" (:action {s.name} :parameters ({' '.join(s.params)})"
                     f" :precondition (and {pre}) :effect (and {' '.join(effects)}))")
    return "\n".join(lines) + ")\n"


def problem_text(inst: Instance) -> str:
    init = [_lit(Literal(True, p, args)) for p, args in sorted(inst.init)]
    if inst.declares_costs:
        init.append("(= (total-cost) 0)")
        init += [f"(= (weight {o}) {w})" for o, w in inst.weights.items()]
    goal = " ".join(_lit(lit) for lit in inst.goal)
    metric = " (:metric minimize (total-cost))" if inst.metric else ""
    return (f"(define (problem rnd-p) (:domain rnd) (:objects {' '.join(inst.objects)})\n"
            f" (:init {' '.join(init)})\n (:goal (and {goal})){metric})\n")


# --------------------------------------------------------------------------- the oracle


@dataclass(frozen=True)
class Ground:
    name: tuple[str, tuple[str, ...]]
    pre_pos: frozenset[GroundAtom]
    pre_neg: frozenset[GroundAtom]
    add: frozenset[GroundAtom]
    delete: frozenset[GroundAtom]
    cost: int

    def applicable(self, state: State) -> bool:
        return self.pre_pos <= state and not self.pre_neg & state

    def apply(self, state: State) -> State:
        return (state - self.delete) | self.add


class Oracle:
    """The explicit state space of an instance, read from the definitions."""

    def __init__(self, inst: Instance) -> None:
        self.inst = inst
        self.actions = [g for s in inst.schemas for g in self._ground(s)]
        self.by_name = {g.name: g for g in self.actions}
        self.goal_pos = frozenset((lit.predicate, lit.args) for lit in inst.goal if lit.positive)
        self.goal_neg = frozenset((lit.predicate, lit.args) for lit in inst.goal
                                  if not lit.positive)
        self.states, self.edges = self._explore()
        self.alive = self._backward({s for s in self.states if self.is_goal(s)})

    def _ground(self, s: Schema) -> Iterable[Ground]:
        for values in itertools.product(self.inst.objects, repeat=len(s.params)):
            bind = dict(zip(s.params, values, strict=True))

            def atoms(lits: Iterable[Literal], positive: bool,
                      bind: dict[str, str] = bind) -> frozenset[GroundAtom]:
                return frozenset((lit.predicate, tuple(bind[a] for a in lit.args))
                                 for lit in lits if lit.positive == positive)

            if not self.inst.counts_costs:
                cost = 1
            elif isinstance(s.cost, int):
                cost = s.cost
            elif isinstance(s.cost, str):
                cost = self.inst.weights[bind[s.cost]]
            else:
                cost = 0
            yield Ground((s.name, values), atoms(s.pre, True), atoms(s.pre, False),
                         atoms(s.add, True), atoms(s.delete, False), cost)

    def is_goal(self, state: State) -> bool:
        return self.goal_pos <= state and not self.goal_neg & state

    def _explore(self) -> tuple[set[State], dict[State, list[tuple[Ground, State]]]]:
        init = self.inst.init
        seen, edges, queue = {init}, {}, deque([init])
        while queue:
            state = queue.popleft()
            out = [(g, g.apply(state)) for g in self.actions if g.applicable(state)]
            edges[state] = out
            for _, nxt in out:
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        return seen, edges

    def _backward(self, targets: set[State]) -> set[State]:
        preds: dict[State, set[State]] = {}
        for s, out in self.edges.items():
            for _, t in out:
                preds.setdefault(t, set()).add(s)
        alive, stack = set(targets), list(targets)
        while stack:
            for p in preds.get(stack.pop(), ()):
                if p not in alive:
                    alive.add(p)
                    stack.append(p)
        return alive

    def optimum(self) -> int | None:
        """Dijkstra from the initial state; ``None`` when no goal state is reachable."""
        best = {self.inst.init: 0}
        heap = [(0, 0, self.inst.init)]
        tie = itertools.count(1)
        while heap:
            cost, _, state = heapq.heappop(heap)
            if cost > best[state]:
                continue
            if self.is_goal(state):
                return cost
            for g, nxt in self.edges[state]:
                if cost + g.cost < best.get(nxt, cost + g.cost + 1):
                    best[nxt] = cost + g.cost
                    heapq.heappush(heap, (cost + g.cost, next(tie), nxt))
        return None

    def run(self, names: Sequence[tuple[str, tuple[str, ...]]]) -> tuple[bool, int | None, int]:
        """(valid, 0-based index of the first inapplicable step or ``len`` at an unmet goal
        or ``None``, cost of the steps applied)."""
        state, cost = self.inst.init, 0
        for i, name in enumerate(names):
            action = self.by_name[name]
            if not action.applicable(state):
                return False, i, cost
            state, cost = action.apply(state), cost + action.cost
        return (True, None, cost) if self.is_goal(state) else (False, len(names), cost)

    # ---------------------------------------------------------------- landmarks

    def reaches_goal_avoiding(self, facts: frozenset[GroundAtom]) -> bool:
        """Some plan never passes a state where one of ``facts`` holds."""
        init = self.inst.init
        if init & facts:
            return False
        seen, stack = {init}, [init]
        while stack:
            state = stack.pop()
            if self.is_goal(state):
                return True
            for _, nxt in self.edges[state]:
                if nxt not in seen and not nxt & facts:
                    seen.add(nxt)
                    stack.append(nxt)
        return False

    def ordering_violated(self, before: frozenset[GroundAtom], after: frozenset[GroundAtom],
                          kind: str) -> bool:
        """Some plan breaks ``before -> after``: when ``after`` first holds, ``before`` did
        not hold strictly earlier (natural) or in the state right before (greedy-necessary)."""
        init = self.inst.init
        if init & after:
            return True  # t(after) = 0: nothing holds strictly earlier
        start = (init, bool(init & before))
        seen, stack = {start}, [start]
        while stack:
            state, held = stack.pop()
            for _, nxt in self.edges[state]:
                if nxt & after:
                    broken = not held if kind == "natural" else not state & before
                    if broken and nxt in self.alive:
                        return True
                    continue
                item = (nxt, held or bool(nxt & before))
                if item not in seen:
                    seen.add(item)
                    stack.append(item)
        return False


# --------------------------------------------------------------------------- the check


def check(seed: int) -> str | None:
    from xaip.planning import find_landmarks, ground, plan
    from xaip.planning.pddl import check_problem, parse_domain, parse_problem

    inst = generate(seed)
    domain, problem = parse_domain(domain_text(inst)), parse_problem(problem_text(inst))
    check_problem(domain, problem)
    oracle = Oracle(inst)
    best = oracle.optimum()
    found: tuple[tuple[str, tuple[str, ...]], ...] = ()
    for engine in ("builtin", "compiled"):
        result = plan((domain, problem), optimal=True, engine=engine)
        if result.costs_ignored != (inst.declares_costs and not inst.metric):
            return f"{engine}: costs_ignored={result.costs_ignored} (declared "\
                   f"{inst.declares_costs}, metric {inst.metric})"
        if best is None:
            if str(result.status) != "unsolvable":
                return f"{engine}: {result.status} (cost {result.cost}) on an unsolvable task"
            continue
        if str(result.status) != "solved" or not result.optimal:
            return f"{engine}: {result.status}, optimal={result.optimal}; optimum is {best}"
        names = tuple((a.schema, tuple(a.args)) for a in result.plan)
        valid, _, cost = oracle.run(names)
        if not valid or cost != best or result.cost != best:
            return (f"{engine}: plan {names} (valid={valid}, oracle cost {cost}, xaip cost "
                    f"{result.cost}); optimum {best}")
        if best == 0 and oracle.is_goal(inst.init) and names:
            return f"{engine}: the goal holds initially but the plan is {names}"
        if result.to_dict()["goal_holds_initially"] != (not names):
            return f"{engine}: goal_holds_initially is wrong in the JSON"
        for bound, wanted in ((best, "unsolvable"), (best + 1, "solved")):
            bounded = plan((domain, problem), optimal=True, engine=engine, cost_bound=bound)
            if str(bounded.status) != wanted or (wanted == "solved" and bounded.cost != best):
                return (f"{engine}: cost bound {bound} gave {bounded.status} "
                        f"(cost {bounded.cost}); optimum {best}")
        found = names
    disagreement = _check_validation(inst, oracle, found, domain, problem)
    if disagreement:
        return disagreement
    return _check_landmarks(oracle, best, find_landmarks(ground(domain, problem)))


def _check_validation(inst: Instance, oracle: Oracle,
                      found: tuple[tuple[str, tuple[str, ...]], ...],
                      domain: Domain, problem: Problem) -> str | None:
    from xaip.planning import validate
    from xaip.planning.plans import PlanStep

    rng = random.Random(len(found) * 7919 + len(oracle.actions))
    names = [g.name for g in oracle.actions]
    plans = [found, (), *(found[:k] for k in range(len(found)))]
    plans += [tuple(rng.choice(names) for _ in range(rng.randint(1, 4))) for _ in range(6)]
    for steps in plans:
        valid, index, cost = oracle.run(steps)
        result = validate(domain, problem, [PlanStep(n, a) for n, a in steps])
        payload = result.to_dict()
        if payload["costs_ignored"] != (inst.declares_costs and not inst.metric):
            return f"validate: costs_ignored={payload['costs_ignored']}"
        if result.valid != valid:
            return f"validate {steps}: valid={result.valid}, oracle says {valid}"
        if valid:
            if result.cost != cost:
                return f"validate {steps}: cost {result.cost}, oracle {cost}"
            if payload["goal_holds_initially"] != (not steps):
                return f"validate {steps}: goal_holds_initially wrong"
            continue
        if result.failed_step != index:
            return f"validate {steps}: failed at index {result.failed_step}, oracle {index}"
        number = None if index == len(steps) else index + 1  # type: ignore[operator]
        if payload["failed_step"] != number or payload["steps_numbered_from"] != 1:
            return f"validate {steps}: JSON failed_step {payload['failed_step']}, want {number}"
        if number is not None and f"step {number} " not in result.reason:
            return f"validate {steps}: reason {result.reason!r} lacks 'step {number}'"
    return None


def _check_landmarks(oracle: Oracle, best: int | None, graph: LandmarkGraph) -> str | None:
    if not graph.solvable:
        return None if best is None else "landmarks: relaxed-unsolvable, but a plan exists"
    if best is None:
        return None  # every fact is vacuously a landmark of a task without plans
    task = graph.task

    assert task is not None

    def atoms(landmark: Landmark) -> frozenset[GroundAtom]:
        return frozenset((task.facts[f].predicate, tuple(task.facts[f].args))
                         for f in landmark.facts)

    sets = [atoms(lm) for lm in graph.landmarks]
    for landmark, facts in zip(graph.landmarks, sets, strict=True):
        if oracle.reaches_goal_avoiding(facts):
            return f"landmarks: {landmark.names(task)} is avoided by some plan"
    for ordering in graph.orderings:
        if ordering.kind == "reasonable":
            continue
        before, after = sets[ordering.before], sets[ordering.after]
        if oracle.ordering_violated(before, after, ordering.kind):
            return (f"landmarks: {ordering.kind} ordering {sorted(before)} -> "
                    f"{sorted(after)} is broken by some plan")
    return None
