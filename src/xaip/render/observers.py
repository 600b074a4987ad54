"""English, PNG and GIF (titled, labelled frames: :mod:`xaip.observers.pictures`) for the
results of :mod:`xaip.observers`: legibility, obfuscation and scores
(:class:`ObserverResult`), mixed observers, deceptive paths, lies and belief films.

Why here: results are plain data; this module decides once what an answer may claim
(a budget-exhausted search is said to be unfinished, "verified" only after the
independent checker confirmed a finished answer). :func:`xaip.render.render` imports it on
first use for any type defined in ``xaip.observers``.
"""

from __future__ import annotations

from xaip.observers import pictures
from xaip.observers.deception import DeceptivePlan
from xaip.observers.lies import WARNING, Lie
from xaip.observers.mixed import MixedResult
from xaip.observers.pictures import BeliefFilm, deception_film, film_gif
from xaip.observers.results import ObserverResult
from xaip.observers.sensors import tokens_text
from xaip.planning.features import sentence
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
        lines.append(check_line(result.verified, result.check, result.status))
        return "\n".join(lines)
    cheapest = ""
    if result.cheapest:
        cheapest = ", the cheapest that passes" + (
            " within the bounds" if result.params.get("max_cost") is not None
            or result.params.get("horizon") is not None else "")
    lines.append(f"Plan (cost {result.cost}{cheapest}): {_steps(result.plan)}")
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
                     f"'{result.true_goal}' and the observer sees the same.")
    if result.message:
        lines.append(result.message)
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


#: ``--method`` in words (the JSON keeps the name).
_METHOD_WORDS = {"ip": "solved as an integer program", "search": "solved by search"}


@renderer(MixedResult, "text")
def mixed_text(result: MixedResult) -> str:
    method = _METHOD_WORDS.get(result.method, result.method)
    lines = [f"Mixed observers ({method}; true goal {result.true_goal}; "
             f"{len(result.goals)} candidate goals): {str(result.status).replace('_', ' ')}."]
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
             f"Last deceptive point r{ldp[0]}c{ldp[1]}, reached after {result.ldp_index} "
             f"move{'' if result.ldp_index == 1 else 's'}: until then some decoy is at least "
             "as probable as the real goal G."
             if ldp is not None else "No deceptive point.",
             f"{result.score:.0%} of the moves end where a decoy looks at least as likely "
             "as G (marked *)."]
    if result.rmp:
        lines.append("Close to G no cell looks headed for a decoy: within "
                     + ", ".join(f"{v:g} moves for decoy {k}" for k, v in result.rmp.items())
                     + " (the radius of maximum probability).")
    lines.append("  moves  cell   probability of each goal")
    for step, (cell, probs) in enumerate(zip(result.path, result.probabilities, strict=True)):
        shown = " ".join(f"{g}={p:.2f}" for g, p in probs.items())
        mark = " *" if result.deceptive[step] else ""
        lines.append(f"  {step:5d}  r{cell[0]}c{cell[1]}  {shown}{mark}")
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(DeceptivePlan, "png")
def deception_png(result: DeceptivePlan) -> bytes:
    return pictures.film_png(deception_film(result))


@renderer(Lie, "text")
def lie_text(result: Lie) -> str:
    lines = [WARNING, f"Status: {result.status}."]
    if result.edits:
        kind = "omissions only" if result.omission_only else "any edits"
        size = result.mce_size
        lines.append(f"{len(result.edits)} statement{'' if len(result.edits) == 1 else 's'} "
                     f"({kind}; the smallest truthful explanation needs "
                     f"{size if size is not None else 'an unknown number'}):")
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
    return pictures.film_png(film)


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
