"""Sokoban concepts learned by a CNN from drawn pictures of the level (``torch`` extra)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.concepts import bundled, why_not
from xaip.concepts.bundled import bundled_files, load_query
from xaip.concepts.sokoban import SokobanState
from xaip.concepts.sokoban_screen import CELL, SokobanScreen
from xaip.errors import InputError


def _vocabulary(tmp_path: Path, **data: object) -> Path:
    path = tmp_path / "vocabulary.json"
    path.write_text(json.dumps(data))
    return path


def test_pictures_show_every_concept_of_the_state() -> None:
    query = bundled("sokoban-switch")
    level = query.sim.level
    screen = SokobanScreen(level)
    start = level.start
    picture = screen(start)
    assert len(picture) == level.height * CELL * level.width * CELL
    assert screen(start) == picture  # one state, one picture
    on = SokobanState(start.player, start.boxes, True)
    assert screen(on) != picture  # the switch shows whether it is on
    target = min(level.targets)
    moved = SokobanState(start.player, (target,), start.switch_on)
    elsewhere = SokobanState(start.player, (level.start.boxes[0],), start.switch_on)
    assert screen(moved) != screen(elsewhere)
    # two different states never draw alike (every reachable state of the level)
    from xaip.concepts.simulator import reachable

    states = reachable(query.sim, [start], limit=400)
    assert len({screen(s) for s in states}) == len(states)


def test_cnn_concepts_explain_the_switch_and_are_checked_with_exact_labels(
        tmp_path: Path) -> None:
    pytest.importorskip("torch")
    files = bundled_files("sokoban-switch")
    path = _vocabulary(tmp_path, concepts=["switch-on", "wall-up"], classifier="cnn",
                       examples=300)
    query = load_query("sokoban-switch", *files, vocabulary=path)
    learned = {c.name: c for c in query.vocabulary.concepts}
    assert set(learned) == {"switch-on", "switch-off", "wall-up", "not-wall-up"}
    assert all(c.learned and c.has_exact_labels for c in learned.values())
    # the negation is the same network's "no": swapped rates
    assert learned["switch-off"].false_positive == learned["switch-on"].false_negative
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=0)
    assert result.concepts == ("switch-on",) and result.verified
    assert result.verification == "confirmed with exact concept labels"
    assert {name for name, _, _ in result.uncertain_labels} == set(learned)


@pytest.mark.parametrize(("data", "message"), [
    ({"classifier": "svm"}, "'classifier' is one of exact, cnn"),
    ({"classifier": "cnn", "examples": 10}, "at least 50"),
    ({"classifier": "cnn", "noise": {"switch-on": {"false_positive": 0.1}}},
     "measure their own noise"),
    ({"concepts": ["box-on-pink-cell"], "classifier": "cnn", "examples": 60},
     "never (or always) true"),
])
def test_bad_learned_vocabularies_are_one_line_errors(tmp_path: Path, data: dict,
                                                       message: str) -> None:
    files = bundled_files("sokoban-switch")
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_query("sokoban-switch", *files, vocabulary=_vocabulary(tmp_path, **data))


def test_exact_is_the_default_and_keeps_the_definitions(tmp_path: Path) -> None:
    files = bundled_files("sokoban-switch")
    query = load_query("sokoban-switch", *files,
                       vocabulary=_vocabulary(tmp_path, concepts=["switch-on"],
                                              classifier="exact"))
    assert not any(c.learned for c in query.vocabulary.concepts)
