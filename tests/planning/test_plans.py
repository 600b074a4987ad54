"""Plans: file format, lifted validation vs grounded simulation, costs, causal links."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from xaip.errors import PlanFormatError
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.plans import (
    PlanStep,
    causal_links,
    first_failure,
    format_plan,
    parse_plan,
    resolve,
    simulate,
    task_plan_cost,
    validate,
)
from xaip.render import render

CASES = Path(__file__).parent / "pddl_cases"

BLOCKS = """
(define (domain bw) (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x ?y - block) (ontable ?x - block) (clear ?x - block)
               (handempty) (holding ?x - block))
  (:action pick-up :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action put-down :parameters (?x - block)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  (:action stack :parameters (?x ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action unstack :parameters (?x ?y - block)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y)))))
"""
PROBLEM = """
(define (problem bw3) (:domain bw) (:objects a b c - block)
  (:init (ontable a) (ontable b) (on c a) (clear b) (clear c) (handempty))
  (:goal (and (on a b) (on b c))))
"""
SUSSMAN_PLAN = """
; the Sussman anomaly, solved
(unstack c a)
(put-down c)
(pick-up b)
(stack b c)
(pick-up a)
(stack a b)
; cost = 6 (unit cost)
"""


@pytest.fixture()
def blocks():  # type: ignore[no-untyped-def]
    return parse_domain(BLOCKS), parse_problem(PROBLEM)


def test_plan_file_round_trip() -> None:
    steps = parse_plan(SUSSMAN_PLAN)
    assert [str(s) for s in steps][:2] == ["(unstack c a)", "(put-down c)"]
    assert steps[0].line == 3
    text = format_plan(steps, cost=6, unit_cost=True)
    assert text.endswith("; cost = 6 (unit cost)\n")
    assert parse_plan(text) == tuple(PlanStep(s.name, s.args, i + 1) for i, s in enumerate(steps))


def test_plan_file_syntax_error_names_line() -> None:
    with pytest.raises(PlanFormatError, match=r"<plan>:2:1: expected a step"):
        parse_plan("(pick-up a)\npick-up b\n")


def test_valid_plan(blocks) -> None:  # type: ignore[no-untyped-def]
    domain, problem = blocks
    result = validate(domain, problem, parse_plan(SUSSMAN_PLAN))
    assert result.valid and result.cost == 6 and result.failed_step is None
    assert result.to_dict() == {"status": "valid", "valid": True, "cost": 6, "steps": 6,
                                "steps_numbered_from": 1, "costs_ignored": False,
                                "goal_holds_initially": False}


def test_first_failing_step_and_unmet_precondition(blocks) -> None:  # type: ignore[no-untyped-def]
    domain, problem = blocks
    steps = parse_plan(SUSSMAN_PLAN)
    result = validate(domain, problem, steps[1:])
    assert not result.valid
    assert result.failed_step == 0                   # the index, for code
    assert result.failed_step_number == 1            # the number a person reads
    assert result.unmet == ("(holding c)",)
    assert result.reason.startswith("step 1 (put-down c) is not applicable")
    payload = result.to_dict()
    assert payload["failed_step"] == 1 and payload["steps_numbered_from"] == 1
    assert payload["failure"] == "precondition"
    assert render(result) == ("invalid plan: step 1 (put-down c) is not applicable: unmet "
                              "precondition (holding c)")


def test_third_step_is_step_3(blocks) -> None:  # type: ignore[no-untyped-def]
    """Issue 21: validate numbered steps from 0 while every plan listing numbers from 1."""
    domain, problem = blocks
    steps = parse_plan("(unstack c a)\n(stack c b)\n(pick-up b)\n")
    result = validate(domain, problem, steps)
    assert result.failed_step_number == 3 and result.to_dict()["failed_step"] == 3
    assert "step 3 (pick-up b)" in render(result)


def test_unmet_goal_reported(blocks) -> None:  # type: ignore[no-untyped-def]
    domain, problem = blocks
    result = validate(domain, problem, parse_plan(SUSSMAN_PLAN)[:4])
    assert not result.valid and result.failed_step == 4 and result.goal_unmet
    assert result.unmet == ("(on a b)",)
    payload = result.to_dict()
    assert payload["failed_step"] is None and payload["failure"] == "goal"


@pytest.mark.parametrize(
    "plan, message",
    [
        ("(fly a)", "unknown action 'fly'"),
        ("(pick-up z)", "unknown object 'z'"),
        ("(pick-up a b)", "takes 1 arguments, got 2"),
    ],
)
def test_bad_plan_input(blocks, plan: str, message: str) -> None:  # type: ignore[no-untyped-def]
    domain, problem = blocks
    with pytest.raises(PlanFormatError, match=message):
        validate(domain, problem, parse_plan(plan))


def test_lifted_validation_agrees_with_grounded_simulation() -> None:
    """Random walks with random corruptions: both levels agree on validity and failure."""
    domain = read_domain(CASES / "adl_domain.pddl")
    problem = read_problem(CASES / "adl_problem.pddl")
    task = ground(domain, problem)
    rng = random.Random(7)
    names = sorted(task.action_index)
    checked_invalid = 0
    for _ in range(300):
        state, plan = task.init, []
        for _ in range(rng.randint(0, 12)):
            options = sorted(task.applicable(state), key=lambda a: a.name)
            if not options:
                break
            action = rng.choice(options)
            plan.append(action)
            state = action.apply(state)
        if plan and rng.random() < 0.5:
            plan[rng.randrange(len(plan))] = task.actions[
                task.action_index[rng.choice(names)][0]
            ]
        steps = [PlanStep(a.schema, a.args) for a in plan]
        lifted = validate(domain, problem, steps)
        grounded_failure = first_failure(task, plan)
        if grounded_failure is not None and grounded_failure < len(plan):
            # A step with several variants (disjunctive precondition) is applicable when
            # any variant is; compare with the set of variants.
            variants = resolve(task, steps)
            trace = simulate(task, plan[:grounded_failure])
            assert trace is not None
            if any(v.applicable(trace[-1]) for v in variants[grounded_failure]):
                continue
        assert lifted.valid == (grounded_failure is None)
        if not lifted.valid:
            checked_invalid += 1
            assert lifted.failed_step == grounded_failure
        else:
            assert lifted.cost == task_plan_cost(plan)
    assert checked_invalid > 20


def test_causal_links(blocks) -> None:  # type: ignore[no-untyped-def]
    domain, problem = blocks
    task = ground(domain, problem)
    plan = [variants[0] for variants in resolve(task, parse_plan(SUSSMAN_PLAN))]
    links = causal_links(task, plan)
    rendered = {(link.producer, str(task.facts[link.fact]), link.consumer) for link in links}
    # (holding c) is produced by step 0 and consumed by step 1.
    assert (0, "(holding c)", 1) in rendered
    # (clear b) comes from the initial state for step 2 (pick-up b).
    assert (-1, "(clear b)", 2) in rendered
    # The goal (on a b) is supported by the last step.
    assert (5, "(on a b)", 6) in rendered
    # Every consumed fact is true right before its consumer and produced by its producer.
    trace = simulate(task, plan)
    assert trace is not None
    for link in links:
        assert trace[link.consumer] >> link.fact & 1 if link.consumer < len(plan) else True
        if link.producer >= 0:
            assert plan[link.producer].add >> link.fact & 1
