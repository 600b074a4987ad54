"""The checker re-derives every number: tampered answers are caught."""

from __future__ import annotations

import dataclasses

from xaip.balanced import balance
from xaip.balanced.check import check
from xaip.balanced.instances import usar_problem
from xaip.runtime import Status

ROBOT = ("move p1 p2", "move p2 p3", "move p3 p4", "move p4 p9", "move p9 p17")


def test_confirms_each_objective() -> None:
    for objective in ("balanced", "explicable", "explicable-optimal"):
        problem = usar_problem(objective)
        assert check(problem, balance(problem, check=False)).ok is True


def test_rejects_a_wrong_total() -> None:
    problem = usar_problem("balanced")
    result = balance(problem, check=False)
    report = check(problem, dataclasses.replace(result, total=result.total - 1))
    assert report.ok is False and "total" in report.details


def test_rejects_a_plan_that_is_not_explicable() -> None:
    problem = usar_problem("explicable")
    result = balance(problem, check=False)
    # drop the explanation: the rubble route is no longer optimal for her
    forged = dataclasses.replace(result, explanation=(), explanation_cost=0.0,
                                 item_costs=(), human_optimum=4, penalty=2.718281828459045**2,
                                 total=6 + 2.718281828459045**2)
    report = check(problem, forged)
    assert report.ok is False and "not perfectly explicable" in report.details


def test_rejects_a_plan_invalid_for_the_robot() -> None:
    problem = usar_problem("balanced")
    result = balance(problem, check=False)
    forged = dataclasses.replace(result, plan=("move p1 p7", "move p7 p15", "move p15 p16",
                                               "move p16 p17"), plan_cost=4)
    report = check(problem, forged)
    assert report.ok is False and "not valid in the robot's model" in report.details


def test_rejects_a_suboptimal_robot_plan_for_explicable_optimal() -> None:
    problem = usar_problem("explicable-optimal")
    rubble = balance(usar_problem("explicable"), check=False)
    forged = dataclasses.replace(rubble, objective=problem.objective)
    report = check(problem, forged)
    assert report.ok is False and "robot's optimum" in report.details


def test_rejects_a_balanced_answer_worse_than_plain_explanation() -> None:
    problem = usar_problem("balanced", communication_cost=0)
    # the robot route with nothing explained scores infinity; with every correction 5+0+1
    rubble = balance(usar_problem("balanced"), check=False)
    report = check(problem, dataclasses.replace(rubble, explanation_cost=0.0))
    assert report.ok is False and "explanation items scores 6" in report.details


def test_unfinished_answers_are_not_checked() -> None:
    problem = usar_problem("balanced")
    result = dataclasses.replace(balance(problem, check=False),
                                 status=Status.BUDGET_EXHAUSTED)
    assert check(problem, result).ok is None


def test_robot_route_costs() -> None:
    problem = usar_problem("explicable-optimal")
    result = balance(problem)
    assert result.plan == ROBOT and result.plan_cost == 5 and result.robot_optimum == 5


def test_an_unsolvable_robot_model_is_a_verified_negative_answer() -> None:
    from xaip.balanced import balanced_problem
    from xaip.planning.pddl import parse_domain, parse_problem

    domain = parse_domain("(define (domain d) (:requirements :strips) (:predicates (p) (q)) "
                          "(:action a :parameters () :precondition (p) :effect (q)))")
    task = parse_problem("(define (problem x) (:domain d) (:init) (:goal (q)))")
    result = balance(balanced_problem(domain, task, domain))
    assert result.status == Status.UNSOLVABLE and result.plan == () and result.verified
