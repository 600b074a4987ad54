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
"""

from __future__ import annotations

import random

from xaip.agents.simulator import OutOfTime
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
    rng = random.Random(f"generalise:{seed}")
    refuted = 0
    states = list(engine.pool.states)
    for cap in engine.caps:
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
            extra = list(nearby or ())
            if len(extra) > NEARBY:
                extra = rng.sample(extra, NEARBY)
            order = _novel_first(cap, states + extra, rng)
        asked = 0
        limit = max(per_capability, coverage) if cap.params else per_capability
        counterexample: dict[str, str] | None = None
        counter_state: PoolState | None = None
        for ps in order:
            if asked >= limit or counterexample is not None:
                break
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
                step = query.steps[-1]
                goal = engine.refine(step.target, query.start)
                if goal is None:
                    continue
                if clock is not None and spent(clock):
                    raise OutOfTime("budget exhausted")
                asked_before = len(engine.asker.records)
                reached, arrived = engine.ask(cap, query.start, goal)
                if clock is not None:
                    clock.nodes += len(engine.asker.records) - asked_before
                if reached is None:
                    continue  # the agent ran out of budget: no evidence either way
                asked += 1
                done.add((tuple(sorted(binding.items())), ps.fluent))
                covered |= _pairs(binding)
                if reached and not isinstance(arrived, AbstractGoal):
                    engine.pool.add(arrived)
                if not reached and counterexample is None:
                    counterexample, counter_state = binding, ps
                break
        if counterexample is not None and counter_state is not None and not cap.params:
            cases.setdefault(cap.name, []).append((counter_state, counterexample))
        elif counterexample is not None:
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
