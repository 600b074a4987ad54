"""Def. 7 sampled: does the simulator realise a capability's prediction from fresh states?

From *fresh* states (seeded random walks in the simulator, not the states discovery used),
for a seeded random grounding per state whose precondition holds and whose predicted
result is a real state of the game, a breadth-first search **in the simulator** (any
actions, not the learned model, not the agent) looks for a state with exactly the
predicted abstraction. Found: realised. Every reachable state searched without finding it:
not realised, which refutes the model.

How the budget is split (issue 21: a checker runs under the user's budget, never under a
cap of its own). The cases are listed first; then case ``i`` of ``n`` gets an equal share
of what is left of the check's budget -- ``remaining / (n - i)`` nodes and seconds -- so a
case that needs little leaves the rest to the later ones, and one case that cannot be
decided cannot starve the others of theirs. A case that spends its share is *undecided*
(outcome ``budget``); the answer is then "unverified: checker budget" unless another case
refutes it. Without a budget the searches run to the end: on a finite game every case is
decided.

Why it is fast enough without a cap (profiled on Snowman 5x5, where the old 20,000-node
cap left cases undecided): a realised prediction is found within a few hundred states; the
cost is in predictions that are *not* realised, which take a search of everything
reachable (293,059 states there). The sampled states are walks through one level, so
their reachable sets nest: after a search that listed everything reachable from ``a``
without finding its target, the set of states it listed and the abstractions it met are
kept, and a later case from a state ``b`` inside that set whose target is not among those
abstractions is not realised at once (everything reachable from ``b`` is reachable from
``a``). Abstractions are computed once per state across all cases. The memory of
exhausted searches keeps at most :data:`REMEMBERED` states (oldest dropped: it only saves
time, never changes an answer).
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from xaip.capabilities.model import CapabilityModel
from xaip.capabilities.truth import apply, groundings
from xaip.errors import BudgetExhausted
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget, BudgetClock
from xaip.vocab.core import Vocabulary

State = frozenset[Atom]
#: States kept in the memory of exhausted searches (a speed-up only).
REMEMBERED = 2_000_000
#: Abstractions kept in the cache shared by the cases (a speed-up only).
CACHED = 500_000


def _charge(clock: BudgetClock | None, what: str) -> None:
    if clock is not None and not clock.charge():
        raise BudgetExhausted(f"the checker ran out of budget while {what}", "checking")


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
        """``(realised, tested)`` for a capability (undecided cases excluded)."""
        mine = [c for c in self.cases if c.capability == name and c.outcome != "budget"]
        return sum(1 for c in mine if c.outcome == "realised"), len(mine)

    @property
    def realised(self) -> int:
        return sum(1 for c in self.cases if c.outcome == "realised")

    @property
    def tested(self) -> int:
        return sum(1 for c in self.cases if c.outcome != "budget")

    @property
    def undecided(self) -> int:
        """Cases that spent their share of the budget (module docstring)."""
        return sum(1 for c in self.cases if c.outcome == "budget")

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
            "undecided": self.undecided,
            "rate": self.rate,
            "per_capability": {n: dict(zip(("realised", "tested"), self.counts(n),
                                           strict=True)) for n in names},
            "invalid_targets": dict(self.invalid_targets),
            "failures": [c.to_dict() for c in self.failures()],
        }


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


class _Searcher:
    """Breadth-first searches in the simulator for an abstraction, sharing the abstraction
    cache and the memory of exhausted searches across cases (module docstring)."""

    def __init__(self, simulator: Any, vocabulary: Vocabulary) -> None:
        self.simulator = simulator
        self.vocabulary = vocabulary
        self.abstractions: dict[Any, State] = {}
        self.exhausted: list[tuple[set[Any], set[State]]] = []
        self.remembered = 0

    def abstract(self, state: Any) -> State:
        fluent = self.abstractions.get(state)
        if fluent is None:
            if len(self.abstractions) > CACHED:
                self.abstractions.clear()
            fluent = self.vocabulary.abstract(state, include_types=False)
            self.abstractions[state] = fluent
        return fluent

    def known_unreachable(self, start: Any, target: State) -> bool:
        """Everything reachable from ``start`` was listed by an earlier exhausted search,
        and ``target`` was not among the abstractions it met."""
        return any(start in states and target not in seen
                   for states, seen in self.exhausted)

    def reach(self, start: Any, target: State, case: BudgetClock,
              run: BudgetClock | None) -> tuple[str, int]:
        """``("realised" | "not-realised" | "budget", nodes)``: ``case`` is this case's
        share (running out: undecided), ``run`` the whole check's budget."""
        if self.known_unreachable(start, target):
            return "not-realised", 0
        seen = {start}
        met: set[State] = set()
        queue = deque([start])
        nodes = 0
        while queue:
            state = queue.popleft()
            fluent = self.abstract(state)
            if fluent == target:
                return "realised", nodes
            met.add(fluent)
            if not case.charge():
                return "budget", nodes
            _charge(run, "searching the simulator")
            nodes += 1
            for action in self.simulator.actions(state):
                nxt = self.simulator.step(state, action)
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append(nxt)
        self._remember(seen, met)
        return "not-realised", nodes

    def _remember(self, states: set[Any], met: set[State]) -> None:
        self.exhausted.append((states, met))
        self.remembered += len(states)
        while self.remembered > REMEMBERED and len(self.exhausted) > 1:
            dropped, _ = self.exhausted.pop(0)
            self.remembered -= len(dropped)


def share(clock: BudgetClock | None, left: int) -> Budget:
    """An equal share of what is left of ``clock``'s budget for one of ``left`` cases
    (unlimited without a budget)."""
    if clock is None:
        return Budget()
    remaining = clock.remaining()
    nodes = None if remaining.max_nodes is None else remaining.max_nodes // max(1, left)
    seconds = None if remaining.max_seconds is None else remaining.max_seconds / max(1, left)
    return Budget(nodes, seconds)


def check_realisability(
    model: CapabilityModel,
    simulator: Any,
    vocabulary: Vocabulary,
    states: Iterable[Any],
    *,
    is_state: Callable[[State, Any], bool] | None = None,
    per_capability: int = 5,
    clock: BudgetClock | None = None,
    seed: int = 0,
) -> RealisabilityReport:
    """Check Def. 7 from the given concrete ``states`` (use :func:`fresh_states`).

    For each capability, up to ``per_capability`` groundings (at most one per state, drawn
    at random with the checker's own ``seed`` among those whose precondition holds and
    whose result differs) are tested. ``is_state(target, like)`` says whether some concrete
    state has the predicted abstraction (e.g. ``concretize`` is non-empty); predictions
    that describe no state at all (a constraint the vocabulary cannot express, such as
    "cell2 is next to the monster") are counted in ``invalid_targets`` instead.
    ``clock`` is the check's budget, split equally among the cases (module docstring);
    ``None``: every search runs to the end.
    """
    rng = random.Random(f"realise:{seed}")
    invalid: dict[str, int] = {}
    searcher = _Searcher(simulator, vocabulary)
    prepared = []
    for state in states:
        prepared.append((state, searcher.abstract(state), vocabulary.objects(state)))
    todo: list[tuple[str, dict[str, str], Any, State]] = []
    for cap in model.capabilities:
        if not cap.examined:  # a focused run makes no claim about it
            continue
        tested = 0
        for state, fluent, objects in prepared:
            if tested >= per_capability:
                break
            options = []
            for binding in groundings(cap, fluent, objects):
                _charge(clock, "grounding the capabilities")
                options.append(binding)
            rng.shuffle(options)
            for binding in options:
                target = apply(cap, binding, fluent)
                if target == fluent:
                    continue
                if is_state is not None and not is_state(target, state):
                    invalid[cap.name] = invalid.get(cap.name, 0) + 1
                    continue
                todo.append((cap.name, binding, state, target))
                tested += 1
                break
    cases: list[RealisabilityCase] = []
    for i, (name, binding, state, target) in enumerate(todo):
        part = share(clock, len(todo) - i).start()
        outcome, nodes = searcher.reach(state, target, part, clock)
        cases.append(RealisabilityCase(name, tuple(sorted(binding.items())), outcome, nodes))
    return RealisabilityReport(tuple(cases), invalid)
