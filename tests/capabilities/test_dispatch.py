"""How discovery hands work to an executor (issue 26, scaling): batches go to the
workers, a single query is answered in the main process (no round trip, the main agent's
memory serves it), and the look-ahead turns itself off once it costs more than it saves;
none of it changes the run."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from xaip.capabilities.discovery import discover, discover_game, game_agent, game_refine
from xaip.capabilities.queries import QueryEngine
from xaip.vocab.registry import get_game


class CountingExecutor:
    """A serial executor that records the size of every batch it is given and installs
    the game's agent as a process worker would."""

    name = "counting"
    workers = 2

    def __init__(self, game: str, rows: int, cols: int, seed: int) -> None:
        from xaip.capabilities.answers import install_agent

        install_agent(game_agent, game, rows, cols, seed, "search")
        self.batches: list[int] = []

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        items = list(items)
        self.batches.append(len(items))
        return [fn(item) for item in items]

    def completed(self, fn: Callable[[Any], Any], items: Iterable[Any]) \
            -> Iterator[tuple[int, Any]]:
        for index, item in enumerate(items):
            yield index, fn(item)

    def close(self) -> None:
        return None


def _run(executor: CountingExecutor | None) -> Any:
    spec = get_game("zelda")
    simulator = spec.make(3, 4, 0)
    first = simulator.reset()
    from xaip.capabilities.discovery import DiscoveryConfig, make_agent

    config = DiscoveryConfig(seed=0, lifted_types=("cell",))
    return discover(simulator, make_agent(simulator, "search"), spec.vocabulary(),
                    refine=game_refine(spec.name), start=first, config=config,
                    executor=executor)


def _signature(result: Any) -> tuple[Any, ...]:
    return ([c.text for c in result.model.capabilities],
            [(q.capability, q.start, q.goal, q.status, q.reached, q.cached)
             for q in result.queries], result.stats.asked, str(result.status))


def test_single_queries_stay_in_the_main_process() -> None:
    executor = CountingExecutor("zelda", 3, 4, 0)
    pooled = _run(executor)
    assert len(executor.batches) > 1, "the traces and the look-ahead go to the workers"
    assert all(n >= 2 for n in executor.batches[1:]), executor.batches  # [0]: the traces
    assert _signature(pooled) == _signature(_run(None))


def test_a_lookahead_that_does_not_pay_turns_itself_off(monkeypatch: Any) -> None:
    executor = CountingExecutor("zelda", 3, 4, 0)
    calls: list[bool] = []
    original = QueryEngine._prefetch

    def prefetch(engine: QueryEngine) -> None:
        engine.asker.ahead_spent += 1e6  # as if the look-ahead had cost far more than it saved
        calls.append(engine.asker.lookahead)
        original(engine)

    monkeypatch.setattr(QueryEngine, "_prefetch", prefetch)
    pooled = _run(executor)
    assert calls == [True]  # asked once, turned itself off, never asked again
    assert len(executor.batches) == 1  # the traces only: no look-ahead batch was sent
    assert _signature(pooled) == _signature(_run(None))


def test_the_processes_executor_still_gives_the_serial_run_on_a_larger_grid() -> None:
    serial, _ = discover_game("cookmepasta", 4, 4, seed=1)
    pooled, _ = discover_game("cookmepasta", 4, 4, seed=1, executor="processes", workers=2)
    assert _signature(pooled) == _signature(serial)
