"""The Bayesian updates behave as the paper's formulas say."""

from __future__ import annotations

from xaip.concepts.confidence import (
    bayes,
    cost_bound_posterior,
    precision,
    precondition_update,
    presence_rate,
)


def test_noise_free_precondition_update_is_the_papers_formula() -> None:
    p = 0.5
    for q in (0.1, 0.5, 0.9):
        assert abs(precondition_update(p, True, q, 0, 0) - p / (p + (1 - p) * q)) < 1e-12
        assert precondition_update(p, False, q, 0, 0) == 0.0  # one counter-example refutes


def test_posterior_is_monotone_in_consistent_samples() -> None:
    p, history = 0.5, []
    for _ in range(20):
        p = precondition_update(p, True, 0.4, 0.02, 0.02)
        history.append(p)
    assert history == sorted(history) and history[-1] > 0.999


def test_a_noisy_negative_observation_does_not_refute() -> None:
    p = precondition_update(0.5, False, 0.5, 0.02, 0.02)
    assert 0.01 < p < 0.5


def test_cost_posterior() -> None:
    p_k = 0.3
    assert abs(cost_bound_posterior([10], 10, p_k, 1.0) - 0.5 / (0.5 + 0.5 * p_k)) < 1e-12
    assert cost_bound_posterior([10, 1], 10, p_k, 1.0) == 0.0
    noisy = cost_bound_posterior([10] * 10 + [1], 10, p_k, 0.97)
    assert noisy > 0.9
    assert cost_bound_posterior([1, 1, 1], 1, 1.0, 1.0) == 0.5  # no information


def test_helpers() -> None:
    assert bayes(0.5, 1.0, 1.0) == 0.5
    assert abs(presence_rate(0.5, 0.1, 0.1) - 0.5) < 1e-12
    assert precision(0.5, 0.0, 0.1) == 1.0
