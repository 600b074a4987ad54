"""``summarise_policy`` / ``summarize``: the whole TLdR pipeline for one policy, one result.

Pipeline: (solve the task, if no policy is given) → the policy's reachable graph, with
exact dead ends → policy landmarks from the concise compilation D(M) and (unless switched
off) the complete compilation D(M)^c → model landmarks from the all-outcomes
determinisation → the minimal disjunctive policy landmarks ("either A or B happens on
every run", :mod:`xaip.summaries.disjunctive`) → the section-6 hierarchy of the chosen
policy landmarks and its value
(Proposition 3) → the independent check (:func:`xaip.summaries.check.check`), which sets
``verified``.

Why one budget for every phase: the user's ``--max-seconds`` / ``--max-nodes`` is a
promise about the whole call. Every phase charges one shared clock; when it runs out the
pipeline stops where it is and returns a :class:`PolicySummary` with status
``budget_exhausted``, saying in which phase it stopped and claiming nothing the finished
phases did not establish (in particular: no "dead end" or "no proper policy" verdict from
a solver that was cut short). The checker is the exception, as in every family: it runs
under the same limits started afresh (:mod:`xaip.contract`), and when it runs out the
summary stays ``found`` but not ``verified``, its ``check_details`` saying
"unverified: checker budget". The English text, DOT and SVG are in
:mod:`xaip.render.summaries`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from xaip.contract import with_check
from xaip.errors import InputError
from xaip.planning.mdp import (
    DEFAULT_DEAD_END_COST,
    NoProperPolicy,
    Policy,
    PolicyFormatError,
    PolicyGraph,
    ProbabilisticTask,
    SSPSolution,
    policy_graph,
    solve_ssp,
    state_values,
)
from xaip.planning.mdp.budgets import BudgetExhausted, as_clock
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.progress import Progress, report
from xaip.runtime.status import Status
from xaip.summaries.disjunctive import DEFAULT_SIZE, SIZES, DisjunctiveSet, disjunctive_landmarks
from xaip.summaries.exact import LandmarkCheck
from xaip.summaries.hierarchy import Hierarchy, HierarchyValue, build_hierarchy, check_hierarchy
from xaip.summaries.landmarks import (
    LandmarkSet,
    complete_landmarks,
    concise_landmarks,
    model_landmarks,
)
from xaip.summaries.text import Phrases

Compilation = Literal["concise", "complete"]
COMPILATIONS: tuple[str, ...] = ("concise", "complete")
SOLVERS: tuple[str, ...] = ("lao", "vi")
#: At most this many dead-end / unhandled states are spelled out in results.
SHOWN_STATES = 5
#: The phases of :func:`summarize`, in order (``stopped_in`` names one of them).
PHASES = ("solving", "policy graph", "concise landmarks", "complete landmarks",
          "model landmarks", "disjunctive landmarks", "hierarchy", "checking")


@dataclass(frozen=True, eq=False)
class PolicySummary:
    """Everything TLdR says about one policy (a conforming explainer result).

    ``status`` is ``found`` when every phase finished, ``unsolvable`` when the policy was
    solved for and no policy reaches the goal from the initial state (then there are no
    landmarks; the checker confirms that no goal state is reachable), and
    ``budget_exhausted`` when the budget ran out in phase ``stopped_in``; then the fields of
    later phases are ``None`` and nothing is claimed about them. ``concise`` / ``complete``
    / ``model`` are the landmark sets computed (``complete`` is ``None`` when skipped);
    ``policy_landmarks`` is the one the summary is built from (``compilation`` says which).
    ``disjunctive`` holds the minimal disjunctive policy landmarks (``None`` when not
    computed; an empty set of size 0 when switched off). ``hierarchy`` and ``value`` are
    section 6 and Proposition 3; ``checks`` compare each set
    with the exact answer on the policy graph (empty when not checked) and ``verified`` says
    the independent checker confirmed the finished summary. ``policy`` and ``task`` are what
    was summarised (kept so that :meth:`to_dict` needs no arguments); ``phrases`` the
    predicate templates for the English text; ``solver`` what the solver reported when the
    call solved the task itself. ``seconds`` is the total time, ``timings`` per phase.
    """

    task: ProbabilisticTask
    policy: Policy
    status: Status
    policy_source: str = "given"
    compilation: Compilation = "concise"
    graph: PolicyGraph | None = None
    concise: LandmarkSet | None = None
    complete: LandmarkSet | None = None
    model: LandmarkSet | None = None
    disjunctive: DisjunctiveSet | None = None
    hierarchy: Hierarchy | None = None
    value: HierarchyValue | None = None
    goal_probability: float | None = None
    checks: tuple[LandmarkCheck, ...] = ()
    check_details: str = ""
    dead_end_cost: float | None = DEFAULT_DEAD_END_COST
    phrases: Mapping[str, str] | None = None
    solver: Mapping[str, Any] | None = None
    note: str | None = None
    stopped_in: str | None = None
    verified: bool = False
    seconds: float = 0.0
    timings: Mapping[str, float] = field(default_factory=dict)
    stats: Mapping[str, int | float] = field(default_factory=dict)

    @property
    def policy_landmarks(self) -> LandmarkSet | None:
        return self.complete if self.compilation == "complete" else self.concise

    @property
    def reachable_states(self) -> int | None:
        return None if self.graph is None else len(self.graph.states)

    @property
    def checked_ok(self) -> bool:
        """Every checked set is sound, and the complete one is exact."""
        return bool(self.checks) and all(
            c.sound and (c.source != "complete" or c.exact) for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        facts = self.task.facts
        chosen = self.policy_landmarks
        graph = self.graph

        def sets(s: LandmarkSet | None) -> dict[str, Any] | None:
            return None if s is None else s.to_dict(facts)

        return {
            "status": str(self.status),
            "verified": self.verified,
            "stopped_in": self.stopped_in,
            "task": self.task.name,
            "policy": self.policy_source,
            "policy_states": len(self.policy),
            "note": self.note,
            "reachable_states": self.reachable_states,
            "goal_probability": self.goal_probability,
            "dead_ends": [] if graph is None else [
                " ".join(self.task.state_key(s)) for s in sorted(graph.dead_ends)[:SHOWN_STATES]],
            "dead_end_states": None if graph is None else len(graph.dead_ends),
            "unhandled_states": None if graph is None else len(graph.unhandled),
            "dead_end_cost": self.dead_end_cost,
            "compilation": self.compilation,
            "policy_landmarks": sets(chosen),
            "model_landmarks": sets(self.model),
            "concise_landmarks": sets(self.concise),
            "complete_landmarks": sets(self.complete),
            "disjunctive_landmarks": None if self.disjunctive is None
            else self.disjunctive.to_dict(self.task),
            "orderings": [] if chosen is None else [o.to_dict(facts) for o in chosen.orderings],
            "hierarchy": None if self.hierarchy is None else self.hierarchy.to_dict(facts),
            "proposition_3": None if self.value is None else self.value.to_dict(),
            "checks": [c.to_dict(facts) for c in self.checks],
            "checked_ok": self.checked_ok,
            "check_details": self.check_details,
            "solver": None if self.solver is None else dict(self.solver),
            "seconds": round(self.seconds, 6),
            "timings": {k: round(v, 6) for k, v in self.timings.items()},
            "stats": dict(self.stats),
        }


def solve_policy(
    ptask: ProbabilisticTask,
    method: str = "lao",
    budget: Budget | BudgetClock | None = None,
    dead_end_cost: float | None = DEFAULT_DEAD_END_COST,
) -> tuple[SSPSolution, str | None]:
    """An optimal policy from :func:`~xaip.planning.mdp.solve_ssp`, checked before use.

    Why the check: a summary of a policy that stops acting in states it reaches would
    describe the wrong behaviour. A solved policy must name an action in every reachable
    state that is neither a goal nor a dead end; if ILAO* returns one that does not (it
    can stop with unexpanded states in its greedy graph), the task is solved again by
    value iteration. Returns the solution and a note saying what happened (or ``None``).
    Within a shared clock, :class:`~xaip.planning.landmarks.BudgetExhausted` may be raised
    by the graph check.
    """
    solution, note, _ = _solve(ptask, method, as_clock(budget), dead_end_cost)
    return solution, note


def _solve(
    ptask: ProbabilisticTask, method: str, clock: BudgetClock, dead_end_cost: float | None
) -> tuple[SSPSolution, str | None, PolicyGraph | None]:
    """:func:`solve_policy`, also returning the policy graph it built (``None`` when the
    solver ran out of budget)."""
    if method not in SOLVERS:
        raise InputError(f"unknown solver {method!r}; expected lao or vi")
    solution = solve_ssp(ptask, method=method, budget=clock,  # type: ignore[arg-type]
                         dead_end_cost=dead_end_cost)
    if solution.status != Status.SOLVED:
        return solution, None, None
    graph = policy_graph(ptask, solution.policy, budget=clock)
    if not graph.unhandled:
        return solution, None, graph
    note = (
        f"the {method} solver returned a policy with no action in {len(graph.unhandled)} "
        "reachable non-goal states"
    )
    if method == "vi":
        return solution, note, graph
    retry = solve_ssp(ptask, method="vi", budget=clock, dead_end_cost=dead_end_cost)
    if retry.status != Status.SOLVED:
        return retry, note, None
    return retry, note + "; solved again with value iteration", None


def _require_goal_reaching(ptask: ProbabilisticTask, policy: Policy, graph: PolicyGraph) -> None:
    """Reject policies that cannot be summarised: no action in the initial state, or no
    execution that reaches the goal (landmarks would be vacuous). Only called on a
    finished graph, so the verdict is established, never a budget artefact."""
    if ptask.is_goal(ptask.init):
        return
    if policy.action(ptask.init) is None:
        raise PolicyFormatError(
            f"the policy names no action for the initial state of '{ptask.name}' "
            f"[{' '.join(ptask.state_key(ptask.init))}]; is it a policy for this problem?"
        )
    if not graph.goal_states:
        stops = sorted(graph.dead_ends | graph.unhandled)
        raise NoProperPolicy(
            ptask.name,
            (" ".join(ptask.state_key(s)) for s in stops),
            f"The policy never reaches the goal ({len(graph.states)} reachable states, "
            f"{len(graph.unhandled)} without an action), so it has no landmarks",
        )


def summarise_policy(
    ptask: ProbabilisticTask,
    policy: Policy,
    *,
    compilation: Compilation = "concise",
    with_complete: bool = True,
    check: bool = True,
    dead_end_cost: float | None = DEFAULT_DEAD_END_COST,
    phrases: Phrases | None = None,
    budget: Budget | BudgetClock | None = None,
    policy_source: str = "given",
    graph: PolicyGraph | None = None,
    progress: Progress | None = None,
    disjunctive_size: int = DEFAULT_SIZE,
) -> PolicySummary:
    """Summarise ``policy`` (see the module docstring) within ``budget``.

    ``compilation`` picks the landmark set the hierarchy and text use: ``"concise"`` (the
    paper's D(M)) or ``"complete"`` (D(M)^c, exact). ``dead_end_cost`` prices runs that stop
    outside the goal when computing values (``None``: infinite). ``check=False`` skips the
    independent check (the result is then not ``verified``). Raises
    :class:`~xaip.planning.mdp.PolicyFormatError` when the policy does not act in the
    initial state and :class:`~xaip.planning.mdp.NoProperPolicy` when no execution reaches
    the goal. ``disjunctive_size`` bounds the disjunctive landmarks searched for: 2
    (default, pairs), 3 (pairs and triples) or 0 (none).
    """
    return summarize(ptask, policy, compilation=compilation, with_complete=with_complete,
                     check=check, dead_end_cost=dead_end_cost, phrases=phrases,
                     budget=budget, policy_source=policy_source, graph=graph,
                     progress=progress, disjunctive_size=disjunctive_size)


def summarize(
    ptask: ProbabilisticTask,
    policy: Policy | None = None,
    *,
    solver: str = "lao",
    compilation: Compilation = "concise",
    with_complete: bool = True,
    check: bool = True,
    dead_end_cost: float | None = DEFAULT_DEAD_END_COST,
    phrases: Phrases | None = None,
    budget: Budget | BudgetClock | None = None,
    policy_source: str | None = None,
    graph: PolicyGraph | None = None,
    progress: Progress | None = None,
    disjunctive_size: int = DEFAULT_SIZE,
) -> PolicySummary:
    """Summarise ``policy`` — or, when it is ``None``, an optimal policy found by ``solver``
    (``"lao"`` or ``"vi"``) — with one budget for every phase (see the module docstring)."""
    if compilation not in COMPILATIONS:
        raise InputError(f"compilation must be one of {', '.join(COMPILATIONS)}")
    if disjunctive_size not in SIZES:
        raise InputError(f"the disjunctive landmark size must be 0, 2 or 3, "
                         f"not {disjunctive_size!r}")
    if dead_end_cost is not None and not dead_end_cost >= 0:
        raise InputError(f"the dead-end cost must be a number >= 0, not {dead_end_cost}")
    with_complete = with_complete or compilation == "complete"
    clock = as_clock(budget)
    run = _Run(ptask, clock, progress, time.perf_counter())
    fields: dict[str, Any] = {
        "compilation": compilation, "dead_end_cost": dead_end_cost,
        "phrases": None if phrases is None else MappingProxyType(dict(phrases)),
    }
    if policy is None:
        run.phase("solving")
        fields["policy_source"] = policy_source or (
            f"{solver} (optimal, dead ends priced at {dead_end_cost})")
        try:
            solution, note, graph = _solve(ptask, solver, clock, dead_end_cost)
        except BudgetExhausted:
            return run.stop(Policy(ptask, {}), fields)
        policy = solution.policy
        fields["solver"] = MappingProxyType({
            "method": solution.method, "status": str(solution.status),
            "converged": solution.converged, "proper": solution.proper,
            "value": solution.value if math.isfinite(solution.value) else "inf",
            "expanded": solution.expanded,
            "iterations": solution.iterations, "dead_ends_found": solution.dead_ends_found,
            "dead_end_cost": solution.dead_end_cost, "seconds": solution.seconds,
            "policy_states": len(solution.policy)})
        fields["note"] = note
        if solution.status != Status.SOLVED:
            return run.stop(policy, fields)
        run.timings["solving"] = solution.seconds
    else:
        fields["policy_source"] = policy_source or "given"
    try:
        return _analyse(run, policy, graph, fields, with_complete, check, disjunctive_size)
    except BudgetExhausted:
        return run.stop(policy, fields)


@dataclass
class _Run:
    """The bookkeeping of one :func:`summarize` call: phase, timings, progress."""

    task: ProbabilisticTask
    clock: BudgetClock
    progress: Progress | None
    started: float
    current: str = "solving"
    timings: dict[str, float] = field(default_factory=dict)
    mark: float = 0.0

    def phase(self, name: str) -> None:
        self.current = name
        self.mark = time.perf_counter()
        report(self.progress, "summarize", PHASES.index(name), len(PHASES), name)

    def done(self, name: str, seconds: float | None = None) -> None:
        self.timings[name] = time.perf_counter() - self.mark if seconds is None else seconds
        if self.clock.out_of_time():
            raise BudgetExhausted(f"budget exhausted during {name}")

    def finish(self, policy: Policy, fields: dict[str, Any], status: Status,
               stopped_in: str | None = None) -> PolicySummary:
        graph = fields.get("graph")
        stats: dict[str, int | float] = {"nodes": self.clock.nodes,
                                         "policy_states": len(policy)}
        if graph is not None:
            stats.update(reachable_states=len(graph.states),
                         dead_end_states=len(graph.dead_ends))
        solver = fields.get("solver")
        if solver is not None:
            stats["solver_expanded"] = int(solver.get("expanded", 0))
        found_d = fields.get("disjunctive")
        if found_d is not None:
            stats["disjunctive_landmarks"] = found_d.count
        for name in ("concise", "complete", "model"):
            found = fields.get(name)
            if found is not None:
                stats[f"{name}_landmarks"] = found.count
        return PolicySummary(
            task=self.task, policy=policy, status=status, stopped_in=stopped_in,
            seconds=time.perf_counter() - self.started,
            timings=MappingProxyType(dict(self.timings)),
            stats=MappingProxyType(stats), **fields)

    def stop(self, policy: Policy, fields: dict[str, Any]) -> PolicySummary:
        """The unfinished result: the budget ran out in the current phase."""
        self.timings.setdefault(self.current, time.perf_counter() - self.mark)
        return self.finish(policy, fields, Status.BUDGET_EXHAUSTED, self.current)


def _landmarks(run: _Run, name: str, compute: Callable[[], LandmarkSet],
               fields: dict[str, Any]) -> None:
    run.phase(f"{name} landmarks")
    found = compute()
    fields[name] = found
    if not found.complete:
        raise BudgetExhausted(f"budget exhausted during the {name} landmarks")
    run.done(f"{name} landmarks")


def _analyse(run: _Run, policy: Policy, graph: PolicyGraph | None, fields: dict[str, Any],
             with_complete: bool, check: bool, disjunctive_size: int = DEFAULT_SIZE
             ) -> PolicySummary:
    """The phases after solving; raises BudgetExhausted where the clock runs out."""
    ptask, clock = run.task, run.clock
    run.phase("policy graph")
    if graph is None:
        graph = policy_graph(ptask, policy, budget=clock)
    fields["graph"] = graph
    if fields.get("solver") is not None and not graph.goal_states \
            and not ptask.is_goal(ptask.init):
        # The solver prices dead ends, so its policy reaches the goal whenever some policy
        # can: none does. Claimed as "unsolvable" and checked on the whole state space.
        fields["goal_probability"] = 0.0
        run.done("policy graph")
        return _unsolvable(run, policy, fields, check)
    _require_goal_reaching(ptask, policy, graph)
    dead_end_cost = fields["dead_end_cost"]
    fields["goal_probability"] = state_values(
        ptask, graph, dead_end_cost).goal_probability[graph.init]
    run.done("policy graph")
    _landmarks(run, "concise", lambda: concise_landmarks(ptask, graph, clock), fields)
    if with_complete:
        _landmarks(run, "complete", lambda: complete_landmarks(ptask, graph, clock), fields)
    _landmarks(run, "model", lambda: model_landmarks(ptask, clock), fields)
    run.phase("disjunctive landmarks")
    disjunctive = disjunctive_landmarks(graph, disjunctive_size, clock)
    fields["disjunctive"] = disjunctive
    if not disjunctive.complete:
        raise BudgetExhausted("budget exhausted during the disjunctive landmarks")
    run.done("disjunctive landmarks")
    run.phase("hierarchy")
    chosen = fields["complete"] if fields["compilation"] == "complete" else fields["concise"]
    hierarchy = build_hierarchy(chosen, ptask.goal)
    fields["hierarchy"] = hierarchy
    fields["value"] = check_hierarchy(hierarchy, ptask, graph, dead_end_cost)
    run.done("hierarchy")
    result = run.finish(policy, fields, Status.FOUND)
    if not check:
        return result
    from xaip.summaries.check import landmark_checks  # the checker imports this module

    run.phase("checking")
    # The checker runs under the user's limits started afresh, never on what the search
    # left over; out of them it says "unverified: checker budget" and the finished
    # summary stays found, unverified (the CLI exits 1).
    report_, checks = landmark_checks(policy, result, clock.budget.start())
    run.timings["checking"] = time.perf_counter() - run.mark
    fields.update(checks=checks, check_details=report_.details)
    return with_check(run.finish(policy, fields, Status.FOUND), report_)


def _unsolvable(run: _Run, policy: Policy, fields: dict[str, Any], check: bool) -> PolicySummary:
    """The answer for a task no policy solves: status ``unsolvable``, no landmarks (they
    would be vacuous), verified when the checker finds no goal state reachable at all."""
    result = run.finish(policy, fields, Status.UNSOLVABLE)
    if not check:
        return result
    from xaip.summaries.check import landmark_checks  # the checker imports this module

    run.phase("checking")
    report_, _ = landmark_checks(policy, result, run.clock.budget.start())
    run.timings["checking"] = time.perf_counter() - run.mark
    fields["check_details"] = report_.details
    return with_check(run.finish(policy, fields, Status.UNSOLVABLE), report_)
