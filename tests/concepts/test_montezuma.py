"""Montezuma's Revenge through ale-py: failure semantics, concepts and the bundled foils.

One simulator for the module (building ALE and loading the ROM is the slow part)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("ale_py")

from xaip.cli import main  # noqa: E402
from xaip.concepts.check import check  # noqa: E402
from xaip.concepts.explain import why_not  # noqa: E402
from xaip.concepts.montezuma import (  # noqa: E402
    PAIR_SCREENS,
    PAIRS,
    ROOM,
    Montezuma,
    agent,
    clear_down_of_crab,
    montezuma_query,
    on_ladder,
    on_rope,
    pair_files,
    screen_vocabulary,
    skull_on_left,
)
from xaip.concepts.simulator import INVALID, run_trace  # noqa: E402
from xaip.errors import InputError  # noqa: E402


@pytest.fixture(scope="module")
def sim() -> Montezuma:
    return Montezuma()


@pytest.fixture(scope="module")
def sim4() -> Montezuma:
    return Montezuma("4")


def test_deterministic_and_restorable(sim: Montezuma) -> None:
    start = sim.initial()
    first = run_trace(sim, ["down"] * 5)
    again = run_trace(sim, ["down"] * 5)
    assert first.states == again.states
    assert agent(first.final)[2] < agent(start)[2]  # went down the ladder
    # restoring a saved state and stepping from it repeats the same successor
    mid = first.states[2]
    assert sim.step(mid, "down") == sim.step(mid, "down")


def test_failure_semantics(sim: Montezuma) -> None:
    start = sim.initial()
    assert sim.step(start, "jump") is INVALID        # jumps in place: agent unchanged
    assert sim.step(start, "noop") is not INVALID    # noop never fails for standing still
    ladder = run_trace(sim, ["down", "down"]).final
    assert on_ladder(ladder)
    assert sim.step(ladder, "left") is INVALID       # no sideways step on a ladder
    walk = run_trace(sim, ["right"] * 3)
    assert walk.failed_step == 2                      # the third step falls to death


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_bundled_foils_explained_with_expected_concept(sim: Montezuma, sim4: Montezuma,
                                                      pair: str) -> None:
    screen = PAIR_SCREENS[pair]
    query = montezuma_query(pair, pair, screen, sim=sim4 if screen == "4" else sim)
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=0)
    assert result.foil_outcome == "invalid"
    assert result.concepts == (PAIRS[pair],)
    # screen 1 passes 0.99 within 500 samples for seed 0; the screen-4 foil reaches 0.9897
    # at 500 (the paper: 0.5044 for foils A-C, 0.8604 for D)
    assert result.confidence is not None and result.confidence >= 0.98
    assert result.verified


def test_checker_refutes_a_wrong_concept(sim: Montezuma) -> None:
    from dataclasses import replace

    query = montezuma_query("ladder-left", "ladder-left", sim=sim)
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=0,
                     verify=False)
    wrong = replace(result, concepts=("not-on-left-edge",))
    assert check(query, wrong).ok is False


def test_vocabulary_has_negations() -> None:
    vocab = screen_vocabulary("1")
    assert len(vocab) == 22
    assert "not-skull-on-left" in vocab.names
    with pytest.raises(InputError):
        screen_vocabulary("9")


def test_cli_bundled_pair_files(capsys: pytest.CaptureFixture[str]) -> None:
    plan, foil = pair_files("ladder-left")
    code = main(["why-not", "montezuma", "--level", "1", "--plan", str(plan), "--foil",
                 str(foil), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["status"] == "found" and out["verified"] is True
    assert out["concepts"] == ["not-on-ladder"] and out["failed_step"] == 3


def test_cli_bad_input(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    bad = tmp_path / "bad.txt"
    bad.write_text("fly\n")
    assert main(["why-not", "montezuma", "--plan", str(bad), "--foil", "ledge-left"]) == 2
    assert main(["why-not", "montezuma", "--level", "9"]) == 2
    assert main(["why-not", "montezuma", "--plan", "ledge-left", "--foil", "ledge-left",
                 "--variant", "cost"]) == 2
    assert "unknown Montezuma action" in capsys.readouterr().err


def _walks(sim: Montezuma, starts: list, count: int, seed: int) -> list:
    from xaip.concepts.simulator import random_walks

    return list(dict.fromkeys(random_walks(sim, starts, count, seed)))


def test_rope_only_a_jump_leaves_it(sim: Montezuma) -> None:
    query = montezuma_query("rope-right", "rope-right", sim=sim)
    rope = run_trace(sim, query.foil[:-1]).final
    assert on_rope(rope)
    assert sim.step(rope, "right") is INVALID and sim.step(rope, "left") is INVALID
    assert sim.step(rope, "jump-right") is not INVALID
    assert not on_rope(run_trace(sim, query.plan).final)


def test_skull_on_left_means_a_step_left_fails(sim: Montezuma) -> None:
    """The concept's definition against the game, on states the search never sees."""
    query = montezuma_query("skull-left", "skull-left", sim=sim)
    states = _walks(sim, list(run_trace(sim, query.foil).states)[20:], 400, seed=11)
    close = [s for s in states if skull_on_left(s)]
    assert close, "the walks should meet the skull"
    assert all(sim.step(s, "left") is INVALID for s in close)


def test_screen_4_route_and_crab(sim4: Montezuma) -> None:
    start = sim4.initial()
    assert start.byte(ROOM) == 4 and on_ladder(start) is False  # screen-1 ladder concept
    query = montezuma_query("crab-down", "crab-down", "4", sim=sim4)
    plan = run_trace(sim4, query.plan)
    assert plan.valid and sim4.is_goal(plan.final) and not sim4.is_goal(start)
    foil = run_trace(sim4, query.foil)
    assert foil.failed_step == 2 and not clear_down_of_crab(foil.final)
    states = _walks(sim4, list(plan.states[:12]) + list(foil.states), 300, seed=5)
    blocked = [s for s in states if not clear_down_of_crab(s)]
    assert blocked, "the walks should meet the crab under the ladder"
    assert all(sim4.step(s, "down") is INVALID for s in blocked)


def test_screen_4_vocabulary() -> None:
    vocab = screen_vocabulary("4")
    assert len(vocab) == 20
    assert {"clear-down-of-crab", "not-clear-down-of-crab"} <= set(vocab.names)


def test_incomplete_vocabulary_never_names_a_wrong_concept(sim: Montezuma) -> None:
    query = montezuma_query("rope-right", "rope-right", sim=sim)
    vocab = query.vocabulary.without("on-rope", "not-on-rope")
    for seed in range(4):
        result = why_not(sim, query.plan, query.foil, vocab, seed=seed)
        assert result.incomplete and result.concepts == ()
        assert "incomplete" in result.text


def test_cli_picture_and_vocabulary(tmp_path: object,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    vocab = tmp_path / "v.json"
    vocab.write_text(json.dumps({"library": "montezuma",
                                 "concepts": ["on-ladder", "in-left-half", "on-top-platform"]}))
    picture = tmp_path / "fail.png"
    code = main(["why-not", "montezuma", "--plan", "ladder-left", "--foil", "ladder-left",
                 "--vocabulary", str(vocab), "--picture", str(picture), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["concepts"] == ["not-on-ladder"] and out["verified"] is True
    data = picture.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 1000
    width = int.from_bytes(data[16:20], "big")
    assert width >= 480  # the 160-pixel ALE screen, three times its size, and its text


@pytest.mark.parametrize("content, message", [
    ({"library": "montezuma", "concepts": ["on-rop"]}, "unknown concept"),
    ({"library": "sokoban", "concepts": ["on-rope"]}, "unknown concept library"),
    ({"library": "montezuma", "classifier": "svm"}, "'classifier'"),
    ({"library": "montezuma", "classifier": "adaboost", "noise": {}}, "noise"),
])
def test_cli_bad_vocabulary(tmp_path: object, capsys: pytest.CaptureFixture[str],
                            content: dict, message: str) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    vocab = tmp_path / "v.json"
    vocab.write_text(json.dumps(content))
    assert main(["why-not", "montezuma", "--vocabulary", str(vocab)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cli_pair_on_the_wrong_screen(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["why-not", "montezuma", "--level", "4", "--plan", "rope-right", "--foil",
                 "rope-right"]) == 2
    assert "screen 1" in capsys.readouterr().err


def test_cli_learned_vocabulary(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    """A vocabulary file asking for AdaBoost classifiers trained on example states."""
    from pathlib import Path

    pytest.importorskip("sklearn")
    assert isinstance(tmp_path, Path)
    vocab = tmp_path / "learned.json"
    vocab.write_text(json.dumps({"library": "montezuma", "classifier": "adaboost",
                                 "examples": 400,
                                 "concepts": ["on-ladder", "in-left-half", "on-top-platform"]}))
    code = main(["why-not", "montezuma", "--plan", "ladder-left", "--foil", "ladder-left",
                 "--vocabulary", str(vocab), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["concepts"] == ["not-on-ladder"] and out["verified"] is True and code == 0


@pytest.mark.parametrize("pair, seed", [("ladder-left", 0), ("ladder-left", 1),
                                        ("rope-right", 0)])
def test_noisy_concepts_lower_confidence_never_a_wrong_concept(sim: Montezuma, pair: str,
                                                               seed: int) -> None:
    """Every concept's label flipped at 2% (both ways): the answer is still the expected
    concept (or "incomplete"), with the noise-aware confidence."""
    query = montezuma_query(pair, pair, sim=sim)
    noisy = query.vocabulary.with_noise(0.02, 0.02)
    result = why_not(sim, query.plan, query.foil, noisy, seed=seed)
    assert result.concepts in ((PAIRS[pair],), ())
    assert result.concepts or result.incomplete
    assert result.confidence is None or 0.5 <= result.confidence <= 1.0


def test_route_search_finds_a_shortest_leg(sim: Montezuma) -> None:
    """The breadth-first search that found the screen-4 route, on a short leg."""
    from xaip.concepts.montezuma import MIDDLE, on_middle_floor
    from xaip.concepts.montezuma_route import shortest_steps

    start = sim.initial()
    leg = shortest_steps(sim, start, on_middle_floor)
    assert 2 <= len(leg) <= 8  # jumping off the platform's right end lands alive
    final = run_trace(sim, leg).final
    assert final.byte(43) == MIDDLE and on_middle_floor(final)
    for action in sim.actions:  # brute force: no single step gets there
        outcome = sim.step(start, action)
        assert outcome is INVALID or not on_middle_floor(outcome[0])


def test_bundled_route_replays_to_screen_4() -> None:
    from xaip.concepts.montezuma import folder, read_montezuma_actions

    route = read_montezuma_actions(folder() / "screen-4.route.txt")
    trace = run_trace(Montezuma(), route)
    assert trace.valid and trace.final.byte(ROOM) == 4
