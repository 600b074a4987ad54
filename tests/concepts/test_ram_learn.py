"""Learned Montezuma concepts: AdaBoost on RAM bytes, labelled by the exact RAM functions."""

from __future__ import annotations

import pytest

pytest.importorskip("ale_py")
pytest.importorskip("sklearn")

from xaip.concepts.explain import why_not  # noqa: E402
from xaip.concepts.montezuma import (  # noqa: E402
    PAIR_SCREENS,
    Montezuma,
    montezuma_query,
    on_ladder,
)
from xaip.concepts.ram_learn import (  # noqa: E402
    compile_adaboost,
    example_states,
    learned_vocabulary,
)
from xaip.concepts.simulator import run_trace  # noqa: E402


@pytest.fixture(scope="module")
def sim() -> Montezuma:
    return Montezuma()


@pytest.fixture(scope="module")
def states(sim: Montezuma) -> list[object]:
    starts: list[object] = []
    for pair in [p for p, screen in PAIR_SCREENS.items() if screen == "1"]:
        query = montezuma_query(pair, pair, sim=sim)
        starts += [*run_trace(sim, query.plan).states, *run_trace(sim, query.foil).states]
    return example_states(sim, starts, 300, seed=11)


def test_compiled_rule_matches_sklearn_predict(states: list[object]) -> None:
    from sklearn.ensemble import AdaBoostClassifier

    rows = [list(s.ram) for s in states]  # type: ignore[attr-defined]
    labels = [on_ladder(s) for s in states]
    assert any(labels) and not all(labels)
    # noisy labels make AdaBoost use many stumps, so the copy is really exercised
    noisy = [y != (i % 7 == 0) for i, y in enumerate(labels)]
    model = AdaBoostClassifier(random_state=0).fit(rows, noisy)
    rule = compile_adaboost(model)
    assert len(rule.stumps) > 1
    assert [rule.score(r) > 0 for r in rows] == [bool(p) for p in model.predict(rows)]


def test_learned_concepts_measure_noise_and_explain_a_foil(sim: Montezuma,
                                                           states: list[object]) -> None:
    vocab, learned = learned_vocabulary(states, ["on-ladder", "on-top-platform",
                                                 "in-left-half"])
    assert set(learned) == {"on-ladder", "on-top-platform", "in-left-half"}
    for found in learned.values():
        assert found.test > 0 and found.accuracy >= 0.9
        assert 0 < found.false_positive < 0.5 and 0 < found.false_negative < 0.5
        assert found.concept.false_positive == found.false_positive
    query = montezuma_query("ladder-left", "ladder-left", sim=sim, vocabulary=vocab)
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=0)
    assert result.concepts == ("not-on-ladder",)
    assert result.confidence is not None and result.confidence >= 0.99
