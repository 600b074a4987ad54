"""Explanations as model reconciliation (book ch. 5–6): tell the person the fewest facts
about the robot's model that make its plan optimal in their updated model.

One front door for every type, one checker, one renderer::

    from xaip.reconcile import load_mrp, explain
    from xaip.render import render
    mrp = load_mrp("robot.pddl", "human.pddl", "problem.pddl")
    explanation = explain(mrp, "mce")          # also mme, ppe, mpe, approx, contrastive,
    print(render(explanation))                 # conformant, conditional, anytime
    explanation.verified                        # set by xaip.reconcile.checks.check
"""

from xaip.reconcile.annotated import AnnotatedMRP, Possible, read_annotations
from xaip.reconcile.checks import check
from xaip.reconcile.dialogue import DecisionSupport, decision_support
from xaip.reconcile.explain import ALL_TYPES, TYPES, UNCERTAIN_TYPES, Explainer, explain
from xaip.reconcile.goals import Foil, parse_foil
from xaip.reconcile.problem import MRP, BudgetExhausted, load_mrp, make_mrp
from xaip.reconcile.results import (
    AnytimeExplanation,
    ConditionalExplanation,
    ConformantExplanation,
    Dialogue,
    Explanation,
    LabelledEdit,
    Round,
    edit_text,
)

__all__ = [
    "ALL_TYPES",
    "MRP",
    "TYPES",
    "UNCERTAIN_TYPES",
    "AnnotatedMRP",
    "AnytimeExplanation",
    "BudgetExhausted",
    "ConditionalExplanation",
    "ConformantExplanation",
    "DecisionSupport",
    "Dialogue",
    "Explainer",
    "Explanation",
    "Foil",
    "LabelledEdit",
    "Possible",
    "Round",
    "check",
    "decision_support",
    "edit_text",
    "explain",
    "load_mrp",
    "make_mrp",
    "parse_foil",
    "read_annotations",
]
