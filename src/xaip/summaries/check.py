"""The summaries checker: ``check(policy, result) -> CheckReport``, which sets ``verified``.

Why a checker apart from the pipeline: policy landmarks are *extracted* from compiled
classical tasks by landmark algorithms (:mod:`xaip.summaries.landmarks`); a bug in a
compilation or an extraction would silently describe the wrong behaviour. The checker
answers the same questions on the policy graph itself, by other algorithms.

What it does, for a :class:`~xaip.summaries.summary.PolicySummary`:

1. rebuilds the policy graph from the policy (the result's graph is not trusted) and
   requires the same reachable states, goal states and dead ends;
2. computes the exact policy landmarks and orderings by label propagation on that graph
   (:mod:`xaip.summaries.exact`: no compilation, no landmark algorithm, no search) and
   requires every reported set to be sound, and the complete compilation's to be exact;
3. checks the disjunctive policy landmarks by depth-first reachability on the rebuilt
   graph (:mod:`xaip.summaries.disjunctive_check`: every run passes a member, each
   member's witness run, and by brute force that no other set of the searched sizes
   qualifies);
4. recomputes the goal probability and Proposition 3 (the hierarchical policy's value
   equals the policy's value) on the rebuilt graph.

For an ``unsolvable`` summary (no policy reaches the goal) it enumerates every state
reachable by any action and outcome (:func:`~xaip.planning.mdp.reachable_states`, not the
solver) and requires that none is a goal state.

For a :class:`~xaip.summaries.drill.DrillDown` it rebuilds each leg's graph and checks
each leg's landmarks the same way, and the common landmarks as their intersection.

What it shares with the pipeline, exactly: :func:`~xaip.planning.mdp.policy_graph`
(breadth-first exploration under the policy and the exact dead-end search of
:class:`~xaip.planning.mdp.DeadEndDetector`), the sparse linear solver behind
:func:`~xaip.planning.mdp.state_values` and the hierarchy's value
(:func:`~xaip.summaries.hierarchy.check_hierarchy`), and the task's successor function.
It shares nothing with the compilations or the landmark extraction.
"""

from __future__ import annotations

import math
from dataclasses import replace

from xaip.contract import CheckReport, checker_budget_report
from xaip.planning.landmarks import BudgetExhausted
from xaip.planning.mdp import (
    Policy,
    PolicyGraph,
    policy_graph,
    reachable_states,
    state_values,
)
from xaip.planning.mdp.budgets import as_clock
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.status import Status
from xaip.summaries.disjunctive_check import check_disjunctive
from xaip.summaries.drill import DrillDown, leg_task
from xaip.summaries.exact import LandmarkCheck, check_landmarks
from xaip.summaries.hierarchy import check_hierarchy
from xaip.summaries.summary import PolicySummary

#: Goal probabilities are compared up to this absolute tolerance.
PROBABILITY_TOLERANCE = 1e-9


def check(
    inputs: Policy,
    result: PolicySummary | DrillDown,
    budget: Budget | BudgetClock | None = None,
) -> CheckReport:
    """Check ``result`` (a summary or a drill-down of the policy ``inputs``, which carries
    its task) independently; see the module docstring. ``ok`` is ``None`` when the result
    is unfinished or the checker's own ``budget`` ran out (then the details say
    :data:`~xaip.contract.CHECKER_BUDGET`)."""
    if isinstance(result, DrillDown):
        return _check_drill(inputs, result, as_clock(budget))
    report, _ = landmark_checks(inputs, result, as_clock(budget))
    return report


def landmark_checks(
    policy: Policy, result: PolicySummary, clock: BudgetClock
) -> tuple[CheckReport, tuple[LandmarkCheck, ...]]:
    """:func:`check` for a summary, also returning the per-set comparisons."""
    if result.status == Status.UNSOLVABLE:
        return _check_unsolvable(policy, result, clock), ()
    if result.graph is None or result.concise is None or result.model is None \
            or result.hierarchy is None:
        return CheckReport(None, f"unfinished summary (stopped in {result.stopped_in})"), ()
    ptask = policy.task
    try:
        graph = policy_graph(ptask, policy, budget=clock)
        problems = _same_graph(graph, result.graph)
        sets = [s for s in (result.concise, result.complete, result.model) if s is not None]
        checks = tuple(check_landmarks(ptask, graph, s, clock) for s in sets)
        if result.disjunctive is not None:
            problems += check_disjunctive(graph, result.disjunctive, clock)
    except BudgetExhausted as stop:
        return checker_budget_report(str(stop)), ()
    for c in checks:
        if not c.sound:
            problems.append(f"{c.source} landmarks are unsound "
                            f"({len(c.unsound_landmarks)} facts, "
                            f"{len(c.violated_orderings)} orderings)")
        elif c.source == "complete" and not c.exact:
            problems.append("complete landmarks are not exact")
    probability = state_values(ptask, graph, result.dead_end_cost).goal_probability[graph.init]
    if result.goal_probability is None or not math.isclose(
            probability, result.goal_probability, abs_tol=PROBABILITY_TOLERANCE):
        problems.append(f"goal probability {result.goal_probability} != {probability}")
    value = check_hierarchy(result.hierarchy, ptask, graph, result.dead_end_cost)
    if not value.equal:
        problems.append(f"Proposition 3 fails: hierarchical value {value.hierarchical} "
                        f"!= policy value {value.policy}")
    if problems:
        return CheckReport(False, "; ".join(problems)), checks
    either = "" if result.disjunctive is None else (
        f", {result.disjunctive.count} disjunctive landmarks confirmed (minimal, none missing)")
    return CheckReport(True, f"{len(checks)} landmark sets sound (complete set exact){either}, "
                             "goal probability and Proposition 3 confirmed on the rebuilt "
                             "policy graph"), checks


def _check_unsolvable(policy: Policy, result: PolicySummary, clock: BudgetClock) -> CheckReport:
    """"No policy reaches the goal": every state reachable by any action and outcome is
    enumerated (goal states are not expanded), and none is a goal state."""
    ptask = policy.task
    space = reachable_states(ptask, budget=clock)
    if not space.complete:
        return checker_budget_report("enumerating the reachable states")
    goals = [s for s in space.states if ptask.is_goal(s)]
    if goals:
        return CheckReport(False, f"the goal is reachable: {len(goals)} reachable goal "
                                  f"states, e.g. [{' '.join(ptask.state_key(goals[0]))}]")
    return CheckReport(True, f"no goal state among the {len(space.states)} states reachable "
                             "by any policy")


def _same_graph(graph: PolicyGraph, reported: PolicyGraph) -> list[str]:
    if set(graph.states) != set(reported.states):
        return ["the reported policy graph has other states than the policy's"]
    if graph.goal_states != reported.goal_states or graph.dead_ends != reported.dead_ends:
        return ["the reported goal states or dead ends differ from the policy's"]
    return []


def _check_drill(policy: Policy, drill: DrillDown, clock: BudgetClock) -> CheckReport:
    if not drill.status.finished:
        return CheckReport(None, "unfinished drill-down")
    ptask = policy.task
    problems: list[str] = []
    common: set[int] | None = None
    try:
        for i, leg in enumerate(drill.legs, 1):
            task = leg_task(ptask, leg.start, drill.target)
            graph = policy_graph(task, replace(policy, task=task), budget=clock)
            if len(graph.states) != leg.reachable_states:
                problems.append(f"leg {i}: {len(graph.states)} states, reported "
                                f"{leg.reachable_states}")
            exact = check_landmarks(task, graph, leg.complete, clock)
            sound = check_landmarks(task, graph, leg.concise, clock)
            if not exact.exact or not sound.sound:
                problems.append(f"leg {i}: landmarks differ from the exact ones")
            if graph.goal_states:
                mine = set(leg.complete.subgoals)
                common = mine if common is None else common & mine
    except BudgetExhausted as stop:
        return checker_budget_report(str(stop))
    if set(drill.common) != (common or set()):
        problems.append("the common landmarks are not the intersection of the legs'")
    if problems:
        return CheckReport(False, "; ".join(problems))
    return CheckReport(True, f"{len(drill.legs)} legs rebuilt; landmarks exact, common "
                             "landmarks confirmed")


__all__ = ["check", "landmark_checks"]

