"""The generator's checker proves optimality with A* and the certified LM-cut (issue 21).

It used the planning core's uniform-cost proof; now it is
:func:`xaip.planning.proofs.cheaper_plan`'s A*, LM-cut an untrusted oracle whose cuts the
core verifies. The tests fail if the proof goes back to a weaker heuristic, if a
certificate is rejected, or if a plan that is not optimal gets through.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from xaip.generate import random_mrp
from xaip.generate.check import check_optimal
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, core_available, search_counts
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.planner import plan_model
from xaip.runtime import Budget

BLOCKS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "blocksworld"

LINE = """(define (domain line) (:requirements :strips)
 (:predicates (at ?x) (road ?x ?y))
 (:action go :parameters (?x ?y) :precondition (and (at ?x) (road ?x ?y))
   :effect (and (at ?y) (not (at ?x)))))"""
PROBLEM = """(define (problem p) (:domain line) (:objects a b c)
 (:init (at a) (road a b) (road b c) (road a c)) (:goal (at c)))"""


@pytest.mark.skipif(not core_available(), reason="needs the compiled core")
def test_the_robot_optimum_is_proved_with_certified_lmcut() -> None:
    domain = read_domain(BLOCKS / "domain.pddl")
    problem = read_problem(BLOCKS / "problem-5.pddl")
    before = search_counts(CERTIFIED_LMCUT)
    made = random_mrp(domain, problem, k=2, seed=0)
    after = search_counts(CERTIFIED_LMCUT)
    assert made.verified
    assert after["searches"] > before["searches"]
    assert after["rejected"] == before["rejected"]


def test_a_plan_that_is_not_optimal_is_refuted() -> None:
    domain, problem = parse_domain(LINE), parse_problem(PROBLEM)
    found = plan_model(domain, problem, optimal=True)
    assert found.cost == 1
    report = check_optimal(domain, problem, found, 1, Budget(), "robot")
    assert report.ok is True, report
    assert found.task is not None
    long = [a for a in found.task.actions if a.name in ("go a b", "go b c")]
    assert len(long) == 2  # a valid plan of cost 2 where (go a c) costs 1
    worse = dataclasses.replace(found, plan=tuple(sorted(long, key=lambda a: a.name)), cost=2)
    refuted = check_optimal(domain, problem, worse, 2, Budget(), "robot")
    assert refuted.ok is False and "not optimal" in refuted.details, refuted
