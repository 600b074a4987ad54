"""Policy summaries as English, DOT (and SVG through :mod:`xaip.render.dot`).

Why here: :class:`~xaip.summaries.PolicySummary` and :class:`~xaip.summaries.DrillDown`
are plain data; the CLI, the Python API and the workbench all ask :func:`xaip.render.render`
for a format. ``narration`` is the summary proper ("First get to the bus stop, then ...");
the ``text`` rendering adds the landmark sets, orderings, hierarchy and checks.

Drawing conventions (as the paper's figure 3): the transitive reduction of the orderings
(a drawing shows only the edges a reader follows); policy-specific subgoals light blue,
subgoals every policy needs (model landmarks) white, goal facts pale green with a double
border; greedy-necessary orderings solid and thick, natural ones dashed.
"""

from __future__ import annotations

from collections.abc import Sequence

from xaip.contract import CHECKER_BUDGET
from xaip.planning.mdp import PolicyGraph, ProbabilisticTask
from xaip.planning.pddl.model import Atom
from xaip.planning.task import bits
from xaip.render import renderer
from xaip.render.dot import Graph, transitive_reduction
from xaip.runtime.status import Status
from xaip.summaries.drill import DrillDown
from xaip.summaries.exact import completions
from xaip.summaries.hierarchy import Hierarchy
from xaip.summaries.landmarks import LandmarkSet
from xaip.summaries.summary import PolicySummary
from xaip.summaries.text import Phrases, join_clauses, phrasebook, sequence_sentence

_EDGE_STYLE: dict[str, dict[str, str]] = {
    "greedy-necessary": {"style": "solid", "penwidth": "2"},
    "natural": {"style": "dashed"},
}
#: The landmark sets in words (the JSON and ``--compilation`` keep the paper's names:
#: ``concise`` is D(M), ``complete`` is D(M)^c, ``model`` the determinisation's).
_LABEL = {
    "concise": "Subgoals of this policy (quick method: all real, some may be missing)",
    "complete": "Subgoals of this policy (exact method)",
    "model": "Subgoals every policy has (the task's own landmarks)",
}
_SOURCE = {"concise": "the quick method's subgoals", "complete": "the exact method's subgoals",
           "model": "the task's own landmarks"}
#: What each ordering says, as the drawing's legend says it.
_ORDER = {"greedy-necessary": "{a} holds right before {b} first becomes true",
          "natural": "{a} becomes true before {b} on every run"}


# --------------------------------------------------------------------------- English


def narration(summary: PolicySummary) -> str:
    """The English summary of a finished summary; for an unfinished one, what stopped it."""
    chosen = summary.policy_landmarks
    if summary.status == Status.UNSOLVABLE:
        return (f"Policy summary for '{summary.task.name}': no policy reaches the goal from "
                "the initial state, so there is nothing to summarise.")
    if (summary.graph is None or chosen is None or summary.model is None
            or summary.hierarchy is None or summary.goal_probability is None):
        return (f"Policy summary for '{summary.task.name}': budget exhausted during "
                f"{summary.stopped_in} after {summary.stats.get('nodes', 0)} nodes and "
                f"{summary.seconds:.3g} s; no summary (nothing is claimed about the policy).")
    return narrate(summary.task, summary.graph, chosen, summary.model, summary.hierarchy,
                   summary.goal_probability, summary.phrases)


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
    book = phrasebook(facts, phrases)  # every fact of the task: no two read alike

    def say(f: int) -> str:
        return book[facts[f]]

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
    if ptask.is_goal(ptask.init):
        lines.append("The goal holds in the initial state: the policy has nothing to do, so "
                     "there are no subgoals.")
        return "\n".join(lines)
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


@renderer(PolicySummary, "text")
def summary_text(summary: PolicySummary) -> str:
    """The text report: the English summary, then the landmark sets, orderings, hierarchy,
    the value check (the paper's Proposition 3), the checks and the timings, in words (the
    paper's names are in the JSON)."""
    facts = summary.task.facts

    def names(items: Sequence[int]) -> str:
        return ", ".join(str(facts[f]) for f in items) or "none"

    lines = [narration(summary), ""]
    if summary.note:
        lines.insert(0, f"Note: {summary.note}.")
    graph = summary.graph
    if graph is not None:
        lines.append(f"Policy: {summary.policy_source}; {len(graph.states)} reachable "
                     f"states, {len(graph.dead_ends)} of them dead ends, "
                     f"{len(graph.unhandled)} where the policy has no action")
    for s in (summary.concise, summary.complete, summary.model):
        if s is not None:
            note = "" if s.complete else " (budget ran out: may be incomplete)"
            lines.append(f"{_LABEL[s.source]}, {s.count}: {names(s.subgoals)}{note}")
    lines += _disjunctive_lines(summary)
    chosen = summary.policy_landmarks
    if chosen is not None and chosen.complete:
        shown = [f for f in chosen.facts if f not in chosen.initial]
        kinds = {(o.before, o.after): o.kind for o in chosen.orderings}
        reduced = sorted(transitive_reduction(shown, set(kinds)),
                         key=lambda e: (shown.index(e[0]), shown.index(e[1])))
        among = sum(1 for a, b in kinds if a in shown and b in shown)
        why = [f"{among - len(reduced)} follow from these"] if among > len(reduced) else []
        if len(kinds) > among:
            why.append(f"{len(kinds) - among} involve facts true from the start")
        lines.append(f"In what order ({len(reduced)} of the {len(kinds)} orderings shown"
                     + (f"; {' and '.join(why)}):" if why else "):"))
        lines += ["  " + _ORDER.get(kinds[(a, b)], "{a} before {b} (" + kinds[(a, b)] + ")")
                  .format(a=facts[a], b=facts[b]) for a, b in reduced] or ["  none"]
    if summary.hierarchy is not None:
        lines.append(f"The summary's chain of subgoals: {names(summary.hierarchy.chain)}; "
                     f"left out of the chain: {names(summary.hierarchy.dropped)}")
    value = summary.value
    if value is not None:
        lines.append(
            f"Value check: pursuing the subgoals one after another costs "
            f"{value.hierarchical:.6g}, the policy {value.policy:.6g}: "
            f"{'equal' if value.equal else 'DIFFERENT'}"
        )
    for check in summary.checks:
        verdict = ("are exactly right" if check.exact else "are all real" if check.sound
                   else "are NOT all real (unsound)")
        extra = ""
        if check.missing_landmarks and check.sound:
            extra = (f", but {len(check.missing_landmarks)} of the policy's "
                     f"{check.exact_landmarks} are missing")
        lines.append(f"Check on every reachable state: "
                     f"{_SOURCE.get(check.source, check.source)} {verdict}{extra}")
    lines.append(_status_line(summary))
    timings = ", ".join(f"{k} {v:.3f} s" for k, v in summary.timings.items())
    lines.append(f"Time: {summary.seconds:.3f} s ({timings})" if timings
                 else f"Time: {summary.seconds:.3f} s")
    return "\n".join(lines)


def _disjunctive_lines(summary: PolicySummary) -> list[str]:
    """The section on disjunctive landmarks ("either A or B happens on every run")."""
    found = summary.disjunctive
    if found is None or found.size == 0:
        return []
    from xaip.summaries.disjunctive import disjunctive_sentence

    head = (f"Disjunctive landmarks (at most {found.size} facts, none a landmark alone), "
            f"{found.count}:")
    return [head] + [f"  {disjunctive_sentence(d, summary.task.facts)}"
                     for d in found.landmarks] if found.landmarks else [head + " none"]


def _status_line(summary: PolicySummary) -> str:
    if summary.status == Status.UNSOLVABLE:
        verdict = ("verified: " if summary.verified else "NOT verified: ") \
            + (summary.check_details or "not checked")
        return f"Status: unsolvable; {verdict}"
    if not summary.status.finished:
        return f"Status: budget exhausted (during {summary.stopped_in}); not verified"
    if summary.verified:
        return "Status: found; verified independently on the policy's reachable states"
    if summary.check_details.startswith(CHECKER_BUDGET):
        return f"Status: found; {summary.check_details}"
    if summary.check_details:
        return f"Status: found; NOT verified: {summary.check_details}"
    return "Status: found; not checked"


@renderer(DrillDown, "text")
def drill_text(drill: DrillDown) -> str:
    """The legs of a drill-down with their landmarks."""
    task = drill.task
    facts = task.facts
    source = "the start" if drill.source is None else str(facts[drill.source])
    target = "the goal" if drill.target is None else str(facts[drill.target])
    count = len(drill.legs) + drill.omitted
    lines = [f"Drill-down from {source} to {target}: {count} completion(s) of the source"
             + (f", first {len(drill.legs)} examined" if drill.omitted else "")]
    if not drill.status.finished:
        lines.append("  budget exhausted: the legs below are finished, nothing is claimed "
                     "about the others")
    else:
        common = ", ".join(str(facts[f]) for f in drill.common) or "none"
        lines.append(f"  landmarks on every leg: {common}")
    for i, leg in enumerate(drill.legs, 1):
        subgoals = ", ".join(str(facts[f]) for f in leg.complete.subgoals) or "none"
        reach = "" if leg.reaches_target else " (never reaches the target)"
        lines.append(f"  leg {i} from [{' '.join(task.state_key(leg.start))}]: "
                     f"{leg.reachable_states} states{reach}; landmarks: {subgoals}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- drawings


def landmark_graph(
    landmarks: LandmarkSet,
    facts: Sequence[Atom],
    model: LandmarkSet | None = None,
    title: str = "policy landmarks",
) -> Graph:
    """The non-initial landmarks of ``landmarks`` and their (reduced) orderings."""
    shown = [f for f in landmarks.facts if f not in landmarks.initial]
    visible = set(shown)
    model_facts = set(model.facts) if model is not None else set()
    kind = {(o.before, o.after): o.kind for o in landmarks.orderings
            if o.before in visible and o.after in visible}
    graph = Graph(title=title)
    for f in shown:
        if f in landmarks.goal:
            graph.node(f"F{f}", str(facts[f]), fillcolor="palegreen", peripheries="2")
        elif f in model_facts:
            graph.node(f"F{f}", str(facts[f]), fillcolor="white")
        else:
            graph.node(f"F{f}", str(facts[f]), fillcolor="lightblue")
    edges = sorted(transitive_reduction(shown, set(kind)))
    for a, b in edges:
        graph.edge(f"F{a}", f"F{b}", **_EDGE_STYLE[kind[(a, b)]])
    _keys(graph, shown, landmarks, model_facts, {kind[e] for e in edges})
    return graph


def _keys(graph: Graph, shown: Sequence[int], landmarks: LandmarkSet, model: set[int],
          kinds: set[str]) -> None:
    """A legend with the node colours and edge styles this drawing uses, in words."""
    goal = [f for f in shown if f in landmarks.goal]
    rest = [f for f in shown if f not in landmarks.goal]
    if goal:
        graph.key("a goal", edge=False, fillcolor="palegreen", peripheries="2")
    if any(f in model for f in rest):
        graph.key("a landmark of the model too", edge=False, fillcolor="white")
    if any(f not in model for f in rest):
        graph.key("a landmark of this policy only", edge=False, fillcolor="lightblue")
    meaning = {"greedy-necessary": "holds right before the next first becomes true",
               "natural": "becomes true before the next on every run"}
    for kind, style in _EDGE_STYLE.items():
        if kind in kinds:
            graph.key(meaning[kind], edge=True, **style)


@renderer(PolicySummary, "dot")
def summary_dot(summary: PolicySummary) -> str:
    """DOT of the landmark graph the summary is built from (empty graph if unfinished)."""
    chosen = summary.policy_landmarks
    title = f"policy landmarks {summary.task.name}"
    if chosen is None:
        return Graph(title=title).to_dot()
    return landmark_graph(chosen, summary.task.facts, summary.model, title).to_dot()


__all__ = ["drill_text", "landmark_graph", "narrate", "narration", "summary_dot",
           "summary_text"]
