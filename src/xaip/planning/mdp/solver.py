"""``solve_ssp``: optimal policies for probabilistic tasks, by ILAO* or value iteration.

The problem solved is the stochastic shortest-path problem of the TLdR paper: reach a goal
state, minimising the expected sum of step costs (unit costs unless the task was grounded
with ``cost="reward"``). IPPC domains have *dead ends* — states from which no policy
reaches the goal — and in some (tireworld) every policy risks one, so no proper policy
exists and the plain SSP has no solution. ``dead_end_cost`` says what to do:

* a number ``D`` (default ``DEFAULT_DEAD_END_COST = 1e6``): a run that enters a dead end
  stops there and pays ``D`` (the "finite penalty" SSP of Kolobov, Mausam and Weld). With
  ``D`` this large the optimal policy first maximises the probability of reaching the
  goal and only then minimises cost, as long as expected costs are far below ``D``; and a
  policy exists for every task whose initial state is not itself a dead end. This is what
  the TLdR paper did in effect ("we didn't enforce the proper policy requirement").
* ``None``: the strict SSP. If the initial state has no proper policy,
  :class:`~xaip.planning.mdp.deadends.NoProperPolicy` is raised with the dead ends found.

Dead ends are recognised soundly and exactly: by an infinite relaxed estimate, by exhaustive
search when a value rises above ``D``, by closed sets without goals, and (value iteration)
by a backward search over the whole reachable graph. The solvers never loop on them, and
greedy policies that loop without reaching the goal are broken by policy iteration or by
admissible trap bounds (:mod:`xaip.planning.mdp.explicit`).

Ties between equally good actions go to the action listed first (grounding order) and a
greedy choice only changes on a strict improvement, so results are deterministic.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from xaip.planning.mdp.budgets import as_clock
from xaip.planning.mdp.deadends import DeadEndDetector, NoProperPolicy
from xaip.planning.mdp.explicit import DEAD, EXPANDED, ExplicitGraph
from xaip.planning.mdp.heuristic import Blind, RelaxedLayers
from xaip.planning.mdp.lao import ilao_star
from xaip.planning.mdp.policy import Policy
from xaip.planning.mdp.task import ProbabilisticTask
from xaip.planning.mdp.vi import value_iteration
from xaip.planning.task import State
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.status import Status

DEFAULT_DEAD_END_COST = 1e6
Method = Literal["lao", "vi"]
Heuristic = Literal["hmax", "blind"]
METHODS: tuple[str, ...] = ("lao", "vi")
HEURISTICS: tuple[str, ...] = ("hmax", "blind")


@dataclass(frozen=True, eq=False)
class SSPSolution:
    """The result of :func:`solve_ssp`.

    ``policy`` covers the non-goal, non-dead-end states its greedy graph reaches from the
    initial state; ``values`` holds the value of every state of that graph (goals 0, dead
    ends ``dead_end_cost``). ``status`` is ``Status.SOLVED`` or ``Status.BUDGET_EXHAUSTED``;
    ``converged`` says the values are within ``epsilon`` of a fixed point. ``proper`` says
    the policy reaches no dead end. ``expanded`` counts expanded states, ``iterations``
    ILAO* iterations or value-iteration sweeps.
    """

    policy: Policy
    values: Mapping[State, float]
    status: Status
    converged: bool
    proper: bool
    method: str
    value: float
    expanded: int
    iterations: int
    dead_ends_found: int
    dead_end_cost: float | None
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        task = self.policy.task
        return {
            "method": self.method,
            "status": str(self.status),
            "converged": self.converged,
            "proper": self.proper,
            "value": self.value,
            "expanded": self.expanded,
            "iterations": self.iterations,
            "dead_ends_found": self.dead_ends_found,
            "dead_end_cost": self.dead_end_cost,
            "seconds": self.seconds,
            "policy_states": len(self.policy),
            "policy": self.policy.to_dict()["policy"],
            "values": [{"state": task.state_key(s), "value": v} for s, v in self.values.items()],
        }


def solve_ssp(
    ptask: ProbabilisticTask,
    method: Method = "lao",
    budget: Budget | BudgetClock | None = None,
    epsilon: float = 1e-6,
    dead_end_cost: float | None = DEFAULT_DEAD_END_COST,
    heuristic: Heuristic = "hmax",
) -> SSPSolution:
    """An optimal policy for ``ptask`` from its initial state (see the module docstring).

    ``method="lao"`` (ILAO* with ``heuristic``) explores only what the optimal policy
    needs; ``method="vi"`` enumerates every reachable state first. ``epsilon`` bounds the
    largest Bellman residual at convergence. ``budget`` may be a running clock shared
    with the caller's other phases. Raises ``NoProperPolicy`` when
    ``dead_end_cost`` is ``None`` and the initial state has no proper policy.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    if heuristic not in HEURISTICS:
        raise ValueError(f"heuristic must be one of {HEURISTICS}, not {heuristic!r}")
    if dead_end_cost is not None and not dead_end_cost >= 0:
        raise ValueError(f"dead_end_cost must be a number >= 0 or None, not {dead_end_cost}")
    for action in ptask.actions:
        if action.expected_cost <= 0:
            raise ValueError(
                f"SSP solvers need positive step costs; '{action.name}' costs "
                f"{action.expected_cost}"
            )
    started = time.perf_counter()
    clock = as_clock(budget)
    relaxed = RelaxedLayers(ptask)
    estimate = relaxed if heuristic == "hmax" else Blind(ptask)
    penalty = math.inf if dead_end_cost is None else float(dead_end_cost)
    graph = ExplicitGraph(ptask, penalty, estimate, DeadEndDetector(ptask, relaxed), clock)
    if method == "lao":
        converged, iterations = ilao_star(graph, epsilon)
    else:
        converged, iterations = value_iteration(graph, epsilon)
    start = ptask.init
    if graph.value[start] == math.inf:
        raise NoProperPolicy(
            ptask.name,
            (" ".join(ptask.state_key(s)) for s in sorted(graph.dead_ends)),
            "Pass a finite dead_end_cost to get the policy that maximises the goal "
            "probability instead",
        )
    reached = graph.greedy_states([start])
    table = {s: graph.greedy_action(s)[0] for s in reached if graph.kind[s] == EXPANDED}
    values = {s: graph.value[s] for s in reached}
    proper = not any(graph.kind[s] == DEAD for s in reached)
    exhausted = graph.clock.exhausted
    return SSPSolution(
        policy=Policy(ptask, table),
        values=MappingProxyType(values),
        status=Status.BUDGET_EXHAUSTED if exhausted else Status.SOLVED,
        converged=converged and not exhausted,
        proper=proper,
        method=method,
        value=graph.value[start],
        expanded=graph.expansions,
        iterations=iterations,
        dead_ends_found=len(graph.dead_ends),
        dead_end_cost=dead_end_cost,
        seconds=time.perf_counter() - started,
    )
