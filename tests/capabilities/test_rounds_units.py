"""Discovery's finer units (issue 26, scaling): a pass cut into parts of a capability's
tuples, the listing abstracted in chunks, the guard in two rounds. Each must give what the
one-piece computation gives (or, for a pass's parts, what its evidence says), whichever
process runs it."""

from __future__ import annotations

import json
import os
import pickle
from typing import Any

import pytest

from xaip.capabilities import guarding, rounds
from xaip.capabilities.compact import AtomTable
from xaip.capabilities.discovery import discover_game, game_context
from xaip.capabilities.gameover import guard
from xaip.capabilities.pal import CapState, observe, refute
from xaip.capabilities.region import abstract_bits, abstract_here
from xaip.capabilities.rounds import Dispatch, Shared, _fresh, plan_units, resident
from xaip.capabilities.schedule import cut
from xaip.capabilities.traces import Abstractor, random_states
from xaip.runtime.executors import get_executor
from xaip.vocab.registry import get_game

from .conftest import open_capability


def test_a_pass_is_cut_into_contiguous_parts_of_every_open_tuple() -> None:
    caps = [open_capability("big", 40), open_capability("small", 1), open_capability("none", 0)]
    units = plan_units(caps, [0, 1], units=16, smallest=2)
    big = [u for u in units if u[0] == 0]
    # by estimated cost: 80 of the pass's 82 tuples, so 16 of its 16 units (rounded up)
    assert len(big) == 16 and [u[1] for u in big] == list(range(16))
    joined = [key for _, _, tuples in big for key in tuples or ()]
    assert joined == caps[0].open_tuples()  # in order, each once
    assert [u for u in units if u[0] == 1] == [(1, 0, None)]  # too small to cut: whole


def test_tuples_a_unit_skips_at_once_weigh_nothing_in_the_cut() -> None:
    cap = open_capability("c", 12)
    tuples = cap.open_tuples()
    for key in tuples[:18]:
        cap.unobservable[key] = 10  # skipped until the pool doubles
    units = plan_units([cap], [0], units=3, smallest=2)
    live = [[key for key in t or () if key not in cap.unobservable] for _, _, t in units]
    assert [len(k) for k in live] == [2, 2, 2]


def test_the_cut_covers_everything_with_one_live_entry_per_range_at_least() -> None:
    for live in ([True] * 7, [False, True, False, False, True, True, False], [True, False]):
        for count in range(1, sum(live) + 1):
            bounds = cut(list(live), count)
            assert bounds[0][0] == 0 and bounds[-1][1] == len(live)
            assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:], strict=False))
            assert len(bounds) == count
            assert all(any(live[a:b]) for a, b in bounds)


def _tables(cap: CapState) -> Any:
    return (cap.pre, cap.eff, cap.obs_pre, cap.obs_eff, cap.clauses, cap.instances,
            cap.executions, cap.seen_bindings, cap.notes, cap.reliable)


def test_a_units_evidence_replayed_gives_its_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """Later parts of a capability are merged by their evidence: it must be all of what
    the unit did to the tables. Every unit of a real run is run as a later part here and
    its evidence replayed on the capability it started from."""
    checked: list[int] = []
    original = rounds._pass_unit

    def as_later_part(state: Any, base: Any, unit: Any, *args: Any, **kwargs: Any) -> Any:
        index, _, tuples = unit
        start = _fresh(state.caps[index])
        whole = tuples if tuples is not None else start.open_tuples()
        result = original(state, base, (index, 1, whole), *args, **kwargs)
        for kind, binding, before, target, *rest in result.evidence:
            if kind == "observe":
                observe(start, binding, before, target)
            else:
                refute(start, binding, before, target, effects=rest[0])
        assert _tables(start) == _tables(result.cap)
        checked.append(len(result.evidence))
        return result

    monkeypatch.setattr(rounds, "_pass_unit", as_later_part)
    discover_game("zelda", 3, 4, seed=1)
    assert checked and sum(checked) > 10


def test_the_guard_in_two_rounds_is_the_guard_of_each_capability(
        monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[int] = []
    original = guarding.guard_all

    def both(engine: Any, game_over: list[Any]) -> Any:
        copies = [_fresh(cap) for cap in engine.caps]
        expected: list[CapState] = []
        marked = 0
        for cap in copies:
            parts, n = guard([cap], game_over, engine.matcher,
                             lambda target, like: engine.refine(target, like) is not None)
            expected += parts
            marked += n
        out, count = original(engine, game_over)
        assert count == marked
        assert [c.name for c in out] == [c.name for c in expected]
        assert [_tables(c) for c in out] == [_tables(c) for c in expected]
        compared.append(len(game_over))
        return out, count

    monkeypatch.setattr(guarding, "GUARD_UNITS", 10_000)  # many chunks on a small level
    monkeypatch.setattr(guarding, "MIN_GUARD_STATES", 7)
    monkeypatch.setattr(rounds, "guard_all", both)
    monkeypatch.setattr("xaip.capabilities.discovery.guard_all", both)
    discover_game("zelda", 3, 4, seed=0)
    assert compared and max(compared) > 7


class _Engine:
    """What :func:`guarding.abstract_states` reads of a query engine."""

    def __init__(self, dispatch: Dispatch, abstractor: Abstractor) -> None:
        self.dispatch = dispatch
        self.abstractor = abstractor
        self.asker = None
        self.progress = None


def test_the_listing_abstracted_on_workers_is_abstracted_here(
        monkeypatch: pytest.MonkeyPatch) -> None:
    spec = get_game("zelda")
    simulator = spec.make(4, 4, 0)
    start = simulator.reset()
    states = random_states(simulator, [start], 300, 0)
    vocabulary, _ = game_context("zelda")
    local = Abstractor(vocabulary)
    here = abstract_here(local, states)
    monkeypatch.setattr(guarding, "ABSTRACT_CHUNK", 64)
    executor = get_executor("processes", 2)
    try:
        abstractor = Abstractor(vocabulary)
        engine = _Engine(Dispatch(executor, (game_context, ("zelda",))), abstractor)
        remote = guarding.abstract_states(engine, states)  # type: ignore[arg-type]
    finally:
        executor.close()
    assert remote == here
    assert abstractor.objects == local.objects and local.objects  # the workers' came back
    serial = Dispatch()
    assert guarding.abstract_states(_Engine(serial, Abstractor(vocabulary)),  # type: ignore[arg-type]
                                    states) == here
    assert len(serial.batches) == 1 and len(serial.batches[0]) == -(-len(states) // 64)


@pytest.mark.parametrize("known", [0, 1, 40])
def test_the_listing_as_bits_on_workers_is_numbered_as_here(
        known: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers number atoms from the main process's table on; the ones they meet first
    are renumbered in chunk order, so bits and numbering are those of a serial run."""
    spec = get_game("snowman")
    simulator = spec.make(4, 4, 0)
    start = simulator.reset()
    states = random_states(simulator, [start], 400, 1)
    vocabulary, _ = game_context("snowman")
    here_table, there_table = AtomTable(), AtomTable()
    local = Abstractor(vocabulary)
    abstract_bits(local, states[:known], here_table)
    here = abstract_bits(local, states[known:], here_table)
    monkeypatch.setattr(guarding, "ABSTRACT_CHUNK", 16)
    executor = get_executor("processes", 2)
    try:
        abstractor = Abstractor(vocabulary)
        abstract_bits(abstractor, states[:known], there_table)
        before = len(there_table)
        engine = _Engine(Dispatch(executor, (game_context, ("snowman",))), abstractor)
        there = guarding.abstract_states(engine, states[known:],  # type: ignore[arg-type]
                                         there_table)
    finally:
        executor.close()
    assert len(there_table) > before  # the workers met atoms the table did not have
    assert there == here
    assert there_table.keys == here_table.keys


def test_a_worker_unpickles_a_state_once_per_token() -> None:
    first = resident(Shared(("t", 1), rounds.dumps({"a": [1, 2]})))
    assert resident(Shared(("t", 1), b"not read again")) is first
    assert resident(Shared(("t", 2), rounds.dumps([3]))) == [3]


def test_a_large_state_goes_to_local_workers_once_in_a_file(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Tasks carry where a large state is, not the state: a file the pool's processes
    read once each, removed when the round is over; small states and other executors
    carry the bytes."""
    monkeypatch.setattr(rounds, "SHARE_BYTES", 64)
    big = rounds.dumps(list(range(100)))
    executor = get_executor("processes", 2)
    try:
        dispatch = Dispatch(executor, ("unused", ()))  # type: ignore[arg-type]
        with rounds.share(dispatch, big) as shared:
            assert shared.data is None and shared.path is not None
            assert len(pickle.dumps(shared)) < len(big)
            assert resident(shared) == list(range(100))
            path = shared.path
        assert not os.path.exists(path)
        with rounds.share(dispatch, rounds.dumps([1])) as small:
            assert small.data is not None and small.path is None
    finally:
        executor.close()
    with rounds.share(Dispatch(), big) as here:
        assert here.data == big


def _output(result: Any) -> str:
    payload = result.to_dict()
    for key in ("seconds", "seconds_per_query"):
        payload.pop(key, None)
    for key in ("seconds", "query_seconds", "trace_seconds", "seconds_per_query"):
        payload["stats"].pop(key, None)
    queries = [(q.capability, q.start, q.goal, q.status, q.reached, q.cached, q.reason)
               for q in result.queries]
    return json.dumps([payload, queries], sort_keys=True)


def test_cut_passes_give_the_same_run_on_workers() -> None:
    """The serial run cuts its passes into more units than capabilities, and the
    processes executor gives it byte for byte."""
    serial, _ = discover_game("escape", 3, 4, seed=0)
    assert max(len(b) for b in serial.unit_batches) > len(serial.model.capabilities)
    pooled, _ = discover_game("escape", 3, 4, seed=0, executor="processes", workers=2)
    assert _output(pooled) == _output(serial)
