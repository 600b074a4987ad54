"""Montezuma concepts learned with scikit-learn's AdaBoost on RAM bytes (ICLR'22 §5, App.).

Why: the paper's users bring concepts as *classifiers* trained on labelled game states, and
their errors enter the confidence. Here the labels come from the exact RAM functions of
:mod:`xaip.concepts.montezuma` (the paper used "game-specific logic and RAM byte values"),
the examples from random walks around the plan's and the foil's states, and the classifier
is ``AdaBoostClassifier`` with default parameters, as in the paper, 70% train / 30%
held-out. The held-out false-positive and false-negative rates (Laplace-smoothed) become the
concept's noise model.

Why the trained stumps are copied out of scikit-learn: the search labels every sample with
every concept, and a scikit-learn ``predict`` on one row costs milliseconds; the same
decision rule evaluated in plain Python (a weighted vote of ``x[f] <= t`` tests) costs
microseconds. :func:`compile_adaboost` gives exactly ``predict``'s answers (tested).

scikit-learn is the optional extra ``learn`` (``pip install xaip[learn]``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.concepts.montezuma import MontezumaState, screen_concepts
from xaip.concepts.simulator import BlackBox, random_walks
from xaip.concepts.vocabulary import Concept, Vocabulary, negation
from xaip.errors import InputError


@dataclass(frozen=True)
class CompiledBoost:
    """A two-class AdaBoost over depth-1 trees: ``(feature, threshold, left_vote,
    right_vote)`` per stump; the state is positive when the votes sum above zero."""

    stumps: tuple[tuple[int, float, float, float], ...]

    def score(self, ram: bytes | Sequence[int]) -> float:
        return sum(left if ram[f] <= t else right for f, t, left, right in self.stumps)

    def __call__(self, state: Hashable) -> bool:
        assert isinstance(state, MontezumaState)
        return self.score(state.ram) > 0


def compile_adaboost(model: Any) -> CompiledBoost:
    """The decision rule of a fitted two-class ``AdaBoostClassifier`` (SAMME, stumps)."""
    classes = list(model.classes_)
    if len(classes) != 2:
        raise InputError("a concept classifier needs two classes")
    stumps: list[tuple[int, float, float, float]] = []
    for tree, weight in zip(model.estimators_, model.estimator_weights_, strict=False):
        inner = tree.tree_
        if weight == 0:
            continue

        def vote(node: int, inner: Any = inner, tree: Any = tree, weight: float = weight
                 ) -> float:
            label = tree.classes_[int(inner.value[node][0].argmax())]
            return float(weight) if label == classes[1] else -float(weight)

        if inner.node_count == 1:
            stumps.append((0, float("inf"), vote(0), vote(0)))
        else:
            stumps.append((int(inner.feature[0]), float(inner.threshold[0]),
                           vote(int(inner.children_left[0])),
                           vote(int(inner.children_right[0]))))
    return CompiledBoost(tuple(stumps))


@dataclass(frozen=True)
class RamConcept:
    """A learned concept with its held-out measurements."""

    concept: Concept
    accuracy: float
    false_positive: float
    false_negative: float
    positives: int
    train: int
    test: int


def example_states(sim: BlackBox, starts: Sequence[Hashable], count: int,
                   seed: int = 0) -> list[Hashable]:
    """Labelled-example candidates: random-walk states around ``starts`` (distinct)."""
    return list(dict.fromkeys(random_walks(sim, starts, count, seed)))


def learn_ram_concept(name: str, label: Any, states: Sequence[Hashable], *,
                      holdout: float = 0.3, seed: int = 0,
                      description: str = "") -> RamConcept:
    """Train AdaBoost (default parameters) on the RAM of ``states`` labelled by ``label``
    and measure its confusion rates on the held-out part."""
    import importlib

    try:  # an optional extra: imported by name so the type checker need not know it
        ensemble = importlib.import_module("sklearn.ensemble")
    except ImportError:
        raise InputError("learned concepts need scikit-learn: pip install 'xaip[learn]'"
                         ) from None
    rows = [(s.ram, bool(label(s))) for s in states if isinstance(s, MontezumaState)]
    random.Random(seed).shuffle(rows)
    cut = int(len(rows) * (1 - holdout))
    train, test = rows[:cut], rows[cut:]
    if len({y for _, y in train}) < 2 or not test:
        raise InputError(f"concept {name!r}: the examples need positive and negative "
                         "states in the training part and a held-out part")
    model = ensemble.AdaBoostClassifier(random_state=seed)
    model.fit([list(r) for r, _ in train], [y for _, y in train])
    rule = compile_adaboost(model)
    said = [rule.score(r) > 0 for r, _ in test]
    return measured_concept(name, rule, description, said, [y for _, y in test],
                            sum(1 for _, y in rows if y), len(train), reference=label)


def measured_concept(name: str, classifier: Any, description: str, said: Sequence[bool],
                     truths: Sequence[bool], positives: int, train: int,
                     reference: Callable[[Any], bool] | None = None) -> RamConcept:
    """A learned classifier as a concept whose noise model is its held-out confusion;
    ``reference`` is the exact labeller its examples came from (the checker's labels).

    Why Laplace-smoothed rates capped below one half: a perfect held-out score on a few
    dozen states does not make a classifier infallible, and the Bayesian update of the
    confidence needs rates strictly inside (0, 1/2) to stay informative.
    """
    fp = sum(1 for s, truth in zip(said, truths, strict=True) if s and not truth)
    fn = sum(1 for s, truth in zip(said, truths, strict=True) if truth and not s)
    negatives = sum(1 for truth in truths if not truth)
    fpr = min(0.49, (fp + 1) / (negatives + 2))
    fnr = min(0.49, (fn + 1) / (len(truths) - negatives + 2))
    concept = Concept(name, classifier, description, false_positive=fpr, false_negative=fnr,
                      simulate_noise=False, reference=reference)
    return RamConcept(concept, 1 - (fp + fn) / len(truths), fpr, fnr, positives, train,
                      len(truths))


def learned_vocabulary(states: Sequence[Hashable], names: Sequence[str] | None = None,
                       seed: int = 0, screen: str = "1"
                       ) -> tuple[Vocabulary, dict[str, RamConcept]]:
    """The screen's concepts (default: every one with both labels among ``states``)
    learned from ``states``, each with its negation; also the measurements per concept."""
    library = screen_concepts(screen)
    chosen = list(library) if names is None else list(names)
    learned: dict[str, RamConcept] = {}
    concepts: list[Concept] = []
    for name in chosen:
        if name not in library:
            raise InputError(f"no screen-{screen} concept {name!r}")
        test, description = library[name]
        labels = {bool(test(s)) for s in states}
        if len(labels) < 2:
            if names is not None:
                raise InputError(f"concept {name!r}: no positive or no negative example")
            continue
        found = learn_ram_concept(name, test, states, seed=seed, description=description)
        learned[name] = found
        concepts += [found.concept, negation(found.concept)]
    return Vocabulary(tuple(concepts)), learned
