"""English and PDDL for the results of model reconciliation (:mod:`xaip.reconcile`).

Why here: results are plain data; how a person reads them (and what an unfinished or
unverified answer may claim) is decided once, in these renderers. A budgeted answer never
reads as more than it established: "budget exhausted" is always said, and "verified"
appears only when the independent checker confirmed a finished answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from xaip.errors import InputError
from xaip.reconcile.results import (
    AnytimeExplanation,
    ConditionalExplanation,
    ConformantExplanation,
    Dialogue,
    Done,
    Explanation,
    PolicyNode,
    Tell,
    edit_text,
)
from xaip.render import check_line, renderer
from xaip.runtime import Status


def _steps(plan: tuple[str, ...]) -> str:
    return " ".join(f"({s})" for s in plan)


#: Effort counters in words, singular and plural (the JSON keeps the keys).
_EFFORT_WORDS = {"nodes": ("search node", "search nodes"),
                 "planner_calls": ("planner call", "planner calls"),
                 "cache_hits": ("answer reused from the cache", "answers reused from the cache")}


def _effort(stats: Mapping[str, int | float], seconds: float) -> str:
    parts = [f"{value} {_EFFORT_WORDS[name][value != 1]}" if name in _EFFORT_WORDS
             else f"{name.replace('_', ' ')}: {value}"
             for name, value in stats.items() if not name.endswith("seconds")]
    check = stats.get("check_seconds")
    timing = f"{seconds:.3f} s" + (f" (the check {check:.3f} s)" if check is not None else "")
    return ", ".join([*parts, timing])


@renderer(Explanation, "text")
def explanation_text(result: Explanation) -> str:
    lines = [f"Plan (cost {result.plan_cost}): {_steps(result.plan)}"]
    if result.human_plan_cost_before is None:
        lines.append("In the human's model the plan is not even executable.")
    elif result.human_optimal_cost_before is not None and \
            result.human_optimal_cost_before < result.human_plan_cost_before:
        lines.append(f"In the human's model a plan of cost {result.human_optimal_cost_before} "
                     "looks better.")
    if result.expected_plan:
        lines.append(f"  The plan the human expects (cost {result.expected_plan_cost}): "
                     f"{_steps(result.expected_plan)}")
    if result.status == Status.BUDGET_EXHAUSTED:
        found = ("The edits below are the best found so far, not a proven (minimal) "
                 "explanation" if result.edits else "No explanation was found")
        lines.append(f"Budget exhausted: the search stopped early. {found}; raise "
                     "--max-nodes/--max-seconds.")
    if not result.edits:
        if result.status.finished:
            lines.append(_nothing_to_explain(result))
    else:
        lines.append(f"{_TYPE_NAMES.get(result.type, 'Explanation')} (--type {result.type}): "
                     f"{result.size} of the {result.difference_size} differences between the "
                     "two models:")
        lines.extend(f"  - {text}" for text in result.sentences())
        if result.expected_plan_after and result.status.finished:
            lines.append(f"With these, the plan the human expected "
                         f"{result.expected_plan_after}.")
    # "complete" (the JSON's word): the plan is optimal in the human's updated model
    if result.complete is None:
        complete = ("Whether the plan is then optimal for the human: unknown (the budget ran "
                    "out before it was established).")
    elif result.type in ("contrastive", "approx", "ppe"):
        # these types do not claim completeness: say what it is, and that it is not claimed
        complete = (f"Afterwards the plan is optimal for the human: "
                    f"{'yes' if result.complete else 'no'} ({_NOT_CLAIMED[result.type]} "
                    "does not claim it).")
    elif result.complete:
        complete = "With these, the plan is optimal in the human's model too."
    else:
        complete = "Even with these, the plan is not optimal in the human's model."
    lines.append(complete)
    lines.append(f"Effort: {_effort(result.stats, result.seconds)}.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


#: Each explanation type's name in words (``--type`` and the JSON keep the abbreviation).
_TYPE_NAMES = {"mce": "Minimally complete explanation",
               "mme": "Minimally monotonic explanation", "ppe": "Plan patch explanation",
               "mpe": "Model patch explanation",
               "approx": "Approximate minimally complete explanation",
               "contrastive": "Contrastive explanation"}

_NOT_CLAIMED = {"contrastive": "a contrastive explanation",
                "approx": "an approximate minimally complete explanation",
                "ppe": "a plan patch"}


def _nothing_to_explain(result: Explanation) -> str:
    """No edits: say exactly what holds, never more (a contrastive answer with no edits
    only says the foils are no cheaper; the person may still expect a cheaper plan)."""
    if result.type == "contrastive":
        foils = "; ".join(f.text for f in result.foils)
        line = (f"Nothing to explain against the foil: in the human's model, {foils} is no "
                "cheaper than the robot's plan.")
        if result.complete is False:
            line += (" (A different plan still looks cheaper to her: ask for a minimally "
                     "complete explanation, --type mce, to explain that.)")
        return line
    if result.complete:
        return "Nothing to explain: the plan is already optimal for the human."
    return f"The {_TYPE_NAMES.get(result.type, result.type).lower()} has no edits."


@renderer(Explanation, "pddl")
def explanation_pddl(result: Explanation) -> str:
    if result.updated_domain is None:
        raise InputError("grounded explanations have no lifted PDDL domain")
    return result.updated_domain


@renderer(ConformantExplanation, "text")
def conformant_text(result: ConformantExplanation) -> str:
    if not result.status.finished:
        return ("Conformant explanation: budget exhausted before one was found "
                f"({_effort(result.stats, result.seconds)}); raise --max-nodes/--max-seconds.")

    def value(x: float | None) -> str:  # robustness: the probability mass, as a share
        return "?" if x is None else f"{x:.3g}" if 0 < x < 0.001 else f"{x:.1%}"

    def share(x: float | None, estimate: Any) -> str:  # a sampled value is never exact
        if x is not None or estimate is None or estimate.exact or estimate.value is None:
            return value(x)
        return f"about {value(estimate.value)}"

    before, after = result.robustness_before_estimate, result.robustness_estimate
    lines = [f"Conformant explanation ({_count(result.size, 'edit')}): the plan was optimal "
             f"in {share(result.robustness_before, before)} of the models the person may "
             f"have in mind, and is in {share(result.robustness, after)} afterwards "
             f"({'verified' if result.verified else 'NOT verified'}):"]
    lines += [_labelled(e.label, e.text) for e in result.edits]
    for name, estimate in (("before", before), ("afterwards", after)):
        if estimate is not None and not estimate.exact and estimate.value is not None:
            lines.append(f"  (robustness {name}: a sampled estimate, not exact: "
                         f"{value(estimate.low)} to {value(estimate.high)} with "
                         f"{estimate.confidence:.0%} confidence (Hoeffding), from "
                         f"{_count(estimate.samples, 'sampled completion')} of "
                         f"{estimate.completions:,})")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


#: The book's edit labels in words: what the person believed before the edit (the JSON
#: keeps the labels).
_LABEL_WORDS = {"add-known": "new to you", "remove-known": "you were sure of the opposite",
                "add-annot": "you were unsure", "remove-annot": "you were unsure"}


def _labelled(label: str, text: str) -> str:
    return f"  - {text}  ({_LABEL_WORDS.get(label, label)})"


def _count(number: int, word: str) -> str:
    return f"{number} {word}{'' if number == 1 else 's'}"


def policy_lines(node: PolicyNode, indent: str = "") -> list[str]:
    """A conditional explanation's policy as an indented dialogue script."""
    if isinstance(node, Done):
        return [f"{indent}done"]
    if isinstance(node, Tell):
        return [f"{indent}tell: {node.edit.text}", *policy_lines(node.then, indent)]
    return [f"{indent}ask: do you think that {node.question.text[0].lower()}"
            f"{node.question.text[1:].rstrip('.')}?",
            f"{indent}  if yes:", *policy_lines(node.yes, indent + "    "),
            f"{indent}  if no:", *policy_lines(node.no, indent + "    ")]


@renderer(ConditionalExplanation, "text")
def conditional_text(result: ConditionalExplanation) -> str:
    if result.policy is None or result.expected_statements is None:
        return ("Conditional explanation: budget exhausted before a policy was found "
                f"({_effort(result.stats, result.seconds)}); raise --max-nodes/--max-seconds.")
    return "\n".join([f"Conditional explanation (a dialogue: {result.expected_statements:.3g} "
                      "statements expected on average, "
                      f"{'verified' if result.verified else 'NOT verified'}):",
                      *policy_lines(result.policy, "  "),
                      check_line(result.verified, result.check, result.status)])


@renderer(AnytimeExplanation, "text")
def anytime_text(result: AnytimeExplanation) -> str:
    if not result.status.finished:
        return ("Anytime explanation: budget exhausted before one was found "
                f"({len(result.questions)} question(s) asked); raise "
                "--max-nodes/--max-seconds.")
    return "\n".join(["Anytime explanation:",
                      *(_labelled(e.label, e.text) for e in result.edits),
                      check_line(result.verified, result.check, result.status)])


@renderer(Dialogue, "text")
def dialogue_text(result: Dialogue) -> str:
    parts = []
    for number, round_ in enumerate(result.rounds, start=1):
        parts.append(f"Round {number}:\n{explanation_text(round_.explanation)}")
        if round_.vetoed is not None:
            parts.append(f"The person vetoes: {edit_text(round_.vetoed)}. The robot "
                         "corrects its model and replans.")
    if result.status == Status.UNSOLVABLE:
        parts.append(f"No plan: {result.stopped}. The explanations above are what was "
                     "accepted so far.")
        parts.append(check_line(result.verified, None, result.status))
    elif result.stopped:
        parts.append(f"The dialogue stopped: {result.stopped}.")
    return "\n\n".join(parts)


@renderer(Dialogue, "pddl")
def dialogue_pddl(result: Dialogue) -> str:
    return explanation_pddl(result.current)
