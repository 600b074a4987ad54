"""The generalisation test's questions answered ahead, side by side (issue 26, scaling):
the run asks and records exactly the queries a test asking one question at a time would,
also when answers are cut by the budget (the test then leaves its look-ahead), and
questions answered past a capability's first failure are never recorded."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from xaip.capabilities import answers, discovery, generalise
from xaip.capabilities.answers import Answer, query_key
from xaip.capabilities.discovery import discover_game
from xaip.capabilities.gameover import exclude, holds_in
from xaip.capabilities.queries import QueryEngine
from xaip.capabilities.waypoints import AbstractGoal


def one_at_a_time(engine: QueryEngine, seed: int = 0,
                  per_capability: int = generalise.PER_CAPABILITY,
                  coverage: int = generalise.COVERAGE, nearby: Any = None,
                  clock: Any = None) -> tuple[int, int]:
    """The test as its definition reads: each capability's questions asked in order, each
    answer sent back to choose the next, until one fails (no look-ahead)."""
    states = list(engine.pool.states)
    cases: dict[str, list[Any]] = {}
    refuted = 0
    for cap in engine.caps:
        questions = generalise._questions(engine, cap, seed, states, list(nearby or ()),
                                          per_capability, coverage)
        try:
            start, goal, binding, ps = next(questions)
            while True:
                before = len(engine.asker.records)
                reached, arrived = engine.ask(cap, start, goal)
                if clock is not None:
                    clock.nodes += len(engine.asker.records) - before
                if reached is False:
                    if cap.params:
                        refuted += 1
                        cap.mark("does not hold for every binding")
                    else:
                        cases.setdefault(cap.name, []).append((ps, binding))
                    break
                if reached and not isinstance(arrived, AbstractGoal):
                    engine.pool.add(arrived)
                start, goal, binding, ps = questions.send(reached)
        except StopIteration:
            pass
    if not cases:
        return refuted, 0
    engine.caps[:], marked = exclude(
        engine.caps, lambda cap: [c for c in cases.get(cap.parent or cap.name, ())
                                  if holds_in(cap, c)], "where the agent could not apply it")
    return refuted, marked


def _asked(result: Any) -> str:
    """The queries of a run (capability, start, goal, answer) and the model's names and
    reliability."""
    queries = [(q.capability, q.start, q.goal, q.reached, q.cached) for q in result.queries]
    caps = [(c.name, c.reliable) for c in result.model.capabilities]
    return json.dumps([queries, caps], sort_keys=True)


@pytest.mark.parametrize(("game", "rows", "cols", "seed"),
                         [("zelda", 3, 4, 0), ("cookmepasta", 4, 4, 1), ("snowman", 3, 4, 0)])
def test_answered_ahead_asks_what_one_at_a_time_asks(
        game: str, rows: int, cols: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    ahead, _ = discover_game(game, rows, cols, seed=seed)
    monkeypatch.setattr(discovery, "test_generalisation", one_at_a_time)
    plain, _ = discover_game(game, rows, cols, seed=seed)
    assert _asked(ahead) == _asked(plain)
    assert ahead.stats.overgeneral == plain.stats.overgeneral


def test_answers_cut_by_the_budget_leave_the_look_ahead(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every third query comes back "budget" (no evidence): the test moves on to another
    binding, which the look-ahead (every answer "reached") did not list."""
    real = answers.attempt_answer
    cut = []

    def flaky(agent: Any, start: Any, goal: Any, budget: Any) -> Answer:
        digest = hashlib.sha256(query_key(start, goal).encode()).digest()
        if digest[0] % 3 == 0:
            cut.append(1)
            return Answer("budget", None, 0.0, "cut for the test")
        return real(agent, start, goal, budget)

    monkeypatch.setattr(answers, "attempt_answer", flaky)
    ahead, _ = discover_game("zelda", 3, 4, seed=0)
    monkeypatch.setattr(discovery, "test_generalisation", one_at_a_time)
    plain, _ = discover_game("zelda", 3, 4, seed=0)
    assert cut
    assert _asked(ahead) == _asked(plain)


def test_answers_past_a_failure_are_not_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    answered: list[str] = []
    real = generalise._answer_ahead

    def counting(engine: Any, questions: Any, clock: Any) -> Any:
        answered.extend(query_key(s, g) for _, s, g in questions)
        return real(engine, questions, clock)

    monkeypatch.setattr(generalise, "_answer_ahead", counting)
    ahead, _ = discover_game("zelda", 3, 4, seed=0)
    asked: set[str] = set()
    real_ask = answers.Asker.ask_many

    def recording(self: Any, queries: Any) -> Any:
        asked.update(query_key(s, g) for _, s, g in queries)
        return real_ask(self, queries)

    monkeypatch.setattr(answers.Asker, "ask_many", recording)
    monkeypatch.setattr(discovery, "test_generalisation", one_at_a_time)
    plain, _ = discover_game("zelda", 3, 4, seed=0)
    assert ahead.stats.overgeneral > 0  # some capability failed early
    assert set(answered) - asked  # answered ahead, never asked one at a time ...
    assert _asked(ahead) == _asked(plain)  # ... and not recorded
