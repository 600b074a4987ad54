"""Probabilistic planning: PPDDL tasks as stochastic shortest-path problems (SSPs).

Typical use::

    from xaip.planning.pddl import read_domain, read_problem
    from xaip.planning.mdp import ground_probabilistic, solve_ssp, policy_graph, evaluate
    ptask = ground_probabilistic(read_domain(path), read_problem(path))
    solution = solve_ssp(ptask)              # ILAO*, dead ends priced at 1e6
    graph = policy_graph(ptask, solution.policy)
    evaluate(ptask, solution.policy).goal_probability

* :func:`ground_probabilistic` — PPDDL (``probabilistic`` and conditional effects) to a
  :class:`ProbabilisticTask`; ``cost="unit"`` (default) or ``"reward"``.
* :func:`determinise` — the all-outcomes determinisation as a classical ``Task``, with
  the map from its actions back to (action, outcome).
* :func:`solve_ssp` — ILAO* (``method="lao"``) or value iteration (``"vi"``); dead ends
  priced by ``dead_end_cost`` or reported (``None``: :class:`NoProperPolicy`).
* :class:`Policy` — a state-to-action table; ``save``/``load`` as JSON validated against
  the task (:class:`PolicyFormatError`).
* :func:`policy_graph`, :func:`evaluate`, :func:`simulate` — the reachable policy graph,
  exact goal probability and expected cost, sampled runs.
"""

from xaip.planning.mdp.deadends import (
    DeadEndDetector,
    NoProperPolicy,
    find_dead_ends,
    is_dead_end,
)
from xaip.planning.mdp.determinise import OutcomeMapping, determinise
from xaip.planning.mdp.grounding import COST_MODELS, CostModel, ground_probabilistic
from xaip.planning.mdp.policy import (
    Policy,
    PolicyEdge,
    PolicyEvaluation,
    PolicyFormatError,
    PolicyGraph,
    Run,
    StateValues,
    evaluate,
    policy_graph,
    simulate,
    state_values,
)
from xaip.planning.mdp.reachability import ReachableStates, reachable_states
from xaip.planning.mdp.solver import DEFAULT_DEAD_END_COST, SSPSolution, solve_ssp
from xaip.planning.mdp.task import Outcome, ProbabilisticAction, ProbabilisticTask

__all__ = [
    "COST_MODELS",
    "DEFAULT_DEAD_END_COST",
    "CostModel",
    "DeadEndDetector",
    "NoProperPolicy",
    "Outcome",
    "OutcomeMapping",
    "Policy",
    "PolicyEdge",
    "PolicyEvaluation",
    "PolicyFormatError",
    "PolicyGraph",
    "ProbabilisticAction",
    "ProbabilisticTask",
    "ReachableStates",
    "Run",
    "SSPSolution",
    "StateValues",
    "determinise",
    "evaluate",
    "find_dead_ends",
    "ground_probabilistic",
    "is_dead_end",
    "policy_graph",
    "reachable_states",
    "simulate",
    "solve_ssp",
    "state_values",
]
