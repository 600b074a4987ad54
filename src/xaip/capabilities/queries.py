"""Completing partial capability descriptions by active queries (Alg. 1 lines 5-15).

For every capability and every atom over its parameters and constants, a PAL tuple
(capability, atom, pre|eff) keeps the set of modes (``+``, ``-``, ``0``) that the evidence
so far allows. Traces already cut most sets to two modes. For each open tuple the engine
generates a *query*: a start state s̃0 with a binding σ, possibly reached by a short plan
over the current candidate model from a known state, such that the remaining modes
predict different outcomes; the last step applies the capability and asks the agent to
reach the predicted state. Abstract waypoints are refined into concrete simulator states
(``refine``, e.g. :func:`xaip.vocab.concretize`), and each consecutive pair is put to the
agent as a state-reachability query.

How answers prune (sound under the paper's assumptions — determinism and a vocabulary that
can express the agent's capabilities):

- *reached*: the transition s̃0 → s̃1 is an instance of the capability, so every mode that
  would forbid it is removed (exactly as for a transition seen in a trace);
- *not reached*: every model that predicts success is wrong. The answer becomes a clause
  "some tuple has a mode that predicts failure here"; unit propagation over all clauses of
  the capability settles a tuple as soon as it is the only possible culprit. Queries are
  chosen so that all other tuples are satisfied by s̃0 when possible, which makes the
  tested tuple the only culprit at once.

Reachability is existential: a search agent that can walk to the key, pick it up and walk
back *can* "pick up the key" from anywhere, so its capabilities lose preconditions that a
policy agent keeps. This is the semantics of Def. 2 with state-reachability answers.
"""

from __future__ import annotations

import hashlib
import itertools
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from xaip.agents.agents import Agent, AnyOf, representative
from xaip.capabilities.candidates import (
    ABSENT,
    ALL_MODES,
    NEG,
    POS,
    eff_modes_allowed,
    eff_result,
    pre_modes_allowed,
)
from xaip.capabilities.lifting import LiftedCandidate, Param, Signature, ground_atom, is_var
from xaip.capabilities.model import QueryRecord
from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget

#: ``refine(full_abstract_state, like) -> concrete state or None``.
Refine = Callable[[AbstractState, Any], Any]
ProgressFn = Callable[[str, Mapping[str, Any]], None]
Requirement = tuple[Atom, bool]


# --------------------------------------------------------------------------- answers store


@dataclass(frozen=True)
class Answer:
    """A stored answer to one state-reachability query."""

    status: str
    reached: bool | None
    seconds: float = 0.0
    reason: str = ""
    #: For a goal that is any of several states: which one the agent reached.
    member: int | None = None


class AnswerStore(Protocol):
    """Where answers live between runs (see :mod:`xaip.capabilities.store`)."""

    def get_answer(self, key: str) -> Answer | None: ...

    def put_answer(self, key: str, capability: str, answer: Answer) -> None: ...

    def get_trace(self, key: str) -> StoredTrace | None: ...

    def put_trace(self, key: str, trace: StoredTrace) -> None: ...


@dataclass(frozen=True)
class StoredTrace:
    """The agent's plan for one task (its states are rebuilt by replaying the plan)."""

    actions: tuple[str, ...]
    status: str
    reason: str = ""


class MemoryStore:
    """An answer store that forgets everything when the process ends."""

    def __init__(self) -> None:
        self._answers: dict[str, Answer] = {}
        self._traces: dict[str, StoredTrace] = {}

    def get_answer(self, key: str) -> Answer | None:
        return self._answers.get(key)

    def put_answer(self, key: str, capability: str, answer: Answer) -> None:
        self._answers[key] = answer

    def get_trace(self, key: str) -> StoredTrace | None:
        return self._traces.get(key)

    def put_trace(self, key: str, trace: StoredTrace) -> None:
        self._traces[key] = trace


def canonical(value: Any) -> str:
    """A text for ``value`` that does not depend on set iteration order (so that equal
    states built in different ways, in different processes, get the same key)."""
    if isinstance(value, AnyOf):
        return "AnyOf(" + ",".join(canonical(v) for v in value.states) + ")"
    if isinstance(value, (frozenset, set)):
        return "{" + ",".join(sorted(canonical(v) for v in value)) + "}"
    if isinstance(value, tuple):
        inner = ",".join(canonical(v) for v in value)
        return f"{type(value).__name__}({inner})"
    if isinstance(value, list):
        return "[" + ",".join(canonical(v) for v in value) + "]"
    return repr(value)


def query_key(start: Any, goal: Any) -> str:
    """A stable key of the query "from ``start``, reach ``goal``"."""
    text = f"{canonical(start)}\x00{canonical(goal)}"
    return hashlib.sha1(text.encode()).hexdigest()


# --------------------------------------------------------------------------- pool of states


Key = tuple[str, tuple[str, ...]]


def keys_of(state: AbstractState) -> frozenset[Key]:
    """The atoms of ``state`` as plain tuples: hashing and building tuples is several times
    cheaper than for ``Atom`` dataclasses, and matching does it millions of times."""
    return frozenset((a.predicate, a.args) for a in state)


def gkey(atom: Atom, binding: Mapping[str, str]) -> Key:
    """The key of ``atom`` grounded by ``binding``."""
    return (atom.predicate, tuple(map(binding.get, atom.args, atom.args)))


@dataclass
class PoolState:
    """A concrete state known to exist, with its abstraction indexed by predicate (and as
    tuple keys for fast membership tests)."""

    concrete: Any
    fluent: AbstractState
    index: dict[str, list[tuple[str, ...]]]
    keys: frozenset[Key] = frozenset()

    def __post_init__(self) -> None:
        if not self.keys:
            self.keys = keys_of(self.fluent)


class StatePool:
    """Concrete states from traces, random walks and answered queries: the possible first
    states of queries (AIA's random states)."""

    def __init__(self, abstractor: Abstractor) -> None:
        self.abstractor = abstractor
        self.states: list[PoolState] = []
        self._seen: set[Any] = set()
        self._abstract: set[AbstractState] = set()

    def add(self, concrete: Any) -> None:
        if concrete in self._seen:
            return
        self._seen.add(concrete)
        fluent = self.abstractor.fluent(concrete)
        if fluent in self._abstract:
            return  # one concrete representative per abstract state is enough
        self._abstract.add(fluent)
        self.states.append(PoolState(concrete, fluent, _index(fluent)))

    def __len__(self) -> int:
        return len(self.states)


# --------------------------------------------------------------------------- capability state


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
    from xaip.capabilities.lifting import lifted_atoms

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


# --------------------------------------------------------------------------- queries


@dataclass
class Step:
    """One waypoint pair: apply ``cap`` with ``binding`` in ``before`` to reach ``target``;
    ``alternative`` is the second predicted outcome of an effect test."""

    cap: CapState
    binding: dict[str, str]
    before: AbstractState
    target: AbstractState
    alternative: AbstractState | None = None


@dataclass
class Failure:
    """A failed step, to be recorded as a clause (``effects=False``: both predicted
    outcomes of an effect were unreachable, so only preconditions can explain it)."""

    step: Step
    effects: bool

    def record(self) -> bool:
        s = self.step
        return refute(s.cap, s.binding, s.before, s.target, effects=self.effects)


@dataclass
class Query:
    """A query ⟨s0, π⟩ as waypoints from a concrete start state. ``attributable`` is false
    when the start violates soft requirements (then only a success is worth confirming)."""

    start: Any
    steps: list[Step]
    attributable: bool = True


@dataclass
class EngineConfig:
    """Knobs of the query engine (defaults suit the bundled games)."""

    query_budget: Budget = field(default_factory=lambda: Budget(max_nodes=200_000))
    max_passes: int = 3
    max_attempts: int = 48
    bindings_per_state: int = 4
    max_bindings: int = 64
    plan_seeds: int = 8
    plan_depth: int = 2
    plan_bindings: int = 12
    confirm_failures: bool = True
    construct: bool = True
    construct_seeds: int = 3
    max_tries: int = 3


class QueryEngine:
    """Runs the completion phase of Alg. 1 over a set of capabilities."""

    def __init__(
        self,
        agent: Agent[Any],
        abstractor: Abstractor,
        refine: Refine | None,
        caps: list[CapState],
        pool: StatePool,
        store: AnswerStore,
        config: EngineConfig | None = None,
        progress: ProgressFn | None = None,
    ) -> None:
        self.agent = agent
        self.abstractor = abstractor
        self.refine_fn = refine
        self.caps = caps
        self.pool = pool
        self.store = store
        self.config = config or EngineConfig()
        self.progress = progress
        by_type: dict[str, list[str]] = {}
        for obj, typ in sorted(abstractor.objects.items()):
            by_type.setdefault(typ, []).append(obj)
        self.objects_by_type = by_type
        self.records: list[QueryRecord] = []
        self.asked: list[tuple[str, Any, Any, bool | None]] = []
        self.plans = 0
        self.query_seconds = 0.0
        self._offset = 0
        self._refined: dict[tuple[AbstractState, Any], Any] = {}
        self._answers: dict[str, tuple[bool | None, Any]] = {}
        self._invalid: set[AbstractState] = set()
        self._possible: dict[Any, tuple[int, bool]] = {}
        self._impossible: dict[Any, list[tuple[frozenset[Requirement], int]]] = {}
        self._plans: dict[Any, Any] = {}
        self._effect_order: dict[tuple[str, bool], list[Atom]] = {}
        self._contexts: dict[str, tuple[int, Any]] = {}
        self._settled_cache: dict[str, tuple[int, list[Requirement]]] = {}
        self._plans_version: Any = None
        self._keys: dict[AbstractState, frozenset[Key]] = {}
        self._grounded_cache: Any = None

    # ----------------------------------------------------------------- main loop

    def complete(self, budget: Budget | None = None) -> bool:
        """Ask queries until every tuple is settled or shown unobservable, then settle what
        failures still leave open by blaming preconditions first (see
        :func:`prefer_preconditions`).

        ``budget`` limits the whole completion (``max_seconds``; ``max_nodes`` counts
        queries); returns ``False`` when it ran out before the end."""
        clock = budget.start() if budget is not None else None
        finished = True
        for _ in range(self.config.max_passes):
            progress = False
            for cap in self.caps:
                for loc, atom in cap.open_tuples():
                    if clock is not None and (clock.out_of_time() or (
                            clock.budget.max_nodes is not None and
                            len(self.records) >= clock.budget.max_nodes)):
                        finished = False
                        break
                    key = (loc, atom)
                    if len(cap.table(loc)[atom]) <= 1:
                        continue
                    marked = cap.unobservable.get(key)
                    if marked is not None and len(self.pool) < 2 * marked:
                        continue  # retry only once the pool has doubled
                    tries = cap.tried.get(key, 0)
                    if tries >= self.config.max_tries:
                        continue
                    cap.tried[key] = tries + 1
                    used = cap.used_starts.setdefault(key, set())
                    query = self.generate(cap, loc, atom, avoid=used or None)
                    if query is None:
                        cap.unobservable[key] = len(self.pool)
                        continue
                    cap.unobservable.pop(key, None)
                    cap.queried.add(key)
                    if self._pose_confirmed(cap, loc, atom, query):
                        progress = True
            if not progress or not finished:
                break
        for cap in self.caps:
            prefer_preconditions(cap)
        return finished

    def _pose_confirmed(self, cap: CapState, loc: str, atom: Atom, query: Query) -> bool:
        """Pose ``query``; if its tested step fails, confirm the failure from another start
        state before blaming anything on it.

        Why: a failure may come from something the vocabulary cannot express (a corridor
        blocked by the key). A second failure elsewhere is recorded with the first; a
        success there refutes what the first failure suggested, and the first failure is
        kept only as a note."""
        used = cap.used_starts.setdefault((loc, atom), set())
        used.add(query.steps[-1].before)
        changed, failure, _ = self.pose(query, defer=self.config.confirm_failures
                                        and query.attributable)
        if failure is None:
            return changed
        second = self.generate(cap, loc, atom, avoid=used, strict=True)
        if second is None:
            return failure.record() | changed
        used.add(second.steps[-1].before)
        changed2, failure2, reached2 = self.pose(second, defer=True)
        if failure2 is not None:
            return failure.record() | failure2.record() | changed | changed2
        if reached2:
            cap.unexplained += 1  # the first failure is not the tuple's doing
            return changed | changed2
        return failure.record() | changed | changed2

    # ----------------------------------------------------------------- generation

    def requirements(self, cap: CapState, skip: Atom | None) -> tuple[list[Requirement],
                                                                       list[Requirement]]:
        """Literals s̃0 must satisfy: *hard* ones (settled preconditions and the signature)
        and *soft* ones (open tuples kept at the value the traces saw, so that a failure
        can be blamed on the tested tuple alone)."""
        hard: list[Requirement] = []
        soft: list[Requirement] = []
        for atom in cap.atoms:
            if atom == skip:
                continue
            modes = cap.pre[atom]
            if modes == {POS}:
                hard.append((atom, True))
            elif modes == {NEG}:
                hard.append((atom, False))
            elif modes == {POS, ABSENT}:
                soft.append((atom, True))
            elif modes == {NEG, ABSENT}:
                soft.append((atom, False))
            else:
                # Precondition settled to absent (or wide open): keep an open effect
                # predicting the same outcome in all its modes (+/0 when true, -/0 when false).
                eff = cap.eff[atom]
                if eff == {POS, ABSENT}:
                    soft.append((atom, True))
                elif eff == {NEG, ABSENT}:
                    soft.append((atom, False))
        return hard, soft

    def generate(self, cap: CapState, loc: str, atom: Atom,
                 avoid: set[AbstractState] | None = None, *, strict: bool = False) \
            -> Query | None:
        """A query whose answer tells apart the remaining modes of (cap, atom, loc)."""
        modes = cap.table(loc)[atom]
        if loc == "pre":
            want = POS not in modes  # test the atom false first when + is possible
            if modes == {NEG, ABSENT}:
                want = True
            override: dict[Atom, str] = {}
            alternative_mode: str | None = None
        else:
            if modes == {NEG, ABSENT}:
                want, first, alternative_mode = True, ABSENT, NEG
            elif modes == {POS, ABSENT}:
                want, first, alternative_mode = False, ABSENT, POS
            else:
                want, first, alternative_mode = False, POS, NEG
            override = {atom: first}
        hard, soft = self.requirements(cap, atom)
        pre_atom_mode = cap.pre[atom]
        # an effect test needs a value of the atom that its precondition allows
        if loc == "eff" and (pre_atom_mode == {POS} and not want or
                             pre_atom_mode == {NEG} and want):
            return None
        tested: Requirement = (atom, want)
        attempts = [0]
        # Is the tested value possible at all together with the hard requirements in a
        # known state? If not, only constructing a start state can help.
        seen = self._relaxed_possible(cap, hard, tested)
        found = None
        if seen:
            found = self._search_pool(cap, [*hard, *soft, tested], override, alternative_mode,
                                      atom, attempts, avoid)
        if found is None and soft:
            # A never-seen combination is usually impossible (a wall under the player):
            # one construction attempt then, a few otherwise.
            seeds = self.config.construct_seeds if seen else 1
            found = self._search_construct(cap, hard, soft, tested, override,
                                           alternative_mode, atom, attempts, avoid, seeds)
        if found is None and soft and seen:
            found = self._search_plan(cap, hard, soft, tested, override, alternative_mode,
                                      atom, attempts, avoid)
        if found is None and soft and not strict and seen:
            # Last resort: a start that violates soft requirements. Only a success is
            # conclusive (a failure may be the violated requirements' doing).
            found = self._search_pool(cap, [*hard, tested], override, alternative_mode, atom,
                                      attempts, avoid)
            if found is not None:
                found.attributable = False
        return found

    def _relaxed_possible(self, cap: CapState, hard: list[Requirement],
                          tested: Requirement) -> bool:
        """Whether some known state has a binding meeting ``hard`` and ``tested``.

        The pool only grows, so an answer is kept with the number of states it covered
        and later calls look only at the states added since. A "no" also answers for any
        larger set of hard requirements (settling tuples only adds requirements), so it
        is kept per tested literal and reused for those."""
        key = (cap.name, tuple(hard), tested)
        covered, found = self._possible.get(key, (0, False))
        states = self.pool.states
        if found or covered >= len(states):
            return found
        required = frozenset(hard)
        impossible = self._impossible.setdefault((cap.name, tested), [])
        for smaller, upto in impossible:
            if upto > covered and smaller <= required:
                covered = upto  # no state before ``upto`` meets even fewer requirements
        if covered < len(states):
            compiled = compile_requirements([*hard, tested])
            found = any(next(iter(self.match(cap, compiled, ps, {})), None) is not None
                        for ps in states[covered:])
        if len(self._possible) > 10_000:
            self._possible.clear()
            self._impossible.clear()
            impossible = self._impossible.setdefault((cap.name, tested), [])
        self._possible[key] = (len(states), found)
        if not found:
            impossible.append((required, len(states)))
        return found

    def _search_pool(self, cap: CapState, required: list[Requirement],
                     override: dict[Atom, str], alternative_mode: str | None, atom: Atom,
                     attempts: list[int], avoid: set[AbstractState] | None = None) \
            -> Query | None:
        if _contradictory(required):
            return None
        compiled = compile_requirements(required)
        states = self.pool.states
        n = len(states)
        if n == 0:
            return None
        start = self._offset % n
        self._offset += 7
        for i in range(n):
            ps = states[(start + i) % n]
            if avoid and ps.fluent in avoid:
                continue
            for tried, binding in enumerate(self._bindings(cap, compiled, ps), 1):
                query = self._make_query(cap, binding, ps.fluent, ps.concrete, override,
                                         alternative_mode, atom)
                attempts[0] += 1
                if query is not None:
                    return query
                if attempts[0] >= self.config.max_attempts:
                    return None
                if tried >= self.config.bindings_per_state:
                    break
        return None

    def _search_construct(self, cap: CapState, hard: list[Requirement],
                          soft: list[Requirement], tested: Requirement,
                          override: dict[Atom, str], alternative_mode: str | None, atom: Atom,
                          attempts: list[int], avoid: set[AbstractState] | None,
                          max_seeds: int) -> Query | None:
        """Build the start state directly: take a known state where the hard requirements
        hold, set the violated soft literals and the tested one, and refine the result
        (queries may start in any state the simulator accepts, as in AIA)."""
        if self.refine_fn is None or not self.config.construct:
            return None
        relaxed = compile_requirements(hard)
        if _contradictory([*hard, tested, *soft]):
            return None
        seeds = 0
        for ps in self.pool.states:
            for binding in itertools.islice(self._bindings(cap, relaxed, ps), 2):
                seeds += 1
                violated = self._violated(binding, [*soft, tested], ps.fluent)
                if not violated:
                    continue
                wanted = set(ps.fluent)
                for g, value in violated:
                    if value:
                        wanted.add(g)
                    else:
                        wanted.discard(g)
                before = frozenset(wanted)
                if avoid and before in avoid:
                    continue
                refined = self.refine(before, ps.concrete)
                attempts[0] += 1
                if refined is not None and not isinstance(refined, _AbstractGoal):
                    start = representative(refined)
                    query = self._make_query(cap, binding, before, start, override,
                                             alternative_mode, atom)
                    if query is not None:
                        self.pool.add(start)
                        return query
                if seeds >= max_seeds or attempts[0] >= self.config.max_attempts:
                    return None
        return None

    def _seen_grounded(self, cap: CapState, compiled: Compiled) \
            -> list[tuple[dict[str, str], list[tuple[Key, bool]]]]:
        cached = self._grounded_cache
        if cached is not None and cached[0] is cap and cached[1] is compiled and \
                cached[2] == len(cap.seen_bindings):
            return cached[3]
        found = [(b, [(gkey(a, b), v) for a, v in (*compiled.ground, *compiled.lifted)])
                 for b in cap.seen_bindings]
        self._grounded_cache = (cap, compiled, len(cap.seen_bindings), found)
        return found

    def _bindings(self, cap: CapState, compiled: Compiled, ps: PoolState) \
            -> Iterator[dict[str, str]]:
        """Bindings for ``cap`` in ``ps``: first those seen in executions (the cells that
        worked before, now in another context), then any other match."""
        state = ps.keys
        given: list[dict[str, str]] = []
        for binding, grounded in self._seen_grounded(cap, compiled):
            if all((g in state) == v for g, v in grounded):
                given.append(binding)
                yield binding
        for binding in self.match(cap, compiled, ps, {}):
            if binding not in given:
                yield binding

    def _make_query(self, cap: CapState, binding: dict[str, str], before: AbstractState,
                    concrete: Any, override: dict[Atom, str], alternative_mode: str | None,
                    atom: Atom, prefix: list[Step] | None = None) -> Query | None:
        target = apply_capability(cap, binding, before, override)
        if target == before or self.refine(target, concrete) is None:
            return None
        alternative = None
        if alternative_mode is not None:
            alternative = apply_capability(cap, binding, before, {atom: alternative_mode})
            if alternative in (before, target):
                alternative = None
        return Query(concrete, [*(prefix or []), Step(cap, binding, before, target,
                                                      alternative)])

    def refine(self, target: AbstractState, like: Any) -> Any:
        """A concrete state whose abstraction is ``target`` (``None`` if there is none).

        Without a refinement function the goal is the abstract state itself, tested by
        abstraction (agents that need concrete goals, such as policies, then fail)."""
        key = (target, like)
        if key in self._refined:
            return self._refined[key]
        if self.refine_fn is None:
            result: Any = _AbstractGoal(target, self.abstractor)
        else:
            if target in self._invalid:
                return None  # no state has this abstraction, whatever the template
            full = target | self.abstractor.type_atoms(like)
            result = self.refine_fn(full, like)
            if result is None:
                self._invalid.add(target)
                return None
        if len(self._refined) > 50_000:
            self._refined.clear()
        self._refined[key] = result
        return result

    # ----------------------------------------------------------------- matching

    def match(self, cap: CapState, required: Sequence[Requirement] | Compiled, ps: PoolState,
              bound: Mapping[str, str]) -> Iterator[dict[str, str]]:
        """Bindings of ``cap``'s parameters (injective, type-correct, extending ``bound``)
        under which ``required`` holds in ``ps``."""
        compiled = required if isinstance(required, Compiled) else compile_requirements(
            required)
        state = ps.keys
        for key, value in compiled.ground_keys:
            if (key in state) != value:
                return
        types, preferred, orders = self._match_context(cap)
        positives: list[Atom] = []
        negatives: list[Atom] = []
        for atom, value in compiled.lifted:
            if bound and all(t[0] != "?" or t in bound for t in atom.args):
                if (gkey(atom, bound) in state) != value:
                    return
                continue
            (positives if value else negatives).append(atom)
        index = ps.index
        for atom in positives:
            if atom.predicate not in index:
                return
        positives.sort(key=lambda a: len(index[a.predicate]))
        limit = self.config.max_bindings
        object_type = self.abstractor.objects
        params = cap.params

        def rec(i: int, binding: dict[str, str]) -> Iterator[dict[str, str]]:
            if i == len(positives):
                free = [v for v, _ in params if v not in binding]
                if not free:
                    if all(gkey(a, binding) not in state for a in negatives):
                        yield binding
                    return
                used = set(binding.values())
                pools = [[o for o in orders[v] if o not in used] for v in free]
                for combo in itertools.product(*pools):
                    if len(set(combo)) != len(combo):
                        continue
                    full = dict(binding)
                    full.update(zip(free, combo, strict=True))
                    if all(gkey(a, full) not in state for a in negatives):
                        yield full
                return
            atom = positives[i]
            terms = atom.args
            entries = index[atom.predicate]
            if preferred:
                hints = [(k, preferred[t]) for k, t in enumerate(terms)
                         if t in preferred and t not in binding]
                if hints:
                    good = [args for args in entries
                            if all(k < len(args) and args[k] in values for k, values in hints)]
                    if good:
                        chosen = set(good)
                        entries = good + [args for args in entries if args not in chosen]
            for args in entries:
                if len(args) != len(terms):
                    continue
                new = binding
                ok = True
                for term, obj in zip(terms, args, strict=True):
                    if term[0] == "?":
                        have = new.get(term)
                        if have is None:
                            if types.get(term) != object_type.get(obj) or \
                                    obj in new.values():
                                ok = False
                                break
                            if new is binding:
                                new = dict(binding)
                            new[term] = obj
                        elif have != obj:
                            ok = False
                            break
                    elif term != obj:
                        ok = False
                        break
                if ok:
                    yield from rec(i + 1, new)

        yield from itertools.islice(rec(0, dict(bound)), limit)

    def _match_context(self, cap: CapState) -> tuple[dict[str, str], dict[str, set[str]],
                                                     dict[str, list[str]]]:
        """Per capability, until it is executed with new objects: its parameters' types,
        the objects each parameter took in executions, and each parameter's candidate
        objects with those first (the cell next to the key worked before, so try it
        first)."""
        found = self._contexts.get(cap.name)
        if found is not None and found[0] == len(cap.seen_bindings):
            return found[1]
        types = cap.signature.var_types()
        preferred: dict[str, set[str]] = {}
        for seen in cap.seen_bindings:
            for var, obj in seen.items():
                preferred.setdefault(var, set()).add(obj)
        orders: dict[str, list[str]] = {}
        for var, _ in cap.params:
            first = [b[var] for b in cap.seen_bindings if var in b]
            orders[var] = list(dict.fromkeys([*first,
                                              *self.objects_by_type.get(types[var], [])]))
        context = (types, preferred, orders)
        self._contexts[cap.name] = (len(cap.seen_bindings), context)
        return context

    # ----------------------------------------------------------------- planning

    def _search_plan(self, cap: CapState, hard: list[Requirement], soft: list[Requirement],
                     tested: Requirement, override: dict[Atom, str],
                     alternative_mode: str | None, atom: Atom,
                     attempts: list[int], avoid: set[AbstractState] | None = None) \
            -> Query | None:
        """Plan over the candidate model: from a known state where the hard requirements
        and the tested value hold, apply up to ``plan_depth`` capabilities (means-ends:
        each achieves a violated soft requirement) to reach a state where all hold."""
        relaxed = [*hard, tested]
        if _contradictory([*relaxed, *soft]):
            return None
        seeds = 0
        compiled = compile_requirements(relaxed)
        for ps in self.pool.states:
            for binding in itertools.islice(self.match(cap, compiled, ps, {}), 2):
                seeds += 1
                plan = self._achieve(cap, binding, soft, relaxed, ps.fluent,
                                     self.config.plan_depth, ps.concrete)
                if plan is not None and (not avoid or not plan or plan[-1][3] not in avoid):
                    query = self._realise_plan(ps.concrete, plan, cap, binding, override,
                                               alternative_mode, atom)
                    attempts[0] += 1
                    if query is not None:
                        self.plans += 1
                        return query
                if seeds >= self.config.plan_seeds or attempts[0] >= self.config.max_attempts:
                    return None
        return None

    def _violated(self, binding: Mapping[str, str], reqs: Sequence[Requirement],
                  state: AbstractState) -> list[tuple[Atom, bool]]:
        keys = self._keys.get(state)
        if keys is None:
            if len(self._keys) > 20_000:
                self._keys.clear()
            keys = self._keys[state] = keys_of(state)
        out = []
        for atom, value in reqs:
            if (gkey(atom, binding) in keys) != value:
                out.append((ground_atom(atom, binding), value))
        return out

    def _achieve(self, cap: CapState, binding: Mapping[str, str], soft: list[Requirement],
                 keep: list[Requirement], state: AbstractState, depth: int, like: Any) \
            -> list[tuple[CapState, dict[str, str], AbstractState, AbstractState]] | None:
        """:meth:`_plan_means_ends`, remembered until the pool or any capability changes.

        Why: the precondition and effect tuples of one atom usually need the same start
        state, so their queries repeat the same planning problems."""
        version = (len(self.pool), sum(c.revision for c in self.caps))
        if version != self._plans_version:
            self._plans.clear()
            self._plans_version = version
        key = (cap.name, tuple(sorted(binding.items())), tuple(soft), tuple(keep), state,
               depth, like)
        if key in self._plans:
            return self._plans[key]
        plan = self._plan_means_ends(cap, binding, soft, keep, state, depth, like)
        self._plans[key] = plan
        return plan

    def _plan_means_ends(self, cap: CapState, binding: Mapping[str, str],
                         soft: list[Requirement], keep: list[Requirement],
                         state: AbstractState, depth: int, like: Any) \
            -> list[tuple[CapState, dict[str, str], AbstractState, AbstractState]] | None:
        """Means-ends planning over the candidate model: apply capabilities whose effects
        achieve violated soft requirements, keeping the hard ones, within ``depth`` steps.

        Steps use only the settled preconditions of the other capabilities (optimistic, as
        AIA's query planning): the agent's answer at that waypoint tests the prediction."""
        violated = self._violated(binding, soft, state)
        if not violated:
            return []
        if depth == 0 or len(violated) > 2 * depth:
            return None
        ps = _pool_state(state)
        # The state meets ``keep``; a step can break it, or change how many soft
        # requirements hold, only through its effects: test those before building states.
        keep_index: dict[Atom, list[bool]] = {}
        for atom, value in keep:
            keep_index.setdefault(ground_atom(atom, binding), []).append(value)
        soft_index: dict[Atom, list[bool]] = {}
        for atom, value in soft:
            soft_index.setdefault(ground_atom(atom, binding), []).append(value)
        for goal_atom, goal_value in violated:
            for other in self.caps:
                for eff in self._sorted_effects(other, goal_value):
                    if eff.predicate != goal_atom.predicate or \
                            len(eff.args) != len(goal_atom.args):
                        continue
                    pre_bound: dict[str, str] = {}
                    ok = True
                    for term, obj in zip(eff.args, goal_atom.args, strict=True):
                        if is_var(term):
                            if pre_bound.setdefault(term, obj) != obj:
                                ok = False
                        elif term != obj:
                            ok = False
                    if not ok:
                        continue
                    settled = self._settled_pre(other)
                    tried = 0
                    for other_binding in self.match(other, settled, ps, pre_bound):
                        changes = ground_effects(other, other_binding)
                        if any(value != new for g, new in changes.items()
                               for value in keep_index.get(g, ())):
                            continue
                        still = len(violated)
                        for g, new in changes.items():
                            old = g in state
                            for value in soft_index.get(g, ()):
                                still += (old == value) - (new == value)
                        if still >= len(violated):
                            continue
                        after = apply_capability(other, other_binding, state)
                        tried += 1
                        if tried > self.config.plan_bindings:
                            break
                        if self.refine(after, like) is None:
                            continue  # the predicted waypoint is no state of the world
                        rest = self._achieve(cap, binding, soft, keep, after, depth - 1, like)
                        if rest is not None:
                            return [(other, other_binding, state, after), *rest]
        return None

    def _sorted_effects(self, cap: CapState, add: bool) -> list[Atom]:
        key = (cap.name, add)
        found = self._effect_order.get(key)
        if found is None:
            effects = cap.signature.add if add else cap.signature.delete
            found = self._effect_order[key] = sorted(effects, key=str)
        return found

    def _settled_pre(self, cap: CapState) -> list[Requirement]:
        """The settled preconditions of ``cap`` as requirements (cached per revision)."""
        cached = self._settled_cache.get(cap.name)
        if cached is not None and cached[0] == cap.revision:
            return cached[1]
        settled = [(a, True) for a in cap.atoms if cap.pre[a] == {POS}]
        settled += [(a, False) for a in cap.atoms if cap.pre[a] == {NEG}]
        self._settled_cache[cap.name] = (cap.revision, settled)
        return settled

    def _realise_plan(self, start: Any, plan: list[tuple[CapState, dict[str, str],
                                                          AbstractState, AbstractState]],
                      cap: CapState, binding: dict[str, str], override: dict[Atom, str],
                      alternative_mode: str | None, atom: Atom) -> Query | None:
        steps: list[Step] = []
        concrete = start
        before = self.abstractor.fluent(start)
        for other, other_binding, _, after in plan:
            goal = self.refine(after, concrete)
            if goal is None:
                return None
            steps.append(Step(other, other_binding, before, after))
            concrete, before = representative(goal), after
        query = self._make_query(cap, binding, before, concrete, override, alternative_mode,
                                 atom)
        if query is None:
            return None
        return Query(start, [*steps, *query.steps])

    # ----------------------------------------------------------------- asking

    def pose(self, query: Query, *, defer: bool = False) -> tuple[bool, Failure | None, bool]:
        """Put the waypoints of ``query`` to the agent, stop at the first failure, and prune.

        Returns whether any mode set shrank; with ``defer``, the failure of the *last*
        (tested) step without recording it, so that the caller can confirm it first; and
        whether the tested step was reached."""
        changed = False
        concrete = query.start
        last = len(query.steps) - 1
        for i, step in enumerate(query.steps):
            goal = self.refine(step.target, concrete)
            if goal is None:
                return changed, None, False
            reached, arrived = self.ask(step.cap, concrete, goal)
            if reached is None:
                return changed, None, False
            if reached:
                changed |= observe(step.cap, step.binding, step.before, step.target)
                if not isinstance(arrived, _AbstractGoal):
                    self.pool.add(arrived)
                concrete = arrived
                if i == last:
                    return changed, None, True
                continue
            failure = Failure(step, True)
            if step.alternative is not None:
                alt_goal = self.refine(step.alternative, concrete)
                alt, alt_arrived = (None, None) if alt_goal is None else \
                    self.ask(step.cap, concrete, alt_goal)
                if alt:
                    changed |= observe(step.cap, step.binding, step.before, step.alternative)
                    if not isinstance(alt_arrived, _AbstractGoal):
                        self.pool.add(alt_arrived)
                    return changed, None, i == last
                if alt is None and alt_goal is not None:
                    return changed, None, False
                failure = Failure(step, alt_goal is None)
            if defer and i == last:
                return changed, failure, False
            changed |= failure.record()
            return changed, None, False
        return changed, None, False

    def ask(self, cap: CapState, start: Any, goal: Any) -> tuple[bool | None, Any]:
        """One state-reachability query (answered from the store when it was asked before):
        whether the agent got there, and the state it got to (for an :class:`AnyOf` goal,
        the member it reached).

        An agent that raises, or runs out of budget, gives a failed answer with its reason
        that prunes nothing (``None``)."""
        key = query_key(start, goal)
        repeat = self._answers.get(key)
        if repeat is not None:
            return repeat  # asked earlier in this run: not a new query
        stored = self.store.get_answer(key)
        cached = stored is not None
        began = time.perf_counter()
        if stored is None:
            member = None
            try:
                attempt = self.agent.query(start, goal, self.config.query_budget)
                status: str = attempt.status
                reason = attempt.reason
                if attempt.reached:
                    reached: bool | None = True
                    if isinstance(goal, AnyOf):
                        final = attempt.states[-1] if attempt.states else None
                        member = goal.states.index(final) if final in goal else 0
                elif status == "budget":
                    reached = None
                else:
                    reached = False
            except Exception as exc:  # noqa: BLE001 - the agent is a black box
                status, reason, reached = "error", f"{type(exc).__name__}: {exc}", None
            seconds = time.perf_counter() - began
            stored = Answer(status, reached, seconds, reason, member)
            self.store.put_answer(key, cap.name, stored)
            self.asked.append((cap.name, start, goal, reached))
        else:
            seconds = time.perf_counter() - began
        self.query_seconds += seconds
        arrived = goal.states[stored.member or 0] if isinstance(goal, AnyOf) else goal
        self._answers[key] = (stored.reached, arrived)
        self.records.append(QueryRecord(cap.name, _short(start), _short(goal), stored.status,
                                        stored.reached, stored.seconds, cached, stored.reason))
        if self.progress is not None:
            settled = sum(1 for c in self.caps if c.settled())
            self.progress("query", {
                "queries": len(self.records),
                "settled": settled,
                "capabilities": len(self.caps),
                "seconds_per_query": self.query_seconds / max(1, len(self.records)),
            })
        return stored.reached, arrived

    def recheck(self, count: int) -> int:
        """Ask up to ``count`` earlier queries again; a different answer marks the capability
        unreliable (a non-deterministic simulator or agent). Returns the mismatches."""
        if count <= 0 or not self.asked:
            return 0
        step = max(1, len(self.asked) // count)
        mismatches = 0
        by_name = {c.name: c for c in self.caps}
        for name, start, goal, reached in self.asked[::step][:count]:
            try:
                attempt = self.agent.query(start, goal, self.config.query_budget)
                again: bool | None = True if attempt.reached else (
                    None if attempt.status == "budget" else False)
            except Exception:  # noqa: BLE001
                again = None
            if reached is None or again is None or again == reached:
                continue
            mismatches += 1
            cap = by_name.get(name)
            if cap is not None:
                cap.mark("the same query was answered two ways: the agent or simulator is "
                         "not deterministic")
        return mismatches


class _AbstractGoal:
    """A goal given as an abstract state (when no refinement function is available)."""

    def __init__(self, target: AbstractState, abstractor: Abstractor) -> None:
        self.target = target
        self.abstractor = abstractor

    def __call__(self, state: Any) -> bool:
        return self.abstractor.fluent(state) == self.target

    def __repr__(self) -> str:
        return "abstract:" + " ".join(sorted(str(a) for a in self.target))


def _index(state: AbstractState) -> dict[str, list[tuple[str, ...]]]:
    """Argument tuples per predicate, sorted (set order varies between processes, and
    runs must be reproducible for a store to resume them)."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for atom in state:
        index.setdefault(atom.predicate, []).append(atom.args)
    for args in index.values():
        args.sort()
    return index


def _pool_state(state: AbstractState) -> PoolState:
    return PoolState(None, state, _index(state))


@dataclass(frozen=True)
class Compiled:
    """Requirements split into ground literals (checked first, by set membership) and
    literals with variables."""

    ground: tuple[Requirement, ...]
    lifted: tuple[Requirement, ...]
    ground_keys: tuple[tuple[Key, bool], ...] = ()


def compile_requirements(required: Sequence[Requirement]) -> Compiled:
    ground: list[Requirement] = []
    lifted: list[Requirement] = []
    for atom, value in required:
        (lifted if any(t[0] == "?" for t in atom.args) else ground).append((atom, value))
    return Compiled(tuple(ground), tuple(lifted),
                    tuple(((a.predicate, a.args), v) for a, v in ground))


def _contradictory(required: Sequence[Requirement]) -> bool:
    values: dict[Atom, bool] = {}
    return any(values.setdefault(atom, value) != value for atom, value in required)


def _short(state: Any) -> str:
    text = repr(state)
    return text if len(text) <= 120 else text[:117] + "..."
