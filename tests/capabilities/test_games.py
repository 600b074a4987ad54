"""The other three games, the policy agent and grounded capabilities: discovery finds each
game's mechanics and the model explains every trace (Def. 5, independent checker)."""

from __future__ import annotations

from typing import Any

import pytest

from xaip.capabilities.checks import (
    DiscoveryInputs,
    check,
    check_consistency,
    check_realisability,
    fresh_states,
    run_checks,
)
from xaip.capabilities.discovery import DiscoveryConfig, discover_game, game_refine
from xaip.vocab import game_vocabulary


def _effects(result: Any) -> list[set[str]]:
    return [{str(lit) for lit in cap.effects} for cap in result.model.capabilities]


@pytest.mark.parametrize(("game", "rows", "cols", "wanted"), [
    ("escape", 3, 3, ["(not (is_hole "]),  # a block fills a hole (lifted or regrounded)
    ("cookmepasta", 3, 4, ["(pasta_cooked)", "(has_key)"]),  # water into pasta; the key
    ("snowman", 3, 3, ["(placed bottom)", "(placed middle)", "(placed top)",
                       "(player_has bottom)"]),
])
def test_game_mechanics_are_discovered_and_consistent(game: str, rows: int, cols: int,
                                                      wanted: list[str]) -> None:
    result, simulator = discover_game(game, rows, cols, seed=0)
    effects = _effects(result)
    for literal in wanted:
        assert any(lit.startswith(literal) for e in effects for lit in e), (literal, effects)
    vocab = game_vocabulary(game)
    report = check_consistency(result.model, vocab, [t.states for t in result.traces])
    assert report.consistent, report.unexplained
    inputs = DiscoveryInputs(simulator, vocab, game_refine(game))
    checks = run_checks(inputs, result)
    assert checks.consistency.consistent
    assert checks.realisability.tested > 0
    assert check(inputs, result).ok is checks.ok
    assert result.stats.queries <= {"escape": 114, "cookmepasta": 1180, "snowman": 3953}[game]


def test_snowman_places_pieces_only_in_order() -> None:
    result, _ = discover_game("snowman", 3, 3, seed=0)
    for cap in result.model.capabilities:
        effects = {str(lit) for lit in cap.effects}
        pre = {str(lit) for lit in cap.preconditions}
        if "(placed middle)" in effects:
            assert "(placed bottom)" in pre
        if "(placed top)" in effects:
            assert "(placed middle)" in pre


def test_policy_agent_runs_and_is_consistent() -> None:
    result, simulator = discover_game("zelda", 3, 4, agent="policy", seed=1)
    assert result.model.capabilities
    vocab = game_vocabulary("zelda")
    assert check_consistency(result.model, vocab, [t.states for t in result.traces]).consistent
    states = fresh_states(simulator, result.start, 30, seed=5)
    report = check_realisability(result.model, simulator, vocab, states)
    assert report.tested > 0


def test_grounded_capabilities_keep_cells_as_constants() -> None:
    config = DiscoveryConfig(seed=0, lifted_types=())
    result, _ = discover_game("escape", 3, 3, seed=0, config=config)
    assert all(not cap.parameters for cap in result.model.capabilities)
    lifted, _ = discover_game("escape", 3, 3, seed=0)
    assert len(result.model.capabilities) >= len(lifted.model.capabilities)
    vocab = game_vocabulary("escape")
    assert check_consistency(result.model, vocab, [t.states for t in result.traces]).consistent
