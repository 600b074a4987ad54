"""Testing the two assumptions behind the confidence of "why not?" answers (paper A.10).

The confidence of an explanation (:mod:`xaip.concepts.confidence`) rests on two
simplifications, and the paper tests both on samples local to the plan (its appendix
figures 11 and 12):

1. **Non-preconditions are independent of executability**: for an action ``a`` and a
   concept ``c`` that is not a precondition of ``a``, the share of states with ``c`` among
   those where ``a`` succeeds equals its share among all sampled states.
2. **Cost is independent of unrelated concepts**: for an action whose cost varies, the
   share of high-cost executions among states with ``c`` equals the share among all states
   where ``a`` succeeds.

:func:`assumption_tests` samples states by the same random walks as the search (from the
given starts: the plan's and the foil's states), labels them with each concept's exact
labels where they exist, and reports per action the concept with the largest absolute
difference and the mean difference, as the paper's tables do. Concepts constant over the
states where ``a`` succeeds (its empirical preconditions and their negations) are left out
of test 1, as the paper left out ``switch_on``; concepts named in ``skip`` (those the cost
depends on) are left out of test 2, as the paper left out the pink-cell concepts.
"""

from __future__ import annotations

import statistics
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.concepts.simulator import Invalid, random_walks
from xaip.concepts.vocabulary import Vocabulary
from xaip.errors import InputError
from xaip.runtime.progress import Progress, report

HIGH_COST = 10.0  # the paper's threshold for a high-cost execution (push without switch)
MIN_SUPPORT = 20  # states with the concept where the action succeeds, for test 2


@dataclass(frozen=True)
class AssumptionRow:
    """One action's row: the concept with the largest difference, that difference, the
    mean over the concepts tested, and how many states and concepts it rests on."""

    action: str
    concept: str | None
    max_difference: float
    mean_difference: float
    concepts_tested: int
    states: int
    skipped: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "concept": self.concept,
                "max_difference": self.max_difference,
                "mean_difference": self.mean_difference,
                "concepts_tested": self.concepts_tested, "states": self.states,
                "skipped": list(self.skipped)}


@dataclass(frozen=True)
class AssumptionReport:
    """Both tests on one simulator and vocabulary."""

    samples: int
    independence: tuple[AssumptionRow, ...]
    cost: tuple[AssumptionRow, ...]
    high_cost: float = HIGH_COST
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {"samples": self.samples, "high_cost": self.high_cost,
                "independence": [r.to_dict() for r in self.independence],
                "cost": [r.to_dict() for r in self.cost], "notes": list(self.notes)}


def _label(concept: Any, state: Hashable) -> bool:
    exact = concept.exact_label(state)
    return bool(concept.truth(state) if exact is None else exact)


def assumption_tests(sim: Any, vocabulary: Vocabulary, starts: Sequence[Hashable], *,
                     samples: int = 10_000, seed: int = 0, skip: Sequence[str] = (),
                     high_cost: float = HIGH_COST, max_depth: int = 15,
                     actions: Sequence[str] | None = None,
                     progress: Progress | None = None) -> AssumptionReport:
    """Both assumption tests on ``samples`` random-walk states from ``starts`` (module
    docstring). ``actions`` defaults to every action of ``sim``."""
    if samples < 1:
        raise InputError("the assumption tests need at least one sample")
    if not starts:
        raise InputError("the assumption tests need start states (the plan's states)")
    unknown = [n for n in skip if n not in vocabulary.names]
    if unknown:
        raise InputError(f"unknown concept {unknown[0]!r} to skip")
    chosen = tuple(sim.actions if actions is None else actions)
    states = random_walks(sim, list(starts), samples, seed, max_depth)
    report(progress, "label", 0, len(states), "labelling sampled states")
    labels = [[_label(c, s) for c in vocabulary.concepts] for s in states]
    overall = [statistics.fmean(row[i] for row in labels) for i in range(len(vocabulary))]
    independence, cost = [], []
    for index, action in enumerate(chosen):
        report(progress, "actions", index, len(chosen), action)
        outcomes = [sim.step(s, action) for s in states]
        ran = [(labels[i], float(o[1])) for i, o in enumerate(outcomes)
               if not isinstance(o, Invalid)]
        if not ran:
            continue
        independence.append(_independence(vocabulary, action, ran, overall))
        row = _cost(vocabulary, action, ran, set(skip), high_cost)
        if row is not None:
            cost.append(row)
    notes = ("labels are exact where a concept has them (definitions, reference labellers)",
             "test 1 leaves out concepts constant where the action succeeds (its empirical "
             "preconditions and their negations)",
             f"test 2 covers actions whose cost reaches {high_cost:g} only sometimes, and "
             f"concepts present in at least {MIN_SUPPORT} such executions")
    return AssumptionReport(len(states), tuple(independence), tuple(cost), high_cost, notes)


def _independence(vocabulary: Vocabulary, action: str, ran: list[tuple[list[bool], float]],
                  overall: list[float]) -> AssumptionRow:
    tested: list[tuple[float, str]] = []
    skipped = []
    for i, concept in enumerate(vocabulary.concepts):
        share = statistics.fmean(row[i] for row, _ in ran)
        if share in (0.0, 1.0):
            skipped.append(concept.name)
            continue
        tested.append((abs(share - overall[i]), concept.name))
    if not tested:
        return AssumptionRow(action, None, 0.0, 0.0, 0, len(ran), tuple(skipped))
    worst = max(tested)
    return AssumptionRow(action, worst[1], worst[0], statistics.fmean(d for d, _ in tested),
                         len(tested), len(ran), tuple(skipped))


def _cost(vocabulary: Vocabulary, action: str, ran: list[tuple[list[bool], float]],
          skip: set[str], high_cost: float) -> AssumptionRow | None:
    high = [cost >= high_cost for _, cost in ran]
    base = statistics.fmean(high)
    if base in (0.0, 1.0):
        return None  # the cost never varies: nothing to be independent of
    tested: list[tuple[float, str]] = []
    for i, concept in enumerate(vocabulary.concepts):
        if concept.name in skip:
            continue
        present = [h for (row, _), h in zip(ran, high, strict=True) if row[i]]
        if len(present) < MIN_SUPPORT:
            continue
        tested.append((abs(statistics.fmean(present) - base), concept.name))
    if not tested:
        return AssumptionRow(action, None, 0.0, 0.0, 0, len(ran), tuple(sorted(skip)))
    worst = max(tested)
    return AssumptionRow(action, worst[1], worst[0], statistics.fmean(d for d, _ in tested),
                         len(tested), len(ran), tuple(sorted(skip)))
