"""Every objective's answer is optimal among all (plan, edit set) pairs (small random
road maps), and the approximate mode keeps its promises."""

from __future__ import annotations

import pytest

from xaip.balanced import Objective, Weights, balance, balanced_problem
from xaip.balanced.brute_force import brute_force
from xaip.balanced.instances import random_instance

PENALTIES = ("exp", "linear", "exp-1")


def problem(seed: int, objective: str, observable: tuple[str, ...] = (),  # type: ignore[no-untyped-def]
            **options: object):
    rd, rp, hd, hp = random_instance(seed, waypoints=5, **options)  # type: ignore[arg-type]
    weights = Weights(1 + seed % 2, (1, 0.5, 2)[seed % 3], (1, 3, 0.2)[(seed // 3) % 3])
    return balanced_problem(rd, rp, hd, hp, objective=objective, weights=weights,
                            default_cost=(1, 2, 3)[seed % 3],
                            penalty=PENALTIES[seed % 3], observable=observable)


def subset_of(p, result) -> tuple[int, ...]:  # type: ignore[no-untyped-def]
    return tuple(sorted(p.differences.index(e) for e in result.explanation))


def value_of(p, result) -> float:  # type: ignore[no-untyped-def]
    if p.objective is Objective.BALANCED:
        return result.total
    if p.objective is Objective.EXPLICABLE:
        return p.weights.alpha * result.plan_cost + p.weights.beta * result.explanation_cost
    return result.explanation_cost


@pytest.mark.parametrize("objective", [o.value for o in Objective])
@pytest.mark.parametrize("seed", range(14))
def test_exact_search_is_optimal(seed: int, objective: str) -> None:
    p = problem(seed, objective)
    result = balance(p)
    oracle = brute_force(p)
    assert result.verified, result.check
    assert value_of(p, result) == pytest.approx(oracle.value)
    assert oracle.attains(result.plan, subset_of(p, result))


@pytest.mark.parametrize("objective", ["explicable", "explicable-optimal"])
@pytest.mark.parametrize("seed", range(14))
def test_approximate_plans_are_perfectly_explicable(seed: int, objective: str) -> None:
    p = problem(seed, objective)
    result = balance(p, exact=False)
    assert not result.exact and result.verified, result.check
    assert result.explicable
    assert value_of(p, result) >= brute_force(p).value - 1e-9


@pytest.mark.parametrize("seed", range(6))
def test_approximate_balanced_is_never_below_the_optimum(seed: int) -> None:
    p = problem(seed, "balanced")
    result = balance(p, exact=False)
    assert result.verified
    assert result.total >= brute_force(p).value - 1e-9


@pytest.mark.parametrize("objective", [o.value for o in Objective])
@pytest.mark.parametrize("seed", range(12))
def test_watched_plans_are_optimal_too(seed: int, objective: str) -> None:
    """The person does not know that clearing opens a passage but sees passages (B05):
    the oracle scores watched executions on her lifted model, the search plans over
    watched beliefs in the product model."""
    options = {"clearing_opens": False, "rubble": 0.5}
    p = problem(seed, objective, observable=("clear",), **options)
    result = balance(p)
    oracle = brute_force(p)
    assert result.verified, result.check
    assert value_of(p, result) == pytest.approx(oracle.value)
    assert oracle.attains(result.plan, subset_of(p, result))


def test_watching_changes_some_answers() -> None:
    """On these instances watching saves explanations or detours (else the test above
    would test nothing)."""
    options = {"clearing_opens": False, "rubble": 0.5}
    changed = 0
    for seed in range(12):
        unseen = balance(problem(seed, "balanced", **options))
        seen = balance(problem(seed, "balanced", observable=("clear",), **options))
        assert seen.total <= unseen.total + 1e-9
        changed += seen.total < unseen.total - 1e-9
    assert changed >= 2
