"""Renderers of the mixed-observer, deception, lie and picture results (text, PNG, GIF).

Why here: results never format themselves (:mod:`xaip.render`); this module registers the
renderers of the types in :mod:`.mixed`, :mod:`.deception`, :mod:`.lies` and
:mod:`.pictures` with :func:`xaip.render.renderer`. :mod:`xaip.render.observers` imports
it, so ``render(result, fmt)`` finds them on first use.
"""

from __future__ import annotations

from xaip.observers.deception import DeceptivePlan
from xaip.observers.lies import WARNING, Lie
from xaip.observers.mixed import MixedResult
from xaip.observers.pictures import BeliefFilm, deception_film, film_gif, strip_png
from xaip.observers.sensors import tokens_text
from xaip.planning.features import sentence
from xaip.render import check_line, renderer


@renderer(MixedResult, "text")
def mixed_text(result: MixedResult) -> str:
    lines = [f"Mixed observers ({result.method}; true goal {result.true_goal}; "
             f"{len(result.goals)} candidate goals): {result.status}."]
    if result.plan:
        lines.append(f"Plan ({len(result.plan)} steps, cost {result.cost}): "
                     + ", ".join(f"({s})" for s in result.plan))
        for name, role in result.roles.items():
            goals = result.goals_in_final_belief.get(name, ())
            lines.append(f"  {name} ({role}) sees {tokens_text(result.observations[name]) or '-'}"
                         f" and keeps {len(goals)} goal(s): {', '.join(goals)}")
        lines.append(f"Goal difference GD = {result.score:.2f}" if result.score is not None
                     else "Goal difference: not computed")
    elif result.status == "unsolvable":
        bounds = f" meeting k={result.k}, j={result.j}" if result.k or result.j else ""
        within = f" within {result.horizon} steps" if result.horizon is not None else ""
        lines.append(f"No plan reaches the true goal{within}{bounds}.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(DeceptivePlan, "text")
def deception_text(result: DeceptivePlan) -> str:
    grid = result.grid
    if not result.path:
        return f"Deceptive path on {grid.name}: {result.status}.\n" + \
            check_line(result.verified, result.check, result.status)
    ldp = result.ldp
    lines = [f"Deceptive path on {grid.name} ({grid.rows}x{grid.cols}): {result.cost} moves "
             f"(the shortest is {result.stats.get('optimal_cost', 0):g}).",
             f"Last deceptive point r{ldp[0]}c{ldp[1]} at step {result.ldp_index}: until then "
             "some decoy is at least as probable as the real goal."
             if ldp is not None else "No deceptive point.",
             f"Deceptive steps: {result.score:.0%}. Radius of maximum probability: "
             + ", ".join(f"{k} {v:g}" for k, v in result.rmp.items()) + "."]
    for step, (cell, probs) in enumerate(zip(result.path, result.probabilities, strict=True)):
        shown = " ".join(f"{g}={p:.2f}" for g, p in probs.items())
        mark = " *" if result.deceptive[step] else ""
        lines.append(f"  {step:3d} r{cell[0]}c{cell[1]}  {shown}{mark}")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(DeceptivePlan, "png")
def deception_png(result: DeceptivePlan) -> bytes:
    return strip_png(deception_film(result))


@renderer(Lie, "text")
def lie_text(result: Lie) -> str:
    lines = [WARNING, f"Status: {result.status}."]
    if result.edits:
        kind = "omissions only" if result.omission_only else "any edits"
        lines.append(f"{len(result.edits)} statement(s) ({kind}; the truthful MCE needs "
                     f"{result.mce_size if result.mce_size is not None else '?'}):")
        for edit, true in zip(result.edits, result.true, strict=True):
            said = sentence(edit.feature, negated=edit.op == "remove")
            lines.append(f"  [{'true' if true else 'FALSE'}] {said}")
        if not result.untruthful:
            lines.append("None of these statements is false this time: no lie is smaller "
                         "than the truth here.")
    elif result.status == "no_explanation":
        lines.append("No " + ("omission" if result.omission_only else "set of statements")
                     + " within the allowed edits makes the plan optimal for the person.")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(DeceptivePlan, "gif")
def deception_gif(result: DeceptivePlan) -> bytes:
    return film_gif(deception_film(result))


@renderer(BeliefFilm, "png")
def film_png(film: BeliefFilm) -> bytes:
    return strip_png(film)


@renderer(BeliefFilm, "gif")
def film_gif_renderer(film: BeliefFilm) -> bytes:
    return film_gif(film)


@renderer(BeliefFilm, "text")
def film_text(film: BeliefFilm) -> str:
    lines = [f"{film.title}: {len(film.frames)} frames on a {film.rows}x{film.cols} grid."]
    for frame in film.frames:
        where = "?" if frame.robot is None else f"r{frame.robot[0]}c{frame.robot[1]}"
        lines.append(f"  {frame.step:3d} {frame.action or 'start':<24} robot {where}, "
                     f"{sum(frame.belief_cells.values())} belief state(s) over "
                     f"{len(frame.belief_cells)} cell(s); plausible: "
                     f"{', '.join(frame.plausible) or 'none'}")
    return "\n".join(lines)
