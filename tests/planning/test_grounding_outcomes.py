"""Independent probabilistic effects multiply: grounding bounds the product (issue 21).

IPPC 2008 boxworld p01 (a ``forall`` over boxes, each with its own ``probabilistic``) spent
minutes multiplying fractions inside one action, past any ``--max-seconds``: the outcome
product now counts against the grounding size cap and reads the clock as it grows.
"""

from __future__ import annotations

import pytest

from xaip.errors import BudgetExhausted
from xaip.planning.mdp import ground_probabilistic
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.runtime import Budget

DOMAIN = """(define (domain coins) (:requirements :typing :probabilistic-effects)
  (:types coin)
  (:predicates (heads ?c - coin) (tossed))
  (:action toss-all :parameters ()
    :effect (and (tossed) (forall (?c - coin) (probabilistic 0.5 (heads ?c))))))
"""


def problem(coins: int) -> str:
    names = " ".join(f"c{i}" for i in range(coins))
    return (f"(define (problem p) (:domain coins) (:objects {names} - coin) (:init) "
            "(:goal (tossed)))")


def test_a_few_independent_outcomes_are_multiplied_out() -> None:
    task = ground_probabilistic(parse_domain(DOMAIN), parse_problem(problem(3)))
    (action,) = task.actions
    assert len(action.outcomes) == 8 and sum(o.probability for o in action.outcomes) == 1


def test_an_exploding_product_stops_at_the_size_cap() -> None:
    with pytest.raises(BudgetExhausted, match="would exceed") as stop:
        ground_probabilistic(parse_domain(DOMAIN), parse_problem(problem(30)),
                             budget=Budget(max_seconds=600))
    assert stop.value.phase == "grounding"
