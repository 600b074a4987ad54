"""U06: foils refuted with the fewest fluents made concrete; the checker catching wrong
answers; budgets; bad input."""

from __future__ import annotations

import dataclasses

import pytest

from xaip.abstraction import check, explain_by_abstraction
from xaip.abstraction.bundled import HIDDEN, bundled_task
from xaip.abstraction.explain import named_foils
from xaip.contract import CHECKER_BUDGET, run_checker
from xaip.errors import InputError, PlanFormatError
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.plans import parse_plan
from xaip.render import render
from xaip.runtime import Budget, Status


def _plan(*steps: str) -> tuple:
    return parse_plan("".join(f"({s})\n" for s in steps))


def test_the_bundled_foils_need_clear_and_handempty() -> None:
    domain, problem, foils = bundled_task()
    result = explain_by_abstraction(domain, problem, HIDDEN, foils)
    assert result.status == Status.FOUND and result.verified and result.minimum
    assert result.concretise == ("clear", "handempty")
    assert result.still_hidden == ("holding",)
    lift, keep = result.refutations
    assert (lift.kind, lift.step, lift.unmet, lift.since) == (
        "precondition", 1, ("(clear a)",), (("(clear a)", 0, None),))
    assert (keep.kind, keep.step, keep.concretised, keep.since) == (
        "precondition", 2, ("handempty",), (("(handempty)", 1, "(unstack c a)"),))
    assert keep.rule == ("(pick-up ?x)", "(and (ontable ?x) (clear ?x) (handempty))")
    data = result.to_dict()
    assert data["steps_numbered_from"] == 1 and data["refutations"][1]["failed_step"] == 2
    text = render(result)
    assert "clear and handempty" in text and "Verified independently" in text


def test_without_foils_her_own_optimal_plan_is_refuted() -> None:
    domain, problem, _ = bundled_task()
    result = explain_by_abstraction(domain, problem, HIDDEN)
    assert result.suggested_plan == ("(stack a b)",) and result.verified
    assert result.concretise == ("holding",)
    assert result.to_dict()["suggested_foil"] == ["(stack a b)"]
    assert "In your model this plan reaches the goal: (stack a b)." in render(result)
    named = [("your model's plan", _plan("pick-up a", "stack a b"))]
    forged = dataclasses.replace(result, suggested_plan=("(pick-up a)", "(stack a b)"))
    assert check(domain, problem, named, None, forged).ok is False
    with pytest.raises(InputError, match="has no plan"):
        explain_by_abstraction(domain, parse_problem(
            "(define (problem p) (:domain stacking) (:objects a - block) (:init (ontable a))"
            " (:goal (on a a)))"), ("clear",))


def test_one_foil_needs_only_one_predicate() -> None:
    domain, problem, foils = bundled_task()
    result = explain_by_abstraction(domain, problem, HIDDEN, {"lift-a": foils["lift-a"]})
    assert result.concretise == ("clear",) and result.verified


def test_a_foil_that_already_fails_needs_nothing() -> None:
    domain, problem, _ = bundled_task()
    # (unstack a b) needs (on a b), which the person knows is false
    result = explain_by_abstraction(domain, problem, HIDDEN, [_plan("unstack a b")])
    assert result.concretise == () and result.verified
    assert "Nothing new is needed" in render(result)
    assert result.refutations[0].concretised == ()
    assert "already" in render(result)


def test_a_valid_costlier_foil_is_refuted_by_its_cost() -> None:
    domain, problem, _ = bundled_task()
    longer = _plan("unstack c a", "put-down c", "pick-up b", "put-down b", "pick-up a",
                   "stack a b")
    result = explain_by_abstraction(domain, problem, HIDDEN, [longer])
    (r,) = result.refutations
    assert (r.kind, r.foil_cost, r.plan_cost) == ("cost", 6, 4) and result.concretise == ()
    assert result.verified


def test_a_foil_cheaper_than_the_given_robot_plan_cannot_be_refuted() -> None:
    domain, problem, foils = bundled_task()
    robot = _plan("unstack c a", "put-down c", "pick-up b", "put-down b", "pick-up a",
                  "stack a b")
    optimal = _plan("unstack c a", "put-down c", "pick-up a", "stack a b")
    result = explain_by_abstraction(domain, problem, HIDDEN,
                                    {"optimal": optimal, **foils}, plan=robot)
    assert result.status == Status.NO_EXPLANATION and result.verified
    assert [r.kind for r in result.refutations] == ["unrefutable", "precondition",
                                                    "precondition"]
    assert result.concretise == ("clear", "handempty")
    assert "cannot be refuted" in render(result)
    alone = explain_by_abstraction(domain, problem, HIDDEN, {"optimal": optimal}, plan=robot)
    assert alone.concretise == () and "None of your plans can be refuted" in render(alone)


def test_an_unsolvable_task_refutes_by_failure_only() -> None:
    domain = parse_domain("""(define (domain d) (:requirements :strips)
      (:predicates (key) (door) (inside))
      (:action enter :parameters () :precondition (and (door) (key)) :effect (inside)))""")
    problem = parse_problem("(define (problem p) (:domain d) (:init (door)) (:goal (inside)))")
    result = explain_by_abstraction(domain, problem, ["key"], [_plan("enter")])
    assert result.plan is None and result.concretise == ("key",) and result.verified
    assert "no plan" in render(result)


def test_hiding_everything_handles_the_empty_model() -> None:
    domain, problem, foils = bundled_task()
    every = ("on", "ontable", "clear", "handempty", "holding")
    result = explain_by_abstraction(domain, problem, every, foils)
    assert result.concretise == ("clear", "handempty") and result.verified
    empty = explain_by_abstraction(domain, problem, every, [()])
    assert empty.refutations[0].kind == "goal" and empty.concretise == ("on",)


def test_budget_exhaustion_is_reported_and_unverified() -> None:
    domain, problem, foils = bundled_task()
    result = explain_by_abstraction(domain, problem, HIDDEN, foils, budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified
    plan = _plan("unstack c a", "put-down c", "pick-up a", "stack a b")
    result = explain_by_abstraction(domain, problem, HIDDEN, foils, plan=plan,
                                    budget=Budget(max_nodes=4))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified
    assert not result.minimum and set(result.concretise) >= {"clear", "handempty"}


def test_the_checker_runs_out_of_its_own_budget() -> None:
    domain, problem, foils = bundled_task()
    result = explain_by_abstraction(domain, problem, HIDDEN, foils, check=False)
    report = run_checker(lambda: check(domain, problem, named_foils(foils), None, result,
                                       Budget(max_nodes=2)))
    assert report.ok is None and report.details.startswith(CHECKER_BUDGET)


def test_the_checker_catches_wrong_answers() -> None:
    domain, problem, foils = bundled_task()
    named = named_foils(foils)
    good = explain_by_abstraction(domain, problem, HIDDEN, foils, check=False)
    assert check(domain, problem, named, None, good).ok is True
    lift, keep = good.refutations
    wrong = [
        dataclasses.replace(good, concretise=("clear", "holding")),  # does not refute keep-c
        dataclasses.replace(good, concretise=("clear", "handempty", "holding")),  # not fewest
        dataclasses.replace(good, refutations=(dataclasses.replace(lift, step=2), keep)),
        dataclasses.replace(good, refutations=(lift, dataclasses.replace(
            keep, since=(("(handempty)", 0, None),)))),
        dataclasses.replace(good, refutations=(lift, dataclasses.replace(
            keep, since=(("(handempty)", 1, "(pick-up a)"),)))),
        dataclasses.replace(good, refutations=(lift, dataclasses.replace(
            keep, rule=("(pick-up ?x)", "(and (ontable ?x))")))),
        dataclasses.replace(good, refutations=(lift, dataclasses.replace(
            keep, concretised=()))),
        dataclasses.replace(good, plan_cost=3),
        dataclasses.replace(good, plan=None),
        dataclasses.replace(good, status=Status.NO_EXPLANATION),
    ]
    for result in wrong:
        report = check(domain, problem, named, None, result)
        assert report.ok is False, result


def test_bad_input_is_one_line() -> None:
    domain, problem, foils = bundled_task()
    with pytest.raises(InputError, match="at least one foil"):
        explain_by_abstraction(domain, problem, HIDDEN, [])
    with pytest.raises(PlanFormatError, match="unknown action"):
        explain_by_abstraction(domain, problem, HIDDEN, [_plan("fly a")])
    with pytest.raises(InputError, match="robot's plan is not valid"):
        explain_by_abstraction(domain, problem, HIDDEN, foils, plan=_plan("pick-up a"))
    with pytest.raises(InputError, match="no such predicate"):
        explain_by_abstraction(domain, problem, ["clean"], foils)
