"""Issue 21, discovery: four default runs the checker refuted, each a wrong model.

- ``escape --grid 3x4 --seed 0``: the lifted "walk from cell2 to cell1" was claimed for the
  cheese while holes no block had filled still closed it off (the vocabulary has no
  adjacency, and the generalisation test had tried the cheese only after a hole was filled);
- ``zelda --grid 4x5 --seed 1``: "walk away from the key" claimed for cells reachable only
  over the key's cell (which picks the key up); the generalisation test had met one state
  where Link stood next to the key;
- ``cookmepasta --grid 4x5 --seed 2``: a grounded move claimed where the pasta was already
  ruined: the game-over search (8 actions around every known state, 20,000 states) had
  spent its states on constructed starts and missed 9 of the 25 reachable game-over
  abstractions;
- ``snowman --grid 3x4`` (seeds 0-2): picking up a piece that the other pieces box in, and
  "place the top piece" from a cell not next to the goal (placing ends the game: the player
  cannot walk back to where the prediction has them).

The cause was one: predictions false in states the run never tried, and discovery looked
only for states without any action. Now it lists what the simulator reaches from the
start (every depth, :mod:`xaip.capabilities.region`) and excludes every closed state where
a prediction cannot come true, as it did game-over states."""

from __future__ import annotations

import pytest

from xaip.agents.envs.escape import EscapeState
from xaip.capabilities.checks import DiscoveryInputs, run_checks
from xaip.capabilities.discovery import discover_game, game_refine
from xaip.capabilities.truth import apply, groundings
from xaip.vocab import game_vocabulary


def _verified(game: str, rows: int, cols: int, seed: int) -> tuple[object, object]:
    result, simulator = discover_game(game, rows, cols, seed=seed)
    inputs = DiscoveryInputs(simulator, game_vocabulary(game), game_refine(game))
    checks = run_checks(inputs, result)
    assert checks.consistency.consistent
    assert not checks.realisability.failures(), checks.report().details
    if checks.truth is not None and checks.truth.enumerated:
        assert checks.truth.realised == checks.truth.predictions > 0
    assert checks.report().ok, checks.report().details
    return result, simulator


def test_escape_3x4_seed_0_claims_no_walk_to_the_cheese_behind_holes() -> None:
    result, simulator = _verified("escape", 3, 4, 0)
    start = simulator.reset()  # #... / .Abh / .bhg: the cheese behind two holes
    assert isinstance(start, EscapeState) and start.holes
    vocab = game_vocabulary("escape")
    fluent = vocab.abstract(start, include_types=False)
    objects = vocab.objects(start)
    cheese = vocab.abstract(start.__class__(start.board, start.goal, start.blocks,
                                            start.holes, start.goal), include_types=False)
    claims = [cap.name for cap in result.model.capabilities  # type: ignore[attr-defined]
              for b in groundings(cap, fluent, objects)
              if {a for a in apply(cap, b, fluent) if a.predicate == "at"} ==
              {a for a in cheese if a.predicate == "at"}]
    assert claims == []


@pytest.mark.parametrize(("game", "rows", "cols", "seed"), [
    ("zelda", 4, 5, 1),
    ("cookmepasta", 4, 5, 2),
    ("snowman", 3, 4, 1),
])
def test_refuted_default_runs_are_verified(game: str, rows: int, cols: int, seed: int) -> None:
    result, _ = _verified(game, rows, cols, seed)
    assert result.status.finished  # type: ignore[attr-defined]
