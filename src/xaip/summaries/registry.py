"""The policy-summary explainers, registered for the conformance tests and the workbench.

Both run on the bundled travel-to-the-airport example (11 reachable states under the
optimal policy): a one-node budget stops them in their first phase (budget exhausted, not
verified) and an unlimited budget finishes and verifies them in milliseconds.
"""

from __future__ import annotations

from functools import cache

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.planning.mdp import Policy, ProbabilisticTask, ground_probabilistic, solve_ssp
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget
from xaip.summaries.check import check
from xaip.summaries.drill import DrillDown, drill_down
from xaip.summaries.summary import PolicySummary, summarize


@cache
def _airport() -> tuple[ProbabilisticTask, Policy]:
    """The bundled example and its optimal policy (solved once, outside any budget)."""
    from xaip.domains.airport import airport_paths
    from xaip.planning.pddl import read_domain, read_problem

    domain, problem = airport_paths()
    ptask = ground_probabilistic(read_domain(domain), read_problem(problem))
    return ptask, solve_ssp(ptask).policy


def _summary_example(budget: Budget) -> PolicySummary:
    """Solve the airport task and summarise its optimal policy, all within ``budget``."""
    from xaip.domains.airport import PHRASES

    ptask, _ = _airport()
    return summarize(ptask, phrases=PHRASES, budget=budget)


def _summary_check(result: PolicySummary) -> CheckReport:
    return check(result.policy, result)


def _drill_example(budget: Budget) -> DrillDown:
    """The leg from station 1 to the airport of the optimal airport policy."""
    ptask, policy = _airport()
    station1 = ptask.fact_index[Atom("at", ("station1",))]
    airport = ptask.fact_index[Atom("at", ("the-airport",))]
    return drill_down(ptask, policy, station1, airport, budget=budget)


def _drill_check(result: DrillDown) -> CheckReport:
    _, policy = _airport()
    return check(policy, result)


SUMMARY = register_explainer(ExplainerSpec(
    name="policy-summary",
    family="summaries",
    example=_summary_example,
    check=_summary_check,
    description="TLdR: a policy summarised by its ordered policy landmarks",
))
DRILL_DOWN = register_explainer(ExplainerSpec(
    name="policy-drill-down",
    family="summaries",
    example=_drill_example,
    check=_drill_check,
    description="the policy landmarks between two chosen subgoals",
))

__all__ = ["DRILL_DOWN", "SUMMARY"]
