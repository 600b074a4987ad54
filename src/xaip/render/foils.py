"""English for :class:`xaip.foils.FoilResult`: the plan that does what you asked, or why
none does.

Why plain words here and technical names in JSON: a person reads "these two requests cannot
both be met", a program reads ``minimal_conflicts``.
"""

from __future__ import annotations

from xaip.foils.results import FoilResult
from xaip.render import check_line, renderer


def _plan(plan: tuple[str, ...]) -> list[str]:
    return [f"  {number}. {step}" for number, step in enumerate(plan, 1)]


def _requests(result: FoilResult, indices: tuple[int, ...]) -> list[str]:
    return [f"  - [{i + 1}] {result.constraints[i].text}" for i in indices]


def _cost_word(result: FoilResult) -> str:
    if result.counts_costs:
        return f"cost {result.witness_cost}"
    return f"{result.witness_cost} steps"


@renderer(FoilResult, "text")
def foils_text(result: FoilResult) -> str:
    count = len(result.constraints)
    lines: list[str] = [f"Your foil asks for {count} thing{'' if count == 1 else 's'}:"]
    lines += _requests(result, tuple(range(len(result.constraints))))
    if result.task_solvable is False:
        lines.append("The task has no plan at all, so no plan can do what you asked.")
    elif result.realisable is True:
        assert result.witness is not None
        gap = result.cost_gap
        lines.append(f"A plan can do all of it. The cheapest such plan ({_cost_word(result)}):")
        lines += _plan(result.witness) or ["  (no steps: the goal already holds)"]
        if gap == 0:
            lines.append(f"It is as cheap as the robot's plan ({result.robot_cost}): the "
                         "robot could have done it your way at no extra cost.")
        else:
            lines.append(f"It costs {gap} more than the robot's optimal plan "
                         f"({result.robot_cost}); that is why the robot did not choose it.")
    elif result.realisable is False:
        lines.append("No plan can do all of it.")
        if result.conflicts:
            lines.append("These requests cannot be met together (dropping any one of a group "
                         "makes the rest possible):")
            for number, conflict in enumerate(result.conflicts, 1):
                lines.append(f" conflict {number}:")
                lines += _requests(result, conflict)
        if result.maximal:
            lines.append("The largest sets of requests a plan can meet together:")
            for chosen in result.maximal:
                lines.append("  {" + ", ".join(f"[{i + 1}]" for i in chosen) + "}")
        if not result.conflicts_complete:
            lines.append("(The budget ran out before every conflict was found.)")
    else:
        lines.append("Could not decide whether a plan can do it: the budget ran out.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)
