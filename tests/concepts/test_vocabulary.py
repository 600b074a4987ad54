"""Vocabulary files: names from the bundled library, negations, noise; broken files are
one-line errors."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from xaip.concepts import bundled, read_vocabulary, sokoban_library
from xaip.concepts.bundled import folder
from xaip.errors import InputError


def level():  # type: ignore[no-untyped-def]
    return bundled("sokoban-switch").sim.level


def test_library_has_the_key_concepts_and_negations() -> None:
    library = sokoban_library(level())
    for name in ("switch-on", "switch-off", "on-pink-cell", "not-on-pink-cell",
                 "box-next-to-wall", "not-box-next-to-wall", "box-left", "wall-up"):
        assert name in library
    base = [n for n in library if not n.startswith("not-") and n != "switch-off"]
    assert len(base) >= 14 and len(library) == 2 * len(base)
    start = level().start
    for name in base:
        other = "switch-off" if name == "switch-on" else f"not-{name}"
        assert library[name].truth(start) != library[other].truth(start)
    assert library["box-right"].truth(start) and library["switch-off"].truth(start)


def test_bundled_vocabulary_files() -> None:
    for name in ("switch.json", "cells.json", "switch-noisy.json", "switch-incomplete.json"):
        vocab = read_vocabulary(folder() / name, level())
        assert len(vocab) >= 20
    assert "switch-on" not in read_vocabulary(folder() / "switch-incomplete.json",
                                              level()).names


def test_noisy_labels_flip_at_the_rate() -> None:
    concept = read_vocabulary(folder() / "switch-noisy.json", level())["switch-on"]
    rng = random.Random(0)
    start = level().start
    flips = sum(concept.observe(start, rng) for _ in range(20_000)) / 20_000
    assert 0.015 < flips < 0.025  # false positives at 2%
    assert concept.truth(start) is False


@pytest.mark.parametrize("content, message", [
    ("{", "(not|invalid) JSON"),
    ('["switch-on"]', "JSON object"),
    ('{"concepts": ["flying"]}', "unknown concept 'flying'"),
    ('{"concepts": []}', "non-empty list"),
    ('{"library": "chess"}', "unknown concept library"),
    ('{"noise": {"switch-on": {"false_positive": 0.7}}}', r"\[0, 0.5\)"),
    ('{"noise": {"switch-on": 0.1}}', "needs false_positive"),
    ('{"concepts": ["box-left"], "noise": {"switch-on": {}}}', "not in the vocabulary"),
    ('{"colour": 1}', "unknown key"),
])
def test_broken_vocabulary_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "vocabulary.json"
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_vocabulary(path, level())


def test_negations_are_added_unless_disabled(tmp_path: Path) -> None:
    path = tmp_path / "v.json"
    path.write_text(json.dumps({"concepts": ["switch-on", "box-left"]}))
    assert read_vocabulary(path, level()).names == ("switch-on", "switch-off", "box-left",
                                                    "not-box-left")
    path.write_text(json.dumps({"concepts": ["switch-on"], "negations": False}))
    assert read_vocabulary(path, level()).names == ("switch-on",)
