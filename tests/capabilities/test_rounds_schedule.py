"""How a pass is cut and dealt (issue 26, scaling: :mod:`xaip.capabilities.schedule`):
by estimated cost from counts, finely enough for 16-32 workers however many capabilities
a pass has, never by the number of workers; and a unit's agent keeps no memory."""

from __future__ import annotations

from typing import Any

import pytest

from xaip.capabilities import merging, rounds
from xaip.capabilities.discovery import discover_game
from xaip.capabilities.pal import CapState
from xaip.capabilities.schedule import History, deal, plan_pass, skipped
from xaip.planning.pddl.model import Atom

from .conftest import open_capability


def test_a_pass_of_many_capabilities_is_cut_too() -> None:
    """The re-grounded capabilities' passes (64 or more capabilities) used to keep one
    unit per capability: one of them was 1.2 s of a 5 s pass on cookmepasta 8x8."""
    caps = [open_capability(f"c1g{k}", 20) for k in range(100)]  # 40 open tuples each
    units, costs, lives = plan_pass(caps, range(100), units=256)
    assert len(units) >= 256
    assert {u[0] for u in units} == set(range(100))
    for index in range(100):
        joined = [key for i, _, tuples in units if i == index for key in tuples or ()]
        assert joined == caps[index].open_tuples()  # every tuple once, in order
    assert sum(lives) == 100 * 40 and len(costs) == len(units)


def test_the_cut_follows_the_queries_a_capability_posed_last_pass() -> None:
    """Same tuples, but one capability posed a query per tuple last pass and the other
    none: the first is cut into more parts (the estimate uses counts, never seconds)."""
    caps = [open_capability("asks", 30), open_capability("quiet", 30)]
    history = History()
    history.record("asks", 60, 60)
    history.record("quiet", 60, 0)
    units, costs, _ = plan_pass(caps, [0, 1], history=history, units=32)
    asks = [c for (i, _, _), c in zip(units, costs, strict=True) if i == 0]
    quiet = [c for (i, _, _), c in zip(units, costs, strict=True) if i == 1]
    # 60 tuples at 101 each against 60 at 1: the first as finely as units go (two live
    # tuples each), the second whole
    assert len(asks) == 30 and len(quiet) == 1
    history.record("asks", 60, 6)  # 0.1 a tuple: 11 each, 660 against 60
    units, costs, _ = plan_pass(caps, [0, 1], history=history, units=32)
    assert [i for i, _, _ in units].count(0) == 30 and [i for i, _, _ in units].count(1) == 3


def test_the_cut_is_the_same_for_every_history_of_equal_counts() -> None:
    caps = [open_capability("a", 12), open_capability("b", 5)]
    one, two = History(), History()
    one.record("a", 10, 3)
    two.record("a", 10, 3)
    assert plan_pass(caps, [0, 1], history=one) == plan_pass(caps, [0, 1], history=two)


def test_an_unobservable_tuple_counts_once_the_pool_has_doubled() -> None:
    cap = open_capability("c", 1)
    key = cap.open_tuples()[0]
    cap.unobservable[key] = 10
    assert skipped(cap, key, 3, pool=19)
    assert not skipped(cap, key, 3, pool=20)
    cap.tried[key] = 3
    assert skipped(cap, key, 3, pool=20)


@pytest.mark.parametrize("tasks", [1, 3, 7, 48])
def test_dealing_packs_every_unit_once_heaviest_task_first(tasks: int) -> None:
    costs = [float((k * 37) % 11) + (50.0 if k == 5 else 0.0) for k in range(40)]
    groups = deal(costs, tasks)
    assert sorted(k for g in groups for k in g) == list(range(40))
    assert len(groups) == min(tasks, 40)
    loads = [sum(costs[k] for k in g) for g in groups]
    assert loads == sorted(loads, reverse=True)
    # longest-processing-time first: no task above the mean plus the largest unit
    assert max(loads) <= sum(costs) / len(groups) + max(costs)


def test_a_units_agent_keeps_no_memory_and_gets_it_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A unit's agent does not complete the reachable sets of its exhausted searches
    (memory off in the unit): on cookmepasta 8x8 that work answered 8 of 937 queries and
    was 15% of the units' CPU. The agent's own setting is back after the unit."""
    seen: list[tuple[int, int]] = []
    original = rounds._pass_unit

    def watch(state: Any, base: Any, unit: Any, abstractor: Any, refine: Any, agent: Any,
              sink: Any = None) -> Any:
        before = agent.memory
        real = type(agent).query

        def query(self: Any, *args: Any, **kwargs: Any) -> Any:
            seen.append((before, self.memory))
            return real(self, *args, **kwargs)

        monkeypatch.setattr(type(agent), "query", query)
        try:
            return original(state, base, unit, abstractor, refine, agent, sink)
        finally:
            monkeypatch.setattr(type(agent), "query", real)
            assert agent.memory == before

    monkeypatch.setattr(rounds, "_pass_unit", watch)
    discover_game("cookmepasta", 4, 4, seed=0)
    assert seen and all(before > 0 and during == 0 for before, during in seen)


def test_a_first_part_from_a_worker_carries_what_it_added_and_merges_whole() -> None:
    """A worker sends a first part's executions and used starts beyond the pass's (each
    execution holds an abstract state, rebuilt atom by atom when unpickled); the merge
    puts the pass's back in front: the same capability as sent whole."""
    start = open_capability("c", 3)
    state = frozenset({Atom("at", ("c0",))})
    start.executions.append(({}, state))
    key = start.open_tuples()[0]
    start.used_starts[key] = {state}
    done = rounds._fresh(start)
    done.executions.append(({"?x": "c1"}, frozenset()))
    done.used_starts[key] = {state, frozenset()}
    done.used_starts[start.open_tuples()[1]] = {frozenset()}
    whole = rounds._fresh(done)
    result = merging.PassResult(done, [], [], {}, 0, 0, False, True)
    merging.slim(result, start)
    assert result.delta and result.cap.executions == [({"?x": "c1"}, frozenset())]
    assert set(result.cap.used_starts) == set(start.open_tuples()[:2])
    main = rounds._fresh(start)
    engine = _Engine([main])
    merging.merge(engine, None, [(0, 0, None)], [result], [])  # type: ignore[arg-type]
    assert main.executions == whole.executions
    assert main.used_starts == whole.used_starts
    assert list(main.used_starts) == list(whole.used_starts)


class _Engine:
    """What :func:`~xaip.capabilities.merging.merge` reads of an engine."""

    def __init__(self, caps: list[CapState]) -> None:
        from xaip.capabilities.answers import Asker, MemoryStore

        self.caps = caps
        self.asker = Asker(None, MemoryStore(), None)  # type: ignore[arg-type]
        self.pool: list[Any] = []
        self.offsets: dict[str, int] = {}
        self.plans = 0
        self.progress = None
