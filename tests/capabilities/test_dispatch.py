"""How discovery hands work to an executor (issue 26, scaling): query passes and the guard
go to the workers as units of one capability, batched several to a task
(:mod:`xaip.capabilities.rounds`); without a context the workers can build, the units stay
in the main process; a single query is answered in the main process (the main agent's
memory serves it); none of it changes the run."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from xaip.capabilities.discovery import discover, discover_game, game_agent, game_refine
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
        self.functions: list[str] = []

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> list[Any]:
        items = list(items)
        self.batches.append(len(items))
        self.functions.append(fn.__name__)
        return [fn(item) for item in items]

    def completed(self, fn: Callable[[Any], Any], items: Iterable[Any]) \
            -> Iterator[tuple[int, Any]]:
        items = list(items)
        self.batches.append(len(items))
        self.functions.append(fn.__name__)
        for index, item in enumerate(items):
            yield index, fn(item)

    def close(self) -> None:
        return None


def _run(executor: CountingExecutor | None, game: str = "zelda", rows: int = 3,
         cols: int = 4, context: bool = True) -> Any:
    from xaip.capabilities.discovery import DiscoveryConfig, game_context, make_agent

    spec = get_game(game)
    simulator = spec.make(rows, cols, 0)
    first = simulator.reset()
    config = DiscoveryConfig(seed=0, lifted_types=("cell",))
    return discover(simulator, make_agent(simulator, "search"), spec.vocabulary(),
                    refine=game_refine(spec.name), start=first, config=config,
                    executor=executor,
                    context=(game_context, (spec.name,)) if context else None)


def _signature(result: Any) -> tuple[Any, ...]:
    return ([c.text for c in result.model.capabilities],
            [(q.capability, q.start, q.goal, q.status, q.reached, q.cached, q.reason)
             for q in result.queries], result.stats.asked, str(result.status))


def test_query_passes_go_to_the_workers_as_units() -> None:
    executor = CountingExecutor("zelda", 3, 4, 0)
    pooled = _run(executor)
    # [0]: the traces; then one batch of tasks per query pass and per guard
    assert len(executor.batches) > 2, executor.batches
    assert _signature(pooled) == _signature(_run(None))


def test_without_a_context_the_units_stay_in_this_process() -> None:
    executor = CountingExecutor("zelda", 3, 4, 0)
    pooled = _run(executor, context=False)
    # the traces, then the agent's answers only (the generalisation test's waves): no units
    assert executor.functions[0] == "answer_trace"
    assert set(executor.functions[1:]) <= {"answer_alone", "answer_query"}
    assert "run_units" not in executor.functions
    assert _signature(pooled) == _signature(_run(None))


def test_how_units_are_batched_does_not_change_the_run() -> None:
    few = CountingExecutor("cookmepasta", 4, 4, 0)
    many = CountingExecutor("cookmepasta", 4, 4, 0)
    many.workers = 16  # one unit a task where two workers get several each
    first = _run(few, "cookmepasta", 4, 4)
    second = _run(many, "cookmepasta", 4, 4)
    assert few.batches[1:] != many.batches[1:] or max(few.batches[1:]) == 1
    assert _signature(first) == _signature(second) == _signature(_run(None, "cookmepasta",
                                                                      4, 4))


def test_the_processes_executor_still_gives_the_serial_run_on_a_larger_grid() -> None:
    serial, _ = discover_game("cookmepasta", 4, 4, seed=1)
    pooled, _ = discover_game("cookmepasta", 4, 4, seed=1, executor="processes", workers=2)
    assert _signature(pooled) == _signature(serial)


class _Remembering:
    """An agent whose memory answers every goal in ``known_goals`` (as a search agent's
    remembered reachable sets do) and that counts the queries it searched."""

    def __init__(self, known_goals: set[int]) -> None:
        self.known_goals = known_goals
        self.searched: list[tuple[int, int]] = []

    def known(self, start: int, goal: int) -> Any:
        return "unreachable" if goal in self.known_goals else None

    def query(self, start: int, goal: int, budget: Any = None) -> Any:
        from xaip.agents.agents import Attempt

        if goal in self.known_goals:
            return Attempt("unreachable", (), (), 0, 0.0, "remembered")
        self.searched.append((start, goal))
        return Attempt("reached", ("go",), (start, goal), 1, 0.0, "")


def test_queries_the_main_agent_remembers_are_not_sent_to_workers() -> None:
    from xaip.capabilities.answers import Asker, MemoryStore, install_agent
    from xaip.runtime import Budget

    agent = _Remembering({2, 4})
    install_agent(lambda: _Remembering(set()))  # the workers have no such memory
    executor = CountingExecutor.__new__(CountingExecutor)
    executor.batches, executor.functions = [], []
    asker = Asker(agent, MemoryStore(), Budget(max_nodes=100), executor)
    answers = asker.ask_many([("c", 0, goal) for goal in range(1, 6)])
    assert executor.batches == [3]  # goals 1, 3, 5: the two remembered ones stayed here
    assert [reached for reached, _ in answers] == [True, False, True, False, True]
    asker.prefetch([("c", 9, goal) for goal in (2, 4, 6, 7)])
    assert executor.batches == [3, 2]  # the look-ahead leaves the remembered ones too


def test_a_search_agent_knows_only_what_an_exhausted_search_proved() -> None:
    from xaip.agents.agents import SearchAgent
    from xaip.runtime import Budget

    spec = get_game("zelda")
    simulator = spec.make(3, 4, 0)
    start = simulator.reset()
    agent: SearchAgent[Any] = SearchAgent(simulator, budget=Budget(max_nodes=100_000))
    def unreachable(state: Any) -> bool:  # a goal no state meets: the search exhausts
        return False

    assert agent.known(start, unreachable) is None
    assert agent.query(start, unreachable).status == "unreachable"
    assert agent.known(start, unreachable) is not None
    assert agent.known(start, start) is None  # reached states are never 'known' unreachable
