"""English for model-free explanations (:mod:`xaip.modelfree`).

Why the labeller's accuracy is always printed: the answer is only as good as the learned
stand-in for the person, and "verified" here means the claims hold *for that labeller*.
"""

from __future__ import annotations

from xaip.modelfree.results import ModelFreeExplanation
from xaip.planning.semantics import step_number
from xaip.render import check_line, renderer
from xaip.runtime import Status


def _share(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.1%}"


def _cost(x: float) -> str:
    return f"{x:g}"


def _messages(n: int) -> str:
    return f"{n} message{'' if n == 1 else 's'}"


@renderer(ModelFreeExplanation, "text")
def modelfree_text(result: ModelFreeExplanation) -> str:
    lines: list[str] = []
    total = len(result.messages)
    examined = result.stats.get("message_sets", 0)
    if result.status == Status.BUDGET_EXHAUSTED:
        lines.append(f"Model-free explanation: budget exhausted after {examined} of "
                     f"{2 ** total:,} message sets; raise --max-nodes/--max-seconds.")
    elif result.status == Status.NO_EXPLANATION:
        how = (f"none of the {2 ** total:,} message sets" if result.exhaustive else
               "the greedy pass found no message set (not proven that none exists)")
        lines.append(f"Model-free explanation: no messages make every step look explicable "
                     f"to the learned labeller: {how}.")
    elif not result.chosen:
        lines.append("Model-free explanation: nothing to say -- the learned labeller already "
                     "labels every step explicable.")
    else:
        if result.cheapest:
            how = f"the cheapest set (exact: {examined:,} of {2 ** total:,} sets examined)"
        else:
            how = (f"greedy, not proven cheapest: every set costing less than "
                   f"{_cost(result.lower_bound or 0.0)} fails, so the cheapest costs "
                   f"{_cost(result.lower_bound or 0.0)} to {_cost(result.cost or 0.0)}")
        lines.append(f"Model-free explanation: tell {_messages(len(result.chosen))} "
                     f"(cost {_cost(result.cost or 0.0)}), {how}:")
        lines += [f"  - {m.text}  [{m.id}, cost {_cost(m.cost)}]" for m in result.chosen]
    if result.before:
        lines.append(f"Steps as the learned labeller sees them (P(explicable), threshold "
                     f"{result.threshold:g}; before -> after the messages):")
        for i, name in enumerate(result.plan):
            after = f" -> {result.after[i]:.2f}" if result.after else ""
            mark = "" if not result.after else \
                "  explicable" if result.after[i] >= result.threshold else "  inexplicable"
            lines.append(f"  {step_number(i)}. ({name})  {result.before[i]:.2f}{after}{mark}")
    a = result.accuracy
    lines.append(f"Labeller: logistic regression trained on {a.trained_on} labelled plans; on "
                 f"{a.plans} held-out plans ({a.steps} steps) it labels "
                 f"{_share(a.step_accuracy)} of steps right (always answering the commoner "
                 f"label: {_share(a.baseline)}) and gets the whole-plan verdict right for "
                 f"{_share(a.verdict_accuracy)}.")
    lines.append(check_line(result.verified, result.check, result.status)
                 + (" (The checker uses the same learned labeller.)"
                    if result.status.finished else ""))
    return "\n".join(lines)
