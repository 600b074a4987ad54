"""The PAL table of one capability: for every (atom, precondition|effect) tuple the set of
modes (``+``, ``-``, ``0``) the evidence still allows, and how evidence prunes it.

Executions (:func:`observe`) remove the modes they contradict; failed queries
(:func:`refute`) become clauses settled by unit propagation (:func:`propagate`). The
best-guess model (:func:`default_pre`, :func:`default_eff`, :func:`apply_capability`) is
what query generation plans with and what the final capability model writes down.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.capabilities.candidates import (
    ABSENT,
    ALL_MODES,
    NEG,
    POS,
    eff_modes_allowed,
    eff_result,
    pre_modes_allowed,
)
from xaip.capabilities.lifting import (
    LiftedCandidate,
    Param,
    Signature,
    ground_atom,
    is_var,
    lifted_atoms,
)
from xaip.capabilities.traces import AbstractState
from xaip.planning.pddl.model import Atom

Clause = list[tuple[str, Atom, frozenset[str]]]


@dataclass
class CapState:
    """The learner's view of one capability (mutable while queries run)."""

    name: str
    signature: Signature
    atoms: list[Atom]
    pre: dict[Atom, set[str]]
    eff: dict[Atom, set[str]]
    obs_pre: dict[Atom, set[str]]
    obs_eff: dict[Atom, set[str]]
    never_true: list[Atom] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)
    instances: int = 0
    notes: list[str] = field(default_factory=list)
    reliable: bool = True
    tried: dict[tuple[str, Atom], int] = field(default_factory=dict)
    unobservable: dict[tuple[str, Atom], int] = field(default_factory=dict)
    queried: set[tuple[str, Atom]] = field(default_factory=set)
    example: tuple[Any, Any] | None = None
    unexplained: int = 0
    seen_bindings: list[dict[str, str]] = field(default_factory=list)
    used_starts: dict[tuple[str, Atom], set[AbstractState]] = field(default_factory=dict)
    effect_cache: tuple[Any, list[tuple[Atom, str]]] | None = None
    #: Bumped whenever the tables, clauses or notes may have changed (keys memos).
    revision: int = 0
    #: Every successful execution (binding, abstract state before): what a precondition
    #: made stricter later must still admit (:mod:`~xaip.capabilities.gameover`).
    executions: list[tuple[dict[str, str], AbstractState]] = field(default_factory=list)
    #: The capability this one was split from (its example and lifted candidate).
    parent: str | None = None

    @property
    def params(self) -> tuple[Param, ...]:
        return self.signature.params

    def table(self, location: str) -> dict[Atom, set[str]]:
        return self.pre if location == "pre" else self.eff

    def open_tuples(self) -> list[tuple[str, Atom]]:
        """Undecided tuples, effects first (their answers make later precondition failures
        attributable)."""
        out = [("eff", a) for a in self.atoms if len(self.eff[a]) > 1]
        out += [("pre", a) for a in self.atoms if len(self.pre[a]) > 1]
        return out

    def settled(self) -> bool:
        return all(t in self.unobservable for t in self.open_tuples())

    def mark(self, note: str) -> None:
        self.reliable = False
        self.revision += 1
        if note not in self.notes:
            self.notes.append(note)


def build_capability(
    name: str,
    lifted: LiftedCandidate,
    predicates: Sequence[tuple[str, tuple[str, ...]]],
    constants: Mapping[str, str],
    possible: set[tuple[Any, ...]],
) -> CapState:
    """The initial PAL table of a lifted candidate: signature effects fixed, every other
    tuple cut by the observed groundings (the precondition constraints of Sec. 3.1).

    ``possible`` holds the patterns of atoms seen true in some state; atoms whose pattern
    never held are left out of the table (recorded as ``never_true``).
    """
    sig = lifted.signature
    types = sig.var_types()
    candidates = lifted_atoms(predicates, sig.params, constants)
    atoms: list[Atom] = []
    never: list[Atom] = []
    fixed = set(sig.add) | set(sig.delete)
    for atom in candidates:
        if atom in fixed or pattern(atom, types) in possible:
            atoms.append(atom)
        else:
            never.append(atom)
    for atom in sorted(fixed - set(atoms), key=str):
        atoms.append(atom)
    pre: dict[Atom, set[str]] = {a: set(ALL_MODES) for a in atoms}
    eff: dict[Atom, set[str]] = {a: set(ALL_MODES) for a in atoms}
    for atom in sig.add:
        eff[atom] = {POS}
        pre[atom] = {NEG}  # an add effect is seen only where the atom was false
    for atom in sig.delete:
        eff[atom] = {NEG}
        pre[atom] = {POS}
    cap = CapState(name, sig, atoms, pre, eff, {a: set(m) for a, m in pre.items()},
                   {a: set(m) for a, m in eff.items()}, never)
    for grounding in lifted.groundings:
        binding = grounding.as_dict()
        observe(cap, binding, grounding.candidate.before, grounding.candidate.after)
    first = lifted.groundings[0].candidate if lifted.groundings else None
    if first is not None:
        cap.example = (first.example, first.example_after)
    return cap


def pattern(atom: Atom, var_types: Mapping[str, str]) -> tuple[Any, ...]:
    """An atom with variables replaced by their types (constants kept)."""
    return (atom.predicate, tuple(var_types.get(t, "=" + t) if is_var(t) else "=" + t
                                  for t in atom.args))


def ground_pattern(atom: Atom, objects: Mapping[str, str], lifted: frozenset[str]) \
        -> tuple[Any, ...]:
    """The pattern of a ground atom: objects of lifted types replaced by their type."""
    return (atom.predicate, tuple(
        objects.get(o, "?") if objects.get(o) in lifted else "=" + o for o in atom.args))


def observe(cap: CapState, binding: Mapping[str, str], before: AbstractState,
            after: AbstractState) -> bool:
    """Prune the modes of ``cap`` with one successful execution; ``True`` if a set shrank.

    An execution contradicting an earlier *attribution* (a failure blamed on a tuple) wins
    over it — observations are direct evidence — and marks the capability unreliable.
    Two executions that contradict each other (an effect that happens only sometimes)
    leave the tuple as it was, also marking the capability.
    """
    cap.instances += 1
    cap.revision += 1
    cap.executions.append((dict(binding), before))
    if len(cap.seen_bindings) < 16 and dict(binding) not in cap.seen_bindings:
        cap.seen_bindings.append(dict(binding))
    changed = False
    for atom in cap.atoms:
        g = ground_atom(atom, binding)
        b = g in before
        a = g in after
        for loc, allowed in (("pre", pre_modes_allowed(b)), ("eff", eff_modes_allowed(b, a))):
            table = cap.table(loc)
            obs = cap.obs_pre if loc == "pre" else cap.obs_eff
            obs_new = obs[atom] & allowed
            if not obs_new:
                cap.mark(f"executions disagree on {atom} in the {loc}: the vocabulary cannot "
                         "express when it changes (or the simulator is not deterministic)")
                continue
            obs[atom] = obs_new
            new = table[atom] & allowed
            if not new:
                cap.mark(f"an execution contradicts an earlier failed query on {atom} ({loc})")
                new = set(obs_new)
            if new != table[atom]:
                table[atom] = new
                changed = True
    if changed:
        propagate(cap)
    return changed


def refute(cap: CapState, binding: Mapping[str, str], before: AbstractState,
           target: AbstractState, *, effects: bool = True) -> bool:
    """Record that the agent could not go from ``before`` to ``target`` with this binding.

    With ``effects=False`` only preconditions can explain the failure (both predicted
    outcomes of an effect were unreachable).
    """
    clause: Clause = []
    for atom in cap.atoms:
        g = ground_atom(atom, binding)
        b = g in before
        clause.append(("pre", atom, frozenset({NEG}) if b else frozenset({POS})))
        if effects:
            t = g in target
            no = frozenset(m for m in ALL_MODES if eff_result(m, b) != t)
            if no:
                clause.append(("eff", atom, no))
    cap.clauses.append(clause)
    cap.revision += 1
    return propagate(cap)


def propagate(cap: CapState) -> bool:
    """Unit propagation over the failure clauses of ``cap``; ``True`` if a set shrank."""
    changed_any = False
    changed = True
    while changed:
        changed = False
        keep: list[Clause] = []
        for clause in cap.clauses:
            live = [(loc, atom, no) for loc, atom, no in clause if cap.table(loc)[atom] & no]
            if any(cap.table(loc)[atom] <= no for loc, atom, no in live):
                continue  # every remaining model explains this failure
            if not live:
                cap.mark("a failed query cannot be explained by any remaining description "
                         "(the vocabulary may not express what the agent needs)")
                continue
            if len(live) == 1:
                loc, atom, no = live[0]
                table = cap.table(loc)
                table[atom] = table[atom] & set(no)
                changed = changed_any = True
                continue
            keep.append(clause)
        cap.clauses = keep
    if changed_any:
        cap.revision += 1
    return changed_any


def prefer_preconditions(cap: CapState) -> bool:
    """Settle failures that several tuples could explain by blaming a precondition when it
    is the only precondition that can: "the agent needs p" is preferred to "the capability
    makes p true" when no valid state tells them apart (Def. 2 forbids both at once)."""
    changed = False
    for clause in list(cap.clauses):
        live = [(loc, atom, no) for loc, atom, no in clause
                if loc == "pre" and cap.pre[atom] & no]
        if len(live) == 1:
            _, atom, no = live[0]
            cap.pre[atom] = cap.pre[atom] & set(no)
            changed = True
            if cap.eff[atom] - {ABSENT} and len(cap.eff[atom]) > 1:
                cap.eff[atom] = {ABSENT} if ABSENT in cap.eff[atom] else cap.eff[atom]
    if changed:
        cap.revision += 1
        propagate(cap)
    return changed


def default_pre(cap: CapState, atom: Atom) -> str:
    """The precondition mode written into the model for a tuple.

    An open ``+/0`` tuple becomes ``+``: the atom held in every execution seen and no
    valid state showed the capability without it (it is implied by the rest, or needed).
    An open ``-/0`` tuple becomes absent: atoms false in every execution are mostly
    things elsewhere (walls, other objects), and listing them would bury the card.
    """
    modes = cap.pre[atom]
    if len(modes) == 1:
        return next(iter(modes))
    if POS in modes and (ABSENT in modes or atom in cap.signature.delete):
        return POS
    if atom in cap.signature.add and NEG in modes:
        return NEG
    return ABSENT if ABSENT in modes else sorted(modes)[0]


def default_eff(cap: CapState, atom: Atom) -> str:
    modes = cap.eff[atom]
    if len(modes) == 1:
        return next(iter(modes))
    return ABSENT if ABSENT in modes else sorted(modes)[0]


def _effect_list(cap: CapState) -> list[tuple[Atom, str]]:
    """The best-guess non-absent effects of ``cap`` (recomputed when its tables change)."""
    key = cap.revision
    if cap.effect_cache is None or cap.effect_cache[0] != key:
        effects = [(a, m) for a in cap.atoms if (m := default_eff(cap, a)) != ABSENT]
        cap.effect_cache = (key, effects)
    return cap.effect_cache[1]


def ground_effects(cap: CapState, binding: Mapping[str, str]) -> dict[Atom, bool]:
    """The ground atoms ``cap``'s best-guess effects set under ``binding``, with the value
    each ends with (what :func:`apply_capability` changes)."""
    out: dict[Atom, bool] = {}
    for atom, mode in _effect_list(cap):
        out[ground_atom(atom, binding)] = mode == POS
    return out


def apply_capability(cap: CapState, binding: Mapping[str, str], before: AbstractState,
                     override: Mapping[Atom, str] | None = None) -> AbstractState:
    """The abstract state after ``cap`` under the current best-guess effects."""
    out = set(before)
    effects = _effect_list(cap)
    if override:
        effects = [(a, m) for a, m in effects if a not in override]
        effects += [(a, m) for a, m in override.items() if m != ABSENT]
    for atom, mode in effects:
        g = ground_atom(atom, binding)
        if mode == POS:
            out.add(g)
        else:
            out.discard(g)
    return frozenset(out)

