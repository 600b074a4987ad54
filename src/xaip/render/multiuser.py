"""English for :class:`xaip.multiuser.MultiUserResult`: the plan, then what each user is
told (or why they cannot be told enough), then the group's shared explanation.

Steps are numbered from 1; features are said as sentences that keep every argument.
"""

from __future__ import annotations

from xaip.multiuser.results import (
    UNAVAILABLE,
    MultiUserResult,
    SharedExplanation,
    UserExplanation,
)
from xaip.planning.features.sentences import sentence
from xaip.planning.semantics import EMPTY_PLAN_NOTE
from xaip.render import check_line, renderer


def _said(edit: object) -> str:
    inner = getattr(edit, "edit", edit)
    return sentence(inner.feature, negated=inner.op == "remove")  # type: ignore[attr-defined]


def _items(edits: tuple[object, ...]) -> list[str]:
    return [f"    - {_said(e)}" for e in edits]


def _user(answer: UserExplanation) -> list[str]:
    head = f"  {answer.user}"
    tail = (f" ({answer.differences} difference{'s' if answer.differences != 1 else ''} "
            f"from the robot's model, {answer.withheld} withheld by the privacy map)")
    status = str(answer.status)
    if status == "budget_exhausted":
        return [f"{head}: the budget ran out before an explanation was found{tail}."]
    if status == "found":
        if not answer.edits:
            return [f"{head}: nothing to explain: the plan is already optimal in their "
                    f"model{tail}."]
        count = len(answer.edits)
        return [f"{head} needs {count} fact{'s' if count != 1 else ''}{tail}:",
                *_items(answer.edits)]
    lines = [f"{head} cannot be given an explanation{tail}: no set of facts they may hear "
             "makes the plan optimal for them. It would need:"]
    lines += [f"    - {_said(e)}  [{why}]" for e, why in answer.needed]
    return lines


def _shared(shared: SharedExplanation) -> list[str]:
    if shared.status == UNAVAILABLE:
        return [f"No shared explanation: {shared.reason}."]
    if shared.status == "budget_exhausted":
        return ["Shared explanation: the budget ran out before it was found."]
    if shared.status == "no_explanation":
        if not shared.needed:
            return [f"No shared explanation: {shared.reason}."]
        lines = ["No shared explanation that every user may hear: a conformant explanation "
                 "would need:"]
        lines += [f"  - {e.text}  [{why}]" for e, why in shared.needed]
        return lines
    if not shared.edits:
        return ["Shared explanation: none needed; the plan is optimal in every user's model."]
    lines = [f"Shared explanation for the whole group (conformant over "
             f"{shared.completions} completion{'s' if shared.completions != 1 else ''} of "
             "the merged model):"]
    lines += [f"  - {e.text}  ({e.label})" for e in shared.edits]
    for user, news in shared.for_user.items():
        lines.append(f"  {user} hears {len(news)} of them"
                     + (": " + "; ".join(_said(e) for e in news) if news else "."))
    return lines


@renderer(MultiUserResult, "text")
def multiuser_text(result: MultiUserResult) -> str:
    lines = [f"The robot's plan (cost {result.plan_cost}):"]
    lines += [f"  {n}. ({step})" for n, step in enumerate(result.plan, 1)] or [
        f"  (no steps: {EMPTY_PLAN_NOTE})"]
    if result.merged is None:  # stopped before the robot's plan was established
        lines = ["The budget ran out before the robot's plan was checked."]
    else:
        lines.append("Explanations per user:")
        for answer in result.users:
            lines += _user(answer)
        if result.shared is not None:
            lines += _shared(result.shared)
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)
