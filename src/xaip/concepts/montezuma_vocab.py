"""Montezuma vocabulary files: pick the screen's concepts, exact or learned from examples.

Why learned concepts in a file: in the paper the user's concepts *are* classifiers trained
on labelled states, so a vocabulary file may ask for them. The format is the Sokoban one
(:mod:`xaip.concepts.vocabulary`) with the library ``montezuma`` (the screen comes from
``--level``) and two more keys::

    {"library": "montezuma",
     "concepts": ["on-rope", "on-ladder", "skull-on-left"],     # or "all"
     "negations": true,
     "classifier": "adaboost",     # "exact" (RAM functions, default), "adaboost" (RAM
                                   # bytes, scikit-learn) or "cnn" (screens, torch)
     "examples": 2000}             # labelled example states to train on

Learned concepts are trained on random walks around the plan's and the foil's states,
labelled by the exact RAM functions (the paper's "game-specific logic"), and carry their
held-out confusion rates as their noise model; ``noise`` cannot be given for them.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any

from xaip.concepts.montezuma import Montezuma, montezuma_library, screen_concepts
from xaip.concepts.vocabulary import (
    Concept,
    Vocabulary,
    learning_options,
    negation,
    read_json,
    vocabulary_from_dict,
)
from xaip.errors import InputError

CLASSIFIERS = ("exact", "adaboost", "cnn")
EXAMPLES = 2000
EXTRA_KEYS = frozenset({"classifier", "examples"})


def montezuma_vocabulary(data: Any, screen: str, sim: Montezuma,
                         starts: Sequence[Hashable], source: str = "vocabulary",
                         seed: int = 0) -> Vocabulary:
    """The vocabulary ``data`` describes on ``screen``; learned concepts are trained on
    random walks from ``starts`` (the plan's and the foil's states)."""
    vocabulary = vocabulary_from_dict(data, screen, source, {"montezuma": montezuma_library},
                                      EXTRA_KEYS)
    assert isinstance(data, dict)
    kind, examples = learning_options(data, source, CLASSIFIERS, EXAMPLES)
    if kind == "exact":
        return vocabulary
    return _learned(vocabulary, kind, screen, sim, starts, examples, seed, source)


def _learned(vocabulary: Vocabulary, kind: str, screen: str, sim: Montezuma,
             starts: Sequence[Hashable], examples: int, seed: int, source: str
             ) -> Vocabulary:
    from xaip.concepts.ram_learn import example_states, learn_ram_concept

    base = screen_concepts(screen)
    states = example_states(sim, list(starts), examples, seed)
    trained: dict[str, Concept] = {}
    concepts: list[Concept] = []
    for concept in vocabulary.concepts:
        name = concept.name[4:] if concept.name.startswith("not-") else concept.name
        if name not in trained:
            test, description = base[name]
            if len({bool(test(s)) for s in states}) < 2:
                raise InputError(f"{source}: concept {name!r} is never (or always) true in "
                                 f"{len(states)} example states: it cannot be learned here")
            if kind == "cnn":
                from xaip.concepts.cnn_learn import learn_cnn_concept

                found = learn_cnn_concept(name, test, states, seed=seed,
                                          description=description, sim=sim)
            else:
                found = learn_ram_concept(name, test, states, seed=seed,
                                          description=description)
            trained[name] = found.concept
        learned = trained[name]
        concepts.append(learned if name == concept.name else negation(learned))
    return Vocabulary(tuple(concepts))


def read_montezuma_vocabulary(path: str | Path, screen: str, sim: Montezuma,
                              starts: Sequence[Hashable], seed: int = 0) -> Vocabulary:
    """Read a Montezuma vocabulary file; any problem is one :class:`InputError` line."""
    return montezuma_vocabulary(read_json(path), screen, sim, starts, str(path), seed)
