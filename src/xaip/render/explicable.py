"""English for the results of :mod:`xaip.explicable` (distances, explicable plans, designs).

Why here: results are plain data; what an unfinished or unverified answer may claim is
decided once, in these renderers ("budget exhausted" is always said; "verified" only when
the independent checker confirmed a finished answer).
"""

from __future__ import annotations

from xaip.contract import CheckReport
from xaip.explicable.results import DesignResult, ExplicablePlan, PlanDistances
from xaip.render import renderer
from xaip.runtime import Status


def _check_line(verified: bool, report: CheckReport | None, status: Status) -> str:
    if not status.finished:
        return "Not verified: the budget ran out before the answer was finished."
    if verified:
        return "Verified independently" + (f": {report.details}." if report else ".")
    if report is None:
        return "NOT verified (no check ran)."
    if report.ok is None:
        return f"NOT verified: the check could not decide ({report.details})."
    return f"NOT verified: the independent check disagrees ({report.details})."


def _steps(plan: tuple[str, ...]) -> str:
    return " ".join(f"({s})" for s in plan) or "(empty plan)"


def _number(value: float | None) -> str:
    return "infinite" if value is None else f"{value:g}"


@renderer(PlanDistances, "text")
def distances_text(result: PlanDistances) -> str:
    w = result.weights
    return "\n".join([
        f"Plan A: {_steps(result.plan_a)}",
        f"Plan B: {_steps(result.plan_b)}",
        f"action distance     {result.action:.4f}",
        f"causal-link distance {result.causal:.4f}",
        f"state distance      {result.state:.4f}",
        f"composite distance  {result.composite:.4f} (weights action {w['action']:g}, "
        f"causal {w['causal']:g}, state {w['state']:g})",
    ])


@renderer(ExplicablePlan, "text")
def explicable_text(result: ExplicablePlan) -> str:
    if result.status == Status.BUDGET_EXHAUSTED and not result.plan:
        return ("Budget exhausted before any plan was scored; raise "
                "--max-nodes/--max-seconds.")
    if not result.plan:
        bound = "" if result.max_cost is None else f" of cost <= {result.max_cost}"
        return f"The robot has no plan{bound}."
    lines = []
    if result.status == Status.BUDGET_EXHAUSTED:
        lines.append("Budget exhausted: the best plan among those scored so far.")
    lines.append(f"Most explicable plan (robot cost {result.robot_cost}): "
                 f"{_steps(result.plan)}")
    if result.human_cost is None:
        lines.append("The person's model cannot execute it.")
    else:
        lines.append(f"It costs {result.human_cost} in the person's model.")
    lines.append(f"Inexplicability ({result.distance} distance): "
                 f"{_number(result.inexplicability)}; explicability {result.score:.4f}.")
    if result.nearest_expected is not None:
        lines.append(f"Nearest expected plan: {_steps(result.nearest_expected)}")
    lines.append(f"{result.candidates} candidate plan(s), {result.expected_count} expected "
                 f"plan(s), method {result.method}, {result.seconds:.3f} s.")
    lines.append(_check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(DesignResult, "text")
def design_text(result: DesignResult) -> str:
    if result.objective is None:
        return ("Budget exhausted before any design was evaluated; raise "
                "--max-nodes/--max-seconds.")
    lines = []
    if result.status == Status.BUDGET_EXHAUSTED:
        lines.append("Budget exhausted: the best design among those evaluated so far.")
    chosen = ", ".join(result.design) if result.design else "no change"
    lines.append(f"Design: {chosen} (design cost {result.design_cost:g}).")
    lines.append(f"Objective {result.objective:g} against {_number(result.baseline_objective)}"
                 f" without design (horizon {result.horizon}).")
    for task in result.tasks:
        lines.append(f"  {task.name} (p={task.probability:g}): robot cost "
                     f"{_number(task.robot_cost)}, inexplicability "
                     f"{_number(task.inexplicability)}: {_steps(task.plan)}")
    lines.append(f"{result.configurations} configuration(s) evaluated"
                 f"{' with relevance pruning' if result.pruned else ''}, "
                 f"{result.seconds:.3f} s.")
    lines.append(_check_line(result.verified, result.check, result.status))
    return "\n".join(lines)
