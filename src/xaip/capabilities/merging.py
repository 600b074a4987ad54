"""Merging a query pass's units in order (:mod:`~xaip.capabilities.rounds`), in the main
process: the serial part of a pass, so it carries only what the merge reads.

Why a module of its own: with passes cut into a few hundred units
(:mod:`~xaip.capabilities.schedule`), the merge -- a unit's tables or its evidence applied
again, its queries recorded -- is a part of the run no worker can take, and what a worker
sends back is unpickled here. A later part of a capability is merged by its evidence and
what it noted about its own tuples (:class:`PartNotes`), so a worker sends those instead of
the capability's whole tables (at 16x16 a re-grounded capability has about 500 atoms,
and a pass about 256 parts).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.capabilities.answers import Answer
from xaip.capabilities.pal import CapState, observe, refute
from xaip.capabilities.queries import QueryEngine, spent
from xaip.capabilities.schedule import History, Unit
from xaip.capabilities.traces import AbstractState
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import BudgetClock
from xaip.runtime.progress import report

Key = tuple[str, Atom]


@dataclass
class PartNotes:
    """What a later part of a capability's pass noted about its own tuples (tries,
    unobservable marks, starts used, queried) and its count of unexplained failures: all
    of its capability the merge reads besides its evidence."""

    tried: dict[Key, int] = field(default_factory=dict)
    unobservable: dict[Key, int] = field(default_factory=dict)
    used_starts: dict[Key, set[AbstractState]] = field(default_factory=dict)
    queried: set[Key] = field(default_factory=set)
    unexplained: int = 0


@dataclass
class PassResult:
    """One unit of a pass: its capability's tables (a later part: its notes only), the
    states it added to the pool (in order), the queries it posed (in order) with the
    answers it computed, and its counters."""

    cap: CapState | PartNotes
    added: list[Any]
    asked: list[tuple[str, Any, Any]]
    computed: dict[str, Answer]
    offset: int
    plans: int
    progress: bool
    finished: bool
    seconds: float = 0.0
    #: The unit's CPU seconds (its process's).
    cpu: float = 0.0
    #: Evidence about other capabilities (means-ends steps), applied after the merge.
    foreign: list[tuple[Any, ...]] = field(default_factory=list)
    #: The answers the unit would have stored: ``(key, capability, answer)``.
    stored: list[tuple[str, str, Answer]] = field(default_factory=list)
    #: Which part of the capability's tuples this unit completed (0: the first, or all).
    part: int = 0
    #: The tuples it completed (``None``: all the capability's open tuples).
    tuples: list[tuple[str, Atom]] | None = None
    #: Its evidence about its capability, in order (later parts are merged by it).
    evidence: list[tuple[Any, ...]] = field(default_factory=list)
    #: A first part sent by a worker: its capability carries only the executions and
    #: used start states it added to the pass's (``True``), not all of them.
    delta: bool = False


def slim(result: PassResult, start: CapState) -> PassResult:
    """``result`` as a worker sends it back, ``start`` being its capability as the pass
    started: a later part carries its notes about its own tuples, not its capability's
    tables (the merge reads nothing else of them); a first part carries the executions and
    used start states it added, not those the main process has (every execution holds an
    abstract state, rebuilt and hashed atom by atom when unpickled)."""
    cap = result.cap
    if not isinstance(cap, CapState):
        return result
    if result.part == 0:
        known = len(start.executions)
        if cap.executions[:known] != start.executions:
            return result  # not an extension of the pass's executions: sent whole
        cap.executions = cap.executions[known:]
        cap.used_starts = {k: v for k, v in cap.used_starts.items()
                           if start.used_starts.get(k) != v}
        result.delta = True
        return result
    keys = result.tuples or ()
    result.cap = PartNotes(
        {k: cap.tried[k] for k in keys if k in cap.tried},
        {k: cap.unobservable[k] for k in keys if k in cap.unobservable},
        {k: cap.used_starts[k] for k in keys if k in cap.used_starts},
        {k for k in keys if k in cap.queried},
        cap.unexplained)
    return result


def record_history(history: History, caps: Sequence[CapState], units: list[Unit],
                   lives: list[int], results: list[PassResult]) -> None:
    """Keep, per capability of the pass, the tuples its units tried and the queries they
    posed (what cuts its next pass)."""
    counts: dict[str, list[int]] = {}
    for (index, _, _), live, result in zip(units, lives, results, strict=True):
        seen = counts.setdefault(caps[index].name, [0, 0])
        seen[0] += live
        seen[1] += len(result.asked)
    for name, (tried, posed) in counts.items():
        history.record(name, tried, posed)


def merge(engine: QueryEngine, clock: BudgetClock | None, units: list[Unit],
          results: list[PassResult], foreign: list[tuple[Any, ...]]) -> tuple[bool, bool]:
    """Merge a pass's ``results`` (of ``units``) in order, until the run's budget is
    spent; evidence about other capabilities goes to ``foreign``. Progress is reported
    once per capability (counting the settled ones reads every capability's tables)."""
    asker = engine.asker
    caps = engine.caps
    progress, finished = False, True
    unexplained = {i: caps[i].unexplained for i, _, _ in units}
    last = {i: k for k, (i, _, _) in enumerate(units)}
    for k, ((i, part, _), result) in enumerate(zip(units, results, strict=True)):
        if clock is not None and spent(clock):
            finished = False
            break
        cap = caps[i]
        if part == 0:
            assert isinstance(result.cap, CapState)
            done = result.cap
            if result.delta:  # what the unit added to the pass's executions and starts
                done.executions = cap.executions + done.executions
                done.used_starts = {**cap.used_starts, **done.used_starts}
            cap.__dict__.update(done.__dict__)  # same object: lists elsewhere hold it
        else:
            progress |= apply_part(cap, result, unexplained[i])
        for concrete in result.added:
            engine.pool.add(concrete)
        before = len(asker.records)
        asker._ahead.update(result.computed)  # noqa: SLF001 - answered, as a look-ahead is
        asker.ask_many(result.asked)
        if clock is not None:
            clock.nodes += len(asker.records) - before
        engine.offsets[cap.name] = result.offset
        engine.plans += result.plans
        progress |= result.progress
        finished &= result.finished
        foreign += result.foreign
        if engine.progress is not None and last[i] == k:
            settled = sum(1 for c in caps if c.settled())
            report(engine.progress, "queries", len(asker.records), None,
                   f"settled {settled}/{len(caps)} capabilities")
    return progress, finished


def apply_part(cap: CapState, result: PassResult, unexplained: int) -> bool:
    """Merge a later part of a capability's pass into ``cap`` (its first part merged
    already): its executions and failures applied again in order, and what it noted about
    its own tuples (tries, unobservable marks, starts used, queried) copied."""
    changed = False
    for kind, binding, before, target, *rest in result.evidence:
        if kind == "observe":
            changed |= observe(cap, binding, before, target)
        else:
            changed |= refute(cap, binding, before, target, effects=rest[0])
    done = result.cap
    for key in result.tuples or ():
        if key in done.tried:
            cap.tried[key] = done.tried[key]
        if key in done.unobservable:
            cap.unobservable[key] = done.unobservable[key]
        else:
            cap.unobservable.pop(key, None)
        if key in done.used_starts:
            cap.used_starts[key] = done.used_starts[key]
        if key in done.queried:
            cap.queried.add(key)
    cap.unexplained += done.unexplained - unexplained
    cap.effect_cache = None
    return changed


__all__ = ["PartNotes", "PassResult", "apply_part", "merge", "record_history", "slim"]
