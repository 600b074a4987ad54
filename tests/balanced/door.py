"""A door the person thinks is locked: watching the robot open it explains itself (B05)."""

from __future__ import annotations

from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.pddl.model import Domain, Problem

DOOR = """
(define (domain door) (:requirements :strips :conditional-effects :action-costs)
  (:predicates (at-door) (unlocked) (open) (through))
  (:functions (total-cost) - number)
  (:action open :parameters () :precondition (at-door)
    :effect (and (when (unlocked) (open)) (increase (total-cost) 1)))
  (:action pass :parameters () :precondition (and (open) (unlocked))
    :effect (and (through) (increase (total-cost) 1)))
  (:action unlock :parameters () :precondition (at-door)
    :effect (and (unlocked) (increase (total-cost) 5)))
  (:action detour :parameters () :precondition (at-door)
    :effect (and (through) (increase (total-cost) 4))))
"""
ROBOT = ("(define (problem p) (:domain door) (:init (at-door) (unlocked) "
         "(= (total-cost) 0)) (:goal (through)) (:metric minimize (total-cost)))")
HUMAN = ROBOT.replace("(unlocked) ", "")


def door() -> tuple[Domain, Problem, Domain, Problem]:
    """Robot model, robot problem, human model, human problem: she believes the door
    locked; opening it (1) and passing (1) beats the detour (4) only if she understands."""
    return parse_domain(DOOR), parse_problem(ROBOT), parse_domain(DOOR), parse_problem(HUMAN)
