"""The two sample-based searches of the paper: the missing precondition and the cost
abstraction (ICLR'22 §5, with the confidence of §6 and appendix A.3).

Why the searches work on bit masks: a sample is reduced to the set of concepts its
classifiers report (one int per state), so "every concept of ``C'`` holds" is one AND, and
the cost search can try hundreds of concept subsets per foil step cheaply.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass

from xaip.concepts.confidence import (
    CUTOFF,
    PRIOR,
    cost_bound_posterior,
    precision,
    precondition_update,
    presence_rate,
)
from xaip.concepts.sampling import Sample
from xaip.concepts.vocabulary import Vocabulary
from xaip.planning.semantics import step_number
from xaip.runtime import BudgetClock

#: A cost bound is claimed only when it is more likely than not.
ACCEPT = 0.5


@dataclass(frozen=True)
class PreconditionFinding:
    """What the precondition search established."""

    exhausted: bool               # the user's hard budget ran out
    candidates: tuple[tuple[str, float], ...]  # surviving concepts, best first
    samples: int                  # evidence samples drawn
    prior_samples: int            # samples drawn to estimate the concept frequencies
    executable: int               # evidence samples where the action succeeded
    samples_to_target: int        # samples until one candidate passed the target (-1: never)


def _frequencies(vocab: Vocabulary, masks: Sequence[int]) -> list[float]:
    """True presence rates per concept from observed labels (Laplace-smoothed)."""
    n = len(masks)
    out = []
    for index, concept in enumerate(vocab.concepts):
        seen = sum(1 for m in masks if m >> index & 1)
        out.append(presence_rate((seen + 1) / (n + 2), concept.false_positive,
                                 concept.false_negative))
    return out


MIN_SAMPLES = 50  # samples drawn before the search may stop early (10% of the paper's 500)


def find_precondition(vocab: Vocabulary, fail_mask: int, stream: Iterator[Sample],
                      clock: BudgetClock, noise: random.Random, *, samples: int,
                      prior_samples: int, cutoff: float = CUTOFF,
                      target: float | None = 0.99) -> PreconditionFinding:
    """Precondition search (the paper's Fig. 6a): keep a posterior for every concept the
    classifiers report absent in the failing state; update it at every sampled state where
    the failing action (the stream's only probe) succeeds; drop a concept below ``cutoff``.

    Stops when no candidate is left (the vocabulary is incomplete), when one candidate is
    left with posterior ≥ ``target`` after at least ``MIN_SAMPLES`` samples, or after
    ``samples`` samples. Why the minimum: the update treats samples as independent, but
    random-walk samples near one another are not, so a handful of agreeing first samples
    can lift a common concept past ``target`` before the walks reach a state that refutes
    it (seen on Montezuma with the key concept removed: 0.993 after 15 samples, refuted
    at the 17th; with 25 one seed in 8 still named a wrong concept, with 50 none of 20).
    """
    prior_masks: list[int] = []
    for _ in range(prior_samples):
        state, _ = next(stream)
        if not clock.charge():
            return PreconditionFinding(True, (), 0, len(prior_masks), 0, -1)
        prior_masks.append(vocab.observe_mask(state, noise))
    q = _frequencies(vocab, prior_masks)
    posterior = {i: PRIOR for i in range(len(vocab)) if not fail_mask >> i & 1}
    drawn = executable = 0
    reached = -1
    while drawn < samples and posterior:
        state, outcomes = next(stream)
        if not clock.charge():
            return _finding(vocab, posterior, True, drawn, prior_samples, executable, reached)
        drawn += 1
        if outcomes[0] is None:
            continue
        executable += 1
        mask = vocab.observe_mask(state, noise)
        for index in list(posterior):
            concept = vocab.concepts[index]
            value = precondition_update(posterior[index], bool(mask >> index & 1), q[index],
                                        concept.false_positive, concept.false_negative)
            if value < cutoff:
                del posterior[index]
            else:
                posterior[index] = value
        if len(posterior) == 1 and target is not None and drawn >= MIN_SAMPLES:
            (only,) = posterior.values()
            if only >= target:
                reached = drawn
                break
    return _finding(vocab, posterior, False, drawn, prior_samples, executable, reached)


def _finding(vocab: Vocabulary, posterior: dict[int, float], exhausted: bool, drawn: int,
             prior: int, executable: int, reached: int) -> PreconditionFinding:
    ranked = sorted(posterior.items(), key=lambda item: (-item[1], item[0]))
    return PreconditionFinding(exhausted, tuple((vocab.concepts[i].name, p) for i, p in ranked),
                               drawn, prior, executable, reached)


# --------------------------------------------------------------------------- cost search


@dataclass(frozen=True)
class Claim:
    """``action`` at foil step ``step`` (a 0-based index; :meth:`to_dict` and every text
    give the 1-based step number) costs at least ``at_least`` wherever ``concepts`` hold;
    ``confidence`` is ``None`` for the concept-free baseline (the action's observed minimum
    cost anywhere)."""

    step: int
    action: str
    concepts: tuple[str, ...]
    at_least: float
    confidence: float | None

    def to_dict(self) -> dict[str, object]:
        return {"step": step_number(self.step), "action": self.action,
                "concepts": list(self.concepts), "at_least": self.at_least,
                "confidence": self.confidence}


@dataclass(frozen=True)
class CostFinding:
    exhausted: bool
    claims: tuple[Claim, ...] | None  # None: no explanation within the concept limit
    samples: int
    executable: int
    subsets: int                      # concept subsets evaluated


def _bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


class _CostTable:
    """Observed costs per action, and the best bound for a concept subset (memoised)."""

    def __init__(self, vocab: Vocabulary, data: dict[str, list[tuple[int, float]]],
                 q: list[float]) -> None:
        self.vocab, self.data, self.q = vocab, data, q
        self.memo: dict[tuple[str, int], tuple[float, float | None] | None] = {}

    def bound(self, action: str, subset: int) -> tuple[float, float | None] | None:
        key = (action, subset)
        if key not in self.memo:
            self.memo[key] = self._bound(action, subset)
        return self.memo[key]

    def _bound(self, action: str, subset: int) -> tuple[float, float | None] | None:
        rows = self.data.get(action, [])
        if not subset:
            return (min(c for _, c in rows) if rows else 0.0), None
        costs = [c for m, c in rows if m & subset == subset]
        if not costs:
            return None
        reliability = 1.0
        for i in _bits(subset):
            concept = self.vocab.concepts[i]
            reliability *= precision(self.q[i], concept.false_positive, concept.false_negative)
        for bound in sorted(set(costs), reverse=True):
            p_k = sum(1 for _, c in rows if c >= bound) / len(rows)
            confidence = cost_bound_posterior(costs, bound, p_k, reliability)
            if confidence >= ACCEPT:
                return bound, confidence
        return None


def find_cost_explanation(vocab: Vocabulary, steps: Sequence[tuple[str, Hashable]],
                          plan_cost: float, stream: Iterator[Sample], probe: Sequence[str],
                          clock: BudgetClock, noise: random.Random, *, samples: int,
                          max_concepts: int = 3) -> CostFinding:
    """Cost search (the paper's Fig. 6b, greedy with memoisation): with at most ``limit``
    concepts per step (``limit`` = 0, 1, ...), pick for each foil step the concept subset
    of its state with the highest sampled bound (then the smallest, then the most likely);
    stop at the first limit whose bounds add up to more than the plan's cost, then drop
    concept sets that are not needed. ``None`` claims: no explanation with up to
    ``max_concepts`` concepts per step (the vocabulary is incomplete)."""
    data: dict[str, list[tuple[int, float]]] = {a: [] for a in probe}
    masks: list[int] = []
    executable = 0
    for drawn in range(samples):
        state, outcomes = next(stream)
        if not clock.charge():
            return CostFinding(True, None, drawn, executable, 0)
        mask = vocab.observe_mask(state, noise)
        masks.append(mask)
        for action, cost in zip(probe, outcomes, strict=True):
            if cost is not None:
                data[action].append((mask, cost))
                executable += 1
    table = _CostTable(vocab, data, _frequencies(vocab, masks))
    step_masks = [vocab.observe_mask(state, noise) for _, state in steps]
    for limit in range(max_concepts + 1):
        chosen = []
        for index, (action, _) in enumerate(steps):
            best: tuple[float, int, float, int] | None = None
            bits = _bits(step_masks[index])
            for size in range(min(limit, len(bits)) + 1):
                for combo in itertools.combinations(bits, size):
                    subset = sum(1 << i for i in combo)
                    found = table.bound(action, subset)
                    if found is None:
                        continue
                    bound, confidence = found
                    rank = (bound, -size, confidence if confidence is not None else 1.0,
                            -subset)
                    if best is None or rank > best:
                        best = rank
            assert best is not None  # the empty subset always has a bound
            chosen.append(best)
        if sum(b[0] for b in chosen) > plan_cost:
            claims = _prune(table, steps, chosen, plan_cost)
            return CostFinding(False, claims, samples, executable, len(table.memo))
    return CostFinding(False, None, samples, executable, len(table.memo))


def _prune(table: _CostTable, steps: Sequence[tuple[str, Hashable]],
           chosen: list[tuple[float, int, float, int]], plan_cost: float) -> tuple[Claim, ...]:
    """Drop concept sets (fall back to the baseline) while the bounds still exceed the
    plan's cost, least useful first (then least confident): the most abstract explanation
    the greedy pick allows, keeping its best-supported claims."""
    picks = [(-rank[3], rank[0]) for rank in chosen]  # (subset, bound)
    base = [table.bound(action, 0) for action, _ in steps]
    # the smallest gains go first; among equal gains the least confident claim
    gains = sorted((bound - (base[i] or (0.0, None))[0], chosen[i][2], i)
                   for i, (subset, bound) in enumerate(picks) if subset)
    total = sum(bound for _, bound in picks)
    for gain, _, i in gains:
        if total - gain > plan_cost:
            total -= gain
            picks[i] = (0, (base[i] or (0.0, None))[0])
    claims = []
    for i, (subset, bound) in enumerate(picks):
        found = table.bound(steps[i][0], subset)
        claims.append(Claim(i, steps[i][0], table.vocab.names_of(subset), bound,
                            None if found is None else found[1]))
    return tuple(claims)
