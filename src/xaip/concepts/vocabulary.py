"""The user's concepts: named binary facts about a state, each with its noise model.

Why a noise model on every concept: in the paper the concepts are classifiers learned from
labelled states, so they err. Each concept here carries its false-positive rate
``P(says present | absent)`` and false-negative rate ``P(says absent | present)``; the
confidence computations (:mod:`xaip.concepts.confidence`) use them, and a concept with
non-zero rates flips its labels at exactly those rates (seeded), so the noisy-classifier
path can be tested against ground truth. The explainers only ever see ``observe``.

``truth`` is the concept's own test: the definition for a hand-written concept, the
classifier itself for a learned one (``simulate_noise=False``). :meth:`Concept.exact_label`
is the *exact* label where one exists -- the definition, or for a learned concept the
labelling function its examples came from (``reference``, e.g. the RAM functions of
Montezuma) -- and ``None`` for a classifier with no exact labels (a concept a person
taught by labelling states). The checker confirms with exact labels wherever they exist,
never with the classifier that produced the answer; where none exist it must share the
classifier, and the answer's ``verification`` says so.

A vocabulary file (JSON) names concepts from a bundled library::

    {"library": "sokoban",
     "concepts": ["switch-on", "box-right", "on-pink-cell"],   # or "all"
     "negations": true,                                          # add not-X (default)
     "noise": {"switch-on": {"false_positive": 0.02, "false_negative": 0.02}},
     "exclude": ["switch-off"]}
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xaip import sidefiles
from xaip.concepts.sokoban import DIRECTIONS, Level, SokobanState
from xaip.errors import InputError
from xaip.planning.pddl.limits import quoted

Test = Callable[[Hashable], bool]


@dataclass(frozen=True)
class Concept:
    """A named binary concept with its classifier's confusion rates."""

    name: str
    test: Test = field(compare=False, repr=False)
    description: str = ""
    false_positive: float = 0.0
    false_negative: float = 0.0
    simulate_noise: bool = True  # False for a real classifier: its errors are its own
    #: The exact labelling function of a learned concept (what labelled its examples),
    #: where one exists; the checker labels with it instead of the classifier.
    reference: Test | None = field(default=None, compare=False, repr=False)

    @property
    def noisy(self) -> bool:
        return self.false_positive > 0 or self.false_negative > 0

    @property
    def learned(self) -> bool:
        """A real classifier (its labels are its outputs, not a definition)."""
        return not self.simulate_noise

    @property
    def has_exact_labels(self) -> bool:
        return self.reference is not None or not self.learned

    def exact_label(self, state: Hashable) -> bool | None:
        """The exact label of ``state`` (the definition, or a learned concept's reference
        labeller); ``None`` for a classifier without one."""
        if self.reference is not None:
            return bool(self.reference(state))
        if not self.learned:
            return self.truth(state)
        return None

    def error_rate(self, label: bool) -> float:
        """How often this concept's classifier gives ``label`` wrongly: the false-positive
        rate for "present", the false-negative rate for "absent"."""
        return self.false_positive if label else self.false_negative

    def truth(self, state: Hashable) -> bool:
        return bool(self.test(state))

    def observe(self, state: Hashable, rng: random.Random | None = None) -> bool:
        """The classifier's label: the truth, flipped at the concept's error rates."""
        value = self.truth(state)
        if rng is None or not self.noisy or not self.simulate_noise:
            return value
        flip = self.false_negative if value else self.false_positive
        return (not value) if rng.random() < flip else value


@dataclass(frozen=True)
class Vocabulary:
    """An ordered list of concepts (names unique)."""

    concepts: tuple[Concept, ...]

    def __post_init__(self) -> None:
        names = [c.name for c in self.concepts]
        if len(set(names)) != len(names):
            raise InputError("a vocabulary names each concept once")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.concepts)

    def __len__(self) -> int:
        return len(self.concepts)

    def __getitem__(self, name: str) -> Concept:
        for concept in self.concepts:
            if concept.name == name:
                return concept
        raise KeyError(name)

    def without(self, *names: str) -> Vocabulary:
        return Vocabulary(tuple(c for c in self.concepts if c.name not in names))

    def with_noise(self, false_positive: float, false_negative: float,
                   names: Iterable[str] | None = None) -> Vocabulary:
        """The same concepts with the given error rates (on ``names``, default all)."""
        chosen = set(self.names if names is None else names)
        return Vocabulary(tuple(
            replace(c, false_positive=false_positive, false_negative=false_negative)
            if c.name in chosen else c for c in self.concepts))

    def truth_mask(self, state: Hashable) -> int:
        """The exact labels as a bit mask (bit ``i`` for concept ``i``)."""
        mask = 0
        for index, concept in enumerate(self.concepts):
            if concept.truth(state):
                mask |= 1 << index
        return mask

    def observe_mask(self, state: Hashable, rng: random.Random) -> int:
        mask = 0
        for index, concept in enumerate(self.concepts):
            if concept.observe(state, rng):
                mask |= 1 << index
        return mask

    def names_of(self, mask: int) -> tuple[str, ...]:
        return tuple(c.name for i, c in enumerate(self.concepts) if mask >> i & 1)


def negation(concept: Concept, name: str | None = None) -> Concept:
    """``not-X``: true exactly where ``concept`` is false (same error rates, swapped)."""
    test = concept.test
    reference = concept.reference
    return Concept(name or f"not-{concept.name}", lambda s: not test(s),
                   f"not ({concept.description})" if concept.description else "",
                   concept.false_negative, concept.false_positive, concept.simulate_noise,
                   None if reference is None else (lambda s: not reference(s)))


# ---------------------------------------------------------------------- Sokoban library


def _state(s: Hashable) -> SokobanState:
    assert isinstance(s, SokobanState)
    return s


def sokoban_library(level: Level) -> dict[str, Concept]:
    """The bundled Sokoban concepts for ``level``, each with its negation.

    The paper's key concepts (``switch-on`` and ``on-pink-cell``) plus the ordinary ones
    its survey participants named (a box or wall next to the player, boxes next to walls or
    on targets, ...). ``switch-off`` is the negation of ``switch-on``; every other negation
    is ``not-X``.
    """
    lv = level

    def near(cell: int, what: Callable[[int], bool]) -> bool:
        return any((n := lv.neighbour(cell, d)) is not None and what(n) for d in DIRECTIONS)

    def corner(cell: int) -> bool:
        def wall(d: str) -> bool:
            n = lv.neighbour(cell, d)
            return n is None or n in lv.walls
        return (wall("up") or wall("down")) and (wall("left") or wall("right"))

    base: list[Concept] = [
        Concept("switch-on", lambda s: _state(s).switch_on, "the switch is on"),
        Concept("on-switch-cell", lambda s: _state(s).player == lv.switch,
                "the player stands on the switch"),
        Concept("on-pink-cell", lambda s: _state(s).player in lv.pink,
                "the player stands on a pink cell"),
        Concept("box-on-pink-cell", lambda s: any(b in lv.pink for b in _state(s).boxes),
                "a box is on a pink cell"),
        Concept("box-on-target", lambda s: any(b in lv.targets for b in _state(s).boxes),
                "a box is on a target"),
        Concept("all-boxes-on-targets",
                lambda s: all(b in lv.targets for b in _state(s).boxes),
                "every box is on a target"),
        Concept("box-next-to-wall",
                lambda s: any(near(b, lambda n: n in lv.walls) for b in _state(s).boxes),
                "a box touches a wall"),
        Concept("box-in-corner", lambda s: any(corner(b) for b in _state(s).boxes),
                "a box is stuck in a corner"),
        Concept("player-next-to-target",
                lambda s: near(_state(s).player, lambda n: n in lv.targets),
                "the player is next to a target"),
        Concept("player-next-to-switch",
                lambda s: near(_state(s).player, lambda n: n == lv.switch),
                "the player is next to the switch"),
    ]
    def box_towards(direction: str) -> Test:
        return lambda s: lv.neighbour(_state(s).player, direction) in _state(s).boxes

    def wall_towards(direction: str) -> Test:
        def test(s: Hashable) -> bool:
            n = lv.neighbour(_state(s).player, direction)
            return n is None or n in lv.walls
        return test

    for direction in DIRECTIONS:
        base.append(Concept(f"box-{direction}", box_towards(direction),
                            f"a box is next to the player, {direction}"))
        base.append(Concept(f"wall-{direction}", wall_towards(direction),
                            f"a wall is next to the player, {direction}"))
    library: dict[str, Concept] = {}
    for concept in base:
        library[concept.name] = concept
        neg = negation(concept, "switch-off" if concept.name == "switch-on" else None)
        library[neg.name] = neg
    return library


Library = Callable[[Any], dict[str, Concept]]
LIBRARIES: dict[str, Library] = {"sokoban": sokoban_library}


def _rate(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) \
            or not 0.0 <= float(value) < 0.5:
        raise InputError(f"{where}: an error rate is a number in [0, 0.5), not {value!r}")
    return float(value)


def vocabulary_from_dict(data: Any, level: Any, source: str = "vocabulary",
                         libraries: dict[str, Library] | None = None,
                         extra_keys: frozenset[str] = frozenset()) -> Vocabulary:
    """Build a vocabulary from the JSON structure described in the module docstring.

    ``libraries`` are the concept libraries of the environment (default: Sokoban's), each
    built from ``level``; ``extra_keys`` are keys the caller reads itself."""
    libraries = LIBRARIES if libraries is None else libraries
    if not isinstance(data, dict):
        raise InputError(f"{source}: a vocabulary is a JSON object")
    unknown_keys = set(data) - {"library", "concepts", "negations", "noise", "exclude"} \
        - extra_keys
    if unknown_keys:
        raise InputError(f"{source}: unknown key {quoted(sorted(unknown_keys)[0])}")
    library_name = data.get("library", next(iter(libraries)))
    if not isinstance(library_name, str) or library_name not in libraries:
        raise InputError(f"{source}: unknown concept library {quoted(library_name)} (one of "
                         f"{', '.join(libraries)})")
    library = libraries[library_name](level)
    wanted = data.get("concepts", "all")
    if wanted == "all":
        names: list[str] = list(library)
    elif isinstance(wanted, list) and all(isinstance(n, str) for n in wanted) and wanted:
        names = []
        negations = data.get("negations", True)
        if not isinstance(negations, bool):
            raise InputError(f"{source}: 'negations' is true or false")
        for name in wanted:
            if name not in library:
                raise InputError(f"{source}: unknown concept {quoted(name)} in library "
                                 f"{library_name!r}")
            names.append(name)
            if negations:
                partner = _partner(name, library)
                if partner is not None:
                    names.append(partner)
    else:
        raise InputError(f"{source}: 'concepts' is \"all\" or a non-empty list of names")
    exclude = data.get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(n, str) for n in exclude):
        raise InputError(f"{source}: 'exclude' is a list of concept names")
    names = [n for n in dict.fromkeys(names) if n not in exclude]
    noise = data.get("noise", {})
    if not isinstance(noise, dict):
        raise InputError(f"{source}: 'noise' maps concept names to error rates")
    concepts = {n: library[n] for n in names}
    for name, rates in noise.items():
        if name not in concepts:
            raise InputError(f"{source}: noise for {name!r}, which is not in the vocabulary")
        if not isinstance(rates, dict) or set(rates) - {"false_positive", "false_negative"}:
            raise InputError(f"{source}: noise for {name!r} needs false_positive and/or "
                             "false_negative")
        concepts[name] = replace(
            concepts[name],
            false_positive=_rate(rates.get("false_positive", 0.0), f"{source}: {name}"),
            false_negative=_rate(rates.get("false_negative", 0.0), f"{source}: {name}"))
    if not concepts:
        raise InputError(f"{source}: the vocabulary has no concepts")
    return Vocabulary(tuple(concepts.values()))


def _partner(name: str, library: dict[str, Concept]) -> str | None:
    pairs = {"switch-on": "switch-off", "switch-off": "switch-on"}
    if name in pairs:
        return pairs[name]
    other = name[4:] if name.startswith("not-") else f"not-{name}"
    return other if other in library else None


def read_vocabulary(path: str | Path, level: Level) -> Vocabulary:
    """Read a vocabulary file; any problem is one :class:`InputError` line."""
    return vocabulary_from_dict(read_json(path), level, str(path))


def read_json(path: str | Path) -> Any:
    """A vocabulary file's JSON; an unreadable file or bad JSON is one InputError line."""
    return sidefiles.read_json(path, "vocabulary")  # limits, devices, FIFOs, NaN


def default_vocabulary(level: Level) -> Vocabulary:
    """Every concept of the Sokoban library, noise-free."""
    return Vocabulary(tuple(sokoban_library(level).values()))


def concept_names(vocabulary: Vocabulary, names: Sequence[str]) -> tuple[Concept, ...]:
    return tuple(vocabulary[n] for n in names)


def learning_options(data: dict[str, Any], source: str, classifiers: Sequence[str],
                     examples: int) -> tuple[str, int]:
    """``(classifier, examples)`` of a vocabulary file that may ask for learned concepts
    (Montezuma's and Sokoban's): ``classifier`` one of ``classifiers`` (default
    ``exact``), ``examples`` a whole number of at least 50 (default ``examples``); a
    learned vocabulary measures its own noise, so it cannot also give ``noise``."""
    kind = data.get("classifier", "exact")
    if kind not in classifiers:
        raise InputError(f"{source}: 'classifier' is one of {', '.join(classifiers)}, not "
                         f"{kind!r}")
    count = data.get("examples", examples)
    if isinstance(count, bool) or not isinstance(count, int) or count < 50:
        raise InputError(f"{source}: 'examples' is a whole number of at least 50")
    if kind != "exact" and "noise" in data:
        raise InputError(f"{source}: learned concepts measure their own noise; drop 'noise'")
    return kind, count
