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
    PAIRS,
    Montezuma,
    agent,
    montezuma_query,
    on_ladder,
    pair_files,
    screen_vocabulary,
)
from xaip.concepts.simulator import INVALID, run_trace  # noqa: E402
from xaip.errors import InputError  # noqa: E402


@pytest.fixture(scope="module")
def sim() -> Montezuma:
    return Montezuma()


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
def test_bundled_foils_explained_with_expected_concept(sim: Montezuma, pair: str) -> None:
    query = montezuma_query(pair, pair, sim=sim)
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=0)
    assert result.foil_outcome == "invalid"
    assert result.concepts == (PAIRS[pair],)
    assert result.confidence is not None and result.confidence >= 0.99
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
    assert out["concepts"] == ["not-on-ladder"] and out["failed_step"] == 2


def test_cli_bad_input(tmp_path: object, capsys: pytest.CaptureFixture[str]) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    bad = tmp_path / "bad.txt"
    bad.write_text("fly\n")
    assert main(["why-not", "montezuma", "--plan", str(bad), "--foil", "ledge-left"]) == 2
    assert main(["why-not", "montezuma", "--level", "4"]) == 2
    assert main(["why-not", "montezuma", "--plan", "ledge-left", "--foil", "ledge-left",
                 "--variant", "cost"]) == 2
    assert "unknown Montezuma action" in capsys.readouterr().err
