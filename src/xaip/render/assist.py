"""English for :class:`xaip.assist.AssistResult`: the completion, the suggested next step
and why, or where the person's plan breaks and how to repair it.

Steps are numbered from 1 as the person reads them; facts print as PDDL atoms.
"""

from __future__ import annotations

from xaip.assist.results import AssistResult
from xaip.render import check_line, renderer


def _steps(plan: tuple[str, ...], first: int = 1) -> list[str]:
    return [f"  {number}. {step}" for number, step in enumerate(plan, first)]


def _cost(result: AssistResult, value: int | None) -> str:
    if result.counts_costs:
        return f"cost {value}"
    return f"{value} step" if value == 1 else f"{value} steps"


def _failure(result: AssistResult) -> list[str]:
    failure = result.failure
    if failure is None:
        return []
    if failure.kind == "goal":
        return ["Every step applies, but the plan ends with goal facts still false: "
                + ", ".join(failure.unmet) + "."]
    return [f"Step {failure.step} {failure.action} cannot be done: it needs "
            + ", ".join(failure.unmet) + ", which do(es) not hold then."]


def _completion(result: AssistResult, what: str) -> list[str]:
    if result.completion is None:
        if result.vetoes:
            return [f"No {what} exists that avoids the vetoed actions "
                    f"({', '.join(result.vetoes)})."]
        return [f"No {what} exists: the goal cannot be reached from there."]
    lines = [f"The cheapest {what} ({_cost(result, result.completion_cost)}):"]
    lines += _steps(result.completion, result.kept + 1) or [
        "  (no steps: the goal already holds)"]
    lines.append(f"The whole plan costs {result.total_cost}.")
    if result.robot_cost is not None:
        gap = result.cost_gap
        lines.append(f"The robot's own optimal plan costs {result.robot_cost}; "
                     + ("yours is as cheap." if gap == 0 else f"yours costs {gap} more."))
    return lines


@renderer(AssistResult, "text")
def assist_text(result: AssistResult) -> str:
    lines: list[str] = []
    if result.vetoes:
        lines.append("Vetoed: " + ", ".join(result.vetoes) + ".")
    if str(result.status) == "budget_exhausted":
        lines.append("The budget ran out before an answer was found (raise --max-seconds).")
    elif result.mode == "check":
        if str(result.status) == "valid":
            lines.append(f"Your plan is valid and reaches the goal "
                         f"({_cost(result, result.prefix_cost)}).")
            if result.robot_cost is not None:
                lines.append(f"The robot's own optimal plan costs {result.robot_cost}.")
        else:
            lines += _failure(result)
            kept = "step 1" if result.kept == 1 else f"steps 1-{result.kept}"
            lines.append(f"Repair: keep {kept}, then" if result.kept else
                         "Repair: from the initial state,")
            lines += _completion(result, "repair")
    elif result.failure is not None:
        lines += _failure(result)
        lines.append("Fix the prefix first; nothing after it can be planned.")
    elif result.mode == "suggest":
        lines += _suggestion(result)
    else:
        lines += _completion(result, "completion of your plan")
    lines += _human(result)
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


def _human(result: AssistResult) -> list[str]:
    """What the person's model adds (humans as actors, :mod:`xaip.assist.human`)."""
    answer = result.human
    if answer is None or not result.status.finished:
        return []
    if answer.kind == "explicable":
        lines = []
        if answer.expected_plan is not None:
            lines.append("In your model you would do: "
                         + " ".join(f"({s})" for s in answer.expected_plan) + ".")
        if answer.inexplicability is None:
            lines.append("No completion within the slack is a plan of your model too; "
                         "this is the cheapest.")
        else:
            lines.append(f"This completion is the closest to it among those costing at most "
                         f"{(answer.cheapest_cost or 0) + answer.slack} (the cheapest costs "
                         f"{answer.cheapest_cost}, slack {answer.slack}): {answer.distance} "
                         f"distance {answer.inexplicability:g}.")
        return lines
    lines = []
    if answer.valid_for_her is False:
        lines.append(f"Your plan fails in your own model too: {answer.her_reason}.")
    explanation = answer.explanation
    if explanation is None:
        return lines
    from xaip.reconcile.results import edit_text

    edits = explanation.edits
    if not edits:
        lines.append("Nothing about the true model needs telling: in your own model your plan "
                     "is already no better than the robot's.")
        return lines
    one = len(edits) == 1
    lines.append(f"What your model of the task is missing ({len(edits)} "
                 f"{'fact' if one else 'facts'}, the fewest after which the robot's plan works "
                 "for you and yours is no cheaper):")
    lines += [f"  - {edit_text(edit)}" for edit in edits]
    return lines


def _suggestion(result: AssistResult) -> list[str]:
    if result.completion is None:
        return _completion(result, "completion")
    if not result.completion:
        return ["The goal already holds: nothing more to do."]
    lines = [f"Next: {result.suggestion}."]
    if result.human is not None and result.human.kind == "explicable":
        lines.append(f"The suggested completion ({_cost(result, result.completion_cost)}):")
        return lines + _steps(result.completion, result.kept + 1)
    goals, landmarks = result.achieves_goals, result.achieves_landmarks
    if goals:
        lines.append(f"It makes the goal {'fact' if len(goals) == 1 else 'facts'} "
                     + ", ".join(goals) + " true.")
    if landmarks:
        one = len(landmarks) == 1
        lines.append(f"It achieves the {'landmark' if one else 'landmarks'} "
                     + ", ".join(landmarks) + f" (every completion must make "
                     f"{'it' if one else 'them'} true).")
    lines.append(f"With it the cheapest completion costs {result.cost_with}; "
                 + ("without it there is no completion at all." if result.cost_without is None
                    else f"without it, {result.cost_without}."))
    return lines
