"""A learned local model as English text and as PDDL (domain then problem).

Why text lists rules, not PDDL: a person reads "push-right needs switch-on" more easily
than an s-expression; ``--write-pddl`` and ``render(result, "pddl")`` give the model to
planners.
"""

from __future__ import annotations

from xaip.localmodel.results import LocalModel
from xaip.render import renderer

_REGION = {"walks": "random walks of up to 15 steps from", "radius": "states drawn within "
           "the radius of", "all": "every state within reach of"}


@renderer(LocalModel, "text")
def local_model_text(result: LocalModel) -> str:
    where = _REGION.get(result.region, result.region)
    radius = "" if result.radius is None else f" (radius {result.radius})"
    lines = [f"Local model of {result.env}: {result.samples} samples "
             f"({result.distinct_states} distinct states), {where} the start states{radius}."]
    for a in result.actions:
        if not a.learned:
            lines.append(f"  {a.name}: never succeeded in {a.tried} samples (no rule)")
            continue
        cost = (f"cost {a.min_cost:g}" if not a.cost_state_dependent
                else f"cost {a.min_cost:g}..{a.max_cost:g} (state-dependent)")
        lines.append(f"  {a.name}  [{a.successes}/{a.tried} samples succeed, {cost}]")
        lines.append(f"    needs:   {', '.join(a.precondition) or '(nothing)'}")
        lines.append(f"    adds:    {', '.join(a.add) or '(nothing)'}")
        lines.append(f"    deletes: {', '.join(a.delete) or '(nothing)'}")
        if a.weak:
            lines.append(f"    weakly supported: {', '.join(a.weak)}")
    lines.append(f"  initial state: {', '.join(result.initial) or '(no concept true)'}")
    lines.append(f"  goal ({result.goal_states} goal states sampled): "
                 f"{', '.join(result.goal) or '(empty)'}")
    failures = result.assumption_failures
    if failures:
        lines.append(f"  assumptions that failed ({len(failures)}):")
        lines.extend(f"    {line}" for line in failures)
    status = str(result.status).replace("_", " ")
    verdict = "verified" if result.verified else "not verified"
    lines.append(f"  {status} in {result.seconds:.3f} s; {verdict}"
                 + (f": {result.check.details}" if result.check else ""))
    accuracy = getattr(result.check, "accuracy", None)
    if accuracy:
        lines.append("  against the exact local model: preconditions precision "
                     f"{accuracy['precondition_precision']:.3f} recall "
                     f"{accuracy['precondition_recall']:.3f}; effects precision "
                     f"{accuracy['effect_precision']:.3f} recall "
                     f"{accuracy['effect_recall']:.3f}; {accuracy['actions_exact']}/"
                     f"{accuracy['actions']} actions exact")
    return "\n".join(lines)


@renderer(LocalModel, "pddl")
def local_model_pddl(result: LocalModel) -> str:
    return result.domain_pddl + "\n" + result.problem_pddl
