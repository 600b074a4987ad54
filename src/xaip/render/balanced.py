"""English for :class:`xaip.balanced.BalancedResult`: the plan, what to tell the person,
and what the trade-off cost.

Why here: results are plain data; what an unfinished or unverified answer may claim is
decided once, in this renderer ("budget exhausted" is always said; "verified" only when
the independent checker confirmed a finished answer).
"""

from __future__ import annotations

import math

from xaip.balanced.legibility import LegibilityResult
from xaip.balanced.objectives import Objective, edit_sentence
from xaip.balanced.results import BalancedResult
from xaip.render import check_line, renderer
from xaip.runtime import Status

_WHAT = {
    Objective.BALANCED: "the optimal balanced plan",
    Objective.EXPLICABLE: "the perfectly explicable plan",
    Objective.EXPLICABLE_OPTIMAL: "the perfectly explicable optimal plan",
}

_APPROXIMATE = {
    Objective.BALANCED: "a balanced plan",
    Objective.EXPLICABLE: "a perfectly explicable plan",
    Objective.EXPLICABLE_OPTIMAL: "a perfectly explicable optimal plan",
}


def _number(value: float) -> str:
    return "infinite" if math.isinf(value) else f"{round(value, 4):g}"


@renderer(BalancedResult, "text")
def balanced_text(result: BalancedResult) -> str:
    mode = "exact" if result.exact else "approximate"
    head = (f"Balanced planning (objective {result.objective}, method {result.method}, "
            f"{mode})")
    if result.status == Status.BUDGET_EXHAUSTED and not result.has_plan:
        return "\n".join([f"{head}: the budget ran out before any plan was found.",
                          check_line(result.verified, result.check, result.status)])
    if result.status == Status.NO_EXPLANATION:
        return "\n".join([f"{head}: the approximate search found no pair (its "
                          "relevance-restricted edit sets ran out); try --exact.",
                          check_line(result.verified, result.check, result.status)])
    if not result.has_plan:
        return "\n".join([f"{head}: no plan satisfies the objective "
                          "(the robot's model has no plan).",
                          check_line(result.verified, result.check, result.status)])
    lines = [f"{head}: {_WHAT[result.objective]} found."]
    if not result.exact:  # the approximate search claims no optimality
        lines[0] = f"{head}: {_APPROXIMATE[result.objective]} (not proved optimal)."
    if result.status == Status.BUDGET_EXHAUSTED:
        lines[0] = f"{head}: the best pair found before the budget ran out (not optimal)."
    steps = " ".join(f"({s})" for s in result.plan) or "the empty plan (the goal holds " \
        "initially)"
    lines.append(f"Plan ({result.plan_cost} for the robot): {steps}")
    if result.explanation:
        lines.append("Tell the person:")
        costs = result.item_costs or (math.nan,) * len(result.explanation)
        for edit, cost in zip(result.explanation, costs, strict=True):
            price = "" if math.isnan(cost) else f"  (cost {_number(cost)})"
            lines.append(f"  - {edit_sentence(edit)}{price}")
    else:
        lines.append("Tell the person: nothing.")
    if result.learned:  # B05: what watching the plan taught her (free)
        lines.append("Shown, not told (she learns it by watching, free):")
        lines.extend(f"  - {edit_sentence(edit)}" for edit in result.learned)
    if result.human_cost is None:
        seen = "the person's updated model cannot execute it"
    elif result.explicable:
        seen = (f"it is optimal in the person's updated model (cost {result.human_cost})")
    else:
        seen = (f"it costs {result.human_cost} in the person's updated model, whose "
                f"optimum is {result.human_optimum}")
    lines.append(f"For the person: {seen}; penalty {_number(result.penalty)}.")
    w = result.weights
    lines.append(f"Total {_number(result.total)} = {w.alpha:g} x plan cost "
                 f"{result.plan_cost} + {w.beta:g} x explanation cost "
                 f"{_number(result.explanation_cost)} + {w.gamma:g} x penalty "
                 f"{_number(result.penalty)}.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(LegibilityResult, "text")
def legibility_text(result: LegibilityResult) -> str:
    head = f"Balanced {result.mode} (observer sees {result.k} step(s))"
    if result.plan_cost is None:
        reason = "the budget ran out" if result.status == Status.BUDGET_EXHAUSTED \
            else "the task has no plan"
        return "\n".join([f"{head}: no plan ({reason}).",
                          check_line(result.verified, result.check, result.status)])
    what = "P(true goal | prefix)" if result.mode == "legibility" else "P(plan | prefix)"
    said = "; ".join(result.said) if result.said else "nothing"
    return "\n".join([
        f"{head}: plan ({result.plan_cost}): " + (" ".join(f"({s})" for s in result.plan)
                                                   or "the empty plan (the goal holds "
                                                   "initially)"),
        f"Say: {said} (cost {_number(result.communication_cost)}).",
        f"{what} = {round(result.probability, 4):g}; total {_number(result.total)}.",
        check_line(result.verified, result.check, result.status)])

