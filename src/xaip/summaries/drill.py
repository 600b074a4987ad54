"""Drill-down: the subgoals of a policy between two chosen subgoals.

Why: a summary names a few waypoints; a person who wants more detail about one leg ("how
do I get from station 1 to the airport?") asks for the landmarks of that leg. Following
the paper's discussion (section 8), the leg starts in a *completion* of the source
subgoal — a state in which it holds for the first time on some execution — and ends as
soon as the target subgoal holds. Each completion is a new SSP_{s0}: same policy, initial
state the completion, goal "target holds"; its policy landmarks come from the same
compilations as the top-level summary. Landmarks of the whole leg (whatever completion
chance picks) are those common to every completion.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from xaip.contract import run_checker, with_check
from xaip.errors import InputError
from xaip.planning.mdp import Policy, PolicyGraph, ProbabilisticTask, policy_graph
from xaip.planning.mdp.budgets import BudgetExhausted, as_clock
from xaip.planning.pddl.model import Atom
from xaip.planning.task import State
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.status import Status
from xaip.summaries.exact import completions
from xaip.summaries.landmarks import LandmarkSet, complete_landmarks, concise_landmarks

#: Subgoal names accepted for the start and the end of the whole policy.
INIT_NAMES = ("init", "start")
GOAL_NAMES = ("goal",)


@dataclass(frozen=True)
class Leg:
    """The leg from one completion ``start`` of the source to the target subgoal:
    its reachable states and its landmarks (concise and complete)."""

    start: State
    reachable_states: int
    reaches_target: bool
    concise: LandmarkSet
    complete: LandmarkSet

    def _to_dict(self, task: ProbabilisticTask) -> dict[str, Any]:
        """Internal: JSON of this leg, spelled with ``task``'s facts (see
        :meth:`DrillDown.to_dict`)."""
        return {
            "start": task.state_key(self.start),
            "reachable_states": self.reachable_states,
            "reaches_target": self.reaches_target,
            "concise_landmarks": self.concise.to_dict(task.facts),
            "complete_landmarks": self.complete.to_dict(task.facts),
        }


@dataclass(frozen=True)
class DrillDown:
    """Landmarks between ``source`` and ``target`` (fact indices; ``None`` = the initial
    state / the goal) of a policy of ``task`` (a conforming explainer result).

    ``legs`` has one entry per completion of the source examined (up to
    ``max_completions``); ``common`` lists the landmarks of every leg that reaches the
    target (neither source-completion facts nor the target), early first; ``omitted``
    counts completions not examined. ``status`` is ``found``, or ``budget_exhausted``
    when the budget ran out (then ``legs`` holds the finished legs and ``common`` is
    empty: nothing is claimed about the whole leg). A found drill-down whose checker ran
    out of its own budget stays ``found`` and is not ``verified`` (``check_details``).
    """

    task: ProbabilisticTask
    source: int | None
    target: int | None
    legs: tuple[Leg, ...]
    common: tuple[int, ...]
    omitted: int
    status: Status = Status.FOUND
    verified: bool = False
    seconds: float = 0.0
    stats: Mapping[str, int | float] = field(default_factory=dict)
    #: What the checker said (``"unverified: checker budget"`` when it ran out).
    check_details: str = ""

    def to_dict(self) -> dict[str, Any]:
        task = self.task

        def name(f: int | None, default: str) -> str:
            return default if f is None else str(task.facts[f])

        return {
            "status": str(self.status),
            "verified": self.verified,
            "check_details": self.check_details,
            "source": name(self.source, "init"),
            "target": name(self.target, "goal"),
            "completions": len(self.legs) + self.omitted,
            "examined": len(self.legs),
            "common_landmarks": [str(task.facts[f]) for f in self.common],
            "legs": [leg._to_dict(task) for leg in self.legs],
            "seconds": self.seconds,
            "stats": dict(self.stats),
        }


def leg_task(ptask: ProbabilisticTask, start: State, target: int | None) -> ProbabilisticTask:
    """The task of one leg: start in ``start``, done when ``target`` holds (``None``: the
    task's own goal)."""
    if target is None:
        return replace(ptask, init=start)
    return replace(ptask, init=start, goal=1 << target, goal_neg=0)


def resolve_fact(ptask: ProbabilisticTask, text: str, allowed: Sequence[str]) -> int | None:
    """A fact index from ``"(at station1)"`` or ``"at station1"``; ``None`` for the special
    names in ``allowed`` (``init``/``goal``). Unknown facts are an input error."""
    cleaned = " ".join(text.strip().strip("()").split())
    if cleaned.lower() in allowed:
        return None
    predicate, *args = cleaned.split(" ") if cleaned else [""]
    atom = Atom(predicate, tuple(args))
    index = ptask.fact_index.get(atom)
    if index is None:
        if atom in ptask.static_facts:
            raise InputError(f"fact {atom} never changes (it is static): it is no subgoal")
        close = [str(f) for f in ptask.facts if f.predicate == predicate][:5]
        hint = f"; facts of '{predicate}' include {', '.join(close)}" if close else ""
        raise InputError(f"unknown fact {atom} in task '{ptask.name}'{hint}")
    return index


def drill_down(
    ptask: ProbabilisticTask,
    policy: Policy,
    source: int | None,
    target: int | None,
    graph: PolicyGraph | None = None,
    max_completions: int = 20,
    budget: Budget | BudgetClock | None = None,
    check: bool = True,
) -> DrillDown:
    """Landmarks of ``policy`` from each completion of ``source`` until ``target`` holds.

    ``source=None`` starts at the initial state; ``target=None`` ends at the goal. One
    ``budget`` (or a clock shared with the caller) covers every leg. Raises
    :class:`~xaip.errors.InputError` when the source never holds on a goal-reaching
    execution of the policy. With ``check`` (default) the summaries checker
    (:func:`xaip.summaries.check.check`) confirms the legs and sets ``verified``.
    """
    started = time.perf_counter()
    clock = as_clock(budget)
    legs: list[Leg] = []
    starts: list[State] = []

    def result(status: Status, common: tuple[int, ...]) -> DrillDown:
        return DrillDown(
            task=ptask, source=source, target=target, legs=tuple(legs), common=common,
            omitted=max(0, len(starts) - len(legs)), status=status,
            seconds=time.perf_counter() - started,
            stats=MappingProxyType({"nodes": clock.nodes, "legs": len(legs),
                                    "completions": len(starts)}))

    try:
        if graph is None:
            graph = policy_graph(ptask, policy, budget=clock)
        if source is None:
            starts = [graph.init]
        else:
            found = completions(graph, source)
            if not found:
                raise InputError(
                    f"{ptask.facts[source]} never holds on an execution of the policy that "
                    "reaches the goal, so there is no leg starting there"
                )
            order = {s: i for i, s in enumerate(graph.states)}
            starts = sorted(found, key=order.__getitem__)
        for start in starts[:max_completions]:
            task = leg_task(ptask, start, target)
            leg_graph = policy_graph(task, Policy(task, policy.table), budget=clock)
            concise = concise_landmarks(task, leg_graph, clock)
            complete = complete_landmarks(task, leg_graph, clock)
            if not concise.complete or not complete.complete:
                raise BudgetExhausted("budget exhausted during a drill-down leg")
            legs.append(Leg(start, len(leg_graph.states), bool(leg_graph.goal_states),
                            concise, complete))
    except BudgetExhausted:
        return result(Status.BUDGET_EXHAUSTED, ())
    common: list[int] | None = None
    for leg in legs:
        if not leg.reaches_target:
            continue
        mine = list(leg.complete.subgoals)
        common = mine if common is None else [f for f in common if f in mine]
    found_result = result(Status.FOUND, tuple(common or ()))
    if not check:
        return found_result
    from xaip.summaries.check import check as check_drill  # the checker imports this module

    # The checker runs under the same limits, started afresh; out of them it reports
    # "unverified: checker budget" and the finished drill-down stays found, unverified.
    report = run_checker(lambda: check_drill(policy, found_result, clock.budget.start()))
    return with_check(replace(found_result, seconds=time.perf_counter() - started,
                              check_details=report.details), report)
