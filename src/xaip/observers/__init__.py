"""Behaviour for observers with partial sensors: legible to friends, obfuscating to
adversaries (book ch. 4 and 9).

An observer sees tokens, not actions (:mod:`xaip.observers.sensors`), tracks the states
consistent with them (:mod:`xaip.observers.beliefs`) and weighs candidate goals
(:mod:`xaip.observers.goals`). The agent chooses its plan so that the observer's final
belief keeps few goals or plans (legibility) or many (obfuscation).

Front doors::

    from xaip.observers import load_problem, legible_goal_plan, ambiguous_plan
    problem = load_problem("domain.pddl", "problem.pddl", "observer.json", "goals.json")
    result = legible_goal_plan(problem, j=1)       # or ambiguous_plan(problem, k=3), ...
    result.plan, result.observations, result.goals_in_final_belief, result.verified

    from xaip.observers import load_observation_model, BeliefTracker
    model = load_observation_model("observer.json", task)
    tracker = BeliefTracker(task, model)
    beliefs = tracker.sequence(tracker.tokens_of(plan))

See ``docs/observers.md``.
"""

from xaip.observers.beliefs import (
    Belief,
    BeliefPlan,
    BeliefPlanSet,
    BeliefTracker,
    belief_plan_set,
    count_plans,
    initial_belief,
    plan_beliefs,
)
from xaip.observers.goals import Goal, GoalSet, goals_in, load_goals, make_goal, problem_goal
from xaip.observers.legibility import (
    legibility_score,
    legible_goal_plan,
    legible_plan,
)
from xaip.observers.obfuscation import (
    ambiguous_plan,
    diverse_plan,
    secure_ambiguous_plan,
)
from xaip.observers.problem import ObserverProblem, example_problem, load_problem
from xaip.observers.results import ObserverResult
from xaip.observers.sensors import (
    ObservationModel,
    Token,
    format_token,
    load_observation_model,
    load_observers,
    observers_from_data,
)

__all__ = [
    "Belief",
    "BeliefPlan",
    "BeliefPlanSet",
    "BeliefTracker",
    "Goal",
    "GoalSet",
    "ObservationModel",
    "ObserverProblem",
    "ObserverResult",
    "Token",
    "ambiguous_plan",
    "belief_plan_set",
    "count_plans",
    "diverse_plan",
    "example_problem",
    "format_token",
    "goals_in",
    "initial_belief",
    "legibility_score",
    "legible_goal_plan",
    "legible_plan",
    "load_goals",
    "load_observation_model",
    "load_observers",
    "load_problem",
    "make_goal",
    "observers_from_data",
    "plan_beliefs",
    "problem_goal",
    "secure_ambiguous_plan",
]
