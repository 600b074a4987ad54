"""The small CNN concept classifier on Montezuma screens (optional ``torch`` extra).

Kept small (a few hundred states, a few epochs): it checks that the network learns a
concept from pixels alone, that training is deterministic for a seed, and that its
held-out rates become the concept's noise model; accuracy against AdaBoost is measured by
``benchmarks/concepts.py --classifiers``."""

from __future__ import annotations

import pytest

pytest.importorskip("ale_py")
pytest.importorskip("torch")

from xaip.concepts.cnn_learn import HEIGHT, WIDTH, grey_frame, learn_cnn_concept  # noqa: E402
from xaip.concepts.montezuma import (  # noqa: E402
    Montezuma,
    in_left_half,
    montezuma_query,
    on_bottom_floor,
)
from xaip.concepts.ram_learn import example_states  # noqa: E402
from xaip.concepts.simulator import run_trace  # noqa: E402


@pytest.fixture(scope="module")
def states() -> tuple[Montezuma, list]:
    sim = Montezuma()
    query = montezuma_query("skull-left", "skull-left", sim=sim)
    return sim, example_states(sim, list(run_trace(sim, query.plan).states), 800, seed=1)


def test_frames_are_grey_and_halved(states: tuple[Montezuma, list]) -> None:
    sim, found = states
    frame = grey_frame(sim, found[0])
    assert len(frame) == HEIGHT * WIDTH
    assert grey_frame(sim, found[0]) == frame  # drawing a state twice gives one picture


def test_cnn_learns_a_position_concept_deterministically(states: tuple[Montezuma, list]
                                                         ) -> None:
    sim, found = states
    learned = learn_cnn_concept("in-left-half", in_left_half, found, seed=0, epochs=12,
                                sim=sim)
    positives = sum(in_left_half(s) for s in found)
    base_rate = max(positives, len(found) - positives) / len(found)
    assert learned.accuracy > base_rate  # it learned something from the pixels alone
    assert learned.accuracy >= base_rate + 0.15
    first = learn_cnn_concept("in-left-half", in_left_half, found, seed=0, epochs=2, sim=sim)
    again = learn_cnn_concept("in-left-half", in_left_half, found, seed=0, epochs=2, sim=sim)
    assert (first.accuracy, first.false_positive, first.false_negative) == \
        (again.accuracy, again.false_positive, again.false_negative)
    concept = first.concept
    assert concept.noisy and not concept.simulate_noise
    assert [concept.truth(s) for s in found[:20]] == [again.concept.truth(s)
                                                      for s in found[:20]]


def test_needs_both_labels(states: tuple[Montezuma, list]) -> None:
    from xaip.errors import InputError

    sim, found = states
    floor = [s for s in found if on_bottom_floor(s)]
    with pytest.raises(InputError):
        learn_cnn_concept("on-bottom-floor", on_bottom_floor, floor, sim=sim, epochs=1)
