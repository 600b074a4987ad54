"""Balanced planning (book ch. 7): choose the plan and its explanation together.

Explaining everything can mean a lot of talk; acting explicably can mean a costly detour.
Balanced planning weighs plan cost, communication cost and the inexplicability left in the
person's updated model, and returns the best pair ``(π, E)``::

    from xaip.balanced import balanced_problem, balance
    problem = balanced_problem(robot, robot_problem, human, objective="balanced")
    result = balance(problem)               # model-space search; method="compile": MEGA*
    result.plan, result.explanation, result.total, result.verified
"""

from xaip.balanced.objectives import (
    PENALTIES,
    BalancedProblem,
    Objective,
    Penalty,
    Weights,
    balanced_problem,
    edit_sentence,
    feature_name,
    read_explanation_costs,
)
from xaip.balanced.results import BalancedResult, objective_value
from xaip.balanced.solve import METHODS, balance

__all__ = [
    "METHODS",
    "PENALTIES",
    "BalancedProblem",
    "BalancedResult",
    "Objective",
    "Penalty",
    "Weights",
    "balance",
    "balanced_problem",
    "edit_sentence",
    "feature_name",
    "objective_value",
    "read_explanation_costs",
]
