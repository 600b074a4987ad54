"""Robustness of an explanation under an annotated human model: exact or sampled (U02).

Robustness (book Def. 29) is the probability mass of the completions of the annotated model
in which the plan, after the explanation's edits, is optimal. A completion realises each
open possible feature independently with its probability (Def. 28), so robustness is the
probability that a completion drawn that way is explained.

* **Exact** (at most ``max_completions`` completions, default 4,096 = 12 open features):
  every completion is rebuilt and tested; the value is a sum of likelihoods.
* **Sampled** (beyond the cap, or when asked): a seeded Monte-Carlo estimate. Each sample
  draws a completion from the annotated model's own distribution and tests it; the estimate
  is the share explained. The interval is **Hoeffding's**: with ``n`` samples,
  ``P(|estimate - robustness| >= eps) <= 2 exp(-2 n eps^2)``, so a requested precision
  ``eps`` at confidence ``1 - delta`` needs ``n = ceil(ln(2 / delta) / (2 eps^2))`` samples
  (738 for the defaults 0.05 and 95%). Why Hoeffding rather than Wilson: it holds for every
  ``n`` and every true value (Wilson's interval is an approximation that under-covers near 0
  and 1, where robustness often lies), and it turns a precision into a sample count in
  closed form. The answer says it is an estimate (``exact`` false) and is never printed as
  the exact value.

The test of one completion is the reconciliation checker's (:func:`xaip.reconcile.checks.
is_complete`: the plan validated on the lifted completion and a cheaper plan looked for by
the checker's own optimal search, not the engines'), not the conformant search's Prop. 7
test; the
completion itself comes from the annotated model's definition
(:meth:`~xaip.reconcile.annotated.AnnotatedMRP.completion`, shared). Completions drawn twice
are tested once. Everything runs under ``budget``; running out gives status
``budget_exhausted`` with the interval of the samples drawn so far (still a valid Hoeffding
interval: when to stop did not depend on the outcomes).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from xaip.errors import BudgetExhausted, InputError
from xaip.reconcile.annotated import AnnotatedMRP, Possible, completions, likelihood, settle
from xaip.runtime import Budget, BudgetClock, Progress, Status, report
from xaip.runtime.budget import as_clock

#: Completions enumerated exactly at most; beyond, robustness is sampled.
MAX_COMPLETIONS = 4096
#: Default half-width of the sampled interval.
PRECISION = 0.05
#: Default confidence of the sampled interval.
CONFIDENCE = 0.95
#: The interval a sampled estimate reports.
INTERVAL = "hoeffding"


@dataclass(frozen=True)
class RobustnessOptions:
    """How a conformant explanation computes its robustness values: exact up to
    ``max_completions`` completions (0: always sample), else ``samples`` draws or as many as
    ``precision`` at ``confidence`` needs, seeded by ``seed``."""

    max_completions: int = MAX_COMPLETIONS
    precision: float = PRECISION
    confidence: float = CONFIDENCE
    samples: int | None = None
    seed: int = 0


def hoeffding_samples(precision: float, confidence: float) -> int:
    """The samples after which Hoeffding's interval has half-width ``precision`` at
    ``confidence``: ``ceil(ln(2 / (1 - confidence)) / (2 precision^2))``."""
    _check_precision(precision, confidence)
    return math.ceil(math.log(2.0 / (1.0 - confidence)) / (2.0 * precision * precision))


def hoeffding_halfwidth(samples: int, confidence: float) -> float:
    """Half-width of Hoeffding's interval after ``samples`` draws at ``confidence``."""
    if samples <= 0:
        return 1.0
    return math.sqrt(math.log(2.0 / (1.0 - confidence)) / (2.0 * samples))


def _check_precision(precision: float, confidence: float) -> None:
    if not (isinstance(precision, (int, float)) and 0.0 < precision < 1.0):
        raise InputError(f"the robustness precision must be between 0 and 1, not {precision}")
    if not (isinstance(confidence, (int, float)) and 0.0 < confidence < 1.0):
        raise InputError(f"the robustness confidence must be between 0 and 1, not "
                         f"{confidence}")


@dataclass(frozen=True)
class RobustnessEstimate:
    """Robustness of one edit set: exact (``exact``: ``low == value == high``) or a sampled
    estimate with a Hoeffding interval ``[low, high]`` at ``confidence``.

    ``completions`` is the number of completions (2^open features); ``tested`` how many
    distinct completions were rebuilt and tested; ``samples`` the draws (0 when exact).
    ``value`` is ``None`` only when the budget ran out before anything was learned."""

    value: float | None
    low: float
    high: float
    exact: bool
    status: Status
    completions: int
    open_features: int
    tested: int
    samples: int = 0
    explained: int = 0
    confidence: float | None = None
    precision: float | None = None
    seed: int | None = None
    seconds: float = 0.0

    @property
    def method(self) -> str:
        return "enumeration" if self.exact else "sampling"

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "exact": self.exact,
                "method": self.method, "interval": "exact" if self.exact else INTERVAL,
                "status": str(self.status), "completions": self.completions,
                "open_features": self.open_features, "tested": self.tested,
                "samples": self.samples, "explained": self.explained,
                "confidence": self.confidence, "precision": self.precision,
                "seed": self.seed, "seconds": round(self.seconds, 6)}


class _Tester:
    """Tests completions with the checker's :func:`is_complete`, each distinct one once."""

    def __init__(self, amrp: AnnotatedMRP, known: list[Any], clock: BudgetClock) -> None:
        self.amrp, self.known, self.clock = amrp, known, clock
        self.seen: dict[frozenset[Any], bool] = {}

    def __call__(self, realised: frozenset[Any]) -> bool:
        if realised in self.seen:
            return self.seen[realised]
        from xaip.reconcile.checks import is_complete

        if not self.clock.charge():
            raise BudgetExhausted("the robustness budget ran out", phase="robustness")
        budget = self.clock.budget
        left = None if budget.max_seconds is None else \
            max(0.0, budget.max_seconds - self.clock.elapsed())
        outcome = is_complete(self.amrp.completion(self.known, realised), (),
                              Budget(budget.max_nodes, left))
        if outcome.complete is None:
            raise BudgetExhausted("the robustness budget ran out", phase="robustness")
        self.seen[realised] = outcome.complete
        return outcome.complete


def estimate_robustness(amrp: AnnotatedMRP, edits: Iterable[Any] = (), *,
                        answers: Iterable[tuple[Any, bool]] = (),
                        max_completions: int = MAX_COMPLETIONS,
                        precision: float = PRECISION, confidence: float = CONFIDENCE,
                        samples: int | None = None, seed: int = 0,
                        budget: Budget | BudgetClock | None = None,
                        progress: Progress | None = None) -> RobustnessEstimate:
    """Robustness of ``edits`` (labelled edits) after ``answers``: exact by enumeration when
    the completions number at most ``max_completions`` (0: always sample), else a seeded
    Monte-Carlo estimate with Hoeffding's interval (module docstring). ``samples`` overrides
    the count derived from ``precision`` and ``confidence``. ``budget`` defaults to 300 s."""
    _check_precision(precision, confidence)
    if max_completions < 0:
        raise InputError(f"max_completions must be 0 or more, not {max_completions}")
    if samples is not None and samples < 1:
        raise InputError(f"the number of samples must be at least 1, not {samples}")
    began = time.perf_counter()
    clock = as_clock(budget or Budget(max_seconds=300))
    known, open_ = settle(amrp.possible, edits, frozenset(answers))
    total = 2 ** len(open_)
    tester = _Tester(amrp, known, clock)
    if total <= max_completions:
        return _exact(open_, tester, total, began, progress)
    wanted = samples if samples is not None else hoeffding_samples(precision, confidence)
    return _sampled(open_, tester, total, wanted, confidence,
                    precision if samples is None else None, seed, began, progress)


def _exact(open_: tuple[Possible, ...], tester: _Tester, total: int, began: float,
           progress: Progress | None) -> RobustnessEstimate:
    value = 0.0
    done = 0
    try:
        for realised, _ in completions(open_):
            if tester(realised):
                value += likelihood(open_, realised)
            done += 1
            report(progress, "robustness: completions", done, total)
    except BudgetExhausted:
        return RobustnessEstimate(None, 0.0, 1.0, False, Status.BUDGET_EXHAUSTED, total,
                                  len(open_), len(tester.seen),
                                  seconds=time.perf_counter() - began)
    value = min(1.0, max(0.0, value))
    return RobustnessEstimate(value, value, value, True, Status.COMPLETE, total, len(open_),
                              len(tester.seen), seconds=time.perf_counter() - began)


def _sampled(open_: tuple[Possible, ...], tester: _Tester, total: int, wanted: int,
             confidence: float, precision: float | None, seed: int, began: float,
             progress: Progress | None) -> RobustnessEstimate:
    rng = random.Random(seed)
    drawn = explained = 0
    status = Status.COMPLETE
    try:
        for _ in range(wanted):
            realised = frozenset(p.feature for p in open_ if rng.random() < p.probability)
            explained += tester(realised)
            drawn += 1
            report(progress, "robustness: samples", drawn, wanted)
    except BudgetExhausted:
        status = Status.BUDGET_EXHAUSTED
    value = explained / drawn if drawn else None
    half = hoeffding_halfwidth(drawn, confidence)
    low = 0.0 if value is None else max(0.0, value - half)
    high = 1.0 if value is None else min(1.0, value + half)
    return RobustnessEstimate(value, low, high, False, status, total, len(open_),
                              len(tester.seen), drawn, explained, confidence, precision, seed,
                              time.perf_counter() - began)
