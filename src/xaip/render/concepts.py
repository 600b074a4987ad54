""""Why not?" answers as English text and as a PNG of the state where the foil fails.

Why the picture is drawn from the result's level text: a result is plain data and the
renderer gets nothing else, so the explainer keeps the failing state as level text
(``failing_picture``) and this module turns its symbols into coloured, named cells,
framing the cell the failing action pointed at in red, with the answer as the picture's
text, the step (numbered from 1) and the explaining concept as its caption, and a legend
(:mod:`xaip.figures`).
"""

from __future__ import annotations

from xaip.concepts.assumptions import AssumptionReport, AssumptionRow
from xaip.concepts.results import WhyNot
from xaip.concepts.teach import Teaching
from xaip.errors import InputError
from xaip.figures import Colour, Grid, Image, Key, Look, Sheet, sheet_png
from xaip.planning.semantics import step_number
from xaip.render import renderer

_MARK: Colour = (220, 30, 30)
_STEP = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


#: The result's status in words (the JSON keeps the status names).
_OUTCOME = {"found": "answer found", "no_explanation": "no answer in these concepts",
            "budget_exhausted": "budget exhausted"}


@renderer(WhyNot, "text")
def why_not_text(result: WhyNot) -> str:
    lines = [result.text]
    if result.candidates[1:]:
        rest = ", ".join(f"{name} ({p:.3f})" for name, p in result.candidates[1:])
        lines.append(f"  other candidates: {rest}")
    for claim in result.claims:
        if claim.concepts:
            lines.append(f"  step {step_number(claim.step)}: {claim.action} where "
                         f"{' and '.join(claim.concepts)} costs at least {claim.at_least:g}"
                         + ("" if claim.confidence is None
                            else f" (confidence {claim.confidence:.4f})"))
    # ALE games (Montezuma, or any "ALE/..." environment file) are not enumerable: the
    # checker re-tests on fresh samples
    how = "on fresh samples" if result.env in ("montezuma", "ALE") else \
        "by exhaustive enumeration"
    checked = f"verified {how}" if result.verified else "not verified"
    outcome = _OUTCOME.get(str(result.status), str(result.status).replace("_", " "))
    lines.append(f"  {result.samples} samples drawn in {result.seconds:.3f} s; {outcome}, "
                 f"{checked}")
    if result.verification and (not result.verified or "own classifiers" in
                                result.verification):
        lines.append(f"  ({result.verification})")
    return "\n".join(lines)


@renderer(WhyNot, "png")
def why_not_png(result: WhyNot) -> bytes:
    """The state where the foil fails (or costs more): :func:`why_not_sheet` as PNG."""
    return sheet_png(why_not_sheet(result))


def why_not_sheet(result: WhyNot) -> Sheet:
    """The state where the foil fails (or costs more), titled with where and why, the
    cell the failing action points at framed in red, objects named, with a legend."""
    if not result.failing_picture:
        raise InputError("this answer has no state to draw (the foil neither fails nor "
                         "costs more)")
    if result.env == "montezuma":
        return _montezuma_sheet(result)
    rows = result.failing_picture.splitlines()
    width = max(len(row) for row in rows)
    looks: dict[tuple[int, int], Look] = {}
    player, seen = None, set[str]()
    for r, row in enumerate(rows):
        for c, symbol in enumerate(row.ljust(width)):
            looks[(r, c)] = _SYMBOLS.get(symbol, _SYMBOLS[" "])
            seen.add(symbol if symbol in _SYMBOLS else " ")
            if symbol in "@+P":
                player = (r, c)
    direction = (result.action or "").partition("-")[2]
    marked = False
    if player is not None and direction in _STEP:
        dr, dc = _STEP[direction]
        mark = (player[0] + dr, player[1] + dc)
        if mark in looks:
            look = looks[mark]
            looks[mark] = Look(look.fill, look.inner, look.dot, look.text, _MARK)
            marked = True
    legend = [Key(colour, meaning, kind) for symbols, colour, meaning, kind in _LEGEND
              if seen & set(symbols)]
    if marked:
        legend.append(Key(_MARK, f"where {result.action} acts", "frame"))
    label = _label(result)
    panel = Grid(len(rows), width, looks, caption=label[0], note=" ".join(label[1:]))
    return Sheet(_title(result), [panel], lines=[_plain(result.text)], legend=legend,
                 cell=max(40, min(64, 520 // max(width, 1))), min_width=560,
                 notes=["Steps are numbered from 1."])


def _title(result: WhyNot) -> str:
    if result.foil_outcome == "invalid":
        return "Why not your plan? Where it fails"
    return "Why not your plan? Where it costs more"


def _plain(text: str) -> str:
    """The answer's sentence without its code marks (a picture shows no Markdown)."""
    return text.replace("`", "")


_SYMBOLS: dict[str, Look] = {
    "#": Look((70, 70, 80)),
    " ": Look((236, 236, 236)),
    "-": Look((236, 236, 236)),
    ".": Look((236, 236, 236), ((240, 200, 60),)),
    "$": Look((236, 236, 236), ((150, 95, 40),), text="box"),
    "*": Look((240, 200, 60), ((150, 95, 40),), text="box"),
    "@": Look((236, 236, 236), dot=(40, 90, 220), text="you"),
    "+": Look((240, 200, 60), dot=(40, 90, 220), text="you"),
    "s": Look((30, 110, 50), text="switch\noff"),
    "S": Look((120, 230, 120), text="switch\non"),
    "c": Look((245, 160, 200)),
    "P": Look((245, 160, 200), dot=(40, 90, 220), text="you"),
    "B": Look((245, 160, 200), ((150, 95, 40),), text="box"),
}
#: Legend entries: the symbols that show it, its colour, meaning and swatch kind.
_LEGEND: tuple[tuple[str, Colour, str, str], ...] = (
    ("#", (70, 70, 80), "wall", "square"),
    ("@+P", (40, 90, 220), "the agent (you)", "dot"),
    ("$*B", (150, 95, 40), "box", "square"),
    (".+*", (240, 200, 60), "target", "square"),
    ("s", (30, 110, 50), "switch, off", "square"),
    ("S", (120, 230, 120), "switch, on", "square"),
    ("cPB", (245, 160, 200), "pink cell (a push from it costs 10)", "square"),
)

_AGENT: Colour = (200, 72, 72)  # the agent's shirt in Montezuma's palette
_HUD_ROWS = 47  # score, lives (drawn in the agent's colours) and inventory


def _montezuma_sheet(result: WhyNot) -> Sheet:
    """The ALE screen where the foil fails, shown three times its size, the agent boxed
    in red, titled and captioned like the grid pictures.

    Why the emulator is asked again: the result keeps the failing state (RAM and ALE
    snapshot), not its pixels, so the screen is redrawn from the snapshot."""
    from xaip.concepts.montezuma import MontezumaState, shared_simulator

    state = result.failing_state
    if not isinstance(state, MontezumaState):
        raise InputError("this Montezuma answer has no game state to draw")
    width, height, rgb = shared_simulator().frame(state)
    agent = [i // 3 for i in range(3 * _HUD_ROWS * width, len(rgb), 3)
             if tuple(rgb[i:i + 3]) == _AGENT]
    boxes = []
    if agent:
        xs = [i % width for i in agent]
        ys = [i // width for i in agent]
        boxes.append((min(xs) - 3, min(ys) - 3, max(xs) + 4, max(ys) + 4, _MARK))
    label = _label(result)
    panel = Image(width, height, rgb, caption=label[0], note=" ".join(label[1:]),
                  boxes=boxes)
    legend = [Key(_MARK, "the agent", "frame")] if boxes else []
    return Sheet(_title(result), [panel], lines=[_plain(result.text)], legend=legend,
                 scale=3, notes=["Steps are numbered from 1."])


def _label(result: WhyNot) -> list[str]:
    """The caption: where the foil fails (or costs more) and the explaining concepts."""
    if result.foil_outcome == "invalid":
        head = f"step {step_number(result.failed_step or 0)}: {result.action} fails"
        if result.incomplete:
            return [head, "vocabulary incomplete"]
        if result.concepts:
            return [head, f"needs {result.concepts[0]}"]
        return [head]
    named = [claim for claim in result.claims if claim.concepts]
    if not named:
        return [f"foil costs {result.foil_cost:g} > {result.plan_cost:g}"]
    claim = named[0]
    return [f"step {step_number(claim.step)}: {claim.action}", f"{' '.join(claim.concepts)}: "
            f"cost >= {claim.at_least:g}"]


@renderer(Teaching, "text")
def teaching_text(teaching: Teaching) -> str:
    if not teaching.added:
        head = "No new concept was taught."
    else:
        head = f"Learned the new concept `{teaching.added[0]}`"
        if teaching.rejected:
            head += f" (after rejecting {', '.join(teaching.rejected)})"
        head += f" in {teaching.questions} questions."
    return f"{head}\n{why_not_text(teaching.final)}"


def _assumption_rows(rows: tuple[AssumptionRow, ...]) -> list[str]:
    out = [f"  {'action':12} {'concept with the largest difference':36} {'max':>7} "
           f"{'mean':>7} {'concepts':>8} {'states':>7}"]
    for row in rows:
        out.append(f"  {row.action:12} {row.concept or '(none tested)':36} "
                   f"{row.max_difference:7.4f} {row.mean_difference:7.4f} "
                   f"{row.concepts_tested:8d} {row.states:7d}")
    return out


@renderer(AssumptionReport, "text")
def assumptions_text(report: AssumptionReport) -> str:
    """The paper's two tables (appendix A.10, figures 11 and 12) for this vocabulary."""
    lines = [f"Assumption tests on {report.samples} sampled states (paper appendix A.10).",
             "1. Non-preconditions independent of executability: |P(c | action succeeds) "
             "- P(c)|"]
    lines += _assumption_rows(report.independence)
    lines.append(f"2. Cost independent of other concepts: |P(cost >= {report.high_cost:g} | "
                 "c, action succeeds) - P(cost >= ... | action succeeds)|")
    lines += _assumption_rows(report.cost) if report.cost else \
        ["  (no action's cost varies in the samples)"]
    lines += [f"Note: {note}." for note in report.notes]
    return "\n".join(lines)
