"""Legibility and predictability balanced against communication (B07)."""

from __future__ import annotations

import math

import pytest

from xaip.balanced import Weights
from xaip.balanced.legibility import (
    LegibilityProblem,
    balance_legibility,
    balance_predictability,
    goal_posterior,
)
from xaip.errors import InputError
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.pddl.model import Atom
from xaip.runtime import Budget, Status

DOMAIN = """
(define (domain walk) (:requirements :strips)
  (:predicates (at ?p) (link ?a ?b) (seen ?p))
  (:action go :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b))
    :effect (and (at ?b) (not (at ?a)) (seen ?b))))
"""
# s-m-A is the short way to A, but m is also on the way to B; s-x-y-A is legible at once.
# From m two equally short ways lead on to B (via u or v).
PROBLEM = """
(define (problem w) (:domain walk) (:objects s m x y a b u v)
  (:init (at s) (link s m) (link m a) (link m b) (link s x) (link x y) (link y a)
         (link m u) (link u b) (link m v) (link v b))
  (:goal (at {goal})))
"""


def task(goal: str = "a"):  # type: ignore[no-untyped-def]
    return ground(parse_domain(DOMAIN), parse_problem(PROBLEM.format(goal=goal)))


def legibility(gamma: float, hint: float) -> LegibilityProblem:
    return LegibilityProblem(task(), {"A": frozenset({Atom("at", ("a",))}),
                                      "B": frozenset({Atom("at", ("b",))})}, "A", k=1,
                             hint_cost=hint, weights=Weights(1, 1, gamma))


def test_posterior_after_an_ambiguous_step() -> None:
    p = legibility(1, 1)
    t = p.task
    first = next(a for a in t.actions if a.name == "go s m")
    assert goal_posterior(p, [first], ["A", "B"]) == pytest.approx({"A": 0.5, "B": 0.5})
    detour = next(a for a in t.actions if a.name == "go s x")
    assert goal_posterior(p, [detour], ["A", "B"])["A"] == pytest.approx(1.0)


@pytest.mark.parametrize("gamma, hint, plan, said, total", [
    (1, 1, ("go s m", "go m a"), (), 2.5),                 # cheap plan, half legible
    (4, 5, ("go s x", "go x y", "go y a"), (), 3.0),       # the legible detour
    (4, 0.5, ("go s m", "go m a"), ("my goal is not B",), 2.5),  # a cheap hint
])
def test_legibility_trade_off(gamma: float, hint: float, plan: tuple[str, ...],
                              said: tuple[str, ...], total: float) -> None:
    result = balance_legibility(legibility(gamma, hint))
    assert result.plan == plan and result.said == said
    assert result.total == pytest.approx(total) and result.verified


def predictability(gamma: float, cost: float) -> LegibilityProblem:
    return LegibilityProblem(task("b"), {"B": frozenset({Atom("at", ("b",))})}, "B", k=1,
                             commitment_cost=cost, weights=Weights(1, 1, gamma),
                             promises=(Atom("seen", ("u",)), Atom("seen", ("v",))))


def test_a_unique_cheapest_plan_is_predictable() -> None:
    # s-m-b is the one cheapest way: fully predictable, nothing to promise
    plain = balance_predictability(predictability(1, 1))
    assert plain.plan == ("go s m", "go m b") and plain.probability == 1
    assert plain.total == pytest.approx(2) and plain.verified


@pytest.mark.parametrize("cost, said, total", [
    (0.1, ("I will reach (seen u)",), 3.1),   # a cheap promise removes the doubt
    (1.0, (), 3.5),                            # too dear: stay 50% predictable
])
def test_predictability_trade_off(cost: float, said: tuple[str, ...], total: float) -> None:
    # without the m-b link, s-m-u-b and s-m-v-b tie: after (go s m) either is expected
    no_shortcut = ground(parse_domain(DOMAIN), parse_problem(
        PROBLEM.format(goal="b").replace("(link m b) ", "")))
    p = LegibilityProblem(no_shortcut, {"B": frozenset({Atom("at", ("b",))})}, "B", k=1,
                          commitment_cost=cost, weights=Weights(1, 1, 1),
                          promises=(Atom("seen", ("u",)), Atom("seen", ("v",))))
    result = balance_predictability(p)
    assert result.said == said and result.total == pytest.approx(total) and result.verified
    assert result.plan_cost == 3


def test_commitment_makes_a_detour_predictable() -> None:
    p = predictability(1, 0.1)
    from xaip.balanced.legibility import predictability as prob
    from xaip.planning.search.enumerate import all_plans

    plans = all_plans(p.task, 3).plans
    via_u = next(pl for pl in plans if [a.name for a in pl] == ["go s m", "go m u", "go u b"])
    assert prob(p, via_u, plans, ()) == 0  # the observer expects s-m-b
    # promising u: the cheapest plans through u are s-m-u-b (one): certain
    assert prob(p, via_u, plans, (Atom("seen", ("u",)),)) == 1


def test_bad_inputs_and_budget() -> None:
    with pytest.raises(InputError, match="true goal"):
        LegibilityProblem(task(), {"A": frozenset()}, "C")
    with pytest.raises(InputError, match="not a fact"):
        LegibilityProblem(task(), {"A": frozenset({Atom("at", ("zz",))})}, "A")
    stopped = balance_legibility(legibility(1, 1), budget=Budget(max_nodes=1))
    assert stopped.status == Status.BUDGET_EXHAUSTED and not stopped.verified
    assert stopped.plan == () and math.isinf(stopped.total)  # stopped before any plan
