"""``summarise_policy``: the whole TLdR pipeline for one policy, as one result object.

Pipeline: the policy's reachable graph → policy landmarks from the concise compilation
D(M) and (unless switched off) the complete compilation D(M)^c → model landmarks from the
all-outcomes determinisation → the section-6 hierarchy of the chosen policy landmarks and
its value (Proposition 3) → an English summary. With ``check=True`` (default) every
landmark set is also compared with the exact answer read off the policy graph by
:mod:`xaip.summaries.exact`, which shares no code with the extraction.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

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
from xaip.planning.task import bits
from xaip.runtime.budget import Budget
from xaip.summaries.exact import LandmarkCheck, check_landmarks, completions
from xaip.summaries.hierarchy import Hierarchy, HierarchyValue, build_hierarchy, check_hierarchy
from xaip.summaries.landmarks import (
    LandmarkSet,
    complete_landmarks,
    concise_landmarks,
    model_landmarks,
)
from xaip.summaries.text import Phrases, join_clauses, phrase, sequence_sentence

Compilation = Literal["concise", "complete"]
COMPILATIONS: tuple[str, ...] = ("concise", "complete")
#: At most this many dead-end / unhandled states are spelled out in results.
SHOWN_STATES = 5


@dataclass(frozen=True, eq=False)
class PolicySummary:
    """Everything TLdR says about one policy.

    ``policy_landmarks`` is the set the summary is built from (``compilation`` says which);
    ``concise`` / ``complete`` / ``model`` are all sets computed (``complete`` is ``None``
    when skipped). ``hierarchy`` and ``value`` are section 6 and Proposition 3;
    ``checks`` compare each set with the exact answer (empty when not checked).
    ``text`` is the English summary; ``seconds`` times the stages.
    """

    task: ProbabilisticTask
    graph: PolicyGraph
    policy_source: str
    compilation: Compilation
    concise: LandmarkSet
    complete: LandmarkSet | None
    model: LandmarkSet
    hierarchy: Hierarchy
    value: HierarchyValue
    goal_probability: float
    checks: tuple[LandmarkCheck, ...]
    text: str
    seconds: Mapping[str, float] = field(default_factory=dict)

    @property
    def policy_landmarks(self) -> LandmarkSet:
        chosen = self.complete if self.compilation == "complete" else self.concise
        assert chosen is not None
        return chosen

    @property
    def reachable_states(self) -> int:
        return len(self.graph.states)

    @property
    def checked_ok(self) -> bool:
        """Every checked set is sound, and the complete one is exact."""
        return all(c.sound and (c.source != "complete" or c.exact) for c in self.checks)

    def to_dict(self) -> dict[str, Any]:
        facts = self.task.facts
        chosen = self.policy_landmarks
        payload: dict[str, Any] = {
            "task": self.task.name,
            "policy": self.policy_source,
            "reachable_states": self.reachable_states,
            "goal_probability": self.goal_probability,
            "dead_ends": [" ".join(self.task.state_key(s))
                          for s in sorted(self.graph.dead_ends)[:SHOWN_STATES]],
            "dead_end_states": len(self.graph.dead_ends),
            "unhandled_states": len(self.graph.unhandled),
            "compilation": self.compilation,
            "policy_landmarks": chosen.to_dict(facts),
            "model_landmarks": self.model.to_dict(facts),
            "concise_landmarks": self.concise.to_dict(facts),
            "complete_landmarks": None if self.complete is None else self.complete.to_dict(facts),
            "orderings": [o.to_dict(facts) for o in chosen.orderings],
            "hierarchy": self.hierarchy.to_dict(facts),
            "proposition_3": self.value.to_dict(),
            "checks": [c.to_dict(facts) for c in self.checks],
            "checked_ok": self.checked_ok,
            "summary": self.text,
            "seconds": round(sum(self.seconds.values()), 6),
            "timings": {k: round(v, 6) for k, v in self.seconds.items()},
        }
        return payload


def solve_policy(
    ptask: ProbabilisticTask,
    method: str = "lao",
    budget: Budget | None = None,
    dead_end_cost: float | None = DEFAULT_DEAD_END_COST,
) -> tuple[SSPSolution, str | None]:
    """An optimal policy from :func:`~xaip.planning.mdp.solve_ssp`, checked before use.

    Why the check: a summary of a policy that stops acting in states it reaches would
    describe the wrong behaviour. A solved policy must name an action in every reachable
    state that is neither a goal nor a dead end; if ILAO* returns one that does not (it
    can stop with unexpanded states in its greedy graph), the task is solved again by
    value iteration. Returns the solution and a note saying what happened (or ``None``).
    """
    if method not in ("lao", "vi"):
        raise InputError(f"unknown solver {method!r}; expected lao or vi")
    solution = solve_ssp(ptask, method=method, budget=budget,  # type: ignore[arg-type]
                         dead_end_cost=dead_end_cost)
    if solution.status != "solved":
        return solution, None
    graph = policy_graph(ptask, solution.policy)
    if not graph.unhandled:
        return solution, None
    note = (
        f"the {method} solver returned a policy with no action in {len(graph.unhandled)} "
        "reachable non-goal states"
    )
    if method == "vi":
        return solution, note
    retry = solve_ssp(ptask, method="vi", budget=budget, dead_end_cost=dead_end_cost)
    return retry, note + "; solved again with value iteration"


def _require_goal_reaching(ptask: ProbabilisticTask, policy: Policy, graph: PolicyGraph) -> None:
    """Reject policies that cannot be summarised: no action in the initial state, or no
    execution that reaches the goal (landmarks would be vacuous)."""
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
    budget: Budget | None = None,
    policy_source: str = "given",
    graph: PolicyGraph | None = None,
) -> PolicySummary:
    """Summarise ``policy`` (see the module docstring).

    ``compilation`` picks the landmark set the hierarchy and text use: ``"concise"`` (the
    paper's D(M)) or ``"complete"`` (D(M)^c, exact). ``dead_end_cost`` prices runs that stop
    outside the goal when computing values (``None``: infinite). Raises
    :class:`~xaip.planning.mdp.PolicyFormatError` when the policy does not act in the
    initial state and :class:`~xaip.planning.mdp.NoProperPolicy` when no execution reaches
    the goal.
    """
    if compilation not in COMPILATIONS:
        raise InputError(f"compilation must be one of {', '.join(COMPILATIONS)}")
    if compilation == "complete":
        with_complete = True
    seconds: dict[str, float] = {}
    started = time.perf_counter()
    if graph is None:
        graph = policy_graph(ptask, policy)
    _require_goal_reaching(ptask, policy, graph)
    goal_probability = state_values(ptask, graph, dead_end_cost).goal_probability[graph.init]
    seconds["graph"] = time.perf_counter() - started
    concise = concise_landmarks(ptask, graph, budget)
    seconds["concise"] = concise.seconds
    complete = complete_landmarks(ptask, graph, budget) if with_complete else None
    if complete is not None:
        seconds["complete"] = complete.seconds
    model = model_landmarks(ptask, budget)
    seconds["model"] = model.seconds
    chosen = complete if compilation == "complete" and complete is not None else concise
    started = time.perf_counter()
    hierarchy = build_hierarchy(chosen, ptask.goal)
    value = check_hierarchy(hierarchy, ptask, graph, dead_end_cost)
    seconds["hierarchy"] = time.perf_counter() - started
    checks: tuple[LandmarkCheck, ...] = ()
    if check:
        started = time.perf_counter()
        sets = [s for s in (concise, complete, model) if s is not None]
        checks = tuple(check_landmarks(ptask, graph, s) for s in sets)
        seconds["check"] = time.perf_counter() - started
    text = narrate(ptask, graph, chosen, model, hierarchy, goal_probability, phrases)
    return PolicySummary(
        task=ptask,
        graph=graph,
        policy_source=policy_source,
        compilation=compilation,
        concise=concise,
        complete=complete,
        model=model,
        hierarchy=hierarchy,
        value=value,
        goal_probability=goal_probability,
        checks=checks,
        text=text,
        seconds=seconds,
    )


def narrate(
    ptask: ProbabilisticTask,
    graph: PolicyGraph,
    landmarks: LandmarkSet,
    model: LandmarkSet,
    hierarchy: Hierarchy,
    goal_probability: float,
    phrases: Phrases | None = None,
) -> str:
    """The English summary: the chain as "First ..., then ...", dropped subgoals under
    the step they belong to, which subgoals every policy shares, and any risk."""
    facts = ptask.facts

    def say(f: int) -> str:
        return phrase(facts[f], phrases)

    goal_facts = list(bits(ptask.goal))
    steps = [say(f) for f in hierarchy.chain]
    rest = [f for f in goal_facts if f not in hierarchy.chain]
    if len(goal_facts) == 1 and rest:
        steps.append(say(rest[0]))
    elif rest:
        steps.append("complete the goal (" + join_clauses([say(f) for f in rest]) + ")")
    lines = [
        f"Policy summary for '{ptask.name}' ({len(graph.states)} reachable states, "
        f"goal reached with probability {goal_probability:.3g}):"
    ]
    if not hierarchy.chain and not hierarchy.dropped:
        lines.append(
            "No subgoal is shared by every execution that reaches the goal: "
            + (sequence_sentence(steps) if steps else "the goal holds initially.")
        )
    else:
        lines.append(sequence_sentence(steps))
    numbered = {f: i + 1 for i, f in enumerate(hierarchy.chain)}

    def step(place: int | None) -> str:
        return "the last step" if place is None else f"step {numbered[place]} ({say(place)})"

    for subtask in hierarchy.subtasks:
        firm: list[str] = []
        for child in subtask.children:
            places = hierarchy.attached_to(child)
            if places[0] != subtask.fact:
                continue
            if len(places) == 1:
                firm.append(say(child))
            else:
                lines.append(
                    f"Before {step(subtask.fact)} is done it will also {say(child)}, "
                    + _timing(graph, child, [p for p in places[1:] if p is not None],
                              numbered) + "."
                )
        if firm:
            lines.append(f"Before {step(subtask.fact)} is done it will also "
                         f"{join_clauses(firm)}.")
    shared = [f for f in landmarks.subgoals if f in set(model.facts)]
    own = [f for f in landmarks.subgoals if f not in set(model.facts)]
    if shared:
        lines.append(
            "Every policy has to " + join_clauses([say(f) for f in shared]) + "; "
            + ("the other subgoals are choices of this policy." if own
               else "this policy adds no subgoals of its own.")
        )
    elif own:
        lines.append("All of these subgoals are choices of this policy, not forced by the task.")
    if goal_probability < 1 - 1e-9:
        lines.append(
            f"Caution: with probability {1 - goal_probability:.3g} the policy does not reach "
            f"the goal ({len(graph.dead_ends)} dead-end and {len(graph.unhandled)} unhandled "
            "states are reachable); the subgoals describe the executions that do."
        )
    return "\n".join(lines)




def _timing(graph: PolicyGraph, fact: int, others: list[int], numbered: dict[int, int]) -> str:
    """When a dropped landmark happens relative to the chain steps it is incomparable
    with, judged by their completions (the states where each first holds): always
    together (a conjunctive landmark split in two), sometimes together, or never."""
    mine = completions(graph, fact)
    together, sometimes, apart = [], [], []
    for other in others:
        theirs = completions(graph, other)
        if mine == theirs:
            together.append(f"step {numbered[other]}")
        elif mine & theirs:
            sometimes.append(f"step {numbered[other]}")
        else:
            apart.append(f"step {numbered[other]}")
    parts = []
    if together:
        parts.append(f"at the same time as {join_clauses(together)}")
    if sometimes:
        parts.append(f"before, with or after {join_clauses(sometimes)} depending on chance")
    if apart:
        parts.append(f"before or after {join_clauses(apart)} depending on chance")
    return "; ".join(parts)
