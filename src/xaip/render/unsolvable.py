"""English for :class:`xaip.unsolvable.UnsolvableResult`: the plan, or why there is none.

Why plain words here and technical names in JSON: a person transcribing a model reads "these
goal facts cannot hold together", a program reads ``core_kind: minimum``.
"""

from __future__ import annotations

from xaip.render import check_line, renderer
from xaip.unsolvable.results import UnsolvableResult


def _steps(count: int) -> str:
    return "1 step" if count == 1 else f"{count} steps"


def _listing(facts: tuple[str, ...]) -> str:
    return ", ".join(facts)


@renderer(UnsolvableResult, "text")
def unsolvable_text(result: UnsolvableResult) -> str:
    lines: list[str] = []
    if result.solvable is True:
        assert result.plan is not None
        if result.plan:
            lines.append(f"This task has a plan ({_steps(len(result.plan))}, cost "
                         f"{result.plan_cost}), so there is nothing to explain:")
            lines += [f"  {number}. {step}" for number, step in enumerate(result.plan, 1)]
        else:
            lines.append("This task has a plan: the goal already holds in the initial state "
                         "(the empty plan, cost 0).")
    elif result.solvable is None:
        lines.append("Could not decide whether this task has a plan: the budget ran out "
                     f"after {result.stats.get('states', 0)} states.")
    else:
        lines.append("This task has no plan: no sequence of actions reaches the goal.")
        if result.core:
            many = len(result.core) > 1
            what = ("These goal facts cannot all be made true together" if many else
                    "This goal fact alone can never be made true")
            size = ("one goal fact is impossible by itself" if not many
                    and result.core_kind == "minimum" else
                    "no smaller set of goal facts is impossible, and this is the first such "
                    "set in goal order" if result.core_kind == "minimum" else
                    "dropping any one of them makes the rest achievable (the search for the "
                    "smallest such set ran out of budget)")
            lines.append(f"{what}: {_listing(result.core)} ({size}).")
            if len(result.core) < len(result.goal):
                lines.append("Every other goal fact is beside the point: the task stays "
                             "impossible with only these.")
            if result.landmark is not None:
                lines.append("Why: " + result.landmark.sentence() + ".")
            else:
                lines.append("Why: each of them can be reached on its own, but no reachable "
                             "state has them all at once.")
    if result.repair is not None:
        lines.append(_repair_text(result))
    if result.trace_valid is True:
        lines.append("Your plan is valid: it reaches the goal.")
    elif result.trace is not None:
        trace = result.trace
        if trace.step is None:
            lines.append(f"Your plan: all {trace.steps} steps can be carried out, but at the "
                         f"end these goal facts are false: {_listing(trace.unmet)}.")
        else:
            lines.append(f"Your plan fails at step {trace.step}, {trace.action}: it needs "
                         f"{_listing(trace.unmet)}, which does not hold then.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


def _repair_text(result: UnsolvableResult) -> str:
    fix = result.repair
    assert fix is not None
    within = (f"among {fix.candidates} candidate facts" + (" (the first ones only)"
                                                           if fix.capped else ""))
    if fix.facts is not None:
        which = ("no smaller set of candidate facts would, and this is the first such set"
                 if len(fix.facts) > 1 else "it is the first such fact")
        return (f"Adding {' and '.join(fix.facts)} to the initial state would give the task "
                f"a plan ({_steps(len(fix.plan))}); {which} {within}.")
    if not fix.complete:
        return (f"The search for initial facts whose addition gives a plan ran out of budget "
                f"after {fix.tried} tries.")
    limit = "one fact" if fix.max_facts == 1 else f"{fix.max_facts} facts"
    return f"Adding up to {limit} to the initial state would not give the task a plan ({within})."
