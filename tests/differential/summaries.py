"""Differential test of policy summaries (TLdR): policy landmarks and orderings against
brute force on the policy graph, for random small PPDDL tasks and policies.

Each seed generates a probabilistic task as plain Python data (a few objects, predicates
of arity 0-1, actions with positive and negative preconditions and ``probabilistic``
effects of one to three outcomes, some with ``when`` conditions; goals sometimes true
initially), writes it as PPDDL text and has xaip read, ground and summarise it twice: under
a random policy (TLdR does not assume optimal policies; some states get no action) and
under the optimal policy xaip's solver finds. The oracle reads the same data under the
definitions of the TLdR paper (Sreedharan, Srivastava, Kambhampati, AAAI 2020), sharing no
code with xaip's reader, grounding, compilations, landmark extraction or checker:

* **Policy graph.** From the initial state, the policy's action in each non-goal state and
  every outcome of positive probability (effects and fired ``when`` conditions evaluated in
  the state before the step; the successor is ``(s - del) | add``); goal states are
  absorbing, states without an action end the execution.
* **Policy landmark** (Definition 2, fact landmarks): a fact holds in some state of every
  execution from the initial state to a goal state, i.e. no goal state is reachable in the
  policy graph through states without it.
* **Orderings** (``FactOrdering``): ``a -> b`` natural when on every goal-reaching
  execution ``a`` holds strictly before the step at which ``b`` first holds; greedy-
  necessary when ``a`` holds in the state right before it. A counterexample is a path on
  which ``b`` first holds in a state that can still reach the goal, and ``a`` did not hold
  before (in the state before).
* **Model landmarks** (Definition 1) are landmarks of every policy: the same test on the
  graph of all actions and all outcomes.
* **Goal probability**: the least fixed point of ``P(s) = sum p * P(s')`` (1 at goal
  states), iterated to convergence.

* **Disjunctive policy landmarks** (issue 25): a set of two (or three) facts such that no
  goal state is reachable in the policy graph through states where none of them holds,
  while every proper subset is avoided by some goal-reaching execution; enumerated over
  all subsets of the task's atoms (odd seeds search sets of up to three facts). Every
  third seed is a random road network (:func:`generate_roads`), where they abound.

xaip must agree: the concise set D(M) sound (landmarks and orderings), the complete set
D(M)^c exact (its non-initial landmarks and the strongest ordering between every pair of
non-initial policy landmarks), the model set sound on the full graph, the disjunctive
landmarks equal to the brute force's, the goal probability within 1e-6, ``verified``
true, and no two landmark facts read alike in the English summary. A given policy that
never reaches the goal must be refused (``NoProperPolicy``), one that does not act in the
initial state too (``PolicyFormatError``); a task no policy solves must be answered ``unsolvable``,
verified. Every instance is enumerable (at most :data:`MAX_ATOMS` atoms); the oracle skips
none.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xaip.planning.mdp import ProbabilisticTask
    from xaip.summaries import LandmarkSet, PolicySummary

CI_INSTANCES = 200
MAX_ATOMS = 10

GroundAtom = tuple[str, tuple[str, ...]]
State = frozenset[GroundAtom]


# --------------------------------------------------------------------------- instances


@dataclass(frozen=True)
class Literal:
    positive: bool
    predicate: str
    args: tuple[str, ...]


@dataclass(frozen=True)
class Effect:
    """One outcome: literals, plus ``when`` rules (condition literals -> effect literals)."""

    literals: tuple[Literal, ...]
    whens: tuple[tuple[tuple[Literal, ...], tuple[Literal, ...]], ...]


@dataclass(frozen=True)
class Action:
    name: str
    params: tuple[str, ...]
    pre: tuple[Literal, ...]
    outcomes: tuple[tuple[int, Effect], ...]  # (probability in eighths, effect)


@dataclass(frozen=True)
class Instance:
    objects: tuple[str, ...]
    predicates: dict[str, int]
    actions: tuple[Action, ...]
    init: State
    goal: tuple[Literal, ...]


def generate(seed: int) -> Instance:
    """Every third seed a road network (:func:`generate_roads`), else a random task."""
    if seed % 3 == 0:
        return generate_roads(seed)
    rng = random.Random(seed)
    while True:
        objects = tuple(f"o{i}" for i in range(rng.randint(1, 3)))
        predicates = {f"p{i}": rng.choice((0, 1, 1)) for i in range(rng.randint(3, 5))}
        if sum(len(objects) ** a for a in predicates.values()) <= MAX_ATOMS:
            break
    actions = tuple(_action(rng, f"a{i}", predicates) for i in range(rng.randint(3, 6)))
    atoms = _all_atoms(objects, predicates)
    init = frozenset(a for a in atoms if rng.random() < 0.25)
    added = {lit.predicate for a in actions for _, e in a.outcomes for lit in e.literals
             if lit.positive}
    pool = [a for a in atoms if a[0] in added] or atoms
    goal_atoms = rng.sample(pool, min(len(pool), rng.randint(1, 2)))
    if rng.random() < 0.1:  # the goal holds initially
        goal = tuple(Literal(a in init, *a) for a in goal_atoms)
    else:  # literals false initially: atoms to make true, or true ones to make false
        goal = tuple(Literal(a not in init, *a) for a in goal_atoms)
    return Instance(objects, predicates, actions, init, goal)


def generate_roads(seed: int) -> Instance:
    """A random road network: locations ``l0`` (start) .. ``l<n-1>`` (goal) as atoms of arity
    0, moves with one to three outcomes (roads that fork at random), and two flags some
    moves set (tolls paid). Such tasks have alternative routes, hence the disjunctive
    landmarks ("either through l2 or through l3") the plain generator rarely makes."""
    rng = random.Random(seed)
    n = rng.randint(4, 7)
    places = [f"l{i}" for i in range(n)]
    predicates = {**{p: 0 for p in places}, "toll0": 0, "toll1": 0}
    actions = []
    for i in range(rng.randint(n, 2 * n + 2)):
        here = rng.choice(places[:-1])
        targets = rng.sample([p for p in places if p != here], rng.choice((1, 2, 2, 3)))
        cuts = sorted(rng.sample(range(1, 8), len(targets) - 1))
        shares = [b - a for a, b in zip([0, *cuts], [*cuts, 8], strict=True)]
        outcomes = []
        for share, there in zip(shares, targets, strict=True):
            literals = [Literal(False, here, ()), Literal(True, there, ())]
            if rng.random() < 0.2:
                literals.append(Literal(True, rng.choice(("toll0", "toll1")), ()))
            outcomes.append((share, Effect(tuple(literals), ())))
        actions.append(Action(f"go{i}", (), (Literal(True, here, ()),), tuple(outcomes)))
    init = frozenset({(places[0], ())})
    return Instance(("o0",), predicates, tuple(actions), init,
                    (Literal(True, places[-1], ()),))


def _action(rng: random.Random, name: str, predicates: dict[str, int]) -> Action:
    params = tuple(f"?v{i}" for i in range(rng.choice((0, 1, 1))))
    if all(predicates.values()):  # no atom without arguments: the action needs one
        params = ("?v0",)

    def literal(positive: bool) -> Literal:
        usable = [p for p, a in predicates.items() if a == 0 or params]
        predicate = rng.choice(usable)
        return Literal(positive, predicate, tuple(params[:predicates[predicate]]))

    pre = tuple({(lit.predicate, lit.args): lit for lit in
                 (literal(rng.random() < 0.8) for _ in range(rng.randint(0, 2)))}.values())
    count = rng.choice((1, 2, 2, 3))
    cuts = sorted(rng.sample(range(1, 8), count - 1)) if count > 1 else []
    shares = [b - a for a, b in zip([0, *cuts], [*cuts, 8], strict=True)]
    if count > 1 and rng.random() < 0.3:
        shares[-1] -= 1  # leave an implicit "no change" outcome of probability 1/8
    outcomes = []
    for share in shares:
        if share <= 0:
            continue
        literals = [literal(True) for _ in range(rng.randint(1, 2))]
        literals += [literal(False) for _ in range(rng.randint(0, 1))]
        positive = [lit for lit in pre if lit.positive]
        if positive and rng.random() < 0.5:
            literals.append(Literal(False, positive[0].predicate, positive[0].args))
        whens = []
        if rng.random() < 0.2:
            whens.append(((literal(rng.random() < 0.8),), (literal(rng.random() < 0.7),)))
        outcomes.append((share, Effect(tuple(dict.fromkeys(literals)), tuple(whens))))
    return Action(name, params, pre, tuple(outcomes))


def _all_atoms(objects: Sequence[str], predicates: dict[str, int]) -> list[GroundAtom]:
    return [(p, args) for p, arity in predicates.items()
            for args in itertools.product(objects, repeat=arity)]


# --------------------------------------------------------------------------- PPDDL text


def _lit(lit: Literal) -> str:
    atom = "(" + " ".join((lit.predicate, *lit.args)) + ")"
    return atom if lit.positive else f"(not {atom})"


def _conj(literals: Iterable[Literal]) -> str:
    return "(and " + " ".join(_lit(lit) for lit in literals) + ")"


def _effect_text(effect: Effect) -> str:
    parts = [_lit(lit) for lit in effect.literals]
    parts += [f"(when {_conj(cond)} {_conj(then)})" for cond, then in effect.whens]
    return "(and " + " ".join(parts) + ")"


def domain_text(inst: Instance) -> str:
    preds = " ".join("(" + " ".join((p, *(f"?x{i}" for i in range(a)))) + ")"
                     for p, a in inst.predicates.items())
    lines = ["(define (domain rnd) (:requirements :strips :negative-preconditions "
             ":probabilistic-effects :conditional-effects)", f" (:predicates {preds})"]
    for a in inst.actions:
        if len(a.outcomes) == 1 and a.outcomes[0][0] == 8:
            effect = _effect_text(a.outcomes[0][1])
        else:
            effect = "(probabilistic " + " ".join(
                f"{share / 8} {_effect_text(e)}" for share, e in a.outcomes) + ")"
        lines.append(f" (:action {a.name} :parameters ({' '.join(a.params)})"
                     f" :precondition {_conj(a.pre)} :effect {effect})")
    return "\n".join(lines) + ")\n"


def problem_text(inst: Instance) -> str:
    init = " ".join(_lit(Literal(True, p, args)) for p, args in sorted(inst.init))
    return (f"(define (problem rnd-p) (:domain rnd) (:objects {' '.join(inst.objects)})\n"
            f" (:init {init})\n (:goal {_conj(inst.goal)}))\n")


# --------------------------------------------------------------------------- the oracle


@dataclass(frozen=True)
class Ground:
    name: str
    pre_pos: frozenset[GroundAtom]
    pre_neg: frozenset[GroundAtom]
    outcomes: tuple[tuple[float, Effect, dict[str, str]], ...]

    def applicable(self, state: State) -> bool:
        return self.pre_pos <= state and not self.pre_neg & state

    def successors(self, state: State) -> dict[State, float]:
        out: dict[State, float] = {}
        for probability, effect, bind in self.outcomes:
            adds: set[GroundAtom] = set()
            dels: set[GroundAtom] = set()
            rules = [((), effect.literals), *effect.whens]
            for cond, then in rules:
                if all((_ground(c, bind) in state) == c.positive for c in cond):
                    for lit in then:
                        (adds if lit.positive else dels).add(_ground(lit, bind))
            nxt = (state - dels) | adds
            out[nxt] = out.get(nxt, 0.0) + probability
        return out


def _ground(lit: Literal, bind: dict[str, str]) -> GroundAtom:
    return (lit.predicate, tuple(bind.get(a, a) for a in lit.args))


class Oracle:
    """Ground actions, the policy graph of a policy and the full graph, from the data."""

    def __init__(self, inst: Instance) -> None:
        self.inst = inst
        self.actions: dict[str, Ground] = {}
        for a in inst.actions:
            for values in itertools.product(inst.objects, repeat=len(a.params)):
                bind = dict(zip(a.params, values, strict=True))
                name = " ".join((a.name, *values))
                pre = [(_ground(lit, bind), lit.positive) for lit in a.pre]
                outcomes = [(share / 8, e, bind) for share, e in a.outcomes]
                rest = 8 - sum(share for share, _ in a.outcomes)
                if rest:
                    outcomes.append((rest / 8, Effect((), ()), bind))
                self.actions[name] = Ground(name, frozenset(g for g, p in pre if p),
                                            frozenset(g for g, p in pre if not p),
                                            tuple(outcomes))
        self.goal_pos = frozenset(_ground(lit, {}) for lit in inst.goal if lit.positive)
        self.goal_neg = frozenset(_ground(lit, {}) for lit in inst.goal if not lit.positive)

    def is_goal(self, state: State) -> bool:
        return self.goal_pos <= state and not self.goal_neg & state

    def graph(self, choose: object) -> dict[State, dict[State, float]]:
        """Edges of the policy graph of ``choose`` (state -> action name or ``None``), or of
        every action when ``choose`` is ``None``; goal states absorbing."""
        init = self.inst.init
        edges: dict[State, dict[State, float]] = {}
        queue = deque([init])
        seen = {init}
        while queue:
            state = queue.popleft()
            edges[state] = {}
            if self.is_goal(state):
                continue
            if choose is None:
                names = [n for n, g in self.actions.items() if g.applicable(state)]
            else:
                name = choose(state)  # type: ignore[operator]
                names = [] if name is None else [name]
            for name in names:
                for nxt, p in self.actions[name].successors(state).items():
                    if p > 0:
                        edges[state][nxt] = edges[state].get(nxt, 0.0) + p
                        if nxt not in seen:
                            seen.add(nxt)
                            queue.append(nxt)
        return edges


class Paths:
    """Questions about the executions of one graph (goal states absorbing)."""

    def __init__(self, oracle: Oracle, edges: dict[State, dict[State, float]]) -> None:
        self.oracle = oracle
        self.edges = edges
        self.init = oracle.inst.init
        preds: dict[State, set[State]] = {}
        for s, out in edges.items():
            for t in out:
                preds.setdefault(t, set()).add(s)
        goals = [s for s in edges if oracle.is_goal(s)]
        self.alive = set(goals)
        stack = list(goals)
        while stack:
            for p in preds.get(stack.pop(), ()):
                if p not in self.alive:
                    self.alive.add(p)
                    stack.append(p)

    def landmark(self, atom: GroundAtom) -> bool:
        return self.every_run_meets({atom})

    def every_run_meets(self, atoms: set[GroundAtom]) -> bool:
        """No goal state is reachable through states where none of ``atoms`` holds."""
        if atoms & self.init:
            return True
        seen, stack = {self.init}, [self.init]
        while stack:
            state = stack.pop()
            if self.oracle.is_goal(state):
                return False
            for nxt in self.edges[state]:
                if nxt not in seen and not atoms & nxt:
                    seen.add(nxt)
                    stack.append(nxt)
        return True

    def disjunctive(self, atoms: Sequence[GroundAtom], size: int) -> set[frozenset[GroundAtom]]:
        """Every minimal set of 2..``size`` atoms that every goal-reaching run meets."""
        found = set()
        for k in range(2, size + 1):
            for combo in itertools.combinations(atoms, k):
                chosen = set(combo)
                if self.every_run_meets(chosen) and not any(
                        self.every_run_meets(set(sub)) for j in range(1, k)
                        for sub in itertools.combinations(combo, j)):
                    found.add(frozenset(chosen))
        return found

    def violated(self, a: GroundAtom, b: GroundAtom, kind: str) -> bool:
        if b in self.init:
            return True
        start = (self.init, a in self.init)
        seen, stack = {start}, [start]
        while stack:
            state, held = stack.pop()
            if self.oracle.is_goal(state):
                continue
            for nxt in self.edges[state]:
                if b in nxt:
                    broken = not held if kind == "natural" else a not in state
                    if broken and nxt in self.alive:
                        return True
                    continue
                item = (nxt, held or a in nxt)
                if item not in seen:
                    seen.add(item)
                    stack.append(item)
        return False

    def strongest(self, a: GroundAtom, b: GroundAtom) -> str | None:
        if not self.violated(a, b, "greedy-necessary"):
            return "greedy-necessary"
        if not self.violated(a, b, "natural"):
            return "natural"
        return None

    def goal_probability(self) -> float:
        value = {s: 1.0 if self.oracle.is_goal(s) else 0.0 for s in self.edges}
        for _ in range(100_000):
            change = 0.0
            for s, out in self.edges.items():
                if out:
                    new = sum(p * value[t] for t, p in out.items())
                    change = max(change, abs(new - value[s]))
                    value[s] = new
            if change < 1e-13:
                break
        return value[self.init]


# --------------------------------------------------------------------------- the check


def check(seed: int) -> str | None:
    from xaip.planning.mdp import NoProperPolicy, Policy, PolicyFormatError, ground_probabilistic
    from xaip.planning.pddl import check_problem, parse_domain, parse_problem
    from xaip.summaries import summarize

    inst = generate(seed)
    domain, problem = parse_domain(domain_text(inst)), parse_problem(problem_text(inst))
    check_problem(domain, problem)
    ptask = ground_probabilistic(domain, problem)
    oracle = Oracle(inst)
    full = Paths(oracle, oracle.graph(None))
    index = {(a.predicate, tuple(a.args)): i for i, a in enumerate(ptask.facts)}

    def bitset(state: State) -> int:
        return sum(1 << index[a] for a in state if a in index)

    rng = random.Random(seed)
    size = 3 if seed % 2 else 2
    choice: dict[State, str | None] = {}

    def random_choice(state: State) -> str | None:
        if state not in choice:
            names = sorted(n for n, g in oracle.actions.items() if g.applicable(state))
            choice[state] = rng.choice(names) if names and rng.random() > 0.05 else None
        return choice[state]

    edges = oracle.graph(random_choice)
    table = {bitset(s): n for s, n in choice.items() if n is not None and s in edges}
    for label, policy in (("random policy", Policy(ptask, table)), ("optimal policy", None)):
        try:
            summary = summarize(ptask, policy, disjunctive_size=size)
        except PolicyFormatError as error:
            if policy is None or inst.init in table_states(choice) or oracle.is_goal(inst.init):
                return f"{label}: {error}"
            continue  # right: the policy does not act in the initial state
        except NoProperPolicy:
            reaches = full if policy is None else Paths(oracle, edges)
            if reaches.alive and inst.init in reaches.alive:
                return f"{label}: NoProperPolicy, but the goal is reachable"
            continue
        if str(summary.status) == "unsolvable":
            if policy is not None or inst.init in full.alive or not summary.verified:
                return (f"{label}: unsolvable (verified {summary.verified}); the goal is "
                        f"{'reachable' if inst.init in full.alive else 'unreachable'}")
            continue
        if policy is None:
            decoded: dict[int, str] = dict(summary.policy.table)
            policy_edges = oracle.graph(lambda s, table=decoded: table.get(bitset(s)))
        else:
            policy_edges = edges
        disagreement = _compare(ptask, summary, Paths(oracle, policy_edges), full)
        if disagreement:
            return f"{label}: {disagreement}"
    return None


def table_states(choice: dict[State, str | None]) -> set[State]:
    return {s for s, n in choice.items() if n is not None}


def _compare(ptask: ProbabilisticTask, summary: PolicySummary, paths: Paths,
             full: Paths) -> str | None:
    if not any(paths.oracle.is_goal(s) for s in paths.edges):
        return "summarised a policy that never reaches the goal"
    if str(summary.status) != "found" or not summary.verified:
        return f"status {summary.status}, verified {summary.verified}: {summary.check_details}"
    facts = [(a.predicate, tuple(a.args)) for a in ptask.facts]
    init = paths.init
    truth = {f for f, atom in enumerate(facts) if paths.landmark(atom)}
    informative = {f for f in truth if facts[f] not in init}

    def ordering_errors(s: LandmarkSet, where: Paths) -> str | None:
        for o in s.orderings:
            if where.violated(facts[o.before], facts[o.after], o.kind):
                return (f"{s.source}: {o.kind} {ptask.facts[o.before]} -> "
                        f"{ptask.facts[o.after]} is broken by an execution")
        return None

    for s in (summary.concise, summary.complete):
        assert s is not None
        wrong = [str(ptask.facts[f]) for f in s.facts if f not in truth]
        if wrong:
            return f"{s.source}: {wrong} are not policy landmarks"
        if (error := ordering_errors(s, paths)) is not None:
            return error
    complete = summary.complete
    assert complete is not None
    listed = {f for f in complete.facts if facts[f] not in init}
    if listed != informative:
        missing = sorted(str(ptask.facts[f]) for f in informative - listed)
        return f"complete: misses policy landmarks {missing}"
    kinds = {(o.before, o.after): o.kind for o in complete.orderings}
    for a, b in itertools.permutations(sorted(informative), 2):
        wanted = paths.strongest(facts[a], facts[b])
        if kinds.get((a, b)) != wanted:
            return (f"complete: {ptask.facts[a]} -> {ptask.facts[b]} is "
                    f"{kinds.get((a, b))}, the executions say {wanted}")
    model = summary.model
    assert model is not None
    wrong = [str(ptask.facts[f]) for f in model.facts if not full.landmark(facts[f])]
    if wrong:
        return f"model: {wrong} are not landmarks of the task"
    if (error := ordering_errors(model, full)) is not None:
        return error
    assert summary.disjunctive is not None
    reported = {frozenset(facts[f] for f in d.facts) for d in summary.disjunctive.landmarks}
    expected = paths.disjunctive(facts, summary.disjunctive.size)
    if reported != expected:
        return (f"disjunctive landmarks: xaip says {sorted(map(sorted, reported))}, the "
                f"executions say {sorted(map(sorted, expected))}")
    probability = paths.goal_probability()
    if summary.goal_probability is None or abs(summary.goal_probability - probability) > 1e-6:
        return f"goal probability {summary.goal_probability}, oracle {probability}"
    return _text_errors(summary)


def _text_errors(summary: PolicySummary) -> str | None:
    from xaip.render.summaries import narration
    from xaip.summaries import phrasebook

    facts = summary.task.facts
    book = phrasebook(facts, summary.phrases)
    shown = {f for s in (summary.concise, summary.complete, summary.model) if s is not None
             for f in s.facts}
    if len({book[facts[f]] for f in shown}) != len(shown):
        return "two landmark facts read alike"
    text = narration(summary)
    if summary.hierarchy is not None and not all(
            book[facts[f]] in text for f in summary.hierarchy.chain):
        return "a chain subgoal is missing from the English summary"
    return None
