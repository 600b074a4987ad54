"""English for the results of :mod:`xaip.observers` (legibility, obfuscation, scores).

Why here: results are plain data; this module decides once what an answer may claim
(a budget-exhausted search is said to be unfinished, "verified" only after the
independent checker confirmed a finished answer). The renderers of the mixed-observer,
deception, lie and picture results are registered by
:mod:`xaip.observers.pictures_render`, imported below so that :func:`xaip.render.render`
finds them through this module.
"""

from __future__ import annotations

import xaip.observers.pictures_render  # noqa: F401  (registers its renderers)
from xaip.observers.results import ObserverResult
from xaip.observers.sensors import tokens_text
from xaip.render import check_line, renderer
from xaip.runtime import Status

_WHAT = {
    "legible-goal": "A {j}-legible plan (the observer keeps at most {j} goal(s))",
    "ambiguous": "A {k}-ambiguous plan (the observer keeps at least {k} goals)",
    "secure-ambiguous": "A secure {k}-ambiguous plan (randomised decoy, seed {seed})",
    "legible-plan": "A {m}-similar plan (at least {m} look-alike plans, at most {d} apart)",
    "diverse": "A {l}-diverse plan (at least {l} look-alike plans, at least {d} apart)",
    "score": "How the given plan looks to the observer",
}


def _steps(plan: tuple[str, ...]) -> str:
    return " ".join(f"({s})" for s in plan) or "(empty plan)"


def _title(result: ObserverResult) -> str:
    params = {k: ("" if v is None else v) for k, v in result.params.items()}
    try:
        return _WHAT[result.mode].format(**params)
    except (KeyError, IndexError):
        return f"Mode {result.mode}"


@renderer(ObserverResult, "text")
def observer_text(result: ObserverResult) -> str:
    lines = [f"{_title(result)} for the true goal '{result.true_goal}', "
             f"observer '{result.observer}'."]
    if not result.plan and result.status != Status.SOLVED:
        if result.status == Status.BUDGET_EXHAUSTED:
            lines.append("No plan: the budget ran out first.")
        else:
            bounds = [f"cost {result.params['max_cost']}"
                      if result.params.get("max_cost") is not None else "",
                      f"{result.params['horizon']} steps"
                      if result.params.get("horizon") is not None else ""]
            within = " and ".join(b for b in bounds if b)
            within = f" within {within}" if within else ""
            lines.append(f"No plan{within} passes the test.")
            if not within and result.status == Status.UNSOLVABLE:
                lines.append("(With a cost bound or a horizon, the checker can confirm this "
                             "by brute force.)")
        lines.append(check_line(result.verified, result.check, result.status))
        return "\n".join(lines)
    lines.append(f"Plan (cost {result.cost}): {_steps(result.plan)}")
    lines.append("The observer sees: " + (tokens_text(result.observations) or "nothing"))
    if result.beliefs:
        lines.append("Belief sizes: " + " -> ".join(str(n) for n in result.beliefs))
    for observer, goals in result.goals_in_final_belief.items():
        lines.append(f"Goals still possible for '{observer}': "
                     f"{', '.join(goals) or 'none'} ({len(goals)} of {len(result.goals)})")
    if result.bps_count is not None:
        spread = ""
        if result.distance_max is not None and result.distance_min is not None:
            spread = (f"; {result.params.get('distance', 'action')} distance between them "
                      f"{result.distance_min:g} to {result.distance_max:g}")
        lines.append(f"Plans the observer cannot tell apart: {result.bps_count}{spread}")
    if result.decoy:
        lines.append(f"Planned for decoy true goal '{result.decoy.get('decoy_true_goal')}' "
                     f"within goal set {', '.join(result.decoy.get('goal_set', ()))} "
                     f"(attempt {result.decoy.get('attempts')}); the plan above reaches "
                     f"'{result.true_goal}' with the same tokens.")
    if result.message:
        lines.append(result.message)
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)
