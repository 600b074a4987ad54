"""The front door: learn the labeller from labelled plans, then find the cheapest messages.

Why two steps: learning (:func:`learn`) is the costly, data-bound part and is done once per
data set; explaining (:func:`explain_plan`) is done per plan with the learned person.
:func:`explain_model_free` does both.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from xaip.contract import with_check
from xaip.errors import InputError
from xaip.modelfree.data import Message, Record, normalise, split
from xaip.modelfree.labeller import THRESHOLD, Accuracy, MessageLabeller, accuracy
from xaip.modelfree.results import ModelFreeExplanation
from xaip.modelfree.search import MAX_SUBSETS, cheapest
from xaip.runtime import Budget, BudgetClock, Progress, Status
from xaip.runtime.budget import as_clock

#: The share of labelled plans held out to measure the labeller (default).
HELD_OUT = 0.25


@dataclass(frozen=True)
class LearnedPerson:
    """The learned proxy of the people who labelled the data: the labeller, the messages it
    knows, the records it was trained on and the ones held out, and its accuracy there."""

    labeller: MessageLabeller
    messages: tuple[Message, ...]
    training: tuple[Record, ...]
    held_out: tuple[Record, ...]
    accuracy: Accuracy


def learn(records: Sequence[Record], messages: Sequence[Message], *,
          held_out: float = HELD_OUT, seed: int = 0, threshold: float = THRESHOLD
          ) -> LearnedPerson:
    """Train the message-conditioned labeller on a seeded share of ``records`` and measure
    it on the rest (``held_out``, 0 to below 1)."""
    messages = tuple(messages)
    if not messages:
        raise InputError("model-free explanations need at least one message")
    ids = {m.id for m in messages}
    if len(ids) != len(messages):
        raise InputError("two messages share an id")
    from xaip.modelfree.data import _ID

    odd = [m.id for m in messages if not _ID.fullmatch(m.id)]
    if odd:
        raise InputError(f"a message id is letters, digits and . _ : - only, not '{odd[0]}'")
    for record in records:
        unknown = sorted(record.messages - ids)
        if unknown:
            raise InputError(f"a labelled plan was shown message '{unknown[0]}', which is not "
                             "among the messages")
    training, kept = split(records, held_out, seed)
    labeller = MessageLabeller(threshold).fit(training)
    return LearnedPerson(labeller, messages, training, kept,
                         accuracy(labeller, training, kept))


def explain_plan(person: LearnedPerson, plan: Sequence[str], *,
                 max_subsets: int = MAX_SUBSETS, budget: Budget | BudgetClock | None = None,
                 progress: Progress | None = None, check: bool = True
                 ) -> ModelFreeExplanation:
    """The cheapest message set (exact up to ``max_subsets`` sets, else greedy with a
    bound; :mod:`xaip.modelfree.search`) after which ``person``'s labeller labels every
    step of ``plan`` explicable, checked by :func:`xaip.modelfree.checks.check` under the
    same budget started afresh."""
    if max_subsets < 1:
        raise InputError(f"max_subsets must be at least 1, not {max_subsets}")
    began = time.perf_counter()
    clock = as_clock(budget)
    steps = tuple(normalise(s) for s in plan)
    if any(not s for s in steps):
        raise InputError("the plan has an empty step")
    labeller = person.labeller
    ordered = sorted(person.messages, key=lambda m: (m.cost, m.id))
    base, deltas, pairs = labeller.contributions(steps, [m.id for m in ordered])
    outcome = cheapest([m.cost for m in ordered], base, deltas, labeller.logit_threshold(),
                       clock, max_subsets, progress, pairs)
    chosen = () if outcome.chosen is None else tuple(ordered[j] for j in outcome.chosen)
    before = tuple(labeller.probabilities(steps, [()])[0])
    after = tuple(labeller.probabilities(steps, [[m.id for m in chosen]])[0]) \
        if outcome.chosen is not None else ()
    found = outcome.status == Status.FOUND
    result = ModelFreeExplanation(
        status=outcome.status, plan=steps, messages=tuple(person.messages), chosen=chosen,
        cost=sum(m.cost for m in chosen) if found else None, method=outcome.method,
        cheapest=found and outcome.method == "exact", lower_bound=outcome.lower_bound,
        exhaustive=outcome.status == Status.NO_EXPLANATION and outcome.method == "exact",
        before=before, after=after, threshold=labeller.threshold, accuracy=person.accuracy,
        seconds=time.perf_counter() - began,
        stats={"message_sets": outcome.examined, "messages": len(ordered),
               "steps": len(steps), "trained_on": len(person.training),
               "held_out": len(person.held_out)})
    if not check or not result.status.finished:
        return result
    from xaip.modelfree.checks import check as run_check

    report = run_check(person, result, clock.budget)
    return replace(with_check(result, report), check=report,
                   seconds=time.perf_counter() - began,
                   stats={**result.stats, "check_seconds": round(
                       time.perf_counter() - began - result.seconds, 6)})


def explain_model_free(records: Sequence[Record], messages: Sequence[Message],
                       plan: Sequence[str], *, held_out: float = HELD_OUT, seed: int = 0,
                       threshold: float = THRESHOLD, max_subsets: int = MAX_SUBSETS,
                       budget: Budget | None = None, progress: Progress | None = None
                       ) -> ModelFreeExplanation:
    """:func:`learn` then :func:`explain_plan` (the budget covers both)."""
    clock = as_clock(budget)
    person = learn(records, messages, held_out=held_out, seed=seed, threshold=threshold)
    if not clock.tick():
        return _unfinished(person, plan, clock)
    return explain_plan(person, plan, max_subsets=max_subsets, budget=clock,
                        progress=progress)


def _unfinished(person: LearnedPerson, plan: Sequence[str], clock: BudgetClock
                ) -> ModelFreeExplanation:
    return ModelFreeExplanation(
        Status.BUDGET_EXHAUSTED, tuple(normalise(s) for s in plan), person.messages, (),
        None, "exact", False, None, False, (), (), person.labeller.threshold,
        person.accuracy, clock.elapsed(), {"message_sets": 0})
