"""Concepts learned from labelled example states (boosted stumps), with measured noise,
explain the bundled foils as the exact concepts do."""

from __future__ import annotations

import random

import pytest

from xaip.concepts import Vocabulary, bundled, reachable, why_not
from xaip.concepts.learn import grid_features, learn_concept, sokoban_ram, train_stumps
from xaip.concepts.vocabulary import negation
from xaip.errors import InputError


def learned(env: str, key: str, negated: str):  # type: ignore[no-untyped-def]
    query = bundled(env)
    states = reachable(query.sim, [query.sim.initial()])
    random.Random(0).shuffle(states)
    truth = query.vocabulary[key]
    cut = int(0.7 * len(states))
    sample = states[:cut]
    result = learn_concept(key, [s for s in sample if truth.truth(s)],
                           [s for s in sample if not truth.truth(s)],
                           grid_features(query.sim.level.width))
    concept = result.concept
    replaced = {key: concept, negated: negation(concept, negated)}
    vocab = Vocabulary(tuple(replaced.get(c.name, c) for c in query.vocabulary.concepts))
    held_out = states[cut:]
    agree = sum(concept.truth(s) == truth.truth(s) for s in held_out) / len(held_out)
    return query, vocab, result, agree


@pytest.mark.parametrize("env, key, negated", [
    ("sokoban-switch", "switch-on", "switch-off"),
    ("sokoban-cells", "on-pink-cell", "not-on-pink-cell"),
])
def test_learned_concepts_explain_the_foils(env: str, key: str, negated: str) -> None:
    query, vocab, result, agree = learned(env, key, negated)
    assert result.accuracy >= 0.95 and agree >= 0.9
    assert 0 < result.concept.false_positive < 0.1 and 0 < result.concept.false_negative < 0.3
    assert not result.concept.simulate_noise
    answer = why_not(query.sim, query.plan, query.foil, vocab, seed=0)
    assert answer.concepts == (key,) and answer.verified


def test_stumps_learn_a_threshold_and_need_both_labels() -> None:
    stumps = train_stumps([[0.0], [1.0], [2.0], [3.0]], [False, False, True, True])
    assert len(stumps) == 1 and stumps[0].threshold == 1.5  # separable: one stump
    with pytest.raises(InputError):
        train_stumps([[0.0], [1.0]], [True, True])
    with pytest.raises(InputError, match="positive and negative"):
        learn_concept("x", [], [bundled().sim.initial()], sokoban_ram)
