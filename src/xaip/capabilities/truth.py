"""A capability model against the simulator's true transition relation, by enumeration.

Why: sampling (:func:`~xaip.capabilities.checks.check_realisability`) can refute a
capability but says little about how often it is wrong or what it misses. Where the
reachable part of a game is small enough to list, this module lists it and measures the
model exactly, from the definitions and nothing else:

* **precision** (Def. 7, realisability): of all predictions the model makes -- a reachable
  concrete state ``s``, a grounding of a capability whose precondition holds in ``f(s)``
  and whose result ``c(f(s))`` differs from ``f(s)`` and describes a state of the game --
  the fraction for which some state reachable from ``s`` (by *any* actions, not only the
  agent's) has exactly the abstraction ``c(f(s))``;
* **recall** (Def. 5 over the whole game, not just the run's traces): of the distinct
  abstract transitions ``f(s) -> f(s')`` of single simulator steps that change the
  abstraction, the fraction some grounded capability explains.

Precision below 1 refutes the model (it claims something no agent can do); recall below 1
does not (a model is only claimed to be consistent with the traces it saw; the agent need
not do all the simulator allows), so it is reported, not checked.

How reachability is computed: the reachable graph is listed once by breadth-first search,
its strongly connected components found (iterative Tarjan), and the set of abstractions
reachable from each component is one Python int (a bit per distinct abstraction), filled
in reverse topological order. Shares with discovery: the vocabulary's abstraction and the
game's refinement (only to tell whether a predicted abstract state describes any state);
nothing else. Every listed state and every tested prediction is one node of the budget.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from xaip.capabilities.model import Capability, CapabilityModel
from xaip.errors import BudgetExhausted
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import BudgetClock
from xaip.vocab.core import Vocabulary

State = frozenset[Atom]
#: At most this many reachable states are listed (beyond: "not enumerated").
MAX_STATES = 4_000
#: At most this many predictions are tested (a seeded sample beyond it, said so).
MAX_PREDICTIONS = 20_000


@dataclass(frozen=True)
class TruthReport:
    """The model measured against the enumerated transition relation."""

    enumerated: bool
    states: int
    predictions: int = 0
    realised: int = 0
    sampled: bool = False
    transitions: int = 0
    explained: int = 0
    failures: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()
    per_capability: tuple[tuple[str, int, int], ...] = ()

    @property
    def precision(self) -> float | None:
        return self.realised / self.predictions if self.predictions else None

    @property
    def recall(self) -> float | None:
        return self.explained / self.transitions if self.transitions else None

    @property
    def ok(self) -> bool:
        """No prediction refuted (vacuously true when nothing was enumerated)."""
        return self.realised == self.predictions

    def to_dict(self) -> dict[str, Any]:
        return {
            "enumerated": self.enumerated,
            "states": self.states,
            "predictions": self.predictions,
            "realised": self.realised,
            "precision": self.precision,
            "sampled": self.sampled,
            "transitions": self.transitions,
            "explained": self.explained,
            "recall": self.recall,
            "per_capability": {n: {"realised": r, "predictions": p}
                               for n, r, p in self.per_capability},
            "failures": [{"capability": c, "binding": dict(b)}
                         for c, b in self.failures[:20]],
        }


def _charge(clock: BudgetClock | None, what: str) -> None:
    if clock is not None and not clock.charge():
        raise BudgetExhausted(f"the checker ran out of budget while {what}", "checking")


def reachable_graph(simulator: Any, start: Hashable, limit: int,
                    clock: BudgetClock | None) -> tuple[list[Hashable], list[list[int]]] | None:
    """Every state reachable from ``start`` and the successor lists, or ``None`` beyond
    ``limit`` states."""
    index = {start: 0}
    states = [start]
    edges: list[list[int]] = []
    i = 0
    while i < len(states):
        _charge(clock, "listing reachable states")
        state = states[i]
        out: list[int] = []
        for action in simulator.actions(state):
            nxt = simulator.step(state, action)
            j = index.get(nxt)
            if j is None:
                if len(states) >= limit:
                    return None
                j = index[nxt] = len(states)
                states.append(nxt)
            out.append(j)
        edges.append(out)
        i += 1
    return states, edges


def components(edges: list[list[int]]) -> tuple[list[int], int]:
    """Tarjan's strongly connected components, iteratively: the component of each node
    (numbered in reverse topological order: successors' components come first)."""
    n = len(edges)
    order = [-1] * n
    low = [0] * n
    comp = [-1] * n
    on_stack = [False] * n
    stack: list[int] = []
    counter = 0
    count = 0
    for root in range(n):
        if order[root] != -1:
            continue
        work: list[tuple[int, int]] = [(root, 0)]
        while work:
            node, k = work.pop()
            if k == 0:
                order[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            pushed = False
            for pos in range(k, len(edges[node])):
                nxt = edges[node][pos]
                if order[nxt] == -1:
                    work.append((node, pos + 1))
                    work.append((nxt, 0))
                    pushed = True
                    break
                if on_stack[nxt]:
                    low[node] = min(low[node], order[nxt])
            if pushed:
                continue
            if low[node] == order[node]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    comp[member] = count
                    if member == node:
                        break
                count += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return comp, count


def _subst(atom: Atom, binding: dict[str, str]) -> Atom:
    return Atom(atom.predicate, tuple(binding.get(a, a) for a in atom.args))


def groundings(cap: Capability, state: State, objects: dict[str, str]
               ) -> Iterator[dict[str, str]]:
    """Every injective, type-correct binding under which ``cap``'s precondition holds in
    ``state`` (extended parameter by parameter; a literal is tested once all its
    parameters are bound), in the order of the objects' names.

    Why the candidate filter: trying every object for every parameter cost the checker
    10x discovery's time on Zelda 8x8 (64 cells, 10 million extensions, nearly all failing
    a literal at once). Where a positive literal's test falls at a parameter's stage, only
    the objects that make some atom of ``state`` match it can pass that test, so the
    others are skipped without trying them: the same bindings in the same order.
    """
    params = list(cap.parameters)
    by_type: dict[str, list[str]] = {}
    for obj, typ in sorted(objects.items()):
        by_type.setdefault(typ, []).append(obj)
    stage_of = {var: k + 1 for k, (var, _) in enumerate(params)}
    tests: list[list[Any]] = [[] for _ in range(len(params) + 1)]
    for lit in cap.preconditions:
        stage = max((stage_of.get(a, 0) for a in lit.atom.args), default=0)
        tests[stage].append(lit)
    # For parameter i, one positive literal tested at its stage (i + 1) that mentions it.
    guide: list[Any] = [next((lit for lit in tests[k + 1] if lit.positive and var in
                              lit.atom.args), None) for k, (var, _) in enumerate(params)]
    atoms_of: dict[tuple[str, int], list[tuple[str, ...]]] = {}
    if any(g is not None for g in guide):
        for atom in state:
            atoms_of.setdefault((atom.predicate, len(atom.args)), []).append(atom.args)

    def candidates(lit: Any, var: str, binding: dict[str, str]) -> set[str]:
        """The values of ``var`` under which ``lit`` (all else bound) is in ``state``."""
        want = [None if a == var else binding.get(a, a) for a in lit.atom.args]
        out: set[str] = set()
        for args in atoms_of.get((lit.atom.predicate, len(want)), ()):
            value = None
            for w, a in zip(want, args, strict=True):
                if w is None:
                    if value is None:
                        value = a
                    elif value != a:
                        break
                elif w != a:
                    break
            else:
                if value is not None:
                    out.add(value)
        return out

    def extend(i: int, binding: dict[str, str]) -> Iterator[dict[str, str]]:
        for lit in tests[i]:
            if (_subst(lit.atom, binding) in state) != lit.positive:
                return
        if i == len(params):
            yield dict(binding)
            return
        var, typ = params[i]
        used = set(binding.values())
        allowed = None if guide[i] is None else candidates(guide[i], var, binding)
        for obj in by_type.get(typ, ()):
            if obj in used or (allowed is not None and obj not in allowed):
                continue
            binding[var] = obj
            yield from extend(i + 1, binding)
            del binding[var]

    yield from extend(0, {})


def apply(cap: Capability, binding: dict[str, str], state: State) -> State:
    """The abstract state after the grounded capability (deletes first, then adds)."""
    out = set(state)
    for lit in cap.effects:
        if not lit.positive:
            out.discard(_subst(lit.atom, binding))
    for lit in cap.effects:
        if lit.positive:
            out.add(_subst(lit.atom, binding))
    return frozenset(out)


@dataclass
class Enumeration:
    """Every state reachable from a start, its abstraction, and the abstractions reachable
    from it (one bit set per strongly connected component)."""

    states: list[Any]
    edges: list[list[int]]
    abstract: list[State]
    ids: dict[State, int]
    comp: list[int]
    reach: list[int]
    objects: dict[str, str]
    _larger: dict[State, list[State]] | None = None

    def one_more(self, fluent: State) -> list[State]:
        """The listed abstractions with exactly one atom more than ``fluent``."""
        if self._larger is None:
            self._larger = {}
            for known in self.ids:
                for atom in known:
                    self._larger.setdefault(known - {atom}, []).append(known)
        return self._larger.get(fluent, [])

    def realised(self, node: int, target: State) -> bool:
        """Some state reachable from ``states[node]`` has exactly the abstraction
        ``target``."""
        tid = self.ids.get(target)
        return tid is not None and bool(self.reach[self.comp[node]] >> tid & 1)


def enumerate_game(simulator: Any, vocabulary: Vocabulary, start: Hashable,
                   clock: BudgetClock | None = None,
                   max_states: int = MAX_STATES) -> Enumeration | None:
    """The :class:`Enumeration` of the states reachable from ``start``, or ``None`` when
    there are more than ``max_states``."""
    graph = reachable_graph(simulator, start, max_states, clock)
    if graph is None:
        return None
    states, edges = graph
    abstract: list[State] = []
    objects: dict[str, str] = {}
    for state in states:
        _charge(clock, "abstracting reachable states")
        abstract.append(vocabulary.abstract(state, include_types=False))
        objects.update(vocabulary.objects(state))
    ids: dict[State, int] = {}
    for fluent in abstract:
        ids.setdefault(fluent, len(ids))
    comp, count = components(edges)
    reach = [0] * count
    members: list[list[int]] = [[] for _ in range(count)]
    for node, c in enumerate(comp):
        members[c].append(node)
    for c in range(count):  # successors' components are numbered first
        bits = 0
        for node in members[c]:
            bits |= 1 << ids[abstract[node]]
            for nxt in edges[node]:
                if comp[nxt] != c:
                    bits |= reach[comp[nxt]]
        reach[c] = bits
    return Enumeration(states, edges, abstract, ids, comp, reach, objects)


def measure(model: CapabilityModel, simulator: Any, vocabulary: Vocabulary, start: Hashable,
            *, is_state: Callable[[State, Any], bool] | None = None,
            clock: BudgetClock | None = None, max_states: int = MAX_STATES,
            max_predictions: int = MAX_PREDICTIONS, seed: int = 0) -> TruthReport:
    """Precision and recall of ``model`` on the states reachable from ``start`` (module
    docstring); ``enumerated`` is false when there are more than ``max_states``."""
    found = enumerate_game(simulator, vocabulary, start, clock, max_states)
    if found is None:
        return TruthReport(False, max_states)
    states, edges, abstract, ids = found.states, found.edges, found.abstract, found.ids
    objects = found.objects

    examined = [cap for cap in model.capabilities if cap.examined]  # (--focus)
    predictions: list[tuple[int, Capability, dict[str, str], State]] = []
    for node, fluent in enumerate(abstract):
        for cap in examined:
            for binding in groundings(cap, fluent, objects):
                _charge(clock, "grounding the capabilities")
                target = apply(cap, binding, fluent)
                if target != fluent:
                    predictions.append((node, cap, binding, target))
    sampled = len(predictions) > max_predictions
    if sampled:
        predictions = random.Random(f"truth:{seed}").sample(predictions, max_predictions)
    realised = 0
    failures: list[tuple[str, tuple[tuple[str, str], ...]]] = []
    per: dict[str, list[int]] = {c.name: [0, 0] for c in examined}
    tested = 0
    for node, cap, binding, target in predictions:
        _charge(clock, "testing predictions")
        if is_state is not None and not is_state(target, states[node]):
            continue  # describes no state of the game at all (counted by the sampler)
        tested += 1
        per[cap.name][1] += 1
        if found.realised(node, target):
            realised += 1
            per[cap.name][0] += 1
        else:
            failures.append((cap.name, tuple(sorted(binding.items()))))

    seen: set[tuple[int, int]] = set()
    explained = 0
    for node, out in enumerate(edges):
        for nxt in out:
            a, b = ids[abstract[node]], ids[abstract[nxt]]
            if a == b or (a, b) in seen:
                continue
            seen.add((a, b))
            _charge(clock, "explaining transitions")
            before, after = abstract[node], abstract[nxt]
            if any(apply(cap, g, before) == after for cap in examined
                   for g in groundings(cap, before, objects)):
                explained += 1
    return TruthReport(True, len(states), tested, realised, sampled, len(seen), explained,
                       tuple(failures),
                       tuple((n, r, p) for n, (r, p) in sorted(per.items())))
