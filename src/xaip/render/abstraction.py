"""English for the abstraction family: foils refuted with the fewest fluents made concrete
(:class:`~xaip.abstraction.AbstractionResult`) and the person's level located by queries
(:class:`~xaip.abstraction.LocalisationResult`).

Why these words: the person reasons without some predicates; the answer tells her which of
them she needs after all ("keep track of (clear ...)"), and for each of her plans the one
step where it breaks and why, in the model she now has.
"""

from __future__ import annotations

from xaip.abstraction.results import (
    COST,
    GOAL,
    PRECONDITION,
    SUGGESTED,
    AbstractionResult,
    LocalisationResult,
    Refutation,
    level_text,
)
from xaip.render import check_line, renderer


def _preds(names: tuple[str, ...] | list[str]) -> str:
    """``the predicate clear`` or ``the predicates clear, handempty and holding``."""
    shown = list(names)
    if len(shown) == 1:
        return f"the predicate {shown[0]}"
    return "the predicates " + ", ".join(shown[:-1]) + " and " + shown[-1]


def _since(refutation: Refutation) -> str:
    parts = [f"{lit} has been false from the start" if step == 0 else
             f"{lit} has been false since step {step}, {by}"
             for lit, step, by in refutation.since]
    return (" (" + "; ".join(parts) + ")") if parts else ""


def refutation_text(r: Refutation) -> str:
    """One sentence on how one foil fails."""
    head = "That plan" if r.name == SUGGESTED else f"Your plan {r.name!r}"
    if r.kind == PRECONDITION:
        text = (f"{head} fails at step {r.step}, {r.action}: it needs {', '.join(r.unmet)}, "
                f"which does not hold then{_since(r)}."
                + (f" In your model now, {r.rule[0]} needs {r.rule[1]}." if r.rule else ""))
    elif r.kind == GOAL:
        text = (f"{head} can be carried out but does not reach the goal: "
                f"{', '.join(r.unmet)} is false at the end{_since(r)}.")
    elif r.kind == COST:
        return (f"{head} works, but costs {r.foil_cost}, and the robot's plan costs "
                f"{r.plan_cost}: it is not cheaper.")
    else:
        return (f"{head} works in the robot's model too and costs {r.foil_cost}, less than "
                f"the robot's plan ({r.plan_cost}): it cannot be refuted.")
    if not r.concretised:
        text += " You could see this already without anything new."
    return text


@renderer(AbstractionResult, "text")
def abstraction_text(result: AbstractionResult) -> str:
    lines: list[str] = []
    plan = result.plan
    if plan is None:
        lines.append("The robot's task has no plan, so every plan of yours must fail.")
    else:
        lines.append(f"The robot's plan ({len(plan)} steps, cost {result.plan_cost}): "
                     + ", ".join(plan) + ".")
    if result.suggested_plan is not None:
        lines.append("In your model this plan reaches the goal: "
                     + (", ".join(result.suggested_plan) or "do nothing") + ".")
    if not result.minimum:
        lines.append("The search ran out of budget: keeping track of "
                     + (_preds(result.concretise) if result.concretise else "nothing")
                     + " refutes every plan of yours that can be refuted, but fewer may do.")
    elif not result.concretise:
        lost = len(result.unrefutable)
        if lost == len(result.refutations):
            lines.append("None of your plans can be refuted: each works and is cheaper.")
        else:
            lines.append("Nothing new is needed: each of your " + ("other " if lost else "")
                         + "plans already fails in your own model, or is not cheaper.")
    else:
        many = len(result.concretise) > 1
        lines.append(f"To see why, you need to keep track of {_preds(result.concretise)} "
                     f"(so far hidden from your model); "
                     + ("no fewer of the hidden predicates would do"
                        + (", and this is the first such set in the order given." if many
                           else ".")))
        if result.still_hidden:
            lines.append(f"You can still ignore {_preds(result.still_hidden)}.")
    lines.extend("- " + refutation_text(r) for r in result.refutations)
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)


@renderer(LocalisationResult, "text")
def localisation_text(result: LocalisationResult) -> str:
    lines = [f"Locating your model among {len(result.levels)} levels of abstraction "
             f"(each hides some of {_preds(list(result.hideable))})."]
    for number, query in enumerate(result.queries, 1):
        lines.append(f"  {number}. Is {' '.join(query.plan) or 'the empty plan'} a plan? "
                     f"You said {'valid' if query.answer else 'invalid'}: "
                     f"{query.after} of {query.before} levels left.")
    count = len(result.queries)
    asked = f"{count} {'query' if count == 1 else 'queries'}"
    bound = (f"singling out any of {len(result.levels)} levels takes at least "
             f"{result.lower_bound} in the worst case")
    if not result.candidates:
        lines.append(f"No level agrees with all your answers ({asked}).")
    elif len(result.candidates) == 1:
        lines.append(f"Your model {level_text(result.candidates[0])} ({asked}; {bound}).")
    else:
        where = "; ".join(level_text(c) for c in result.candidates)
        why = ("no plan is valid in one of them and not in another, so they are the same "
               "model for every plan" if result.exact else "the budget ran out")
        lines.append(f"Your model is one of {len(result.candidates)} levels ({asked}; "
                     f"{bound}): {where}; {why}.")
    if result.truth is not None:
        found = result.truth in result.candidates
        lines.append(f"The simulated person {level_text(result.truth)}: "
                     + ("found." if found else "NOT among the levels left."))
    lines.append(check_line(result.verified, result.check, result.status))
    return "\n".join(lines)
