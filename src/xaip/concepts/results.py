"""The answer to "why not my foil?": one frozen result, and its English sentence.

Why the sentence is computed here and stored: the issue's JSON carries a ``text`` field,
so the sentence must exist without a renderer; it is a pure function of the result's
fields (:func:`sentence`) and the text renderer (:mod:`xaip.render.concepts`) prints it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.concepts.search import Claim
from xaip.concepts.simulator import GOAL_ACTION
from xaip.planning.semantics import STEP_NUMBERING, step_number
from xaip.runtime import Status

INVALID_FOIL, COSTLIER, NOT_WORSE = "invalid", "costlier", "not_worse"


@dataclass(frozen=True)
class WhyNot:
    """Why the plan is preferred over the foil, in the user's concepts.

    ``foil_outcome`` is ``invalid`` (the foil fails at ``failed_step``, a 0-based index
    here and a 1-based step number wherever a person reads it, JSON included, trying
    ``action``), ``costlier`` (by ``foil_cost - plan_cost``) or ``not_worse``. For an
    invalid foil ``concepts`` holds the missing precondition (one concept); for a costlier
    one, the concepts of the cost claims. ``incomplete`` says that no concept of the
    vocabulary explains it. ``confidence`` is the posterior of the explanation.

    ``uncertain_labels`` lists the concepts whose label at the failing state came from a
    classifier that errs (``(name, label, error rate)``): "the vocabulary is incomplete" may
    then be a classifier error there, and the sentence says so. ``verification`` says what
    ``verified`` means: confirmed with exact labels, or with the search's own classifiers
    for concepts that have no exact labels (:func:`xaip.concepts.check.verification`).
    """

    env: str
    variant: str
    foil_outcome: str
    plan_cost: float
    foil_cost: float | None
    failed_step: int | None
    action: str | None
    concepts: tuple[str, ...]
    confidence: float | None
    incomplete: bool
    claims: tuple[Claim, ...]
    candidates: tuple[tuple[str, float], ...]
    samples: int
    status: Status
    seconds: float
    stats: Mapping[str, int | float]
    failing_state: Hashable | None = field(default=None, compare=False)
    failing_picture: str = ""
    verified: bool = False
    text: str = ""
    uncertain_labels: tuple[tuple[str, bool, float], ...] = ()
    verification: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "env": self.env,
            "variant": self.variant,
            "foil_outcome": self.foil_outcome,
            **STEP_NUMBERING,
            "failed_step": None if self.failed_step is None else step_number(self.failed_step),
            "action": self.action,
            "concepts": list(self.concepts),
            "confidence": self.confidence,
            "incomplete": self.incomplete,
            "plan_cost": self.plan_cost,
            "foil_cost": self.foil_cost,
            "claims": [claim.to_dict() for claim in self.claims],
            "candidates": [{"concept": n, "confidence": p} for n, p in self.candidates],
            "failing_state": self.failing_picture or None,
            "samples": self.samples,
            "seconds": self.seconds,
            "status": str(self.status),
            "verified": self.verified,
            "verification": self.verification,
            "uncertain_labels": [{"concept": n, "label": v, "error_rate": e}
                                 for n, v, e in self.uncertain_labels],
            "stats": dict(self.stats),
            "text": self.text,
        }


def _num(value: float | None) -> str:
    if value is None:
        return "?"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _doubt(result: WhyNot) -> str:
    """For "incomplete": the labels of the failing state that a classifier error could have
    flipped (a concept labelled present there was never a candidate)."""
    present = [(n, e) for n, v, e in result.uncertain_labels if v]
    if not present:
        return ""
    names = ", ".join(f"`{n}` (wrong {100 * e:.1f}% of the time)" for n, e in present)
    return (f"the vocabulary is incomplete unless a classifier mislabels the failing state: "
            f"uncertain labels present there: {names}.")


def _step(index: int | None) -> str:
    return "?" if index is None else str(step_number(index))


def _conf(value: float | None) -> str:
    return "" if value is None else f" (confidence {value:.3f})"


def _goal_sentence(result: WhyNot, unfinished: str) -> str:
    """The foil runs but ends outside the goal: what every goal state has and its end
    lacks."""
    where = f"The foil ends without reaching the goal (after step {result.failed_step})"
    if result.incomplete:
        doubt = _doubt(result)
        if doubt:
            return (f"{where}, and no concept in the vocabulary explains why as labelled "
                    f"there; {doubt}{unfinished}")
        return (f"{where}, but no concept in the vocabulary explains why: the vocabulary is "
                f"incomplete.{unfinished}")
    if not result.concepts:
        return f"{where}; no explanation was established.{unfinished}"
    return (f"{where}: the goal needs `{result.concepts[0]}`, which is false where the foil "
            f"ends{_conf(result.confidence)}.{unfinished}")


def sentence(result: WhyNot) -> str:
    """One English sentence (two for a budget that ran out) for ``result``."""
    unfinished = "" if result.status.finished else \
        " The sampling budget ran out before the search finished; this answer is unfinished."
    if result.foil_outcome == NOT_WORSE:
        return (f"The foil is not worse than the plan (cost {_num(result.foil_cost)} against "
                f"{_num(result.plan_cost)}): there is nothing to explain.")
    if result.foil_outcome == INVALID_FOIL:
        where = f"The foil fails at step {_step(result.failed_step)}, `{result.action}`"
        if result.action == GOAL_ACTION:
            return _goal_sentence(result, unfinished)
        if result.incomplete:
            doubt = _doubt(result)
            if doubt:
                return (f"{where}, and no concept in the vocabulary explains why as labelled "
                        f"there; {doubt}{unfinished}")
            return (f"{where}, but no concept in the vocabulary explains why: the vocabulary "
                    f"is incomplete.{unfinished}")
        if not result.concepts:
            return f"{where}; no explanation was established.{unfinished}"
        return (f"{where}: `{result.action}` needs `{result.concepts[0]}`, which is false "
                f"there{_conf(result.confidence)}.{unfinished}")
    extra = (result.foil_cost or 0.0) - result.plan_cost
    head = (f"The foil costs {_num(result.foil_cost)}, {_num(extra)} more than the plan "
            f"({_num(result.plan_cost)})")
    if result.incomplete:
        return f"{head}, but no concepts in the vocabulary explain why: the vocabulary is " \
               f"incomplete.{unfinished}"
    named = [c for c in result.claims if c.concepts]
    if not named:
        if not result.claims:
            return f"{head}; no explanation was established.{unfinished}"
        return (f"{head}: its {len(result.claims)} steps cost at least "
                f"{_num(sum(c.at_least for c in result.claims))} whatever holds.{unfinished}")
    parts = [f"`{c.action}` where {' and '.join(f'`{n}`' for n in c.concepts)} "
             f"hold{'s' if len(c.concepts) == 1 else ''} costs at least {_num(c.at_least)} "
             f"(step {step_number(c.step)})" for c in named]
    return f"{head}: {'; '.join(parts)}{_conf(result.confidence)}.{unfinished}"


@dataclass(frozen=True)
class Query:
    """The inputs of one "why not?" question: the simulator, the plan, the foil and the
    user's vocabulary (what :func:`xaip.concepts.check` re-examines)."""

    sim: Any
    plan: tuple[str, ...]
    foil: tuple[str, ...]
    vocabulary: Any
