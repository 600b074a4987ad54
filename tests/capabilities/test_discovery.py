"""Algorithm 1 end to end: Zelda's user-study capabilities, and brute-force truth on a tiny
world, checked by the independent checkers (Def. 5 consistency, Def. 7 realisability)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from xaip.agents import SearchAgent
from xaip.agents.simulator import execute
from xaip.capabilities.checks import (
    check_consistency,
    check_realisability,
    fresh_states,
    holds,
    result,
)
from xaip.capabilities.discovery import DiscoveryConfig, discover, discover_game
from xaip.capabilities.model import CapabilityModel
from xaip.runtime.progress import ProgressEvent
from xaip.vocab import concretize, game_vocabulary

from .conftest import (
    CELLS,
    LampWorld,
    all_lamp_states,
    lamp_refine,
    lamp_vocabulary,
    reachable,
)

SIX = ("go next to ganon", "go next to key", "go next to door", "defeat ganon", "pick key",
       "open door")


def user_study(model: CapabilityModel) -> dict[str, str]:
    """Which capability plays each of the paper's six user-study roles (by its effects)."""
    found: dict[str, str] = {}
    for cap in model.capabilities:
        pos = {str(lit.atom) for lit in cap.effects if lit.positive}
        neg = {str(lit.atom) for lit in cap.effects if not lit.positive}
        moves = any(lit.positive and lit.atom.predicate == "at" and lit.atom.args[0] == "link"
                    for lit in cap.effects)
        for thing in ("ganon", "key", "door"):
            if f"(next_to {thing})" in pos and moves:
                found.setdefault(f"go next to {thing}", cap.name)
        if "(alive ganon)" in neg:
            found.setdefault("defeat ganon", cap.name)
        if "(has_key)" in pos:
            found.setdefault("pick key", cap.name)
        if "(escaped)" in pos:
            found.setdefault("open door", cap.name)
    return found


@pytest.fixture(scope="module")
def zelda() -> tuple[Any, Any]:
    return discover_game("zelda", 4, 5, seed=0)


def test_zelda_has_the_six_user_study_capabilities(zelda: tuple[Any, Any]) -> None:
    result_, _ = zelda
    roles = user_study(result_.model)
    assert set(roles) == set(SIX)
    defeat = result_.model.capability(roles["defeat ganon"])
    # Fig. 1(d): Ganon must be alive and where it is; afterwards the cell is empty.
    assert "(alive ganon)" in {str(lit) for lit in defeat.preconditions}
    assert "(not (alive ganon))" in {str(lit) for lit in defeat.effects}
    assert any(str(lit).startswith("(clear ") and lit.positive for lit in defeat.effects)
    assert result_.stats.queries > 0
    assert result_.stats.queries == result_.stats.asked  # fresh run: nothing cached


def test_zelda_model_is_consistent_with_every_trace(zelda: tuple[Any, Any]) -> None:
    result_, _ = zelda
    report = check_consistency(result_.model, game_vocabulary("zelda"),
                               [t.states for t in result_.traces])
    assert report.transitions > 0
    assert report.consistent, report.unexplained


def test_zelda_user_study_capabilities_are_realisable(zelda: tuple[Any, Any]) -> None:
    result_, game = zelda
    vocab = game_vocabulary("zelda")
    types = {t.name for t in vocab.types}

    def is_state(target: frozenset[Any], like: Any) -> bool:
        full = target | {a for a in vocab.abstract(like) if a.predicate in types}
        return bool(concretize("zelda", full, like))

    # Fresh states: random walks with another seed, from the start and from the states of
    # the game's own winning plan (so that late-game situations are sampled too).
    start = result_.start
    roots = execute(game, start, list(game.solve(start) or ()))
    states = []
    for i, root in enumerate(roots):
        states += fresh_states(game, root, 6, seed=100 + i)
    live = [s for s in dict.fromkeys(states) if not s.dead and not s.escaped]
    report = check_realisability(result_.model, game, vocab, live, is_state=is_state,
                                 per_capability=4)
    roles = user_study(result_.model)
    for role in SIX:
        realised, tested = report.counts(roles[role])
        assert tested > 0 and realised > 0, role
    # Not every grounding of the lifted moves is realisable (issue 21): on this level
    # cell_3_4 can only be entered over the key's cell (walls at cell_2_3 and cell_3_3), so
    # "go to cell_3_4" also picks up the key. Discovery's generalisation test finds such a
    # binding and re-learns the move grounded (see test_lifted_moves_are_over_general_...).
    assert not report.failures(), report.failures()
    assert result_.stats.split >= 1


def test_lifted_moves_are_over_general_without_regrounding() -> None:
    """The lifted moves alone (``split=False``, the old default) claim cell_3_4, which can
    only be entered over the key's cell: the predicted state, key still lying there, is
    reached by no actions at all. The vocabulary has no adjacency to say so."""
    config = DiscoveryConfig(seed=0, lifted_types=("cell",), split=False)
    result_, game = discover_game("zelda", 4, 5, seed=0, config=config)
    vocab = game_vocabulary("zelda")
    types = {t.name for t in vocab.types}

    def is_state(target: frozenset[Any], like: Any) -> bool:
        full = target | {a for a in vocab.abstract(like) if a.predicate in types}
        return bool(concretize("zelda", full, like))

    start = result_.start
    roots = execute(game, start, list(game.solve(start) or ()))
    states = []
    for i, root in enumerate(roots):
        states += fresh_states(game, root, 6, seed=100 + i)
    live = [s for s in dict.fromkeys(states) if not s.dead and not s.escaped]
    report = check_realisability(result_.model, game, vocab, live, is_state=is_state,
                                 per_capability=4)
    failures = report.failures()
    assert failures, "the lifted moves are over-general on this level"
    assert all(dict(case.binding)["?cell1"] == "cell_3_4" for case in failures), failures
    assert result_.stats.split == 0 and result_.stats.overgeneral >= 1


def test_progress_reports_queries() -> None:
    events: list[ProgressEvent] = []
    discover_game("zelda", 3, 4, seed=1, progress=events.append)
    phases = [e.phase for e in events]
    assert phases[0] == "traces" and phases[-1] == "done"
    # the queries so far, after every capability of a pass is merged (rounds.py)
    queries = [e.done for e in events if e.phase == "queries"]
    assert queries and queries == sorted(queries)
    assert events[-1].done == queries[-1]
    units = [(e.done, e.total) for e in events if e.phase == "pass"]
    assert units and all(0 < done <= total for done, total in units)


# --------------------------------------------------------------------------- brute force


@pytest.fixture(scope="module")
def lamp_result() -> Any:
    world = LampWorld()
    return discover(world, SearchAgent(world), lamp_vocabulary(), refine=lamp_refine,
                    config=DiscoveryConfig(lifted_types=("cell",), tasks=6,
                                           random_states=30))


def _instances(model: CapabilityModel) -> Any:
    """Every (capability, state, binding, abstract before, target) of the lamp world whose
    predicted target is a real state."""
    vocab = lamp_vocabulary()
    cells = [f"c{i}" for i in range(CELLS)]
    for cap in model.capabilities:
        for state in all_lamp_states():
            before = vocab.abstract(state, include_types=False)
            for combo in itertools.permutations(cells, len(cap.parameters)):
                binding = {v: o for (v, _), o in zip(cap.parameters, combo, strict=True)}
                target = result(cap, binding, before)
                if target == before:
                    continue
                concrete = lamp_refine(target | (vocab.abstract(state) - before), state)
                if concrete is not None:
                    yield cap, state, binding, before, concrete


def test_lamp_model_is_sound_on_every_state(lamp_result: Any) -> None:
    """Def. 7 by brute force: whenever a precondition holds (and the predicted state
    exists), the simulator can reach it."""
    world = LampWorld()
    checked = 0
    for cap, state, binding, before, concrete in _instances(lamp_result.model):
        if holds(cap, binding, before):
            checked += 1
            assert concrete in reachable(world, state), (cap.name, state, binding)
    assert checked > 10


def test_lamp_preconditions_are_minimal(lamp_result: Any) -> None:
    """Every precondition literal not forced by the capability's own effects is needed:
    without it, some predicted state is unreachable (maximal generality, Def. 6)."""
    world = LampWorld()
    instances = list(_instances(lamp_result.model))
    for cap in lamp_result.model.capabilities:
        effect_atoms = {lit.atom for lit in cap.effects}
        for lit in cap.preconditions:
            if lit.atom in effect_atoms:
                continue
            witness = False
            for other, state, binding, before, concrete in instances:
                if other is not cap:
                    continue
                rest = all((lit2.atom.__class__(lit2.atom.predicate, tuple(
                    binding.get(t, t) for t in lit2.atom.args)) in before) == lit2.positive
                    for lit2 in cap.preconditions if lit2 != lit)
                if rest and not holds(cap, binding, before) and \
                        concrete not in reachable(world, state):
                    witness = True
                    break
            assert witness, (cap.name, str(lit))


def test_lamp_capabilities_and_consistency(lamp_result: Any) -> None:
    model = lamp_result.model
    effects = {frozenset(str(lit) for lit in cap.effects) for cap in model.capabilities}
    # moving, switching the light on, and taking the gem were all seen and lifted
    assert any("(robot_at ?cell1)" in e for e in effects)
    assert frozenset({"(light)"}) in effects
    assert any("(holding)" in e for e in effects)
    traces = [t.states for t in lamp_result.traces]
    assert check_consistency(model, lamp_vocabulary(), traces).consistent
