"""Explicable behaviour (book ch. 2–3): plans that look right to the person watching.

Model reconciliation (:mod:`xaip.reconcile`) changes what the person believes; this
package changes what the robot does, or the environment it does it in.

Typical use::

    from xaip.explicable import load_problem, explicable_plan, design_search, load_design
    problem = load_problem("robot.pddl", "human.pddl", "problem.pddl")
    result = explicable_plan(problem, distance="cost")    # IE first, then robot cost
    result.plan, result.inexplicability, result.verified

* :mod:`~xaip.explicable.distances` — action, causal-link, state and composite distances;
* :mod:`~xaip.explicable.measures` — inexplicability against the person's expected plans;
* :mod:`~xaip.explicable.planner` — explicable planning (product model or enumeration);
* :mod:`~xaip.explicable.design` — environment design for explicability (restaurant);
* :mod:`~xaip.explicable.checks` — the independent brute-force checker.
"""

from xaip.explicable.design import design_search, evaluate, load_design, restaurant_spec
from xaip.explicable.distances import (
    action_distance,
    causal_link_distance,
    composite_distance,
    feature_vector,
    state_distance,
    trace_of,
)
from xaip.explicable.measures import DISTANCES, Scorer, compare_plans, expected_plans
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import ExplicableProblem, ground_model, load_problem, make_problem
from xaip.explicable.results import DesignResult, ExplicablePlan, PlanDistances

__all__ = [
    "DISTANCES",
    "DesignResult",
    "ExplicablePlan",
    "ExplicableProblem",
    "PlanDistances",
    "Scorer",
    "action_distance",
    "causal_link_distance",
    "compare_plans",
    "composite_distance",
    "design_search",
    "evaluate",
    "expected_plans",
    "explicable_plan",
    "feature_vector",
    "ground_model",
    "load_design",
    "load_problem",
    "make_problem",
    "restaurant_spec",
    "state_distance",
    "trace_of",
]
