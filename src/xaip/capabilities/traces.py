"""Execution traces (Alg. 1 line 1) and their abstraction into the user's vocabulary.

Why traces first: capability discovery starts from what the agent was *seen* doing. We give
the agent random tasks ⟨s_I, s_G⟩ — winning the level (when the simulator can solve its own
game) and going from one random-walk state to another — and keep the states it passes
through, even when it fails (a failed attempt still shows real transitions).

Abstraction maps each concrete state to the set of vocabulary atoms true in it; an
*abstract trace* is the abstracted state sequence with consecutive repetitions removed
(turning on the spot, for instance, is invisible to a vocabulary without orientation).
The :class:`Abstractor` caches abstractions, because the same concrete states come back
many times (traces, the state pool, query waypoints).
"""

from __future__ import annotations

import random
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.agents.agents import Agent, Attempt
from xaip.agents.simulator import Simulator, execute, random_walk
from xaip.errors import InputError
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget
from xaip.vocab.core import Vocabulary, VocabularyError

AbstractState = frozenset[Atom]


class Abstractor:
    """The user's abstraction function f (Def. 4) with a cache.

    ``fluent(state)`` is the abstract state without type atoms (what changes), ``full(state)``
    adds the type atoms (what a refinement function needs). Objects and their types are
    collected over every state seen, so that candidate capabilities can be typed.
    """

    def __init__(self, vocabulary: Vocabulary, *, cache_limit: int = 200_000) -> None:
        self.vocabulary = vocabulary
        self.type_names = frozenset(t.name for t in vocabulary.types)
        self.objects: dict[str, str] = {}
        self._cache: dict[Hashable, tuple[AbstractState, AbstractState]] = {}
        self._limit = cache_limit
        self.calls = 0

    def _both(self, state: Hashable) -> tuple[AbstractState, AbstractState]:
        found = self._cache.get(state)
        if found is not None:
            return found
        self.calls += 1
        try:
            full = self.vocabulary.abstract(state)
        except VocabularyError:
            raise
        except Exception as exc:  # noqa: BLE001 - user code: report with the state
            raise VocabularyError(f"abstracting a state failed: {type(exc).__name__}: {exc}") \
                from exc
        types = self.type_names
        fluent = frozenset(a for a in full if a.predicate not in types)
        for atom in full:
            if atom.predicate in types:
                self.objects.setdefault(atom.args[0], atom.predicate)
        if len(self._cache) >= self._limit:
            self._cache.clear()
        pair = (full, fluent)
        self._cache[state] = pair
        return pair

    def fluent(self, state: Hashable) -> AbstractState:
        """Abstract state without type atoms."""
        return self._both(state)[1]

    def full(self, state: Hashable) -> AbstractState:
        """Abstract state with type atoms."""
        return self._both(state)[0]

    def type_atoms(self, state: Hashable) -> AbstractState:
        full, fluent = self._both(state)
        return full - fluent


@dataclass(frozen=True)
class Trace:
    """One execution of a task by the agent: the concrete states it went through."""

    task: str
    states: tuple[Any, ...]
    actions: tuple[str, ...]
    status: str
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "status": self.status,
            "steps": len(self.actions),
            "actions": list(self.actions),
            "reason": self.reason,
        }


@dataclass(frozen=True)
class AbstractTrace:
    """A trace in the user's vocabulary with repetitions removed.

    ``concrete[i]`` is the first concrete state of the trace whose abstraction is
    ``states[i]`` (kept so that abstract states seen in traces can start queries).
    """

    states: tuple[AbstractState, ...]
    concrete: tuple[Any, ...]

    def transitions(self) -> list[tuple[AbstractState, AbstractState]]:
        return list(zip(self.states, self.states[1:], strict=False))

    def to_dict(self) -> dict[str, Any]:
        return {"length": len(self.states) - 1}


def abstract_trace(trace: Trace, abstractor: Abstractor) -> AbstractTrace:
    """The abstract execution trace of ``trace`` (the longest subsequence without two equal
    consecutive abstract states)."""
    states: list[AbstractState] = []
    concrete: list[Any] = []
    for state in trace.states:
        abs_state = abstractor.fluent(state)
        if not states or states[-1] != abs_state:
            states.append(abs_state)
            concrete.append(state)
    return AbstractTrace(tuple(states), tuple(concrete))


@dataclass(frozen=True)
class Task:
    """A random task ⟨s_I, s_G⟩ for the agent; ``goal`` is a concrete state."""

    name: str
    start: Any
    goal: Any


def random_tasks(
    simulator: Simulator[Any],
    start: Any,
    count: int,
    seed: int,
    *,
    walk_length: int = 12,
    win: bool = True,
) -> list[Task]:
    """``count`` tasks: first (if ``win`` and the simulator can solve its own game) winning
    from ``start``, then tasks between random-walk states (goals 1 to ``walk_length``
    random actions away, so that near and far goals mix).

    Goals are concrete states reached by seeded random walks, so every goal is reachable by
    construction; the agent may still fail (a policy that does not fit, a budget).
    """
    if count < 0:
        raise InputError(f"the number of tasks must be at least 0, got {count}")
    rng = random.Random(f"tasks:{seed}")
    tasks: list[Task] = []
    solve = getattr(simulator, "solve", None)
    if win and count > 0 and callable(solve):
        plan = solve(start)
        if plan:
            goal = execute(simulator, start, list(plan))[-1]
            tasks.append(Task("win the game", start, goal))
    while len(tasks) < count:
        lead = random_walk(simulator, start, rng.randrange(walk_length + 1), rng)[-1]
        walk = random_walk(simulator, lead, rng.randint(1, max(1, walk_length)), rng)
        goal = walk[-1]
        if goal == lead:
            # A dead end; a task to stay put teaches nothing, try elsewhere.
            lead = start
            goal = random_walk(simulator, start, walk_length, rng)[-1]
            if goal == start:
                break
        tasks.append(Task(f"random task {len(tasks)}", lead, goal))
    return tasks


def run_task(agent: Agent[Any], task: Task, budget: Budget | None) -> Trace:
    """Let the agent attempt ``task``; errors of the agent become failed traces."""
    try:
        attempt: Attempt[Any] = agent.query(task.start, task.goal, budget)
    except Exception as exc:  # noqa: BLE001 - a failing agent is data, not a crash
        return Trace(task.name, (task.start,), (), "error", f"{type(exc).__name__}: {exc}")
    states = attempt.states if attempt.states else (task.start,)
    return Trace(task.name, tuple(states), tuple(attempt.plan), attempt.status, attempt.reason)


def replay(simulator: Simulator[Any], task: Task, actions: Sequence[str], status: str,
           reason: str = "") -> Trace:
    """Rebuild a stored trace from its plan (used when resuming from a store)."""
    return Trace(task.name, tuple(execute(simulator, task.start, list(actions))),
                 tuple(actions), status, reason)


def random_states(
    simulator: Simulator[Any],
    starts: Iterable[Any],
    count: int,
    seed: int,
    walk_length: int = 20,
) -> list[Any]:
    """About ``count`` distinct states from seeded random walks out of ``starts``.

    Why: as the random states of AIA, they are candidate initial states for queries that
    the traces alone do not provide (a key already held while the monster is alive...).
    """
    rng = random.Random(f"states:{seed}")
    roots = list(starts)
    if not roots:
        return []
    seen: dict[Any, None] = {}
    attempts = 0
    while len(seen) < count and attempts < 4 * count + 10:
        attempts += 1
        root = roots[rng.randrange(len(roots))]
        for state in random_walk(simulator, root, walk_length, rng):
            seen.setdefault(state, None)
    return list(seen)


