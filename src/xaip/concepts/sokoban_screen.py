"""Sokoban concepts learned by a CNN from pictures of the level (optional ``torch`` extra).

Why pictures: in the paper the Sokoban concepts are CNN classifiers trained on screens,
not functions of the state; a user who labels pictures gets a classifier that errs, and
the explanation must carry that error (its noise model) and say when a label it rests on
is uncertain. xaip draws each state as a grey picture, ``CELL`` pixels a cell, with one
sprite per kind of cell and thing (wall, floor, pink floor, target, switch off or on, box,
box on a target, player), trains :func:`~xaip.concepts.cnn_learn.train_cnn_concept` on
the states nearest the plan and the foil, labelled by the library's exact definitions,
and measures held-out confusion rates as the concept's noise, as for Montezuma's screens.

A vocabulary file asks for it with two more keys (the rest is the Sokoban format of
:mod:`xaip.concepts.vocabulary`)::

    {"concepts": ["switch-on", "box-on-target"],
     "classifier": "cnn",          # "exact" (the definitions, default) or "cnn"
     "examples": 600}              # labelled states to train on (30% held out)

The checker reads every learned concept with its exact labeller (the definition that
labelled its examples), never with the network, so an answer resting on a wrong label is
refuted rather than confirmed.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.concepts.sokoban import Level, SokobanState
from xaip.concepts.vocabulary import (
    Concept,
    Vocabulary,
    learning_options,
    negation,
    sokoban_library,
)
from xaip.errors import InputError

CELL = 12  # pixels a cell: two 5x5 stride-2 convolutions still see every cell
CLASSIFIERS = ("exact", "cnn")
EXAMPLES = 600
EPOCHS = 20  # held-out accuracy 0.91-1.0 on switch-1 (15 epochs left rates at the 0.49 cap)
EXTRA_KEYS = frozenset({"classifier", "examples"})

# Grey levels (0 black .. 255 white) of the sprites; every pair of kinds differs.
WALL, FLOOR, PINK, TARGET, SWITCH = 60, 225, 165, 120, 95
BOX, BOX_ON_TARGET, PLAYER = 25, 145, 0


@dataclass(frozen=True)
class SokobanScreen:
    """Draws states of one level as grey pictures (``height x width`` bytes, row-major).

    A frozen dataclass, so a trained classifier that holds it pickles to worker processes.
    """

    level: Level

    @property
    def height(self) -> int:
        return self.level.height * CELL

    @property
    def width(self) -> int:
        return self.level.width * CELL

    def __call__(self, state: Hashable) -> bytes:
        assert isinstance(state, SokobanState)
        level = self.level
        pixels = bytearray(self.height * self.width)
        for cell in range(level.width * level.height):
            top, left = (v * CELL for v in level.position(cell))
            self._cell(pixels, top, left, cell, state)
        return bytes(pixels)

    def _fill(self, pixels: bytearray, top: int, left: int, inset: int, grey: int) -> None:
        for row in range(top + inset, top + CELL - inset):
            start = row * self.width + left + inset
            pixels[start:start + CELL - 2 * inset] = bytes([grey]) * (CELL - 2 * inset)

    def _cell(self, pixels: bytearray, top: int, left: int, cell: int,
              state: SokobanState) -> None:
        level = self.level
        if cell in level.walls:
            self._fill(pixels, top, left, 0, WALL)
            return
        self._fill(pixels, top, left, 0, PINK if cell in level.pink else FLOOR)
        if cell in level.targets:
            self._fill(pixels, top, left, 4, TARGET)
        if cell == level.switch:
            self._fill(pixels, top, left, 1, SWITCH)
            if not state.switch_on:  # off: a ring (the floor shows through its middle)
                self._fill(pixels, top, left, 3, PINK if cell in level.pink else FLOOR)
        if cell in state.boxes:
            self._fill(pixels, top, left, 2, BOX)
            self._fill(pixels, top, left, 4, BOX_ON_TARGET if cell in level.targets else BOX)
        if cell == state.player:  # a plus, so the cell's background shows in its corners
            for row in range(top + 2, top + CELL - 2):
                start = row * self.width + left + 5
                pixels[start:start + 2] = bytes([PLAYER, PLAYER])
            for row in (top + 5, top + 6):
                start = row * self.width + left + 2
                pixels[start:start + CELL - 4] = bytes([PLAYER]) * (CELL - 4)


def learned_sokoban_vocabulary(data: Any, vocabulary: Vocabulary, level: Level,
                               sim: Any, starts: Sequence[Hashable],
                               source: str = "vocabulary", seed: int = 0) -> Vocabulary:
    """``vocabulary`` (read from ``data``) with its concepts learned as ``data`` asks:
    unchanged for ``"classifier": "exact"``; for ``"cnn"``, each concept (and its negation,
    the same network's "no") trained on the ``examples`` states nearest ``starts`` (the
    plan's and the foil's states), labelled by the library's definitions."""
    from xaip.concepts.cnn_learn import train_cnn_concept
    from xaip.concepts.simulator import reachable

    kind, examples = learning_options(data, source, CLASSIFIERS, EXAMPLES)
    if kind == "exact":
        return vocabulary
    library = sokoban_library(level)
    screen = SokobanScreen(level)
    # Sokoban levels are small: the states nearest the plan and the foil, breadth first,
    # cover them far better than random walks (62 distinct states in 600 walks on switch-1).
    states = reachable(sim, list(starts), limit=examples)
    trained: dict[str, Concept] = {}
    concepts: list[Concept] = []
    for concept in vocabulary.concepts:
        name = _positive(concept.name)
        if name not in trained:
            exact = library[name]
            if len({bool(exact.test(s)) for s in states}) < 2:
                raise InputError(f"{source}: concept {name!r} is never (or always) true in "
                                 f"{len(states)} example states: it cannot be learned here")
            found = train_cnn_concept(name, exact.test, states, screen, screen.height,
                                      screen.width, seed=seed, epochs=EPOCHS,
                                      description=exact.description)
            trained[name] = found.concept
        learned = trained[name]
        if name == concept.name:
            concepts.append(learned)
        else:
            concepts.append(negation(learned, concept.name))
    return Vocabulary(tuple(concepts))


def _positive(name: str) -> str:
    if name == "switch-off":
        return "switch-on"
    return name[4:] if name.startswith("not-") else name
