"""Properties of interest (issue 25): a focused run asks only about the capabilities that
mention the named predicates or are named, learns the same for them as a full run, and
reports the others as not examined (no claim, not checked)."""

from __future__ import annotations

import json

import pytest

from xaip.capabilities.checks import DiscoveryInputs, run_checks
from xaip.capabilities.discovery import DiscoveryConfig, discover_game, game_refine
from xaip.capabilities.focus import parse_focus
from xaip.errors import InputError
from xaip.vocab.registry import get_game


def _same_answers(game: str, rows: int, cols: int, seed: int, focus: tuple[str, ...],
                  same: bool = True) -> tuple[int, int]:
    full, _ = discover_game(game, rows, cols, seed=seed)
    focused, simulator = discover_game(game, rows, cols, seed=seed,
                                       config=DiscoveryConfig(seed=seed, focus=focus))
    examined = [c for c in focused.model.capabilities if c.examined]
    skipped = [c for c in focused.model.capabilities if not c.examined]
    assert examined and skipped
    reference = {c.name: c for c in full.model.capabilities}
    for cap in examined:
        mine = reference[cap.name]
        assert cap.parameters == mine.parameters and cap.effects == mine.effects, cap.name
        if not same:
            continue  # re-grounded parts: see test_a_focused_run_re_grounds_from_its_own_pool
        assert (cap.preconditions, cap.reliable) == (mine.preconditions, mine.reliable), \
            cap.name
        # what the focused run leaves open the full run leaves open too (the full run's
        # pool holds more states, so a re-grounded table can hold more never-seen atoms)
        assert set(cap.open) <= set(mine.open), cap.name
    for cap in skipped:  # no claim: no precondition, marked and explained
        assert cap.preconditions == () and not cap.reliable and "not examined" in cap.notes[0]
    # every capability of the full run that mentions a focused predicate is examined
    wanted = set(focus)
    for cap in full.model.capabilities:
        if {lit.atom.predicate for lit in cap.effects} & wanted:
            assert cap.name in {c.name for c in examined}, cap.name
    vocab = get_game(game).vocabulary()
    checks = run_checks(DiscoveryInputs(simulator, vocab, game_refine(game)), focused)
    assert checks.ok is True  # the skipped capabilities are not tested ...
    tested = {c.capability for c in checks.realisability.cases}
    assert tested <= {c.name for c in examined}
    assert checks.consistency.consistent  # ... but still explain their transitions
    return full.stats.queries, focused.stats.queries


@pytest.mark.parametrize(("game", "rows", "cols", "seed", "focus"), [
    ("zelda", 4, 5, 0, ("has_key",)),
    ("zelda", 4, 5, 1, ("has_key",)),
    ("zelda", 4, 5, 2, ("has_key",)),
])
def test_a_focused_run_learns_what_the_full_run_learns(game: str, rows: int, cols: int,
                                                      seed: int, focus: tuple[str, ...]) -> None:
    full, focused = _same_answers(game, rows, cols, seed, focus)
    assert focused < full  # and asks fewer queries


@pytest.mark.parametrize("seed", [0, 3])
def test_a_focused_run_re_grounds_from_its_own_pool(seed: int) -> None:
    """Escape 4x5 on ``is_hole`` examines re-grounded parts only, and on seeds 0 and 3
    some learn other preconditions than in the full run (docs/capabilities.md,
    "Properties of interest"): a re-grounded part is learned from the state pool and the
    listing around it, which the skipped capabilities' queries grow in a full run. Its
    parameters and effects, the checks and the examined set are still the full run's."""
    full, focused = _same_answers("escape", 4, 5, seed, ("is_hole",), same=False)
    assert focused < full


def test_capability_names_and_their_regrounded_parts() -> None:
    focused, _ = discover_game("zelda", 4, 5, seed=0,
                               config=DiscoveryConfig(seed=0, focus=("c2g1",)))
    examined = [c.name for c in focused.model.capabilities if c.examined]
    assert examined and all(name.startswith("c2") for name in examined)


def test_bad_focus_names_are_one_line_errors() -> None:
    vocab = get_game("zelda").vocabulary()
    assert parse_focus("has_key, c3,has_key", vocab) == ("has_key", "c3")
    assert parse_focus(None, vocab) == ()
    with pytest.raises(InputError, match="neither a predicate"):
        parse_focus("has_key,foo", vocab)
    with pytest.raises(InputError, match="at least one"):
        parse_focus(" , ", vocab)
    with pytest.raises(InputError, match="no capability c99"):
        discover_game("zelda", 3, 4, seed=0, config=DiscoveryConfig(seed=0, focus=("c99",)))


def test_cli_echoes_the_focus(capsys: pytest.CaptureFixture[str]) -> None:
    from xaip.cli import main

    code = main(["discover", "zelda", "--grid", "3x4", "--seed", "1", "--focus", "has_key",
                 "--json", "--quiet"])
    payload = json.loads(capsys.readouterr().out)
    assert payload["focus"] == ["has_key"]
    assert payload["not_examined"]
    assert all(not c["examined"] for c in payload["capabilities"]
               if c["name"] in payload["not_examined"])
    assert code == (0 if payload["verified"] else 1)
    assert main(["discover", "zelda", "--grid", "3x4", "--focus", "nope", "--quiet"]) == 2
