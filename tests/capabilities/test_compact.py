"""The listing's compact representation (:mod:`xaip.capabilities.compact`,
:class:`xaip.capabilities.region.Closed`) and the guard's screen
(:mod:`xaip.capabilities.screen`) against the straightforward ones: abstractions as atom
sets through the abstractor, closedness and reachable abstractions by brute force, every
place matched through the matcher (issue 21: the whole-level listing made affordable)."""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import pytest

from xaip.capabilities import guarding, rounds
from xaip.capabilities.compact import AtomTable, CompactAbstractor
from xaip.capabilities.discovery import discover_game
from xaip.capabilities.gameover import ALL_BINDINGS, _offending, guard
from xaip.capabilities.matching import Matcher
from xaip.capabilities.region import Closed, explore
from xaip.capabilities.rounds import _fresh
from xaip.capabilities.screen import Screen
from xaip.capabilities.traces import Abstractor
from xaip.vocab.registry import get_game

GAMES = ("zelda", "cookmepasta", "escape", "snowman")


def _forward(simulator: Any, start: Any, limit: int = 3_000) -> list[Any]:
    seen = {start: None}
    queue = deque([start])
    while queue and len(seen) < limit:
        state = queue.popleft()
        for action in simulator.actions(state):
            nxt = simulator.step(state, action)
            if nxt not in seen:
                seen[nxt] = None
                queue.append(nxt)
    return list(seen)


@pytest.mark.parametrize("seed", range(8))
def test_compact_abstractions_are_the_abstractors(seed: int) -> None:
    """Bits decoded are the abstractor's fluent atoms, state by state, and the objects
    met join the abstractor's as abstracting there adds them."""
    rng = random.Random(seed)
    game = GAMES[seed % 4]
    spec = get_game(game)
    simulator = spec.make(rng.randint(3, 4), rng.randint(3, 5), seed)
    states = _forward(simulator, simulator.reset(), 1_500)
    plain = Abstractor(spec.vocabulary())
    compact_side = Abstractor(spec.vocabulary())
    table = AtomTable()
    compact = CompactAbstractor(compact_side, table)
    distinct: dict[int, Any] = {}
    for state in states:
        bits = compact(state)
        fluent = plain.fluent(state)
        assert table.decode(bits) == fluent
        assert table.encode(fluent) == bits and table.encode_known(fluent) == bits
        assert distinct.setdefault(bits, fluent) == fluent  # equal bits, equal atoms
    assert compact_side.objects == plain.objects


def _closed_truth(simulator: Any, region: Any) -> tuple[list[bool], list[set[Any]]]:
    """Closedness and reachable abstractions of every listed node, by a forward search
    per node (the definitions)."""
    closed, reach = [], []
    listed = set(region.nodes)
    for state in region.nodes:
        future = set(_forward(simulator, state, 10**9))
        done = future <= listed and all(region.edges[region.index[s]] is not None
                                        for s in future)
        closed.append(done)
        reach.append(future)
    return closed, reach


@pytest.mark.parametrize("seed", range(6))
def test_the_compact_region_is_the_straightforward_one(seed: int) -> None:
    """Same closed set, same reach answers and same places as computed from the
    definitions on small levels, listed whole or cut."""
    rng = random.Random(100 + seed)
    game = GAMES[seed % 4]
    spec = get_game(game)
    simulator = spec.make(3, rng.randint(3, 4), seed)
    start = simulator.reset()
    abstractor = Abstractor(spec.vocabulary())
    whole = len(_forward(simulator, start, 400))
    if whole >= 400:
        pytest.skip("level too large for the per-state forward searches")
    limit = rng.choice((whole, max(1, whole // 3)))
    region = explore(simulator, [start], [], abstractor, root_visits=limit)
    closed, futures = _closed_truth(simulator, region)
    assert region.closed == closed
    assert region.truncated == (limit < whole)
    view = region.closed_view()
    assert isinstance(view, Closed) and len(view) == len(set(
        region.fluents[n] for n in range(len(region.nodes)) if closed[n]))
    seen: dict[Any, list[int]] = {}
    for node, state in enumerate(region.nodes):
        if closed[node]:
            seen.setdefault(abstractor.fluent(state), []).append(node)
    places = region.places()
    assert [p.fluent for p in places] == list(seen)  # listing order, nearest first
    everything = {abstractor.fluent(s) for f in futures for s in f}
    for place in places:
        members = seen[place.fluent]
        common = set.intersection(*({abstractor.fluent(s) for s in futures[n]}
                                    for n in members))
        assert {f for f in everything if place.reaches(f)} == common
        assert place.dead == any(not simulator.actions(region.nodes[n]) for n in members)


def _screened_guard(monkeypatch: pytest.MonkeyPatch, game: str, rows: int, cols: int,
                    seed: int, grounded: bool = False) -> list[int]:
    """Discovery with every guard call checked: the screen clears only places where the
    matcher finds no case, and the guard over the compact view equals the guard over
    every place as a :class:`Place` (the straightforward scan)."""
    original = guarding.guard_all
    checked: list[int] = []

    def both(engine: Any, game_over: Any) -> Any:
        if not isinstance(game_over, Closed):
            return original(engine, game_over)
        every = Matcher(engine.matcher.object_type,
                        max(engine.matcher.max_bindings, ALL_BINDINGS))

        def describes(target: Any, like: Any) -> bool:
            return engine.refine(target, like) is not None

        places = [game_over.place(k) for k in range(len(game_over))]
        for cap in engine.caps:
            screen = Screen(cap, game_over, every)
            for k, place in enumerate(places):
                if not screen.suspect(k):
                    assert _offending(cap, [place], every, describes) == [], (cap.name, k)
        expected, marked = guard([_fresh(c) for c in engine.caps], places, engine.matcher,
                                 describes)
        out, count = original(engine, game_over)
        assert count == marked
        assert [c.name for c in out] == [c.name for c in expected]
        assert [sorted(map(str, c.pre.items())) for c in out] == \
            [sorted(map(str, c.pre.items())) for c in expected]
        checked.append(len(places))
        return out, count

    monkeypatch.setattr(rounds, "guard_all", both)
    monkeypatch.setattr("xaip.capabilities.discovery.guard_all", both)
    from xaip.capabilities.discovery import DiscoveryConfig

    config = DiscoveryConfig(seed=seed, lifted_types=() if grounded else ("cell",))
    discover_game(game, rows, cols, seed=seed, config=config)
    return checked


@pytest.mark.parametrize(("game", "seed", "grounded"), [
    ("zelda", 0, False), ("zelda", 1, True), ("escape", 0, False),
    ("cookmepasta", 1, False), ("snowman", 0, False)])
def test_the_screen_is_sound_and_the_guard_unchanged(
        monkeypatch: pytest.MonkeyPatch, game: str, seed: int, grounded: bool) -> None:
    checked = _screened_guard(monkeypatch, game, 3, 4, seed, grounded)
    assert checked and max(checked) > 10
