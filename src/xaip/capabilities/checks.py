"""Independent checks of a capability model (no code shared with discovery).

- :func:`check_consistency` — Def. 5: every transition of every abstract trace is explained
  by some grounding of some capability (its precondition holds before, and applying its
  effects gives exactly the state after).
- :func:`check_realisability` — Def. 7: on *fresh* states (seeded random walks in the
  simulator, not the states discovery used), for groundings whose precondition holds and
  whose predicted result is a real state of the game, a breadth-first search **in the
  simulator** (not the learned model, not the agent) reaches a state with exactly the
  predicted abstraction.

Why separate code: a checker that reused the discovery's matcher would inherit its bugs.
Bindings here are found by brute-force enumeration of objects per parameter, pruned only
by the positive preconditions — slower, and simple enough to trust.
"""

from __future__ import annotations

import itertools
import random
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.capabilities.candidates import ABSENT, NEG, POS
from xaip.capabilities.model import Capability, CapabilityModel
from xaip.contract import CheckReport
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget
from xaip.vocab.core import Vocabulary

State = frozenset[Atom]


def _fluent(vocabulary: Vocabulary, state: Any) -> tuple[State, dict[str, str]]:
    objects = vocabulary.objects(state)
    return vocabulary.abstract(state, include_types=False), objects


def _subst(atom: Atom, binding: dict[str, str]) -> Atom:
    return Atom(atom.predicate, tuple(binding.get(a, a) for a in atom.args))


def _bindings(cap: Capability, state: State, objects: dict[str, str],
              limit: int = 100_000) -> Iterator[dict[str, str]]:
    """Injective, type-correct bindings of ``cap``'s parameters under which every positive
    precondition holds in ``state`` (candidates per parameter are the objects that occur in
    a true atom of a positive precondition mentioning it, else all objects of its type)."""
    candidates: dict[str, set[str]] = {}
    for lit in cap.preconditions:
        if not lit.positive:
            continue
        for position, term in enumerate(lit.atom.args):
            if not term.startswith("?"):
                continue
            seen = {a.args[position] for a in state
                    if a.predicate == lit.atom.predicate and len(a.args) == len(lit.atom.args)}
            candidates[term] = candidates[term] & seen if term in candidates else seen
    pools = []
    for var, typ in cap.parameters:
        allowed = {o for o, t in objects.items() if t == typ}
        if var in candidates:
            allowed &= candidates[var]
        pools.append(sorted(allowed))
    count = 0
    for combo in itertools.product(*pools):
        if len(set(combo)) != len(combo):
            continue
        count += 1
        if count > limit:
            return
        yield {var: obj for (var, _), obj in zip(cap.parameters, combo, strict=True)}


def holds(cap: Capability, binding: dict[str, str], state: State) -> bool:
    """Whether the grounded precondition holds in ``state``."""
    return all((_subst(lit.atom, binding) in state) == lit.positive for lit in cap.preconditions)


def result(cap: Capability, binding: dict[str, str], state: State) -> State:
    """The state after the grounded capability (deletes first, then adds)."""
    out = set(state)
    for lit in cap.effects:
        if not lit.positive:
            out.discard(_subst(lit.atom, binding))
    for lit in cap.effects:
        if lit.positive:
            out.add(_subst(lit.atom, binding))
    return frozenset(out)


@dataclass(frozen=True)
class ConsistencyReport:
    """Def. 5: which abstract transitions no capability explains."""

    transitions: int
    explained: int
    unexplained: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = ()

    @property
    def consistent(self) -> bool:
        return self.explained == self.transitions

    def to_dict(self) -> dict[str, Any]:
        return {
            "consistent": self.consistent,
            "transitions": self.transitions,
            "explained": self.explained,
            "unexplained": [{"add": list(a), "delete": list(d)} for a, d in self.unexplained],
        }


def check_consistency(model: CapabilityModel, vocabulary: Vocabulary,
                      traces: Iterable[Sequence[Any]]) -> ConsistencyReport:
    """Check Def. 5 on concrete traces (each a sequence of simulator states): abstract them
    with the vocabulary, drop repetitions, and explain every remaining transition."""
    transitions = 0
    explained = 0
    missing: list[tuple[tuple[str, ...], tuple[str, ...]]] = []
    for trace in traces:
        abstract: list[State] = []
        objects: dict[str, str] = {}
        for state in trace:
            fluent, objs = _fluent(vocabulary, state)
            objects.update(objs)
            if not abstract or abstract[-1] != fluent:
                abstract.append(fluent)
        for before, after in zip(abstract, abstract[1:], strict=False):
            transitions += 1
            if any(holds(cap, b, before) and result(cap, b, before) == after
                   for cap in model.capabilities
                   for b in _bindings(cap, before, objects)):
                explained += 1
            else:
                missing.append((tuple(sorted(str(a) for a in after - before)),
                                tuple(sorted(str(a) for a in before - after))))
    return ConsistencyReport(transitions, explained, tuple(missing))


@dataclass(frozen=True)
class RealisabilityCase:
    """One tested grounding: did the simulator reach the predicted abstract state?"""

    capability: str
    binding: tuple[tuple[str, str], ...]
    outcome: str  # realised | not-realised | budget
    nodes: int

    def to_dict(self) -> dict[str, Any]:
        return {"capability": self.capability, "binding": dict(self.binding),
                "outcome": self.outcome, "nodes": self.nodes}


@dataclass(frozen=True)
class RealisabilityReport:
    """Def. 7 on sampled states, per capability."""

    cases: tuple[RealisabilityCase, ...]
    invalid_targets: dict[str, int] = field(default_factory=dict)

    def counts(self, name: str) -> tuple[int, int]:
        """``(realised, tested)`` for a capability (cases that ran out of budget excluded)."""
        mine = [c for c in self.cases if c.capability == name and c.outcome != "budget"]
        return sum(1 for c in mine if c.outcome == "realised"), len(mine)

    @property
    def realised(self) -> int:
        return sum(1 for c in self.cases if c.outcome == "realised")

    @property
    def tested(self) -> int:
        return sum(1 for c in self.cases if c.outcome != "budget")

    @property
    def rate(self) -> float:
        return self.realised / self.tested if self.tested else 1.0

    def failures(self) -> list[RealisabilityCase]:
        return [c for c in self.cases if c.outcome == "not-realised"]

    def to_dict(self) -> dict[str, Any]:
        names = sorted({c.capability for c in self.cases})
        return {
            "realised": self.realised,
            "tested": self.tested,
            "rate": self.rate,
            "per_capability": {n: dict(zip(("realised", "tested"), self.counts(n),
                                           strict=True)) for n in names},
            "invalid_targets": dict(self.invalid_targets),
            "failures": [c.to_dict() for c in self.failures()],
        }


def _reach(simulator: Any, vocabulary: Vocabulary, start: Any, target: State,
           budget: Budget) -> tuple[str, int]:
    """Breadth-first search in the simulator for a state whose abstraction is ``target``."""
    clock = budget.start()
    seen = {start}
    queue = deque([start])
    nodes = 0
    while queue:
        state = queue.popleft()
        if vocabulary.abstract(state, include_types=False) == target:
            return "realised", nodes
        if not clock.charge():
            return "budget", nodes
        nodes += 1
        for action in simulator.actions(state):
            nxt = simulator.step(state, action)
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return "not-realised", nodes


def fresh_states(simulator: Any, start: Any, count: int, seed: int,
                 walk: int = 15) -> list[Any]:
    """Distinct states of seeded random walks from ``start`` (own walker, own seed)."""
    rng = random.Random(f"check:{seed}")
    out: dict[Any, None] = {}
    tries = 0
    while len(out) < count and tries < 20 * count + 20:
        tries += 1
        state = start
        for _ in range(rng.randrange(walk + 1)):
            actions = simulator.actions(state)
            if not actions:
                break
            state = simulator.step(state, actions[rng.randrange(len(actions))])
        out.setdefault(state, None)
    return list(out)


def check_realisability(
    model: CapabilityModel,
    simulator: Any,
    vocabulary: Vocabulary,
    states: Iterable[Any],
    *,
    is_state: Callable[[State, Any], bool] | None = None,
    per_capability: int = 5,
    budget: Budget | None = None,
) -> RealisabilityReport:
    """Check Def. 7 from the given concrete ``states`` (use :func:`fresh_states`).

    For each capability, up to ``per_capability`` groundings (at most one per state) whose
    precondition holds are tested. ``is_state(target, like)`` says whether some concrete
    state has the predicted abstraction (e.g. ``concretize`` is non-empty); predictions
    that describe no state at all (a constraint the vocabulary cannot express, such as
    "cell2 is next to the monster") are counted in ``invalid_targets`` instead.
    """
    limit = budget or Budget(max_nodes=20_000)
    cases: list[RealisabilityCase] = []
    invalid: dict[str, int] = {}
    prepared = []
    for state in states:
        fluent, objects = _fluent(vocabulary, state)
        prepared.append((state, fluent, objects))
    for cap in model.capabilities:
        tested = 0
        for state, fluent, objects in prepared:
            if tested >= per_capability:
                break
            for binding in _bindings(cap, fluent, objects, limit=5_000):
                if not holds(cap, binding, fluent):
                    continue
                target = result(cap, binding, fluent)
                if target == fluent:
                    continue
                if is_state is not None and not is_state(target, state):
                    invalid[cap.name] = invalid.get(cap.name, 0) + 1
                    continue
                outcome, nodes = _reach(simulator, vocabulary, state, target, limit)
                cases.append(RealisabilityCase(cap.name, tuple(sorted(binding.items())),
                                               outcome, nodes))
                tested += 1
                break
    return RealisabilityReport(tuple(cases), invalid)


# --------------------------------------------------------------------------- the one checker


@dataclass(frozen=True)
class DiscoveryInputs:
    """What a discovery run was given, for :func:`check`: the simulator, the vocabulary
    and, when there is one, the refinement (``refine(full_abstract_state, like)``), used
    only to tell whether a predicted abstract state describes any state of the game."""

    simulator: Any
    vocabulary: Vocabulary
    refine: Callable[[frozenset[Any], Any], Any] | None = None


@dataclass(frozen=True)
class DiscoveryChecks:
    """Both independent checks of one discovery result."""

    consistency: ConsistencyReport
    realisability: RealisabilityReport

    @property
    def ok(self) -> bool:
        return self.consistency.consistent and not self.realisability.failures()

    def to_dict(self) -> dict[str, Any]:
        return {"consistency": self.consistency.to_dict(),
                "realisability": self.realisability.to_dict(), "ok": self.ok}


def run_checks(inputs: DiscoveryInputs, result: Any, *, samples: int = 8,
               per_capability: int = 4) -> DiscoveryChecks:
    """Def. 5 on the run's own traces, and Def. 7 from fresh states: seeded random walks
    from ``samples`` states along the simulator's own solution of the start (when it has a
    ``solve``), none of them states that discovery used by construction."""
    from xaip.agents.simulator import execute

    vocab = inputs.vocabulary
    types = {t.name for t in vocab.types}
    refine = inputs.refine

    def is_state(target: frozenset[Any], like: Any) -> bool:
        if refine is None:
            return True
        full = target | {a for a in vocab.abstract(like) if a.predicate in types}
        return refine(full, like) is not None

    consistency = check_consistency(result.model, vocab, [t.states for t in result.traces])
    simulator = inputs.simulator
    start = result.start if result.start is not None else simulator.get_state()
    plan = simulator.solve(start) if hasattr(simulator, "solve") else None
    roots = execute(simulator, start, list(plan or ()))
    states: list[Any] = []
    for i, root in enumerate(roots[:: max(1, len(roots) // samples)]):
        states += fresh_states(simulator, root, 6, seed=1000 + i)
    live = [s for s in dict.fromkeys(states) if not simulator.is_goal(s) and
            simulator.actions(s)]
    realisability = check_realisability(result.model, simulator, vocab, live,
                                        is_state=is_state, per_capability=per_capability)
    return DiscoveryChecks(consistency, realisability)


# --------------------------------------------------------------------------- model learning


@dataclass(frozen=True)
class Comparison:
    """Differences between two action models over the same signatures (normalised)."""

    equal: bool
    differences: list[str]


def _modes(domain: Any, action: Any) -> dict[tuple[str, Atom], str]:
    from xaip.capabilities.symbolic import condition_literals, effect_literals

    where = f"action {action.name}"
    pos, neg, _ = condition_literals(action.precondition, where)
    add, delete = effect_literals(action.effect, where)
    out: dict[tuple[str, Atom], str] = {}
    for atom in pos:
        out[("pre", atom)] = POS
    for atom in neg:
        out[("pre", atom)] = NEG
    for atom in delete:
        out[("eff", atom)] = NEG
    for atom in add:
        out[("eff", atom)] = POS  # add wins over delete (PDDL semantics)
    for (loc, atom), mode in list(out.items()):
        if loc == "eff" and out.get(("pre", atom)) == mode:
            del out[(loc, atom)]  # re-asserting the precondition is invisible
    return out


def compare_models(hidden: Any, learned: Any) -> Comparison:
    """Compare per action and atom, up to what no query can observe: effects that
    re-assert a precondition, atoms that repeat a term, and action costs."""
    differences: list[str] = []
    learned_actions = {a.name: a for a in learned.actions}
    for action in hidden.actions:
        other = learned_actions.get(action.name)
        if other is None:
            differences.append(f"{action.name}: not learned")
            continue
        mine = {k: v for k, v in _modes(hidden, action).items()
                if len(set(k[1].args)) == len(k[1].args)}
        theirs = _modes(learned, other)
        for key in sorted(set(mine) | set(theirs), key=lambda k: (k[0], str(k[1]))):
            a, b = mine.get(key, ABSENT), theirs.get(key, ABSENT)
            if a != b:
                differences.append(f"{action.name} {key[0]} {key[1]}: hidden {a}, learned {b}")
    return Comparison(not differences, differences)



@dataclass(frozen=True)
class LearningInputs:
    """What model learning was given, for :func:`check`: the hidden domain and problem."""

    domain: Any
    problem: Any


def _check_learned(inputs: LearningInputs, result: Any) -> CheckReport:
    comparison = compare_models(inputs.domain, result.domain)
    if comparison.equal:
        return CheckReport(True, "the learned model equals the hidden one (up to what no "
                                 "query can observe)")
    return CheckReport(False, f"differs from the hidden model in "
                              f"{len(comparison.differences)} places")


def check(inputs: DiscoveryInputs | LearningInputs, result: Any) -> CheckReport:
    """The capabilities' one checker. For discovery: the model explains every transition
    of the run's traces (Def. 5) and every sampled prediction is realised by breadth-first
    search in the simulator (Def. 7). For model learning (:class:`LearningInputs`): the
    learned domain has the hidden domain's precondition and effect modes, compared action
    by action on the PDDL (it shares nothing with the learner but the domain reader).

    What it shares with discovery: the vocabulary's abstraction of states, the traces the
    run collected (Def. 5 is about them), and the game's refinement, used only to skip
    predictions that describe no state at all. It shares no matcher, no PAL table, no
    agent and no search code with discovery."""
    if isinstance(inputs, LearningInputs):
        return _check_learned(inputs, result)
    checks = run_checks(inputs, result)
    c, r = checks.consistency, checks.realisability
    details = (f"consistent with {c.explained}/{c.transitions} trace transitions; "
               f"realised {r.realised}/{r.tested} sampled predictions")
    return CheckReport(checks.ok, details)
