"""Testing a lifted capability where it was never seen: does it hold for other objects?

Why: lifting (Alg. 1 lines 3-4) turns the cells of observed transitions into parameters,
which claims the capability for *every* binding whose precondition holds (Def. 7). That is
sound only when the vocabulary can say where the capability applies (Thm. 3: the model is
"expressible"). The games' vocabularies cannot say which cells are adjacent or connected:
"the player can go from cell2 to cell1 whenever cell1 is clear" was learned from moves
the agent made, and is false for a clear cell walled off behind a locked door, or for a
push along a diagonal. The query phase tests one binding per tuple, so it never sees
that; the independent checker does (``discover cookmepasta --grid 5x5 --seed 3``:
12/20 sampled predictions realised).

After the query phase, :func:`test_generalisation` asks the agent, for each lifted
capability, to apply it with a few bindings it was never seen with, in known states where
its learned precondition holds. A failure is a counterexample to the lifted claim: the
capability is marked unreliable with it (the card says so), never silently kept as if it
held everywhere. The checker stays independent: it searches the simulator, not the agent.

Its queries are units of work (issue 26): asked one at a time in the main process, they
were 96% of the serial part of a Cook-Me-Pasta 16x16 run, so no number of workers made
such a run more than about 3x faster. Which queries a capability's test asks depends on
the answers only where one fails (the test stops there) or is cut by the budget (the
test moves on to another binding), so each capability's questions are listed ahead as if
every answer came back "reached" (:class:`_Lookahead`; an answer cut by the budget lists
the questions after it again), and answered in waves (the first ``per_capability`` of
every capability, then the next ``3 * per_capability`` of those with no failure yet, then
the rest, and a few more for questions listed again) side by side on the executor's
workers, by an agent with no memory of other queries
(:func:`~xaip.capabilities.answers.attempt_alone`). The test then runs as before, one
capability after another, finding its answers ready; it records only the queries it
asks, so a question answered past a capability's first failure is work lost, never a
query of the run. Each capability draws its random choices from its own generator
(``generalise:SEED:NAME``), so its questions do not depend on where another's test
stopped. The waves depend on the answers only, never on the number of workers: serial
runs and runs on workers ask the same queries.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable, Generator, Sequence
from typing import Any

from xaip.agents.simulator import OutOfTime
from xaip.capabilities.answers import (
    answer_alone,
    attempt_alone,
    query_key,
    wall_deadline,
    within,
)
from xaip.capabilities.gameover import Case, exclude, holds_in, precondition
from xaip.capabilities.matching import compile_requirements
from xaip.capabilities.pal import CapState
from xaip.capabilities.pool import PoolState, keys_of
from xaip.capabilities.queries import QueryEngine, spent
from xaip.capabilities.waypoints import AbstractGoal
from xaip.runtime.budget import BudgetClock

#: Unseen bindings asked per lifted capability.
PER_CAPABILITY = 8
#: At most this many unseen bindings in all, the ones past ``PER_CAPABILITY`` chosen to
#: give a parameter an object it was never tried with.
COVERAGE = 64
#: Capabilities without parameters: at most this many nearby states are considered.
NEARBY = 500
#: Bindings of one state considered when choosing an unseen one.
CHOICES = 16
#: Where each wave of answers ends, in multiples of ``per_capability`` (the last wave
#: answers the rest of a capability's questions): 8, 32, then up to 64 questions.
WAVES = (1, 4)
#: Waves after those, for the questions listed again after answers cut by the budget.
EXTRA_WAVES = 3

#: A question of the test: start state, goal, binding and the known state it came from.
Question = tuple[Any, Any, dict[str, str], PoolState]


def _pairs(binding: dict[str, str]) -> set[tuple[str, str]]:
    return set(binding.items())


def _novel_first(cap: CapState, states: list[PoolState], rng: random.Random
                 ) -> list[PoolState]:
    """``states`` where the precondition of ``cap`` (without parameters) holds and it was
    never executed, those with most atoms at a value no execution had first (ties in
    random order)."""
    keys = [(a.predicate, a.args) for a in cap.atoms]
    required = [((a.predicate, a.args), v) for a, v in precondition(cap)]
    values: dict[tuple[str, tuple[str, ...]], set[bool]] = {}
    executed = set()
    for _, before in cap.executions:
        executed.add(before)
        seen = keys_of(before)
        for key in keys:
            values.setdefault(key, set()).add(key in seen)
    order = [ps for ps in states if ps.fluent not in executed]
    rng.shuffle(order)
    order = [ps for ps in order if all((key in ps.keys) == v for key, v in required)]
    order.sort(key=lambda ps: -sum(1 for key in keys
                                   if (key in ps.keys) not in values.get(key, ())))
    return order


def _limit(cap: CapState, per_capability: int, coverage: int) -> int:
    return max(per_capability, coverage) if cap.params else per_capability


def _questions(engine: QueryEngine, cap: CapState, seed: int, states: list[PoolState],
               nearby: Sequence[PoolState], per_capability: int, coverage: int) \
        -> Generator[Question, bool | None, None]:
    """The questions of ``cap``'s test in order, each answer sent back (``None``: cut by
    the budget, no evidence either way): bindings never seen first, in states where the
    precondition holds, until ``_limit`` were answered or one failed."""
    rng = random.Random(f"generalise:{seed}:{cap.name}")
    compiled = compile_requirements(precondition(cap))
    seen = [dict(b) for b in cap.seen_bindings]
    done = {(tuple(sorted(b.items())), before) for b, before in cap.executions}
    covered: set[tuple[str, str]] = set()
    for b in seen:
        covered |= _pairs(b)
    if cap.params:
        order = states[:]
        rng.shuffle(order)
    else:  # the states most unlike every execution first, known or nearby
        extra = list(nearby)
        if len(extra) > NEARBY:
            extra = rng.sample(extra, NEARBY)
        order = _novel_first(cap, states + extra, rng)
    asked = 0
    limit = _limit(cap, per_capability, coverage)
    for ps in order:
        if asked >= limit:
            return
        options = []
        for binding in engine.matcher.match(cap, compiled, ps, {}):
            if (tuple(sorted(binding.items())), ps.fluent) not in done:
                options.append(dict(binding))
            if len(options) >= CHOICES:
                break
        rng.shuffle(options)  # then bindings never seen first, new objects first
        options.sort(key=lambda b: (b in seen, -len(_pairs(b) - covered)))
        for binding in options:
            query = engine._make_query(cap, binding, ps.fluent, ps.concrete, {}, None,
                                       cap.atoms[0])
            if query is None:
                continue  # the prediction describes no state of the game
            goal = engine.refine(query.steps[-1].target, query.start)
            if goal is None:
                continue
            reached = yield query.start, goal, binding, ps
            if reached is None:
                continue
            asked += 1
            done.add((tuple(sorted(binding.items())), ps.fluent))
            covered |= _pairs(binding)
            if not reached:
                return
            break


class _Lookahead:
    """A capability's questions listed ahead (module docstring): each answer sent back is
    the real one where it is known, else "reached"; learning a real answer that differs
    from the one assumed lists the questions after it again."""

    def __init__(self, make: Callable[[], Generator[Question, bool | None, None]]) -> None:
        self.make = make
        self.items: list[Question] = []
        #: ``sent[j]``: the answer sent back after question ``j`` (to list the next one).
        self.sent: list[bool | None] = []
        #: The real answers known, by question.
        self.known: dict[int, bool | None] = {}
        self.over = False
        self._gen = make()

    def extend(self, count: int) -> None:
        """List the first ``count`` questions (fewer when the test has no more)."""
        while len(self.items) < count and not self.over:
            try:
                if not self.items:
                    item = next(self._gen)
                else:
                    answer = self.known.get(len(self.items) - 1, True)
                    self.sent.append(answer)
                    item = self._gen.send(answer)
            except StopIteration:
                self.over = True
                break
            self.items.append(item)

    def learn(self, j: int, reached: bool | None) -> None:
        """Question ``j``'s real answer. The questions listed after it assumed another are
        dropped and the test is replayed up to ``j`` (the same questions: the answers
        sent before it are unchanged), so :meth:`extend` goes on from the real answer."""
        self.known[j] = reached
        if reached is False or j >= len(self.sent) or self.sent[j] == reached:
            return  # (a failure ends the test: nothing is asked after it)
        self._gen = self.make()
        self.items = [next(self._gen)]
        self.sent = []
        self.over = False
        while len(self.items) <= j:
            answer = self.known.get(len(self.items) - 1, True)
            self.sent.append(answer)
            self.items.append(self._gen.send(answer))

    def key(self, j: int) -> str:
        start, goal, _, _ = self.items[j]
        return query_key(start, goal)


def _walk(engine: QueryEngine, cap: CapState, look: _Lookahead,
          clock: BudgetClock | None) -> tuple[dict[str, str], PoolState] | None:
    """``cap``'s test: its questions asked in order (their answers mostly ready) until one
    fails -- the counterexample returned -- or none are left."""
    j = 0
    while True:
        look.extend(j + 1)
        if j >= len(look.items):
            return None
        start, goal, binding, ps = look.items[j]
        if clock is not None and spent(clock):
            raise OutOfTime("budget exhausted")
        asked_before = len(engine.asker.records)
        reached, arrived = engine.ask(cap, start, goal)
        if clock is not None:
            clock.nodes += len(engine.asker.records) - asked_before
        if reached is False:
            return binding, ps
        if reached and not isinstance(arrived, AbstractGoal):
            engine.pool.add(arrived)
        look.learn(j, reached)
        j += 1


def _answer_ahead(engine: QueryEngine, questions: list[tuple[str, Any, Any]],
                  clock: BudgetClock | None) -> dict[str, bool | None]:
    """Answer ``questions`` not known yet side by side (on the executor's workers when
    there are several, else here, one unit each), keeping the answers aside in the
    asker's look-ahead (:meth:`~xaip.capabilities.answers.Asker.prefetch`: recorded only
    when asked). Returns whether each question's goal was reached."""
    asker = engine.asker
    out: dict[str, bool | None] = {}
    todo: dict[str, tuple[Any, Any]] = {}
    for _, start, goal in questions:
        key = query_key(start, goal)
        if key in out or key in todo:
            continue
        known = asker.known(key)
        if known is not None:
            out[key] = known.reached
        else:
            todo[key] = (start, goal)
    if clock is not None and clock.budget.max_nodes is not None:
        left = max(0, clock.budget.max_nodes - clock.nodes)
        todo = dict(list(todo.items())[:left])  # no more searches than queries are left
    if not todo:
        return out
    executor = asker.executor
    dispatch = engine.dispatch
    deadline = wall_deadline(clock)
    items = [(start, goal, asker.query_budget, deadline) for start, goal in todo.values()]
    if executor is not None and executor.workers > 1:
        answers = executor.map(answer_alone, items)
        if dispatch is not None:
            dispatch.unit_seconds += sum(a.seconds for a in answers)
    else:
        answers, cpus = [], []
        for start, goal, budget, _ in items:
            cpu = time.process_time()
            answers.append(attempt_alone(asker.agent, start, goal, within(budget, deadline)))
            cpus.append(time.process_time() - cpu)
        if dispatch is not None:
            dispatch.unit_seconds += sum(a.seconds for a in answers)
            dispatch.batches.append(cpus)
    computed = dict(zip(todo, answers, strict=True))
    asker.set_aside(computed)
    out.update((key, answer.reached) for key, answer in computed.items())
    return out


def _answer_in_waves(engine: QueryEngine, looks: list[_Lookahead], limits: list[int],
                     per_capability: int, clock: BudgetClock | None) -> None:
    """Answer every capability's questions ahead, wave by wave (module docstring): a
    capability leaves the waves at its first failure, or when the test has no more
    questions; an answer cut by the budget lists its questions after it again, and more
    waves follow for them."""
    open_ = [i for i, limit in enumerate(limits) if limit > 0]
    answered = [0] * len(looks)
    for multiple in (*WAVES, *[None] * EXTRA_WAVES):
        batch: list[tuple[str, Any, Any]] = []
        for i in open_:
            look = looks[i]
            cut = sum(1 for answer in look.known.values() if answer is None)
            quota = limits[i] if multiple is None else min(limits[i], multiple * per_capability)
            look.extend(quota + cut)
            batch += [(str(i), start, goal)
                      for start, goal, _, _ in look.items[answered[i]:]]
        if not batch:
            return
        reached = _answer_ahead(engine, batch, clock)
        still = []
        for i in open_:
            look = looks[i]
            going = True
            while answered[i] < len(look.items):
                j = answered[i]
                key = look.key(j)
                if key not in reached:  # not answered ahead (no queries left): the test asks
                    going = False
                    break
                look.learn(j, reached[key])
                answered[i] = j + 1
                if reached[key] is not True:
                    going = reached[key] is None  # failed: done; cut: listed again
                    break
            if going and not (look.over and answered[i] >= len(look.items)):
                still.append(i)
        open_ = still


def test_generalisation(engine: QueryEngine, seed: int = 0,
                        per_capability: int = PER_CAPABILITY,
                        coverage: int = COVERAGE,
                        nearby: list[PoolState] | None = None,
                        clock: BudgetClock | None = None) -> tuple[int, int]:
    """Ask the agent to apply every lifted capability with unseen bindings (module
    docstring): ``per_capability`` random ones, then up to ``coverage`` in all chosen so
    that each gives some parameter an object it was never tried with (an over-general
    move usually fails for a few cells only: the ones behind the key or the monster).
    Stops at the first counterexample. A capability without parameters is tested in
    states it was never executed in -- known ones and ``nearby`` ones (real states a few
    actions from known ones), those most unlike every execution first -- and a
    counterexample is excluded from its
    precondition (:func:`~xaip.capabilities.gameover.exclude`: a literal every execution
    meets, else a split) instead of refuting it. Returns how many lifted capabilities a
    counterexample refuted and how many capabilities without parameters stayed refuted.

    ``clock`` is the run's budget: each question charges one node (a query, as in the
    query phase), and :class:`~xaip.agents.simulator.OutOfTime` stops the test when it is
    spent -- the run is then unfinished (``budget_exhausted``), never complete with some
    capabilities untested. (It used to charge nothing: ``discover escape --grid 3x4
    --max-queries 40`` asked 72 queries and said "complete".)"""
    cases: dict[str, list[Case]] = {}
    refuted = 0
    states = list(engine.pool.states)
    extra = list(nearby or ())
    looks = [_Lookahead(functools.partial(_questions, engine, cap, seed, states, extra,
                                          per_capability, coverage))
             for cap in engine.caps]
    limits = [_limit(cap, per_capability, coverage) for cap in engine.caps]
    asker = engine.asker
    before = asker.aside()
    try:
        _answer_in_waves(engine, looks, limits, per_capability, clock)
        found = [_walk(engine, cap, look, clock)
                 for cap, look in zip(engine.caps, looks, strict=True)]
    finally:
        # answered ahead but never asked (past a capability's first failure): dropped,
        # so no later query of the run is answered by them
        asker.drop_aside(asker.aside() - before)
    for cap, counter in zip(engine.caps, found, strict=True):
        if counter is None:
            continue
        counterexample, counter_state = counter
        if not cap.params:
            cases.setdefault(cap.name, []).append((counter_state, counterexample))
            continue
        refuted += 1
        shown = ", ".join(f"{v[1:]}={o}" for v, o in sorted(counterexample.items()))
        cap.mark(f"does not hold for every binding: the agent could not apply it with "
                 f"{shown} although its precondition held there (the vocabulary cannot "
                 "say where it applies, e.g. which cells are adjacent or connected; "
                 "--grounded keeps cells as constants)")
    if not cases:
        return refuted, 0
    engine.caps[:], marked = exclude(
        engine.caps, lambda cap: [c for c in cases.get(cap.parent or cap.name, ())
                                  if holds_in(cap, c)],
        "where the agent could not apply it")
    return refuted, marked
