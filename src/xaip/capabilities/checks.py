"""Independent checks of a capability model (no code shared with discovery).

- :func:`check_consistency` — Def. 5: every transition of every abstract trace is explained
  by some grounding of some capability (its precondition holds before, and applying its
  effects gives exactly the state after).
- :func:`~xaip.capabilities.realise.check_realisability` — Def. 7: on *fresh* states
  (seeded random walks in the simulator, not the states discovery used), for a seeded
  random grounding per state whose precondition holds and whose predicted result is a real
  state of the game, a breadth-first search **in the simulator** (not the learned model,
  not the agent) reaches a state with exactly the predicted abstraction.
- :mod:`~xaip.capabilities.truth` — where the reachable states can be listed, the model
  against the simulator's *true* transition relation: the precision of every prediction
  (Def. 7 on all reachable states) and the recall of every abstract transition.

Why separate code: a checker that reused the discovery's matcher would inherit its bugs.
Bindings here are found by enumerating objects per parameter
(:func:`xaip.capabilities.truth.groundings`; objects a positive literal rules out are
skipped, tested against the definition) -- slower, and simple enough to trust.

Budget: the checks run under the budget the run had (the user's ``--max-seconds`` /
``--max-queries``, started afresh; every listed state, grounding and search node is one
node); running out is "unverified: checker budget" (:func:`check` goes through
:func:`xaip.contract.run_checker`). The sampled cases share what the enumeration leaves of
it equally (:mod:`~xaip.capabilities.realise`); a case that spends its share is
*undecided*, and an answer with undecided cases (and nothing refuted) is "unverified:
checker budget". There is no cap of the checker's own: without a budget every search runs
to the end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.capabilities.candidates import ABSENT, NEG, POS
from xaip.capabilities.model import Capability, CapabilityModel
from xaip.capabilities.realise import (
    RealisabilityCase,  # noqa: F401 - re-exported (was defined here)
    RealisabilityReport,
    check_realisability,
    fresh_states,
)
from xaip.capabilities.truth import MAX_STATES, TruthReport, apply, groundings, measure
from xaip.contract import CheckReport, checker_budget_report, run_checker
from xaip.errors import BudgetExhausted
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget, BudgetClock
from xaip.vocab.core import Vocabulary

State = frozenset[Atom]


def _fluent(vocabulary: Vocabulary, state: Any) -> tuple[State, dict[str, str]]:
    objects = vocabulary.objects(state)
    return vocabulary.abstract(state, include_types=False), objects


def _subst(atom: Atom, binding: dict[str, str]) -> Atom:
    return Atom(atom.predicate, tuple(binding.get(a, a) for a in atom.args))


def holds(cap: Capability, binding: dict[str, str], state: State) -> bool:
    """Whether the grounded precondition holds in ``state``."""
    return all((_subst(lit.atom, binding) in state) == lit.positive for lit in cap.preconditions)


def result(cap: Capability, binding: dict[str, str], state: State) -> State:
    """The state after the grounded capability (deletes first, then adds)."""
    return apply(cap, binding, state)


def _charge(clock: BudgetClock | None, what: str) -> None:
    if clock is not None and not clock.charge():
        raise BudgetExhausted(f"the checker ran out of budget while {what}", "checking")


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
                      traces: Iterable[Sequence[Any]],
                      clock: BudgetClock | None = None) -> ConsistencyReport:
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
            _charge(clock, "explaining trace transitions")
            if any(apply(cap, b, before) == after for cap in model.capabilities
                   for b in groundings(cap, before, objects)):
                explained += 1
            else:
                missing.append((tuple(sorted(str(a) for a in after - before)),
                                tuple(sorted(str(a) for a in before - after))))
    return ConsistencyReport(transitions, explained, tuple(missing))


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
    """The independent checks of one discovery result."""

    consistency: ConsistencyReport
    realisability: RealisabilityReport
    truth: TruthReport | None = None

    @property
    def undecided(self) -> int:
        """Sampled cases that spent their share of the budget (undecided)."""
        return self.realisability.undecided

    @property
    def ok(self) -> bool | None:
        """``True``: consistent, every sampled prediction realised and (where enumerated)
        precision 1; ``False``: refuted; ``None``: undecided cases and nothing refuted."""
        truth_ok = self.truth is None or self.truth.ok
        if not (self.consistency.consistent and not self.realisability.failures()
                and truth_ok):
            return False
        return None if self.undecided else True

    def report(self) -> CheckReport:
        c, r, t = self.consistency, self.realisability, self.truth
        details = (f"consistent with {c.explained}/{c.transitions} trace transitions; "
                   f"realised {r.realised}/{r.tested} sampled predictions")
        if self.undecided:
            details += f" ({self.undecided} undecided: their share of the budget ran out)"
        if t is not None and t.enumerated:
            details += (f"; on all {t.states} reachable states: {t.realised}/"
                        f"{t.predictions} predictions realised (precision "
                        f"{_ratio(t.precision)}), {t.explained}/{t.transitions} abstract "
                        f"transitions explained (recall {_ratio(t.recall)})")
        elif t is not None:
            details += f"; more than {t.states} reachable states: not enumerated"
        failing = sorted({f.capability for f in r.failures()} |
                         ({name for name, _ in t.failures} if t is not None else set()))
        if failing:
            details += f"; not realisable: {', '.join(failing)}"
        if self.ok is None:  # nothing refuted, some cases undecided: the checker's budget
            return checker_budget_report(f"{self.undecided} sampled cases ran out of their "
                                         f"share of the budget; {details}")
        return CheckReport(self.ok, details)

    def to_dict(self) -> dict[str, Any]:
        return {"consistency": self.consistency.to_dict(),
                "realisability": self.realisability.to_dict(),
                "truth": None if self.truth is None else self.truth.to_dict(),
                "undecided": self.undecided, "ok": self.ok}


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def state_test(inputs: DiscoveryInputs) -> Callable[[State, Any], bool]:
    """``is_state(target, like)``: whether the game's refinement finds a state with the
    abstract fluents ``target`` (and ``like``'s type atoms); always true without one."""
    vocab = inputs.vocabulary
    types = {t.name for t in vocab.types}
    refine = inputs.refine
    type_atoms: dict[Any, frozenset[Atom]] = {}

    def is_state(target: State, like: Any) -> bool:
        if refine is None:
            return True
        if like not in type_atoms:
            if len(type_atoms) > 10_000:
                type_atoms.clear()
            type_atoms[like] = frozenset(a for a in vocab.abstract(like)
                                         if a.predicate in types)
        return refine(target | type_atoms[like], like) is not None

    return is_state


def run_checks(inputs: DiscoveryInputs, result: Any, *, samples: int = 8,
               per_capability: int = 4, budget: Budget | None = None, seed: int = 0,
               max_states: int = MAX_STATES) -> DiscoveryChecks:
    """Def. 5 on the run's own traces; Def. 7 from fresh states (seeded random walks from
    ``samples`` states along the simulator's own solution of the start, when it has a
    ``solve``); and, where at most ``max_states`` states are reachable from the start, the
    model against the true transition relation (:func:`xaip.capabilities.truth.measure`).
    Everything under ``budget`` (started here; :class:`~xaip.errors.BudgetExhausted` when
    it runs out)."""
    from xaip.agents.simulator import execute

    clock = None if budget is None else budget.start()
    vocab = inputs.vocabulary
    is_state = state_test(inputs)
    consistency = check_consistency(result.model, vocab, [t.states for t in result.traces],
                                    clock)
    simulator = inputs.simulator
    start = result.start if result.start is not None else simulator.get_state()
    plan = simulator.solve(start) if hasattr(simulator, "solve") else None
    roots = execute(simulator, start, list(plan or ()))
    states: list[Any] = []
    for i, root in enumerate(roots[:: max(1, len(roots) // samples)]):
        states += fresh_states(simulator, root, 6, seed=1000 + i + seed)
    live = [s for s in dict.fromkeys(states) if not simulator.is_goal(s) and
            simulator.actions(s)]
    # The enumeration first (bounded by ``max_states``); the sampled cases then share
    # what is left of the budget equally (xaip.capabilities.realise).
    truth = measure(result.model, simulator, vocab, start, is_state=is_state, clock=clock,
                    max_states=max_states, seed=seed)
    realisability = check_realisability(result.model, simulator, vocab, live,
                                        is_state=is_state, per_capability=per_capability,
                                        clock=clock, seed=seed)
    return DiscoveryChecks(consistency, realisability, truth)


# --------------------------------------------------------------------------- model learning


@dataclass(frozen=True)
class Comparison:
    """Differences between two action models over the same signatures (normalised), and
    the learned model's precision and recall of precondition and effect literals against
    the hidden one (``{"pre": (precision, recall), "eff": ...}``; 1.0 for empty sets)."""

    equal: bool
    differences: list[str]
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {loc: {"precision": p, "recall": r} for loc, (p, r) in self.scores.items()}


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
    deletes = [a for (loc, a), m in out.items() if loc == "eff" and m == NEG]
    for (loc, atom), mode in list(out.items()):
        if loc == "eff" and out.get(("pre", atom)) == mode and \
                not (mode == POS and any(_aliased_runs(atom, d, pos, neg) for d in deletes)):
            del out[(loc, atom)]  # re-asserting the precondition is invisible...
            # ... unless a delete can be the same atom under non-distinct objects: then the
            # add (which wins over the delete) is observable
    return out


def _aliased_runs(a: Atom, b: Atom, pos: list[Atom], neg: list[Atom]) -> bool:
    """Can ``a`` and ``b`` be the same ground atom under a binding of non-distinct objects
    *and* the action still run there (no positive precondition becomes a negative one)?
    Then an add of ``a`` that re-asserts a precondition is observable against the delete
    of ``b``. (Types are not considered: a conservative "observable".)"""
    unifier = _unifier(a, b)
    if unifier is None:
        return False

    def sub(atom: Atom) -> Atom:
        return Atom(atom.predicate, tuple(unifier(t) for t in atom.args))

    return not {sub(x) for x in pos} & {sub(x) for x in neg}


def _unifier(a: Atom, b: Atom) -> Callable[[str], str] | None:
    """The most general identification of variables making ``a`` and ``b`` one atom (as a
    function on terms), or ``None`` when none does (or they are already equal)."""
    if a.predicate != b.predicate or len(a.args) != len(b.args) or a == b:
        return None
    classes: dict[str, str] = {}

    def root(t: str) -> str:
        while classes.get(t, t) != t:
            t = classes[t]
        return t

    for x, y in zip(a.args, b.args, strict=True):
        rx, ry = root(x), root(y)
        if rx == ry:
            continue
        if not rx.startswith("?") and not ry.startswith("?"):
            return None
        if rx.startswith("?"):
            classes[rx] = ry
        else:
            classes[ry] = rx
    return root


def compare_models(hidden: Any, learned: Any) -> Comparison:
    """Compare per action and atom, up to what no query can observe: effects that
    re-assert a precondition, atoms that repeat a term, and action costs."""
    differences: list[str] = []
    learned_actions = {a.name: a for a in learned.actions}
    counts = {loc: [0, 0, 0] for loc in ("pre", "eff")}  # agree, learned, hidden literals
    for action in hidden.actions:
        other = learned_actions.get(action.name)
        mine = {k: v for k, v in _modes(hidden, action).items()
                if len(set(k[1].args)) == len(k[1].args)}
        for key in mine:
            counts[key[0]][2] += 1
        if other is None:
            differences.append(f"{action.name}: not learned")
            continue
        theirs = _modes(learned, other)
        for key, mode in theirs.items():
            counts[key[0]][1] += 1
            counts[key[0]][0] += mine.get(key) == mode
        for key in sorted(set(mine) | set(theirs), key=lambda k: (k[0], str(k[1]))):
            a, b = mine.get(key, ABSENT), theirs.get(key, ABSENT)
            if a != b:
                differences.append(f"{action.name} {key[0]} {key[1]}: hidden {a}, learned {b}")
    scores = {loc: (agree / made if made else 1.0, agree / true if true else 1.0)
              for loc, (agree, made, true) in counts.items()}
    return Comparison(not differences, differences, scores)



@dataclass(frozen=True)
class LearningInputs:
    """What model learning was given, for :func:`check`: the hidden domain and problem."""

    domain: Any
    problem: Any


def _check_learned(inputs: LearningInputs, result: Any) -> CheckReport:
    comparison = compare_models(inputs.domain, result.domain)
    scores = "; ".join(f"{loc}: precision {p:.3f}, recall {r:.3f}"
                       for loc, (p, r) in comparison.scores.items())
    if comparison.equal:
        return CheckReport(True, "the learned model equals the hidden one (up to what no "
                                 f"query can observe; {scores})")
    return CheckReport(False, f"differs from the hidden model in "
                              f"{len(comparison.differences)} places ({scores})")


def check(inputs: DiscoveryInputs | LearningInputs, result: Any,
          budget: Budget | None = None) -> CheckReport:
    """The capabilities' one checker. For discovery: the model explains every transition
    of the run's traces (Def. 5), every sampled prediction is realised by breadth-first
    search in the simulator (Def. 7), and where the reachable states can be listed every
    prediction on every reachable state is realised (precision 1; recall is reported). For
    model learning (:class:`LearningInputs`): the learned domain has the hidden domain's
    precondition and effect modes, compared action by action on the PDDL (it shares nothing
    with the learner but the domain reader), with the precision and recall of its
    preconditions and effects.

    What it shares with discovery: the vocabulary's abstraction of states, the traces the
    run collected (Def. 5 is about them), and the game's refinement, used only to skip
    predictions that describe no state at all. It shares no matcher, no PAL table, no
    agent and no search code with discovery. It runs under ``budget`` (the run's, started
    afresh); running out is "unverified: checker budget"."""
    if isinstance(inputs, LearningInputs):
        return _check_learned(inputs, result)
    return run_checker(lambda: run_checks(inputs, result, budget=budget).report())
