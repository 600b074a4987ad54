"""The checker of model-free explanations.

What it shares with the search, and why: **the learned labeller** (its features and
weights). There is no model of the person to check against -- the labeller *is* the
explanation's definition of "looks explicable" (book §6.3) -- so ``verified`` means: with
this labeller, the claims hold. How well the labeller matches people is a separate,
reported number (held-out accuracy), recomputed here too.

What it does not share: the search adds per-message log-odds
(:meth:`~xaip.modelfree.labeller.MessageLabeller.contributions`) and lists message sets from
a heap; the checker builds each set's feature rows and asks scikit-learn
(:meth:`~xaip.modelfree.labeller.MessageLabeller.probabilities`), and lists the message
sets below a cost by its own depth-first enumeration. Claims checked:

* the chosen messages are among the given ones, with their costs, and ``cost`` is their sum;
* with them, every step's probability reaches the threshold; the reported probabilities
  before and after are the labeller's;
* ``cheapest`` (exact search): every message set of lower cost fails;
* ``lower_bound`` (greedy): every message set cheaper than the bound fails, and dropping
  any one chosen message fails (irredundant);
* an exhaustive ``no_explanation``: every message set fails; a greedy one is not proven
  and is reported undecided;
* the held-out accuracy report is what the labeller gives on the held-out plans.

Runs under the search's budget started afresh (one node per message set); running out is
"unverified: checker budget".
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted
from xaip.modelfree.data import Message
from xaip.modelfree.labeller import MessageLabeller, accuracy
from xaip.modelfree.results import ModelFreeExplanation
from xaip.runtime import Budget, BudgetClock, Status

if TYPE_CHECKING:
    from xaip.modelfree.explain import LearnedPerson

_EPS = 1e-9
_CHUNK = 256


def check(person: LearnedPerson, result: ModelFreeExplanation,
          budget: Budget | None = None) -> CheckReport:
    """Check every claim of ``result`` (module docstring) under ``budget`` afresh."""
    clock = (budget or Budget(max_seconds=300)).start()
    return run_checker(lambda: _check(person, result, clock))


def _check(person: LearnedPerson, result: ModelFreeExplanation, clock: BudgetClock
           ) -> CheckReport:
    labeller = person.labeller
    if not result.status.finished:
        return CheckReport(None, "unfinished: nothing to check")
    own = accuracy(labeller, person.training, person.held_out)
    if own != result.accuracy:
        return CheckReport(False, "the held-out accuracy differs from the labeller's")
    by_id = {m.id: m for m in person.messages}
    messages = sorted(person.messages, key=lambda m: (m.cost, m.id))
    plan = result.plan
    before = labeller.probabilities(plan, [()])[0]
    if not _close(before, result.before):
        return CheckReport(False, "the probabilities without messages are not the "
                                  "labeller's")
    if result.status == Status.NO_EXPLANATION:
        if not result.exhaustive:
            return CheckReport(None, "the greedy pass found no message set; that none "
                                     "exists is not proven")
        found = _first_working(labeller, plan, messages, float("inf"), clock)
        if found is not None:
            return CheckReport(False, f"the messages {_ids(found)} make every step "
                                      "explicable")
        return CheckReport(True, f"none of the {2 ** len(messages)} message sets makes "
                                 "every step explicable")
    for m in result.chosen:
        if by_id.get(m.id) != m:
            return CheckReport(False, f"'{m.id}' is not one of the messages as given")
    if len({m.id for m in result.chosen}) != len(result.chosen):
        return CheckReport(False, "a message is chosen twice")
    cost = sum(m.cost for m in result.chosen)
    if result.cost is None or abs(cost - result.cost) > _EPS:
        return CheckReport(False, f"the chosen messages cost {cost:g}, not {result.cost}")
    after = labeller.probabilities(plan, [[m.id for m in result.chosen]])[0]
    if not _close(after, result.after):
        return CheckReport(False, "the probabilities after the messages are not the "
                                  "labeller's")
    low = [i + 1 for i, p in enumerate(after) if p < labeller.threshold]
    if low:
        return CheckReport(False, f"step {low[0]} is still labelled inexplicable")
    if result.cheapest:
        cheaper = _first_working(labeller, plan, messages, cost - _EPS, clock)
        if cheaper is not None:
            return CheckReport(False, f"the cheaper messages {_ids(cheaper)} work too")
        return CheckReport(True, f"every step labelled explicable (threshold "
                                 f"{labeller.threshold:g}); no message set costing less "
                                 f"than {cost:g} does it (the labeller is shared)")
    for m in result.chosen:
        rest = [x.id for x in result.chosen if x is not m]
        if min(labeller.probabilities(plan, [rest])[0], default=1.0) >= labeller.threshold:
            return CheckReport(False, f"'{m.id}' is not needed")
    bound = result.lower_bound or 0.0
    cheaper = _first_working(labeller, plan, messages, bound - _EPS, clock)
    if cheaper is not None:
        return CheckReport(False, f"the messages {_ids(cheaper)} cost less than the "
                                  f"bound {bound:g} and work")
    return CheckReport(True, f"every step labelled explicable; irredundant; no message set "
                             f"costing less than {bound:g} works (greedy, not claimed "
                             "cheapest; the labeller is shared)")


def _close(a: Sequence[float], b: Sequence[float]) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= 1e-6 for x, y in zip(a, b, strict=True))


def _ids(messages: Sequence[Message]) -> str:
    return "{" + ", ".join(m.id for m in messages) + "}"


def _below(messages: Sequence[Message], bound: float) -> Iterator[tuple[Message, ...]]:
    """Every set of ``messages`` (sorted by cost) whose cost is at most ``bound``, by
    depth-first include/exclude, pruned once the cheapest remaining message is too dear."""
    def go(start: int, chosen: tuple[Message, ...], spent: float
           ) -> Iterator[tuple[Message, ...]]:
        yield chosen
        for j in range(start, len(messages)):
            price = spent + messages[j].cost
            if price > bound:
                break  # sorted by cost: every later message is at least as dear
            yield from go(j + 1, (*chosen, messages[j]), price)

    if bound >= 0:
        yield from go(0, (), 0.0)


def _first_working(labeller: MessageLabeller, plan: Sequence[str],
                   messages: Sequence[Message], bound: float, clock: BudgetClock
                   ) -> tuple[Message, ...] | None:
    """A message set costing at most ``bound`` after which every step is explicable."""
    chunk: list[tuple[Message, ...]] = []

    def test(sets: list[tuple[Message, ...]]) -> tuple[Message, ...] | None:
        scores = labeller.probabilities(plan, [[m.id for m in s] for s in sets])
        for subset, row in zip(sets, scores, strict=True):
            if min(row, default=1.0) >= labeller.threshold:
                return subset
        return None

    for subset in _below(messages, bound):
        if not clock.charge():
            raise BudgetExhausted("the checker ran out of its budget", phase="check")
        chunk.append(subset)
        if len(chunk) == _CHUNK:
            found = test(chunk)
            if found is not None:
                return found
            chunk = []
    return test(chunk) if chunk else None
