"""Answers to state-reachability queries: the record kept per query, where records live
between runs, and their stable keys.

Why a module of its own: the store (:mod:`xaip.capabilities.store`), trace collection and
the query engine all read and write answers; none of them should import the others for it.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from xaip.agents.agents import Agent, AnyOf
from xaip.capabilities.model import QueryRecord
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.executors import Executor


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



def short(state: Any) -> str:
    """``repr(state)`` cut to 120 characters (for query records)."""
    text = repr(state)
    return text if len(text) <= 120 else text[:117] + "..."


# --------------------------------------------------------------------------- asking the agent

#: The agent that answers queries inside executor workers (see :func:`install_agent`).
_WORKER_AGENT: Agent[Any] | None = None


def install_agent(factory: Any, *args: Any) -> None:
    """Executor initializer: build this worker's agent as ``factory(*args)`` (the agent
    itself need not be picklable, only the factory and its arguments)."""
    global _WORKER_AGENT
    _WORKER_AGENT = factory(*args)


def wall_deadline(clock: BudgetClock | None) -> float | None:
    """The run's deadline as wall-clock time (``time.time()``), or ``None`` without one.

    Why wall-clock: a batch of queries or traces waits in an executor's queue; a budget in
    seconds given when the batch is sent would restart for every item a worker takes, so
    twelve traces on two workers could take six times the run's budget. Items carry this
    absolute deadline and the worker cuts each item's budget to it when it starts."""
    if clock is None or clock.budget.max_seconds is None:
        return None
    return time.time() + max(0.0, clock.budget.max_seconds - clock.elapsed())


def within(budget: Budget, deadline: float | None) -> Budget:
    """``budget`` with its seconds cut to what is left before ``deadline`` (wall clock)."""
    if deadline is None:
        return budget
    left = max(0.0, deadline - time.time())
    if budget.max_seconds is not None:
        left = min(left, budget.max_seconds)
    return Budget(budget.max_nodes, left)


def answer_query(item: tuple[Any, Any, Budget, float | None]) -> Answer:
    """Answer one query with the worker's agent (module-level, so executors can send it);
    its budget is cut to the run's wall-clock deadline when the worker starts it."""
    if _WORKER_AGENT is None:  # pragma: no cover - a mis-configured executor
        raise RuntimeError("no agent installed in this worker")
    start, goal, budget, deadline = item
    return attempt_answer(_WORKER_AGENT, start, goal, within(budget, deadline))


def answer_alone(item: tuple[Any, Any, Budget, float | None]) -> Answer:
    """:func:`answer_query` by an agent that remembers nothing of other queries
    (:func:`attempt_alone`): the answer, reason included, is the same on any worker."""
    if _WORKER_AGENT is None:  # pragma: no cover - a mis-configured executor
        raise RuntimeError("no agent installed in this worker")
    start, goal, budget, deadline = item
    return attempt_alone(_WORKER_AGENT, start, goal, within(budget, deadline))


@contextlib.contextmanager
def without_memory(agent: Any) -> Iterator[None]:
    """Run a unit of work with ``agent``'s memory of earlier searches dropped before and
    after, and none kept during (a search agent's memory changes an answer's reason,
    never whether the goal was reached): what the unit gets does not depend on what its
    process searched before, and the process's agent is the same after it whether or not
    the unit ran here. Agents without a memory are used as they are."""
    forget = getattr(agent, "forget", None)
    memory = getattr(agent, "memory", None)
    if callable(forget):
        forget()
    if isinstance(memory, int) and memory > 0:
        agent.memory = 0
    try:
        yield
    finally:
        if callable(forget):
            forget()
        if isinstance(memory, int) and memory > 0:
            agent.memory = memory


def attempt_alone(agent: Agent[Any], start: Any, goal: Any, budget: Budget) -> Answer:
    """:func:`attempt_answer` by ``agent`` :func:`without_memory`: what a query answered
    as a unit of work gets, wherever it runs."""
    with without_memory(agent):
        return attempt_answer(agent, start, goal, budget)


def answer_trace(item: tuple[Any, Budget, float | None]) -> Any:
    """Run one random task with the worker's agent (see :func:`answer_query`)."""
    from xaip.capabilities.traces import run_task

    if _WORKER_AGENT is None:  # pragma: no cover - a mis-configured executor
        raise RuntimeError("no agent installed in this worker")
    task, budget, deadline = item
    return run_task(_WORKER_AGENT, task, within(budget, deadline))


def attempt_answer(agent: Agent[Any], start: Any, goal: Any, budget: Budget) -> Answer:
    """Put one query to ``agent``. An agent that raises, or runs out of budget, gives an
    answer with its reason that prunes nothing (``reached is None``)."""
    began = time.perf_counter()
    member = None
    try:
        attempt = agent.query(start, goal, budget)
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
    return Answer(status, reached, time.perf_counter() - began, reason, member)


class Asker:
    """Puts state-reachability queries to the agent (or finds them in the store) and keeps
    the record of every query of the run.

    With an ``executor`` whose workers run :func:`install_agent`, the agent's work happens
    in the workers (:meth:`ask_many` sends a whole batch at once); otherwise ``agent``
    answers in this process. Answers do not depend on where they were computed, so the
    run is the same either way.
    """

    def __init__(self, agent: Agent[Any], store: AnswerStore, budget: Budget,
                 executor: Executor | None = None, clock: BudgetClock | None = None) -> None:
        self.agent = agent
        self.store = store
        self.query_budget = budget
        self.clock = clock
        self.executor = executor
        self.records: list[QueryRecord] = []
        self.asked: list[tuple[str, Any, Any, bool | None]] = []
        self.seconds = 0.0
        self.prefetched = 0
        #: Seconds the look-ahead cost this process (generating it, waiting for its batch)
        #: and the seconds of agent work its answers took off this process when asked.
        self.ahead_spent = 0.0
        self.ahead_saved = 0.0
        self.lookahead = True  # off once the look-ahead has cost more than it saved
        self._answers: dict[str, tuple[bool | None, Any]] = {}
        self._ahead: dict[str, Answer] = {}

    @property
    def budget(self) -> Budget:
        """One query's budget: the configured one, its seconds cut to what is left of the
        run's deadline (so a single long query cannot overrun ``--max-seconds``)."""
        clock = self.clock
        limit = self.query_budget
        if clock is None or clock.budget.max_seconds is None:
            return limit
        left = max(0.0, clock.budget.max_seconds - clock.elapsed())
        if limit.max_seconds is not None:
            left = min(left, limit.max_seconds)
        return Budget(limit.max_nodes, left)

    def _compute(self, pairs: Sequence[tuple[Any, Any]], keys: Sequence[str] | None = None) \
            -> list[Answer]:
        """Answers to ``pairs`` (whose query keys are ``keys``): those answered ahead, the
        rest computed as one batch. Without ``keys`` everything is computed afresh."""
        todo = [i for i in range(len(pairs))
                if keys is None or keys[i] not in self._ahead]
        # A query asked alone is answered here, as in a serial run: a worker would make
        # this process wait for the round trip. So are those this agent's memory of
        # exhausted searches answers without searching (a worker lacks that memory).
        here = self._known_here([pairs[i] for i in todo]) if len(todo) > 1 else set()
        remote = [i for j, i in enumerate(todo) if j not in here]
        if self.executor is None or len(remote) < 2:
            remote = []
        sent = set(remote)
        local = [i for i in todo if i not in sent]
        found = dict(zip(local, self._compute_now([pairs[i] for i in local]), strict=True))
        if remote:
            assert self.executor is not None
            deadline = wall_deadline(self.clock)
            found.update(zip(remote, self.executor.map(
                answer_query, [(*pairs[i], self.query_budget, deadline) for i in remote]),
                strict=True))
        out = []
        for i in range(len(pairs)):
            if i in found:
                out.append(found[i])
            else:
                ahead = self._ahead.pop(keys[i])  # type: ignore[index]
                self.ahead_saved += ahead.seconds
                out.append(ahead)
        return out

    def _compute_now(self, pairs: Sequence[tuple[Any, Any]]) -> list[Answer]:
        """Answers computed in this process, one after another."""
        return [attempt_answer(self.agent, start, goal, self.budget) for start, goal in pairs]

    def _known_here(self, pairs: Sequence[tuple[Any, Any]]) -> set[int]:
        """Indexes of ``pairs`` this process's agent answers from memory without searching
        (an agent with a ``known(start, goal)`` method, :class:`~xaip.agents.SearchAgent`),
        when there is an executor: sent to a worker, which lacks that memory, they would
        be searched again, often exhaustively."""
        known = getattr(self.agent, "known", None)
        if self.executor is None or known is None:
            return set()
        return {i for i, (start, goal) in enumerate(pairs) if known(start, goal) is not None}

    def known(self, key: str) -> Answer | None:
        """What this run knows of query ``key`` without asking: its answer if it was asked
        before, answered ahead, or is in the store; else ``None``."""
        found = self._answers.get(key)
        if found is not None:
            return Answer("known", found[0], 0.0)
        ahead = self._ahead.get(key)
        if ahead is not None:
            return ahead
        return self.store.get_answer(key)

    def set_aside(self, answers: dict[str, Answer]) -> None:
        """Keep ``answers``, computed elsewhere, as :meth:`prefetch` keeps its own: used
        (recorded and stored) only if :meth:`ask` poses them."""
        self._ahead.update(answers)

    def drop_aside(self, keys: set[str]) -> None:
        """Forget the answers kept aside for ``keys`` that were never asked, so no later
        query is answered by them."""
        for key in keys & self._ahead.keys():
            del self._ahead[key]

    def aside(self) -> set[str]:
        """The keys of the answers kept aside now."""
        return set(self._ahead)

    def prefetch(self, queries: Sequence[tuple[str, Any, Any]]) -> None:
        """Answer ``queries`` ahead of time as one batch, keeping the answers aside: they
        are recorded and stored only if :meth:`ask` poses them later (so a run with
        look-ahead records exactly what a run without it records)."""
        pairs: dict[str, tuple[Any, Any]] = {}
        for _, start, goal in queries:
            key = query_key(start, goal)
            if key in pairs or self.known(key) is not None:
                continue
            pairs[key] = (start, goal)
        for index in sorted(self._known_here(list(pairs.values())), reverse=True):
            del pairs[list(pairs)[index]]  # memory answers them here when they are asked
        if not pairs:
            return
        if len(self._ahead) > 10_000:
            self._ahead.clear()
        deadline = wall_deadline(self.clock)
        items = [(start, goal, self.query_budget, deadline) for start, goal in pairs.values()]
        answers = self.executor.map(answer_query, items) if self.executor is not None \
            else [attempt_answer(self.agent, s, g, within(b, d)) for s, g, b, d in items]
        self._ahead.update(zip(pairs, answers, strict=True))
        self.prefetched += len(pairs)

    def ask(self, capability: str, start: Any, goal: Any) -> tuple[bool | None, Any]:
        """One query: whether the agent got from ``start`` to ``goal``, and the state it got
        to (for an :class:`AnyOf` goal, the member it reached). A query asked earlier in
        this run is not a new query; one answered by the store is recorded as cached."""
        return self.ask_many([(capability, start, goal)])[0]

    def ask_many(self, queries: Sequence[tuple[str, Any, Any]]) \
            -> list[tuple[bool | None, Any]]:
        """:meth:`ask` for independent queries, the new ones computed as one batch."""
        keys = [query_key(start, goal) for _, start, goal in queries]
        stored: dict[str, Answer | None] = {}
        missing: list[int] = []
        for i, key in enumerate(keys):
            if key in self._answers or key in stored:
                continue
            stored[key] = self.store.get_answer(key)
            if stored[key] is None:
                missing.append(i)
        computed = self._compute([(queries[i][1], queries[i][2]) for i in missing],
                                 [keys[i] for i in missing])
        fresh: set[str] = set()
        late = self.clock is not None and self.clock.out_of_time()
        for i, answer in zip(missing, computed, strict=True):
            name, start, goal = queries[i]
            stored[keys[i]] = answer
            fresh.add(keys[i])
            if not (late and answer.reached is None):  # cut by the run's deadline: unknown
                self.store.put_answer(keys[i], name, answer)
            self.asked.append((name, start, goal, answer.reached))
        out = []
        for (name, start, goal), key in zip(queries, keys, strict=True):
            repeat = self._answers.get(key)
            if repeat is not None:
                out.append(repeat)
                continue
            given = stored[key]
            assert given is not None
            if key in fresh:
                self.seconds += given.seconds
            arrived = goal.states[given.member or 0] if isinstance(goal, AnyOf) else goal
            self._answers[key] = (given.reached, arrived)
            self.records.append(QueryRecord(name, short(start), short(goal), given.status,
                                            given.reached, given.seconds, key not in fresh,
                                            given.reason))
            out.append((given.reached, arrived))
        return out

    def recheck(self, count: int) -> list[str]:
        """Ask up to ``count`` earlier queries again (one batch, bypassing the store); the
        names of capabilities whose query got a different answer (non-determinism)."""
        if count <= 0 or not self.asked:
            return []
        step = max(1, len(self.asked) // count)
        chosen = self.asked[::step][:count]
        again = self._compute([(start, goal) for _, start, goal, _ in chosen])
        return [name for (name, _, _, reached), answer in zip(chosen, again, strict=True)
                if reached is not None and answer.reached is not None
                and answer.reached != reached]
