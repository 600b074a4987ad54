"""Explanations as model reconciliation (book ch. 5): tell the person the fewest facts
about the robot's model that make its plan optimal in their updated model.

Typical use::

    from xaip.reconcile import load_mrp, explain
    mrp = load_mrp("robot.pddl", "human.pddl", "problem.pddl")
    explanation = explain(mrp, "mce")
    print(explanation.describe())
"""

from xaip.reconcile.checks import CheckResult, brute_force_complete, is_complete, is_monotonic
from xaip.reconcile.dialogue import DecisionSupport, Round
from xaip.reconcile.explain import TYPES, Explainer, Explanation, edit_text, explain
from xaip.reconcile.goals import Foil, parse_foil
from xaip.reconcile.problem import MRP, load_mrp, make_mrp
from xaip.reconcile.space import ModelSpace

__all__ = [
    "MRP",
    "TYPES",
    "CheckResult",
    "DecisionSupport",
    "Explainer",
    "Explanation",
    "Foil",
    "ModelSpace",
    "Round",
    "brute_force_complete",
    "edit_text",
    "explain",
    "is_complete",
    "is_monotonic",
    "load_mrp",
    "make_mrp",
    "parse_foil",
]
