"""Behaviour for observers with partial sensors: legible to friends, obfuscating to
adversaries (book ch. 4 and 9).

An observer sees tokens, not actions (:mod:`xaip.observers.sensors`), tracks the states
consistent with them (:mod:`xaip.observers.beliefs`) and weighs candidate goals
(:mod:`xaip.observers.goals`). The agent chooses its plan so that the observer's final
belief keeps few goals or plans (legibility) or many (obfuscation).

Front doors::

    from xaip.observers import load_observation_model, load_goals, BeliefTracker
    model = load_observation_model("observer.json", task)
    tracker = BeliefTracker(task, model)
    beliefs = tracker.sequence(tracker.tokens_of(plan))
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
    "Token",
    "belief_plan_set",
    "count_plans",
    "format_token",
    "goals_in",
    "initial_belief",
    "load_goals",
    "load_observation_model",
    "load_observers",
    "make_goal",
    "observers_from_data",
    "plan_beliefs",
    "problem_goal",
]
