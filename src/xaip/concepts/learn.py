"""Concepts learned from labelled example states, with their measured noise model.

Why AdaBoost on decision stumps, in pure Python: the paper learned its Montezuma concepts
with scikit-learn's AdaBoost on RAM bytes; xaip has no run-time dependencies, and a
boosted stump classifier over a short feature vector ("RAM": the state's numbers) is a
few dozen lines. Separable concepts stop after one or two stumps.

The held-out part of the examples (30% by default) measures the classifier's
false-positive and false-negative rates (Laplace-smoothed, so a perfect score on a small
test set still admits some doubt); they become the concept's noise model, which the
confidence computations use. A learned concept's labels *are* the classifier's outputs:
no extra noise is simulated, and its ``truth`` is the classifier too; the exact labels,
where they exist, are its ``reference`` (see :mod:`xaip.concepts.vocabulary`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

from xaip.concepts.sokoban import SokobanState
from xaip.concepts.vocabulary import Concept
from xaip.errors import InputError

Features = Callable[[Hashable], Sequence[float]]


@dataclass(frozen=True)
class Stump:
    """``weight * (+1 if polarity * (x[feature] - threshold) > 0 else -1)``."""

    feature: int
    threshold: float
    polarity: int
    weight: float

    def vote(self, x: Sequence[float]) -> float:
        return self.weight if self.polarity * (x[self.feature] - self.threshold) > 0 \
            else -self.weight


@dataclass(frozen=True)
class BoostedStumps:
    """A trained classifier: the sign of the weighted stump votes."""

    stumps: tuple[Stump, ...]
    features: Features

    def __call__(self, state: Hashable) -> bool:
        x = self.features(state)
        return sum(stump.vote(x) for stump in self.stumps) > 0


def _thresholds(values: Sequence[float]) -> list[float]:
    distinct = sorted(set(values))
    # one threshold below every value gives a constant stump: the bias that lets a sum of
    # stumps express a conjunction ("row 2 and column 3 to 5")
    return [distinct[0] - 1.0] + [(a + b) / 2 for a, b in zip(distinct, distinct[1:],
                                                               strict=False)]


def train_stumps(xs: Sequence[Sequence[float]], ys: Sequence[bool],
                 rounds: int = 60) -> tuple[Stump, ...]:
    """Discrete AdaBoost (Freund and Schapire) over decision stumps."""
    n = len(xs)
    if n == 0 or len(set(ys)) < 2:
        raise InputError("learning a concept needs positive and negative examples")
    labels = [1 if y else -1 for y in ys]
    weights = [1.0 / n] * n
    candidates = [(j, t) for j in range(len(xs[0]))
                  for t in _thresholds([x[j] for x in xs])]
    above = {(j, t): [x[j] > t for x in xs] for j, t in candidates}
    stumps: list[Stump] = []
    for _ in range(rounds):
        best: tuple[float, int, float, int] | None = None
        for key in candidates:
            side = above[key]
            err = sum(w for w, s, lab in zip(weights, side, labels, strict=True)
                      if (1 if s else -1) != lab)
            for polarity, e in ((1, err), (-1, 1.0 - err)):
                if best is None or e < best[0]:
                    best = (e, key[0], key[1], polarity)
        if best is None:
            break
        err, feature, threshold, polarity = best
        err = min(max(err, 1e-10), 1 - 1e-10)
        if err >= 0.5:
            break
        alpha = 0.5 * math.log((1 - err) / err)
        stump = Stump(feature, threshold, polarity, alpha)
        stumps.append(stump)
        side = above[(feature, threshold)]
        for i in range(n):
            predicted = (1 if side[i] else -1) * polarity
            weights[i] *= math.exp(-alpha * labels[i] * predicted)
        total = sum(weights)
        weights = [w / total for w in weights]
        if err <= 1e-9:
            break  # separable: one more stump would change nothing
    return tuple(stumps)


@dataclass(frozen=True)
class LearnedConcept:
    """A concept learned from examples, with its held-out measurements."""

    concept: Concept
    accuracy: float
    train: int
    test: int
    stumps: int


def learn_concept(name: str, positives: Sequence[Hashable], negatives: Sequence[Hashable],
                  features: Features, *, holdout: float = 0.3, seed: int = 0,
                  rounds: int = 60, description: str = "",
                  reference: Callable[[Hashable], bool] | None = None) -> LearnedConcept:
    """Train a classifier for ``name`` and measure its confusion rates on held-out states.
    ``reference``: the exact labeller of the examples, where there is one (the checker
    labels with it); a concept a person taught by labelling states has none."""
    examples = [(s, True) for s in positives] + [(s, False) for s in negatives]
    if not positives or not negatives:
        raise InputError(f"concept {name!r}: needs positive and negative example states")
    rng = random.Random(seed)
    rng.shuffle(examples)
    cut = max(1, int(len(examples) * (1 - holdout))) if len(examples) > 1 else 1
    train, test = examples[:cut], examples[cut:] or examples[:cut]  # no holdout: train set
    stumps = train_stumps([list(features(s)) for s, _ in train], [y for _, y in train],
                          rounds)
    classifier = BoostedStumps(stumps, features)
    fp = sum(1 for s, y in test if not y and classifier(s))
    fn = sum(1 for s, y in test if y and not classifier(s))
    negatives_test = sum(1 for _, y in test if not y)
    positives_test = len(test) - negatives_test
    concept = Concept(name, classifier, description,
                      false_positive=min(0.49, (fp + 1) / (negatives_test + 2)),
                      false_negative=min(0.49, (fn + 1) / (positives_test + 2)),
                      simulate_noise=False, reference=reference)
    accuracy = 1.0 - (fp + fn) / len(test)
    return LearnedConcept(concept, accuracy, len(train), len(test), len(stumps))


def sokoban_ram(state: Hashable) -> tuple[float, ...]:
    """A Sokoban state as "RAM": the player's cell, each box's cell and offset from the
    player, and the switch (the numbers a game would keep in memory)."""
    assert isinstance(state, SokobanState)
    out: list[float] = [float(state.player), float(state.switch_on)]
    for box in state.boxes:
        out += [float(box), float(box - state.player)]
    return tuple(out)


def grid_features(width: int) -> Features:
    """Features of a Sokoban state on a grid ``width`` cells wide: row and column of the
    player, of each box, their differences, and the switch."""
    def features(state: Hashable) -> tuple[float, ...]:
        assert isinstance(state, SokobanState)
        pr, pc = divmod(state.player, width)
        out: list[float] = [pr, pc, float(state.switch_on)]
        for box in state.boxes:
            br, bc = divmod(box, width)
            out += [br, bc, br - pr, bc - pc]
        return tuple(float(v) for v in out)
    return features
