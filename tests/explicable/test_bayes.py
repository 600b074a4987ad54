"""The Bayesian observer: one posterior for explicability, legibility, predictability."""

from __future__ import annotations

import math

import pytest

from xaip.errors import InputError
from xaip.explicable.bayes import (
    Hypothesis,
    Observer,
    explicability_posterior,
    legibility,
    most_predictable_next,
    predictability,
)
from xaip.explicable.measures import Scorer
from xaip.explicable.problem import load_problem
from xaip.planning.search.enumerate import all_plans

from .grids import DOMAIN

FOLDER = DOMAIN.parent


@pytest.fixture(scope="module")
def b1():
    return load_problem(DOMAIN, DOMAIN, FOLDER / "b1.pddl", FOLDER / "b1-human.pddl")


@pytest.fixture(scope="module")
def b2():
    return load_problem(DOMAIN, DOMAIN, FOLDER / "b2.pddl", FOLDER / "b2-human.pddl")


def test_posterior_ranks_like_cost_inexplicability(b1) -> None:
    plans = all_plans(b1.robot_task, 10).plans
    scorer = Scorer(b1, "cost")
    pairs = [(scorer.score(p).inexplicability, explicability_posterior(p, b1.human_task))
             for p in plans]
    for ie_a, post_a in pairs:
        for ie_b, post_b in pairs:
            if ie_a < ie_b:
                assert post_a > post_b
            elif ie_a == ie_b:
                assert post_a == pytest.approx(post_b)
    # IE 2, β = 1, prior 1/2 each, M0 likelihood e^-2: the two weigh the same.
    assert explicability_posterior(plans[0], b1.human_task) == pytest.approx(0.5)


def test_legibility_between_two_goals(b1, b2) -> None:
    hypotheses = [Hypothesis("B1", b1.human_task), Hypothesis("B2", b2.human_task)]
    to_b1 = ["pick-up c10", "move c10 c11", "move c11 c12", "put-down c12"]
    assert legibility(to_b1, hypotheses, "B1") == 1.0  # B2's model cannot end there
    observer = Observer(hypotheses, beta=1.0)
    assert observer.posterior(to_b1) == {"B1": 1.0, "B2": 0.0}
    with pytest.raises(InputError):
        legibility(to_b1, hypotheses, "B3")
    assert math.isclose(sum(observer.posterior(to_b1).values()), 1.0)


def test_predictability_counts_completions(b2) -> None:
    human = b2.human_task
    assert predictability(human, []) == pytest.approx(1 / 3)  # three optimal routes to B2
    assert predictability(human, ["pick-up c10", "move c10 c00"]) == 1.0
    assert predictability(human, ["pick-up c10", "move c10 c11"]) == 0.5
    assert predictability(human, ["pick-up c10", "move c10 c20"]) == 0.0
    nxt = most_predictable_next(human, ["pick-up c10"])
    assert nxt == {"move c10 c00": 1.0, "move c10 c11": 0.5}
