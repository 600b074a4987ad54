"""Issue 16: plan files -- linear parsing, bounded validation, messages with file and line."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from xaip.errors import PlanFormatError
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.plans import PlanStep, parse_plan, read_plan, validate

TOGGLE = """(define (domain t) (:requirements :strips :action-costs)
 (:predicates (p) (q))
 (:functions (total-cost) - number)
 (:action a :parameters () :precondition (p)
   :effect (and (not (p)) (q) (increase (total-cost) 1)))
 (:action b :parameters () :precondition (q)
   :effect (and (not (q)) (p) (increase (total-cost) 2))))"""
PROBLEM = """(define (problem x) (:domain t) (:init (p)) (:goal (p))
 (:metric minimize (total-cost)))"""


def timed(limit: float, function, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    try:
        return function(*args)
    finally:
        elapsed = time.perf_counter() - start
        assert elapsed < limit, f"took {elapsed:.1f} s"


@pytest.mark.parametrize("line", [
    "(a" + " " * 200_000 + "b",
    "(a" + " " * 200_000 + "b)" + " " * 200_000 + "x",
    "(a" + " " * 200_000 + "[",
    " " * 200_000 + "[" + " " * 200_000,
    "1" * 200_000 + ":" + " " * 200_000 + "x",
], ids=["open", "two-steps", "bracket", "only-bracket", "prefix"])
def test_long_lines_of_spaces_are_rejected_in_linear_time(line: str) -> None:
    with pytest.raises(PlanFormatError, match=r"^p\.plan:2:1: expected a step") as caught:
        timed(5, parse_plan, "(a)\n" + line, "p.plan")
    assert len(str(caught.value)) < 200


def test_long_line_of_spaces_inside_a_step_is_fine() -> None:
    steps = timed(5, parse_plan, "(a" + " " * 200_000 + "b)")
    assert steps == (PlanStep("a", ("b",), 1),)


@pytest.mark.parametrize("text,expected", [
    ("0: (a x) [1]", ("a", "x")),
    ("12.5 : ( A  X )", ("a", "x")),
    ("(a)   ; comment (with parens)", ("a",)),
    ("\ufeff(a)", ("a",)),
], ids=["prefix-duration", "decimal-prefix", "comment", "bom"])
def test_planner_decorations_are_accepted(text: str, expected: tuple[str, ...]) -> None:
    (step,) = parse_plan(text)
    assert (step.name, *step.args) == expected


@pytest.mark.parametrize("text", ["(a (b))", "(a)(b)", "()", "(", "a b", "(a))"])
def test_malformed_steps(text: str) -> None:
    with pytest.raises(PlanFormatError, match="<plan>:1:1: expected a step"):
        parse_plan(text)


def test_step_errors_name_file_line_and_one_based_step(tmp_path: Path) -> None:
    domain, problem = parse_domain(TOGGLE), parse_problem(PROBLEM)
    path = tmp_path / "p.plan"
    path.write_text("; header\n(a)\n\n(fly \u202e)\n")
    with pytest.raises(PlanFormatError, match=r"p\.plan:4: step 2: unknown action 'fly'") as e:
        validate(domain, problem, read_plan(path))
    assert "\u202e" not in str(e.value)


def test_unreadable_plan_files(tmp_path: Path) -> None:
    with pytest.raises(PlanFormatError, match="no such file"):
        read_plan(tmp_path / "missing.plan")
    with pytest.raises(PlanFormatError, match="directory"):
        read_plan(tmp_path)


def test_long_plan_validates_in_linear_time_without_keeping_states() -> None:
    domain, problem = parse_domain(TOGGLE), parse_problem(PROBLEM)
    steps = timed(60, parse_plan, "(a)\n(b)\n" * 100_000)
    result = timed(120, validate, domain, problem, steps)
    assert result.valid and result.cost == 300_000 and result.trace == ()
    kept = validate(domain, problem, steps[:4], keep_trace=True)
    assert len(kept.trace) == 5
