"""Precision and recall of a capability model's preconditions and effects, literal by
literal, against the simulator's true transition relation (issue 25).

Why: :mod:`~xaip.capabilities.truth` says how often the model's *predictions* come true;
a user comparing learners (or this one with the reference code) asks the question of
action-model learning instead: how many of the learned literals are right, and how many of
the right ones were learned?

What "right" means. A capability's tuples are the atoms over its parameters and the
model's constants (type-correct, no term twice: ``object`` matches every type), each in
the precondition and in the effect, with a mode ``+``, ``-`` or ``0`` (no literal). The
truth of one tuple is decided with the rest of the capability as learned (*in context*),
over every reachable state ``s`` and every injective, type-correct binding ``b`` -- a pair
is a *prediction* when the grounded precondition holds in ``f(s)``, the result differs from
``f(s)`` and (for preconditions) describes a state of the game; it is *realised* when some
state reachable from ``s`` has exactly that abstraction:

* **precondition tuple**: with the tuple set to mode ``m`` (the other literals as
  learned), count the realised predictions ``r(m)`` that no other capability of the model
  makes (the same state and result) and the unrealised ones ``u(m)``. A mode is *sound*
  when it loses no realised prediction the tuple left at ``0`` admits (``r(m) = r(0)``);
  the true modes are the sound ones with the fewest unrealised predictions. So a literal
  is right when it excludes only failures, or successes another capability claims (the
  parts of a split capability), or nothing that matters; and missing when adding it would
  exclude failures and lose no success.
* **effect tuple**: with the tuple set to ``m`` (precondition and the other effects as
  learned), ``r(m)`` realised predictions; the true modes are those realised somewhere
  (``r(m) > 0``). Effects say *what* a capability achieves, so counts of different
  results are not compared: an effect literal is wrong when with it the capability comes
  true nowhere while another mode does, and required when only modes other than ``0`` do.
* A tuple whose three modes are all true (no reachable state tells them apart, e.g. an
  effect of a capability that is never realised) is *indistinguishable*: counted apart,
  never right or wrong.

Scores per location: **precision** = learned literals (mode not ``0``) whose mode is true /
learned literals; **recall** = tuples whose true modes exclude ``0`` and whose learned mode
is true / tuples whose true modes exclude ``0``. **Open tuples** (``Capability.open``: the
mode the evidence did not settle, written as a documented default) are not counted and are
listed with their true modes.

What it shares: the enumeration of :mod:`~xaip.capabilities.truth` (the checker's, not
discovery's), the vocabulary's abstraction and the game's refinement (``is_state``, only to
skip predictions that describe no state). Every listed state and binding is one node of
the budget. :func:`tuple_counts` is exposed for the brute-force test.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any

from xaip.capabilities.model import Capability, CapabilityModel, Literal
from xaip.capabilities.truth import (
    MAX_STATES,
    Enumeration,
    apply,
    enumerate_game,
    groundings,
)
from xaip.errors import BudgetExhausted
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import BudgetClock
from xaip.vocab.core import Vocabulary

State = frozenset[Atom]
MODES = ("+", "-", "0")
LOCATIONS = ("pre", "eff")
ANY_TYPE = "object"


def _charge(clock: BudgetClock | None, what: str) -> None:
    if clock is not None and not clock.charge():
        raise BudgetExhausted(f"the checker ran out of budget while {what}", "checking")


def tuple_atoms(cap: Capability, model: CapabilityModel) -> list[Atom]:
    """The atoms of ``cap``'s tuples (module docstring), and any atom its literals use."""
    terms = [*cap.parameters, *sorted(model.constants)]
    out: dict[Atom, None] = {}
    for name, arg_types in model.predicates:
        pools = [[t for t, typ in terms if want in (ANY_TYPE, typ)] for want in arg_types]
        for args in itertools.product(*pools):
            if len(set(args)) == len(args):
                out.setdefault(Atom(name, tuple(args)), None)
    for lit in (*cap.preconditions, *cap.effects):
        out.setdefault(lit.atom, None)
    return list(out)


def learned_mode(cap: Capability, location: str, atom: Atom) -> str:
    """``+``, ``-`` or ``0``: the capability's literal on ``atom`` at ``location``."""
    lits = cap.preconditions if location == "pre" else cap.effects
    for lit in lits:
        if lit.atom == atom:
            return "+" if lit.positive else "-"
    return "0"


def with_mode(cap: Capability, location: str, atom: Atom, mode: str) -> Capability:
    """``cap`` with the tuple ``(location, atom)`` set to ``mode``."""
    lits = cap.preconditions if location == "pre" else cap.effects
    kept = tuple(lit for lit in lits if lit.atom != atom)
    if mode != "0":
        kept += (Literal(atom, mode == "+"),)
    if location == "pre":
        return Capability(cap.name, cap.parameters, kept, cap.effects)
    return Capability(cap.name, cap.parameters, cap.preconditions, kept)


def _subst(atom: Atom, binding: dict[str, str]) -> Atom:
    return Atom(atom.predicate, tuple(binding.get(a, a) for a in atom.args))


def _bindings(cap: Capability, fluent: State, objects: dict[str, str]
              ) -> Iterator[tuple[dict[str, str], Literal | None]]:
    """Every injective, type-correct binding under which at most one precondition literal
    is false in ``fluent``, with that literal (``None``: the precondition holds)."""
    params = list(cap.parameters)
    by_type: dict[str, list[str]] = {}
    for obj, typ in sorted(objects.items()):
        by_type.setdefault(typ, []).append(obj)
    stage_of = {var: k + 1 for k, (var, _) in enumerate(params)}
    tests: list[list[Literal]] = [[] for _ in range(len(params) + 1)]
    for lit in cap.preconditions:
        tests[max((stage_of.get(a, 0) for a in lit.atom.args), default=0)].append(lit)

    def extend(i: int, binding: dict[str, str], broken: Literal | None
               ) -> Iterator[tuple[dict[str, str], Literal | None]]:
        for lit in tests[i]:
            if (_subst(lit.atom, binding) in fluent) != lit.positive:
                if broken is not None:
                    return
                broken = lit
        if i == len(params):
            yield dict(binding), broken
            return
        var, typ = params[i]
        used = set(binding.values())
        for obj in by_type.get(typ, ()):
            if obj not in used:
                binding[var] = obj
                yield from extend(i + 1, binding, broken)
                del binding[var]

    yield from extend(0, {}, None)


@dataclass
class Counts:
    """Per tuple and mode, realised and unrealised predictions (module docstring)."""

    realised: dict[tuple[str, Atom, str], int] = field(default_factory=dict)
    unrealised: dict[tuple[str, Atom, str], int] = field(default_factory=dict)

    def r(self, location: str, atom: Atom, mode: str) -> int:
        return self.realised.get((location, atom, mode), 0)

    def u(self, location: str, atom: Atom, mode: str) -> int:
        return self.unrealised.get((location, atom, mode), 0)

    def add(self, location: str, atom: Atom, mode: str, realised: int, unrealised: int
            ) -> None:
        key = (location, atom, mode)
        if realised:
            self.realised[key] = self.realised.get(key, 0) + realised
        if unrealised:
            self.unrealised[key] = self.unrealised.get(key, 0) + unrealised


def claims(model: CapabilityModel, found: Enumeration,
           clock: BudgetClock | None = None) -> dict[tuple[int, State], set[str]]:
    """For each listed state and predicted result, the capabilities whose grounded
    precondition holds there with that result."""
    out: dict[tuple[int, State], set[str]] = {}
    for node, fluent in enumerate(found.abstract):
        for cap in model.capabilities:
            for binding in groundings(cap, fluent, found.objects):
                _charge(clock, "listing the model's predictions")
                out.setdefault((node, apply(cap, binding, fluent)), set()).add(cap.name)
    return out


def tuple_counts(cap: Capability, model: CapabilityModel, found: Enumeration,
                 is_state: Callable[[State, Any], bool] | None = None,
                 clock: BudgetClock | None = None,
                 claimed: dict[tuple[int, State], set[str]] | None = None,
                 ) -> tuple[list[Atom], Counts]:
    """The tuples of ``cap`` and, for each tuple and mode, ``r`` and ``u`` (module
    docstring; ``claimed`` is :func:`claims`, computed here when not given), counted pair
    by pair: most tuples are false before and after a pair and
    get the same counts, so those are added once per pair (``default``) and only the
    atoms true before or after, and those whose addition is reached, are counted apart
    (their effect variants applied exactly: another literal may ground to the same
    atom)."""
    atoms = tuple_atoms(cap, model)
    known = set(atoms)
    if claimed is None:
        claimed = claims(model, found, clock)
    counts = Counts()
    # default contributions, per mode, for atoms false before and after (and, for
    # effects, whose toggle is not a realised prediction)
    pre_default = {"+": [0, 0], "-": [0, 0], "0": [0, 0]}
    eff_default = {"+": 0, "-": 0, "0": 0}
    special_pre: dict[Atom, dict[str, list[int]]] = {}
    special_eff: dict[Atom, dict[str, int]] = {}
    valid: dict[tuple[State, int], bool] = {}
    constants = {name for name, _ in model.constants}
    variants: dict[tuple[Atom, str], Capability] = {}

    def variant(atom: Atom, mode: str) -> Capability:
        key = (atom, mode)
        if key not in variants:
            variants[key] = with_mode(cap, "eff", atom, mode)
        return variants[key]

    def describes(target: State, node: int) -> bool:
        if is_state is None:
            return True
        key = (target, node)
        if key not in valid:
            valid[key] = is_state(target, found.states[node])
        return valid[key]

    for node, fluent in enumerate(found.abstract):
        for binding, broken in _bindings(cap, fluent, found.objects):
            _charge(clock, "counting literals against the truth")
            inverse = {obj: var for var, obj in binding.items()}

            def lift(atom: Atom, inverse: dict[str, str] = inverse) -> list[Atom]:
                """Every tuple atom that grounds to ``atom`` (a bound object may also be
                a constant of the model: ``?cell1`` and ``cell_1_2`` alike)."""
                options = [[inverse[a], a] if a in inverse and a in constants else
                           [inverse.get(a, a)] for a in atom.args]
                return [Atom(atom.predicate, args) for args in itertools.product(*options)
                        if Atom(atom.predicate, args) in known]

            target = apply(cap, binding, fluent)
            predicted = target != fluent and describes(target, node)
            success = predicted and found.realised(node, target)
            miss = int(predicted and not success)
            # a success another capability claims too is not lost by excluding it here
            hit = int(success and not claimed.get((node, target), set()) - {cap.name})
            if broken is not None:  # only the broken tuple's other modes admit the pair
                other = "-" if broken.positive else "+"
                counts.add("pre", broken.atom, "0", hit, miss)
                counts.add("pre", broken.atom, other, hit, miss)
                continue
            # preconditions: the pair is admitted by 0 and by the mode of the value
            for mode in ("-", "0"):
                pre_default[mode][0] += hit
                pre_default[mode][1] += miss
            for ground in fluent:
                for atom in lift(ground):
                    row = special_pre.setdefault(atom, {m: [0, 0] for m in MODES})
                    row["+"][0] += hit
                    row["+"][1] += miss
                    row["-"][0] -= hit  # the default counted the value as false
                    row["-"][1] -= miss
            # effects: an atom false before and after (and not added where a larger
            # abstraction is reached) keeps the learned result under - and 0 and is not
            # realised under + (the default); the others are applied exactly
            base = int(target != fluent and found.realised(node, target))
            eff_default["-"] += base
            eff_default["0"] += base
            grounds = set(fluent | target) | set(_toggles(found, node, target, fluent))
            touched = {atom for g in grounds for atom in lift(g)}
            for atom in touched:
                row2 = special_eff.setdefault(atom, dict.fromkeys(MODES, 0))
                for mode in MODES:
                    changed = apply(variant(atom, mode), binding, fluent)
                    exact = int(changed != fluent and found.realised(node, changed))
                    row2[mode] += exact - (0 if mode == "+" else base)
    for atom in atoms:
        row = special_pre.get(atom, {m: [0, 0] for m in MODES})
        for mode in MODES:
            counts.add("pre", atom, mode, pre_default.get(mode, [0, 0])[0] + row[mode][0],
                       pre_default.get(mode, [0, 0])[1] + row[mode][1])
        row2 = special_eff.get(atom, dict.fromkeys(MODES, 0))
        for mode in MODES:
            counts.add("eff", atom, mode, eff_default[mode] + row2[mode], 0)
    return atoms, counts


def _toggles(found: Enumeration, node: int, target: State, fluent: State) -> Iterator[Atom]:
    """Atoms ``g`` absent from ``fluent`` and ``target`` with ``target + g`` realised
    from ``node`` (found through the abstractions one atom larger than ``target``)."""
    for bigger in found.one_more(target):
        (ground,) = bigger - target
        if ground not in fluent:
            yield ground


def true_modes(counts: Counts, location: str, atom: Atom) -> frozenset[str]:
    """The true modes of one tuple (module docstring)."""
    if location == "pre":
        r0 = counts.r("pre", atom, "0")
        sound = [m for m in MODES if counts.r("pre", atom, m) == r0]
        fewest = min(counts.u("pre", atom, m) for m in sound)
        return frozenset(m for m in sound if counts.u("pre", atom, m) == fewest)
    somewhere = frozenset(m for m in MODES if counts.r("eff", atom, m) > 0)
    return somewhere or frozenset(MODES)


@dataclass(frozen=True)
class LiteralScores:
    """Precision and recall of one location (``pre`` or ``eff``)."""

    learned: int = 0
    right: int = 0
    required: int = 0
    found: int = 0
    indistinguishable: int = 0

    @property
    def precision(self) -> float | None:
        return self.right / self.learned if self.learned else None

    @property
    def recall(self) -> float | None:
        return self.found / self.required if self.required else None

    def to_dict(self) -> dict[str, Any]:
        return {"precision": self.precision, "recall": self.recall,
                "learned": self.learned, "right": self.right, "required": self.required,
                "found": self.found, "indistinguishable": self.indistinguishable}


@dataclass(frozen=True)
class LiteralReport:
    """The learned literals against the true transition relation (module docstring).
    ``wrong`` and ``missing`` list ``(capability, location, atom, learned, true modes)``;
    ``open`` the open tuples with their true modes (not counted)."""

    enumerated: bool
    states: int
    scores: dict[str, LiteralScores] = field(default_factory=dict)
    wrong: tuple[tuple[str, str, str, str, str], ...] = ()
    missing: tuple[tuple[str, str, str, str, str], ...] = ()
    open: tuple[tuple[str, str, str, str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        def rows(items: tuple[tuple[str, str, str, str, str], ...]) -> list[dict[str, str]]:
            return [{"capability": c, "location": loc, "atom": a, "learned": m, "true": t}
                    for c, loc, a, m, t in items]

        return {"enumerated": self.enumerated, "states": self.states,
                "scores": {loc: s.to_dict() for loc, s in self.scores.items()},
                "wrong": rows(self.wrong), "missing": rows(self.missing),
                "open": rows(self.open)}

    def summary(self) -> str:
        """One line for people."""
        if not self.enumerated:
            return f"more than {self.states} reachable states: literals not scored"
        parts = []
        for loc, name in (("pre", "preconditions"), ("eff", "effects")):
            s = self.scores[loc]
            parts.append(f"{name} precision {_ratio(s.precision)} ({s.right}/{s.learned}), "
                         f"recall {_ratio(s.recall)} ({s.found}/{s.required})")
        return (f"against the true transitions of all {self.states} reachable states: "
                + "; ".join(parts) + f"; {len(self.open)} open tuples not counted")


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _modes_text(modes: frozenset[str]) -> str:
    return "".join(m for m in MODES if m in modes)


def score_literals(model: CapabilityModel, simulator: Any, vocabulary: Vocabulary,
                   start: Hashable, *, is_state: Callable[[State, Any], bool] | None = None,
                   clock: BudgetClock | None = None, max_states: int = MAX_STATES,
                   found: Enumeration | None = None) -> LiteralReport:
    """Score every capability's literals against the states reachable from ``start``
    (module docstring); not enumerated beyond ``max_states`` states. ``found`` reuses an
    enumeration already made (:func:`~xaip.capabilities.truth.enumerate_game`)."""
    if found is None:
        found = enumerate_game(simulator, vocabulary, start, clock, max_states)
    if found is None:
        return LiteralReport(False, max_states)
    tallies = {loc: [0, 0, 0, 0, 0] for loc in LOCATIONS}
    wrong: list[tuple[str, str, str, str, str]] = []
    missing: list[tuple[str, str, str, str, str]] = []
    opened: list[tuple[str, str, str, str, str]] = []
    claimed = claims(model, found, clock)
    for cap in model.capabilities:
        if not cap.examined:  # a focused run makes no claim about it
            continue
        atoms, counts = tuple_counts(cap, model, found, is_state, clock, claimed)
        open_keys = {(t.location, t.atom) for t in cap.open}
        for loc in LOCATIONS:
            for atom in atoms:
                truth = true_modes(counts, loc, atom)
                mode = learned_mode(cap, loc, atom)
                row = (cap.name, loc, str(atom), mode, _modes_text(truth))
                if (loc, atom) in open_keys:
                    opened.append(row)
                    continue
                tally = tallies[loc]
                if len(truth) == len(MODES):
                    tally[4] += 1
                    continue
                if mode != "0":
                    tally[0] += 1
                    tally[1] += mode in truth
                    if mode not in truth:
                        wrong.append(row)
                if "0" not in truth:
                    tally[2] += 1
                    tally[3] += mode in truth
                    if mode not in truth and mode == "0":
                        missing.append(row)
    scores = {loc: LiteralScores(*t) for loc, t in tallies.items()}
    return LiteralReport(True, len(found.states), scores, tuple(wrong), tuple(missing),
                         tuple(opened))
