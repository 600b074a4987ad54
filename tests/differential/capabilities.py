"""Differential test of the capabilities family: learned models against the true transition
relation, by enumeration.

Two kinds of instance, by seed:

* **learn-model** (fifteen seeds in sixteen): a random hidden STRIPS domain (2-4 predicates of
  arity 0-2 whose atoms never repeat a variable, 1-3 actions of 0-2 parameters with
  positive and negative preconditions, add and delete effects) over 2-3 objects. xaip
  learns it with plan-outcome queries (:func:`xaip.capabilities.learn_model`) and checks
  it (:func:`xaip.capabilities.check`). The oracle applies both models by STRIPS semantics
  written here (delete, then add) to **every** ground action in **every** state over the
  ground atoms (the AIA agent can be put in any state), at most 2^10 states (beyond that,
  a seeded sample of 1024, which this docstring counts as agreement where the sample
  agrees). "Equal up to what no query can observe" is exactly "the same transitions".
  Disagreements: the checker's verdict differs from the oracle's, or a finished learner
  returns a model with other transitions without saying so (an action for which its
  random probes found no succeeding state is reported as such, and refuted: agreement).
* **discovery** (every sixteenth seed): a random bundled game on a 3x3 or 3x4 grid with a
  random seed, lifted or grounded. The oracle lists the reachable states itself, runs its
  own breadth-first search from every one of them, grounds every capability by brute force
  and counts the predictions (precondition true, result different, describing a state of
  the game by the game's refinement -- shared with the checker, as its docs say) whose
  exact abstract result some reachable state has. Disagreement: the checker's enumerated
  precision (:mod:`xaip.capabilities.truth`) has other counts. Levels with more than 400
  reachable states are outside what the oracle enumerates here, and games that cannot
  make a solvable level on so small a grid refuse it (exit 2): both count as agreement.
  Discovery's own claim is checked too: in a finished run every capability it does not mark
  unreliable must have every prediction realised on every reachable state (it lists the
  whole reachable part of these levels and excludes the states where a prediction cannot
  come true: :mod:`xaip.capabilities.region`).
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Hashable, Iterable
from typing import Any, NamedTuple

CI_INSTANCES = 200
MAX_ATOMS = 10
SAMPLE_STATES = 1024

Atom = tuple[str, tuple[str, ...]]
Schema = tuple[str, tuple[str, ...], frozenset[Atom], frozenset[Atom], frozenset[Atom],
               frozenset[Atom]]


# --------------------------------------------------------------------------- generator


def _hidden_model(rng: random.Random) -> tuple[str, str, list[str]]:
    """A random STRIPS domain and problem as PDDL text, and the object names."""
    variables = ("?x", "?y")
    predicates = []
    for i in range(rng.randint(2, 4)):
        predicates.append((f"p{i}", rng.choice((0, 1, 1, 2))))
    objects = [f"o{i}" for i in range(rng.randint(2, 3))]
    while sum(len(objects) ** a for _, a in predicates) > MAX_ATOMS + 6:
        predicates.pop()
    actions = []
    for k in range(rng.randint(1, 3)):
        params = variables[:rng.choice((0, 1, 1, 2, 2))]
        atoms = [f"({p}{''.join(' ' + v for v in vs)})" for p, arity in predicates
                 for vs in itertools.permutations(params, arity)]
        rng.shuffle(atoms)
        pre, eff = [], []
        for atom in atoms:
            mode = rng.random()
            if mode < 0.3:
                pre.append(atom)
            elif mode < 0.45:
                pre.append(f"(not {atom})")
            mode = rng.random()
            if mode < 0.25:
                eff.append(atom)
            elif mode < 0.45:
                eff.append(f"(not {atom})")
        if not eff and atoms:
            eff.append(rng.choice(atoms))
        actions.append(
            f"(:action a{k} :parameters ({' '.join(params)})"
            f" :precondition (and {' '.join(pre)}) :effect (and {' '.join(eff)}))")
    decls = " ".join(f"({p}{''.join(f' ?v{i}' for i in range(a))})" for p, a in predicates)
    domain = (f"(define (domain hidden) (:requirements :strips :negative-preconditions) "
              f"(:predicates {decls}) {' '.join(actions)})")
    ground = [f"({p}{''.join(' ' + o for o in os)})" for p, a in predicates
              for os in itertools.product(objects, repeat=a)]
    init = [g for g in ground if rng.random() < 0.4]
    goal = rng.choice(ground)
    problem = (f"(define (problem h) (:domain hidden) (:objects {' '.join(objects)}) "
               f"(:init {' '.join(init)}) (:goal {goal}))")
    return domain, problem, objects


# --------------------------------------------------------------------------- oracle


def _literals(condition: Any, positive: bool = True) -> Iterable[tuple[bool, Atom]]:
    """The literals of a conjunction in xaip's PDDL syntax tree (Atom, Not, And)."""
    name = type(condition).__name__
    if name in ("And", "AndEffect"):
        for part in condition.operands:
            yield from _literals(part, positive)
    elif name == "Not":
        yield from _literals(condition.operand, not positive)
    elif name == "Atom":
        yield positive, (condition.predicate, tuple(condition.args))
    elif name == "Increase":
        return
    else:
        raise AssertionError(f"unexpected {name} in a STRIPS model")


def _schemas(domain: Any) -> dict[str, Schema]:
    out = {}
    for action in domain.actions:
        pre = list(_literals(action.precondition)) if action.precondition is not None else []
        eff = list(_literals(action.effect)) if action.effect is not None else []
        out[action.name] = (action.name, tuple(p.name for p in action.parameters),
                            frozenset(a for v, a in pre if v),
                            frozenset(a for v, a in pre if not v),
                            frozenset(a for v, a in eff if v),
                            frozenset(a for v, a in eff if not v))
    return out


def _apply(schema: Schema, args: tuple[str, ...], state: frozenset[Atom]
           ) -> frozenset[Atom] | None:
    _, params, pos, neg, add, delete = schema
    binding = dict(zip(params, args, strict=True))

    def ground(atom: Atom) -> Atom:
        return atom[0], tuple(binding.get(t, t) for t in atom[1])

    if any(ground(a) not in state for a in pos) or any(ground(a) in state for a in neg):
        return None
    return frozenset((state - {ground(a) for a in delete}) | {ground(a) for a in add})


def _states(atoms: list[Atom], rng: random.Random) -> Iterable[frozenset[Atom]]:
    if len(atoms) <= MAX_ATOMS:
        for bits in range(1 << len(atoms)):
            yield frozenset(a for i, a in enumerate(atoms) if bits >> i & 1)
        return
    for _ in range(SAMPLE_STATES):
        yield frozenset(a for a in atoms if rng.random() < 0.5)


def _same_transitions(hidden: Any, learned: Any, objects: list[str],
                      rng: random.Random) -> str | None:
    """``None`` when both models have the same transitions, else the first difference."""
    mine, theirs = _schemas(hidden), _schemas(learned)
    if set(mine) != set(theirs):
        return f"actions {sorted(mine)} hidden, {sorted(theirs)} learned"
    atoms = sorted((p.name, args) for p in hidden.predicates
                   for args in itertools.product(objects, repeat=len(p.parameters)))
    for state in _states(atoms, rng):
        for name, schema in mine.items():
            for args in itertools.product(objects, repeat=len(schema[1])):
                a = _apply(schema, args, state)
                b = _apply(theirs[name], args, state)
                if a != b:
                    shown = " ".join(f"({p} {' '.join(x)})" for p, x in sorted(state))
                    return f"{name}{args} in {{{shown}}}: hidden -> {a}, learned -> {b}"
    return None


def _learn_model_instance(seed: int) -> str | None:
    from xaip.capabilities import LearningInputs, SymbolicAgent, check, learn_model
    from xaip.planning.pddl import parse_domain, parse_problem

    rng = random.Random(f"capabilities-differential:{seed}")
    domain_text, problem_text, objects = _hidden_model(rng)
    domain, problem = parse_domain(domain_text), parse_problem(problem_text)
    learned = learn_model(SymbolicAgent(domain, problem), seed=seed)
    report = check(LearningInputs(domain, problem), learned)
    difference = _same_transitions(domain, learned.domain, objects, rng)
    if not learned.status.finished:
        return None if report.ok is not True else "an unfinished model was verified"
    if difference is not None:
        admitted = any(not action.executed for action in learned.actions)
        if admitted and report.ok is False:
            return None  # "no state found in which it succeeds": said, and refuted
        return f"learned model wrong ({difference}); checker ok={report.ok}\n{domain_text}"
    if report.ok is not True:
        return f"checker refutes a model with the hidden transitions: {report.details}"
    return None


# --------------------------------------------------------------------------- discovery

GAMES = ("zelda", "cookmepasta", "escape", "snowman")
MAX_REACHABLE = 400


def _reachable(sim: Any, start: Hashable) -> list[Hashable] | None:
    seen = {start}
    order = [start]
    for state in order:
        for action in sim.actions(state):
            nxt = sim.step(state, action)
            if nxt not in seen:
                if len(seen) >= MAX_REACHABLE:
                    return None
                seen.add(nxt)
                order.append(nxt)
    return order


def _abstractions_from(successors: dict[Any, list[Any]], start: Hashable,
                       abstraction: dict[Any, frozenset[Any]]) -> set[frozenset[Any]]:
    """The abstractions of every state reachable from ``start`` (its own breadth-first
    search over the listed successors)."""
    seen = {start}
    queue = deque([start])
    out = set()
    while queue:
        state = queue.popleft()
        out.add(abstraction[state])
        for nxt in successors[state]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return out


def _ground(cap: Any, objects: dict[str, str]) -> Iterable[dict[str, str]]:
    pools = [[o for o, t in sorted(objects.items()) if t == typ] for _, typ in cap.parameters]
    for combo in itertools.product(*pools):
        if len(set(combo)) == len(combo):
            yield {v: o for (v, _), o in zip(cap.parameters, combo, strict=True)}


def _sub(atom: Any, binding: dict[str, str]) -> Any:
    return type(atom)(atom.predicate, tuple(binding.get(a, a) for a in atom.args))


def _discovery_instance(seed: int) -> str | None:
    from xaip.capabilities.checks import DiscoveryInputs, run_checks
    from xaip.capabilities.discovery import DiscoveryConfig, discover_game, game_refine
    from xaip.errors import InputError
    from xaip.vocab.registry import get_game

    rng = random.Random(f"capabilities-discovery:{seed}")
    game = rng.choice(GAMES)
    rows, cols = rng.choice(((3, 3), (3, 4)))
    level = rng.randrange(1000)
    lifted = ("cell",) if rng.random() < 0.6 else ()
    config = DiscoveryConfig(seed=level, lifted_types=lifted, tasks=6)
    try:
        result, sim = discover_game(game, rows, cols, seed=level, config=config)
    except InputError:
        return None  # no solvable level of this game on so small a grid (said, exit 2)
    states = _reachable(sim, result.start)
    if states is None:
        return None  # outside what this oracle enumerates (module docstring)
    vocab = get_game(game).vocabulary()
    refine = game_refine(game)
    types = {t.name for t in vocab.types}

    def abstract(state: Any) -> frozenset[Any]:
        return vocab.abstract(state, include_types=False)

    objects: dict[str, str] = {}
    for state in states:
        objects.update(vocab.objects(state))
    # Every grounding of every capability, its literals substituted once (brute force:
    # every injective, type-correct binding, whatever the state).
    grounded = []
    for cap in result.model.capabilities:
        for binding in _ground(cap, objects):
            grounded.append((
                [(_sub(lit.atom, binding), lit.positive) for lit in cap.preconditions],
                {_sub(lit.atom, binding) for lit in cap.effects if not lit.positive},
                {_sub(lit.atom, binding) for lit in cap.effects if lit.positive},
                cap.name if cap.reliable else None))
    abstraction = {state: abstract(state) for state in states}
    successors = {state: [sim.step(state, a) for a in sim.actions(state)] for state in states}
    reaches = {state: _abstractions_from(successors, state, abstraction) for state in states}
    predictions = realised = 0
    wrong: set[str] = set()  # capabilities presented as sound with an unrealised prediction
    for state in states:
        fluent = abstraction[state]
        reach = reaches[state]
        typed = frozenset(a for a in vocab.abstract(state) if a.predicate in types)
        for pre, delete, add, sound in grounded:
            if not all((atom in fluent) == positive for atom, positive in pre):
                continue
            target = frozenset((fluent - delete) | add)
            if target == fluent or refine(target | typed, state) is None:
                continue
            predictions += 1
            realised += target in reach
            if target not in reach and sound is not None:
                wrong.add(sound)
    checks = run_checks(DiscoveryInputs(sim, vocab, refine), result,
                        max_states=MAX_REACHABLE + 1)
    truth = checks.truth
    if truth is None or not truth.enumerated:
        return f"{game} {rows}x{cols} level {level}: the checker did not enumerate"
    if (truth.predictions, truth.realised) != (predictions, realised):
        return (f"{game} {rows}x{cols} level {level} lifted={bool(lifted)}: checker "
                f"{truth.realised}/{truth.predictions}, oracle {realised}/{predictions}")
    if checks.ok is True and realised != predictions:
        return f"{game} {rows}x{cols} level {level}: verified with unrealised predictions"
    if result.status.finished and wrong:
        return (f"{game} {rows}x{cols} level {level} lifted={bool(lifted)}: discovery "
                f"presents {', '.join(sorted(wrong))} as sound (finished, reliable) with "
                "predictions no actions realise")
    described: dict[tuple[frozenset[Any], Any], bool] = {}

    def is_state(target: frozenset[Any], state: Any) -> bool:
        key = (target, state)
        if key not in described:
            typed = frozenset(a for a in vocab.abstract(state) if a.predicate in types)
            described[key] = refine(target | typed, state) is not None
        return described[key]

    world = _World(states, abstraction, reaches, objects, is_state)
    literal = _literal_disagreement(result.model, sim, vocab, world, rng)
    if literal is not None:
        return f"{game} {rows}x{cols} level {level} lifted={bool(lifted)}: {literal}"
    return None


# --------------------------------------------------------------------------- literal scores

#: Levels with more reachable states than this are not scored literal by literal here.
LITERAL_STATES = 200
#: Capabilities and tuples per capability whose true modes are counted by brute force.
LITERAL_CAPS = 4
LITERAL_TUPLES = 6


class _World(NamedTuple):
    states: list[Any]
    abstraction: dict[Any, frozenset[Any]]
    reaches: dict[Any, set[frozenset[Any]]]
    objects: dict[str, str]
    is_state: Any


def _predictions(pre: list[tuple[Any, bool]], delete: set[Any], add: set[Any],
                 fluent: frozenset[Any]) -> frozenset[Any] | None:
    if not all((atom in fluent) == positive for atom, positive in pre):
        return None
    target = frozenset((fluent - delete) | add)
    return None if target == fluent else target


def _claimed_elsewhere(cap: Any, caps: list[Any], world: _World
                       ) -> dict[Any, set[frozenset[Any]]]:
    """Per reachable state, the results the *other* capabilities predict there."""
    out: dict[Any, set[frozenset[Any]]] = {}
    grounded = []
    for other in caps:
        if other.name == cap.name:
            continue
        for binding in _ground(other, world.objects):
            grounded.append((
                [(_sub(lit.atom, binding), lit.positive) for lit in other.preconditions],
                {_sub(lit.atom, binding) for lit in other.effects if not lit.positive},
                {_sub(lit.atom, binding) for lit in other.effects if lit.positive}))
    for state in world.states:
        fluent = world.abstraction[state]
        out[state] = {t for pre, delete, add in grounded
                      if (t := _predictions(pre, delete, add, fluent)) is not None}
    return out


def _brute_counts(cap: Any, elsewhere: dict[Any, set[frozenset[Any]]], location: str,
                  atom: Any, mode: str, world: _World) -> tuple[int, int]:
    """``(r, u)`` of ``cap`` with the tuple set to ``mode``, from the definitions: every
    reachable state, every injective type-correct binding; for preconditions, realised
    results another capability also predicts there (``elsewhere``) do not count and
    results that describe no state are skipped (the module docstring of
    xaip.capabilities.literals)."""
    pre = [(lit.atom, lit.positive) for lit in cap.preconditions]
    eff = [(lit.atom, lit.positive) for lit in cap.effects]
    if location == "pre":
        pre = [(a, p) for a, p in pre if a != atom] + \
            ([(atom, mode == "+")] if mode != "0" else [])
    else:
        eff = [(a, p) for a, p in eff if a != atom] + \
            ([(atom, mode == "+")] if mode != "0" else [])
    r = u = 0
    for binding in _ground(cap, world.objects):
        ground_pre = [(_sub(a, binding), p) for a, p in pre]
        delete = {_sub(a, binding) for a, p in eff if not p}
        add = {_sub(a, binding) for a, p in eff if p}
        for state in world.states:
            target = _predictions(ground_pre, delete, add, world.abstraction[state])
            if target is None:
                continue
            hit = target in world.reaches[state]
            if location == "eff":
                r += hit
                continue
            if not world.is_state(target, state):
                continue
            if not hit:
                u += 1
            elif target not in elsewhere[state]:
                r += 1
    return r, u


def _brute_truth(cap: Any, elsewhere: dict[Any, set[frozenset[Any]]], location: str,
                 atom: Any, world: _World) -> frozenset[str]:
    counts = {m: _brute_counts(cap, elsewhere, location, atom, m, world) for m in "+-0"}
    if location == "eff":
        return frozenset(m for m in "+-0" if counts[m][0] > 0) or frozenset("+-0")
    sound = [m for m in "+-0" if counts[m][0] == counts["0"][0]]
    fewest = min(counts[m][1] for m in sound)
    return frozenset(m for m in sound if counts[m][1] == fewest)


def _literal_disagreement(model: Any, sim: Any, vocab: Any, world: _World,
                          rng: random.Random) -> str | None:
    """xaip's true modes of sampled tuples (:mod:`xaip.capabilities.literals`) against a
    brute-force count from the definitions; and xaip's scores against the scores recounted
    here from those true modes when every tuple of the level was sampled."""
    from xaip.capabilities.literals import (
        learned_mode,
        score_literals,
        true_modes,
        tuple_counts,
    )
    from xaip.capabilities.truth import enumerate_game

    if len(world.states) > LITERAL_STATES:
        return None
    found = enumerate_game(sim, vocab, world.states[0], None, LITERAL_STATES + 1)
    if found is None:
        return "the literal scorer did not enumerate"
    caps = list(model.capabilities)
    for cap in rng.sample(caps, min(LITERAL_CAPS, len(caps))):
        elsewhere = _claimed_elsewhere(cap, caps, world)
        atoms, counts = tuple_counts(cap, model, found, world.is_state)
        learned = [a for a in atoms if learned_mode(cap, "pre", a) != "0" or
                   learned_mode(cap, "eff", a) != "0"]
        sample = rng.sample(atoms, min(LITERAL_TUPLES, len(atoms)))
        sample += rng.sample(learned, min(LITERAL_TUPLES, len(learned)))
        for atom in dict.fromkeys(sample):
            for location in ("pre", "eff"):
                mine = true_modes(counts, location, atom)
                theirs = _brute_truth(cap, elsewhere, location, atom, world)
                if mine != theirs:
                    return (f"{cap.name} {location} {atom}: xaip's true modes "
                            f"{''.join(sorted(mine))}, brute force {''.join(sorted(theirs))}")
    report = score_literals(model, sim, vocab, world.states[0], is_state=world.is_state,
                            max_states=LITERAL_STATES + 1, found=found)
    # the scores follow from the true modes: recount them here from xaip's own modes
    tallies = {loc: [0, 0, 0, 0] for loc in ("pre", "eff")}
    for cap in caps:
        atoms, counts = tuple_counts(cap, model, found, world.is_state)
        open_keys = {(t.location, t.atom) for t in cap.open}
        for location in ("pre", "eff"):
            for atom in atoms:
                truth = true_modes(counts, location, atom)
                if (location, atom) in open_keys or len(truth) == 3:
                    continue
                mode = learned_mode(cap, location, atom)
                t = tallies[location]
                t[0] += mode != "0"
                t[1] += mode != "0" and mode in truth
                t[2] += "0" not in truth
                t[3] += "0" not in truth and mode in truth
    for location, (made, right, required, got) in tallies.items():
        s = report.scores[location]
        if (s.learned, s.right, s.required, s.found) != (made, right, required, got):
            return (f"{location} scores {s.to_dict()} but recounted "
                    f"{made}/{right}/{required}/{got}")
    return None


def check(seed: int) -> str | None:
    """Run instance ``seed`` (module docstring)."""
    if seed % 16 == 15:
        return _discovery_instance(seed)
    return _learn_model_instance(seed)
