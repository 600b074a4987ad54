"""Renderers for the planning core's results: plans, validations, landmark graphs, diffs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from xaip.planning.plans import ValidationResult, format_plan
from xaip.planning.search.result import COSTS_IGNORED_NOTE, PlanResult
from xaip.planning.semantics import EMPTY_PLAN_NOTE
from xaip.render import renderer
from xaip.runtime.status import Status

if TYPE_CHECKING:  # registered by name: `xaip plan` loads neither (start-up, issue 26)
    from xaip.planning.features.diff import ModelDiff
    from xaip.planning.landmarks.graph import LandmarkGraph
    from xaip.render.dot import Graph

_LANDMARK_GRAPH = "xaip.planning.landmarks.graph.LandmarkGraph"
_MODEL_DIFF = "xaip.planning.features.diff.ModelDiff"


@renderer(PlanResult, "pddl")
def plan_file(result: PlanResult) -> str:
    """The plan in plan-file format (what ``xaip validate`` and VAL read)."""
    return format_plan(result.plan, result.cost, unit_cost=not result.has_costs)


@renderer(PlanResult, "text")
def plan_text(result: PlanResult) -> str:
    if result.solved:
        kind = "optimal" if result.optimal else "not proven optimal"
        text = plan_file(result).rstrip()
        text += (f"\n; {len(result.plan)} steps, {kind}, {result.expanded} expanded, "
                 f"{result.seconds:.3f} s ({result.engine})")
        if result.goal_holds_initially:
            text += f"\n; {EMPTY_PLAN_NOTE}"
    elif result.status == Status.UNSOLVABLE:
        text = (f"no plan exists (proved after {result.expanded} expansions, "
                f"{result.seconds:.3f} s)")
    else:
        text = (f"budget exhausted after {result.expanded} expansions and "
                f"{result.seconds:.3f} s without an answer")
    if result.costs_ignored:
        text += f"\n; note: {COSTS_IGNORED_NOTE}"
    return text


@renderer(ValidationResult, "text")
def validation_text(result: ValidationResult) -> str:
    """One line: valid with its cost, or the first failure ("step 3 (pick-up b1) ...",
    numbered from 1); then the notes a reader needs to read the cost."""
    if result.valid:
        text = f"valid plan: {result.steps} steps, cost {result.cost}"
    else:
        text = f"invalid plan: {result.reason}"
    return "\n".join([text, *(f"note: {note}" for note in result.notes)])


#: The ordering kinds in words, in the order the text lists them (A before B); the JSON
#: keeps the paper's names (``greedy-necessary``, ``natural``, ``reasonable``).
_ORDERING_WORDS = {
    "greedy-necessary": "necessary: A holds right before B first becomes true",
    "natural": "natural: A becomes true before B in every plan",
    "reasonable": "reasonable (a rule of thumb, not a proof): making B true before A "
                  "would only have to be undone",
}


@renderer(_LANDMARK_GRAPH, "text")
def landmarks_text(graph: LandmarkGraph) -> str:
    """The landmarks one a line, marked when a goal or true at the start, then the
    orderings grouped by kind, each kind said in words and each ordering as its facts."""
    payload = graph.to_dict()
    landmarks, orderings = payload["landmarks"], payload["orderings"]

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    def name(landmark: dict[str, Any]) -> str:
        joiner = " or " if landmark.get("disjunctive") else " and "
        return joiner.join(landmark["facts"])

    goals = sum(1 for lm in landmarks if lm.get("is_goal"))
    initial = sum(1 for lm in landmarks if lm.get("is_initial"))
    lines = [f"{plural(len(landmarks), 'landmark')}: facts every plan makes true at some point"
             f" ({goals} of them {'a goal' if goals == 1 else 'goals'}, {initial} true at "
             "the start); "
             f"{plural(len(orderings), 'ordering')} between them."]
    if not graph.solvable:
        lines.append("the goal is unreachable even ignoring deletes: the task has no plan")
    elif graph.task is not None and graph.task.is_goal(graph.task.init):
        lines.append("the goal holds in the initial state: the empty plan is a plan, so only "
                     "facts true initially are landmarks")
    if not graph.complete:
        lines.append("budget exhausted: the landmarks shown are sound, others may be missing")
    for landmark in landmarks:
        marks = [m for m, on in (("a goal", landmark.get("is_goal")),
                                 ("true at the start", landmark.get("is_initial")),
                                 ("only a side effect", not landmark.get("causal", True)))
                 if on]
        lines.append(f"  {name(landmark)}" + (f"  ({', '.join(marks)})" if marks else ""))
    for kind, words in _ORDERING_WORDS.items():
        chosen = [o for o in orderings if o["kind"] == kind]
        if chosen:
            lines.append(f"{plural(len(chosen), 'ordering')} A before B, {words}:")
            lines += [f"  {name(landmarks[o['before']])} before {name(landmarks[o['after']])}"
                      for o in chosen]
    return "\n".join(lines)


_EDGE_STYLE: dict[str, dict[str, str]] = {
    "greedy-necessary": {"style": "solid", "penwidth": "2", "label": "gn"},
    "natural": {"style": "dashed", "label": "nat"},
    "reasonable": {"style": "dotted", "label": "r"},
}


@renderer(_LANDMARK_GRAPH, "dot")
def landmarks_dot(graph: LandmarkGraph) -> str:
    """Goals double-bordered, initial facts grey, disjunctions with "or", side-effect
    (non-causal) landmarks dashed; gn edges bold, natural dashed, reasonable dotted."""
    from xaip.render.dot import Graph

    task = graph.task
    if task is None:
        raise ValueError("this landmark graph was built without its task")
    drawing = Graph(title=f"landmarks {task.name}", rankdir="LR",
                    node_defaults={"shape": "box", "style": "rounded"})
    for i, landmark in enumerate(graph.landmarks):
        joiner = " or " if landmark.disjunctive else " and "
        styles = ["rounded"]
        attributes: dict[str, str] = {}
        if landmark.is_initial:
            styles.append("filled")
            attributes["fillcolor"] = "lightgrey"
        if not landmark.causal:
            styles.append("dashed")
        if landmark.is_goal:
            attributes["peripheries"] = "2"
        attributes["style"] = ",".join(styles)
        drawing.node(f"L{i}", joiner.join(landmark.names(task)), **attributes)
    for ordering in graph.orderings:
        drawing.edge(f"L{ordering.before}", f"L{ordering.after}",
                     **_EDGE_STYLE[ordering.kind])
    _landmark_keys(drawing, graph)
    return drawing.to_dot()


#: What each ordering kind means, for the legend (A -> B).
_EDGE_MEANING = {
    "greedy-necessary": "gn: A holds right before B first becomes true",
    "natural": "nat: A becomes true before B in every plan",
    "reasonable": "r: making B true before A would be undone (a heuristic)",
}


def _landmark_keys(drawing: Graph, graph: LandmarkGraph) -> None:
    """A legend with the node and edge styles this graph uses, in words."""
    marks = [(any(lm.is_goal for lm in graph.landmarks), "a goal",
              {"peripheries": "2"}),
             (any(lm.is_initial for lm in graph.landmarks), "true in the initial state",
              {"style": "rounded,filled", "fillcolor": "lightgrey"}),
             (any(not lm.causal for lm in graph.landmarks), "only a side effect",
              {"style": "rounded,dashed"})]
    for used, meaning, attributes in marks:
        if used:
            drawing.key(meaning, edge=False, **attributes)
    for kind in _EDGE_STYLE:
        if any(o.kind == kind for o in graph.orderings):
            drawing.key(_EDGE_MEANING[kind], edge=True, **_EDGE_STYLE[kind])


@renderer(_MODEL_DIFF, "text")
def diff_text(diff: ModelDiff) -> str:
    """The difference in English, one line per feature."""
    from xaip.planning.features.sentences import sentence

    name_a, name_b = diff.names
    if diff.is_empty:
        return f"{name_a} and {name_b} have the same features."
    lines = [f"{diff.size} feature difference(s) between {name_a} and {name_b}."]
    for title, features in ((f"Only in {name_a}:", diff.only_in_a),
                            (f"Only in {name_b}:", diff.only_in_b)):
        if features:
            lines.append(title)
            lines.extend(f"  {sentence(feature)}" for feature in features)
    if diff.value_changes:
        lines.append("Different values:")
        lines.extend(f"  {change}" for change in diff.value_changes)
    if diff.mismatches:
        lines.append("Vocabulary mismatches:")
        lines.extend(f"  {mismatch}" for mismatch in diff.mismatches)
    if diff.structural:
        lines.append("Other differences (not features):")
        lines.extend(f"  {difference}" for difference in diff.structural)
    return "\n".join(lines)
