"""Epistemic side effects (B05): what the person sees while the robot acts."""

from __future__ import annotations

import pytest

from xaip.balanced import Weights, balance, balanced_problem
from xaip.balanced.brute_force import brute_force
from xaip.balanced.epistemic import watched_cost
from xaip.errors import InputError

from .door import door


def problem(observable: tuple[str, ...] = (), infer: bool = False):  # type: ignore[no-untyped-def]
    rd, rp, hd, hp = door()
    return balanced_problem(rd, rp, hd, hp, default_cost=10, observable=observable,
                            infer_conditions=infer)


def test_a_proposed_plan_needs_the_detour() -> None:
    result = balance(problem())
    assert result.plan == ("detour",) and not result.explanation
    assert result.total == pytest.approx(5) and result.verified


def test_seeing_the_door_open_is_not_enough_without_inference() -> None:
    # she sees (open) but still believes the door locked, so (pass) makes no sense
    result = balance(problem(("open",)))
    assert result.plan == ("detour",) and result.verified


def test_seeing_it_open_lets_her_infer_it_was_unlocked() -> None:
    result = balance(problem(("open",), infer=True))
    assert result.plan == ("open", "pass") and not result.explanation
    assert result.human_cost == 2 and result.human_optimum == 4
    assert result.penalty == pytest.approx(1)  # cheaper than expected: no surprise
    assert result.total == pytest.approx(3) and result.verified
    assert brute_force(problem(("open",), infer=True)).value == pytest.approx(3)


def test_only_unused_facts_are_inferred() -> None:
    p = problem(("open",), infer=True)
    rd, rp, hd, hp = door()
    assert watched_cost(p, hd, hp, ("open", "pass")) == 2
    # after (unlock) the fact was used: she would not infer it, but (unlock) made it true
    # in her model anyway
    assert watched_cost(p, hd, hp, ("unlock", "open", "pass")) == 7
    unseen = problem()
    assert watched_cost(unseen, hd, hp, ("open", "pass")) is None


def test_explaining_is_priced_against_watching() -> None:
    # cheap talk: telling her the door is unlocked (1) beats the detour even unwatched
    result = balance(balanced_problem(*door(), default_cost=1))
    assert result.plan == ("open", "pass") and len(result.explanation) == 1
    assert result.total == pytest.approx(2 + 1 + 1)


def test_unknown_observable_predicate() -> None:
    with pytest.raises(InputError, match="observable predicate 'lit'"):
        problem(("lit",))


SWITCH = """(define (domain sw) (:requirements :strips :negative-preconditions
  :conditional-effects)
  (:predicates (lit) (armed) (done) (seen))
  (:action go :parameters () :precondition (and)
    :effect (and (lit) (done) (when (and (armed) (not (lit))) (seen)))))"""
SWITCH_PROBLEM = "(define (problem s) (:domain sw) (:init (armed)) (:goal (and (lit) (done))))"


def test_an_inferred_condition_does_not_undo_the_step() -> None:
    # regression (differential seed 28): (go) fires its effect because (lit) was false
    # *before* it, and it makes (lit) true itself; inferring "not lit" must not leave her
    # believing the light off after the step
    from xaip.planning.pddl import parse_domain, parse_problem

    domain, problem_ = parse_domain(SWITCH), parse_problem(SWITCH_PROBLEM)
    p = balanced_problem(domain, problem_, domain, problem_, observable=("seen",),
                         infer_conditions=True)
    assert watched_cost(p, domain, problem_, ("go",)) == 1
    result = balance(p)
    assert result.plan == ("go",) and result.human_cost == 1 and result.verified


def test_watching_reveals_a_fact_her_model_cannot_reach() -> None:
    # regression (differential seed 237): with conditional effects her model is grounded
    # on its own and lacks (through) as a fact; watching (detour) shows it, so the plan
    # reaches her goal: the search's own human cost must say so, as the checker does
    from xaip.planning.pddl import parse_domain

    rd, rp, _, _ = door()
    lacking = parse_domain(str_replace_detour())
    p = balanced_problem(rd, rp, lacking, rp, default_cost=10, observable=("through",),
                         weights=Weights(gamma=0))
    result = balance(p)
    assert result.plan == ("open", "pass") and result.verified
    assert result.human_cost == 2 == watched_cost(p, *p.space.model(()), result.plan)


def str_replace_detour() -> str:
    from .door import DOOR

    # her domain: (detour) and (pass) do not say they get her through
    return DOOR.replace(":effect (and (through) (increase (total-cost) 4))",
                        ":effect (and (increase (total-cost) 4))").replace(
        ":effect (and (through) (increase (total-cost) 1))",
        ":effect (and (increase (total-cost) 1))")
