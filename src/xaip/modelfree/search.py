"""The cheapest message set after which every step of the plan is labelled explicable.

Book §6.3: ``m* = argmin_{m ⊆ M} C(m)`` subject to ``E(π, m) = 1``, where ``E`` is 1 iff the
learned labeller labels every step explicable. The labeller need not be monotone (a message
can make a step *less* explicable), so no subset can be skipped on the grounds that a
smaller one failed; the search enumerates message sets in order of cost instead:

* **exact** -- message sets are listed cheapest first (a heap over "add the next message" /
  "swap the last message for the next", which lists every subset once in non-decreasing
  cost when the messages are sorted by cost); the first set that works is a cheapest one.
  With at most ``max_subsets`` sets (default 65,536: every subset of 16 messages) the
  search always finishes this way.
* **greedy with a bound** -- when ``max_subsets`` sets were examined without success, the
  search stops enumerating: every set cheaper than the next one on the heap is known to
  fail, which is a **lower bound** on the cheapest cost. A greedy pass then adds the message
  that turns the most steps explicable per unit of cost (then raises the least likely step
  most) until all steps are, and drops messages it no longer needs (most expensive first),
  so the answer is *irredundant*; it is not claimed cheapest, and the optimum lies between
  the bound and its cost.

The labeller's log-odds are a sum of one term per shown message and one per shown pair
(:meth:`~xaip.modelfree.labeller.MessageLabeller.contributions`), so a set is tested by
adding those vectors; the checker instead asks scikit-learn on feature rows.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from xaip.runtime import BudgetClock, Progress, Status, report

#: Message sets the exact enumeration examines at most before the greedy pass.
MAX_SUBSETS = 65_536
_EPS = 1e-12


@dataclass(frozen=True)
class SearchOutcome:
    """What the search found: message indices (into the cost-sorted order), how, and the
    bound it proved."""

    status: Status
    chosen: tuple[int, ...] | None
    method: str  # "exact" or "greedy"
    examined: int
    lower_bound: float | None  # every message set cheaper than this fails


class _Scores:
    def __init__(self, base: Sequence[float], deltas: Sequence[Sequence[float]],
                 threshold: float, pairs: Mapping[tuple[int, int], Sequence[float]]) -> None:
        self.base, self.deltas, self.threshold = list(base), [list(d) for d in deltas], \
            threshold
        self.pairs = {key: list(row) for key, row in pairs.items()}

    def logits(self, subset: Sequence[int]) -> list[float]:
        out = list(self.base)
        ordered = sorted(subset)
        for k, j in enumerate(ordered):
            rows = [self.deltas[j]]
            rows += [self.pairs[(j, m)] for m in ordered[k + 1:] if (j, m) in self.pairs]
            for row in rows:
                for i in range(len(out)):
                    out[i] += row[i]
        return out

    def works(self, subset: Sequence[int]) -> bool:
        return all(v >= self.threshold for v in self.logits(subset))


def cheapest(costs: Sequence[float], base: Sequence[float], deltas: Sequence[Sequence[float]],
             threshold: float, clock: BudgetClock, max_subsets: int = MAX_SUBSETS,
             progress: Progress | None = None,
             pairs: Mapping[tuple[int, int], Sequence[float]] | None = None
             ) -> SearchOutcome:
    """The search of the module docstring. ``costs[j]`` must be sorted ascending;
    ``base``/``deltas`` are the log-odds per step and per message, ``pairs`` the log-odds
    two messages ``j < l`` add together, ``threshold`` the log-odds a step needs."""
    scores = _Scores(base, deltas, threshold, pairs or {})
    k = len(costs)
    total = 2 ** k
    heap: list[tuple[float, int, tuple[int, ...]]] = [(0.0, 0, ())]
    examined = 0
    while heap:
        if examined >= max_subsets:
            bound = heap[0][0]
            return _greedy(scores, costs, clock, examined, bound, progress)
        cost, _, subset = heapq.heappop(heap)
        if not clock.charge():
            return SearchOutcome(Status.BUDGET_EXHAUSTED, None, "exact", examined, cost)
        examined += 1
        report(progress, "message sets", examined, min(total, max_subsets))
        if scores.works(subset):
            return SearchOutcome(Status.FOUND, subset, "exact", examined, cost)
        last = subset[-1] if subset else -1
        if last + 1 < k:
            heapq.heappush(heap, (cost + costs[last + 1], len(subset) + 1,
                                  (*subset, last + 1)))
            if subset:
                heapq.heappush(heap, (cost - costs[last] + costs[last + 1], len(subset),
                                      (*subset[:-1], last + 1)))
    return SearchOutcome(Status.NO_EXPLANATION, None, "exact", examined, None)


def _greedy(scores: _Scores, costs: Sequence[float], clock: BudgetClock, examined: int,
            bound: float, progress: Progress | None) -> SearchOutcome:
    chosen: list[int] = []
    current = scores.logits(())
    while not all(v >= scores.threshold for v in current):
        best: tuple[tuple[float, float], int] | None = None
        for j in range(len(costs)):
            if j in chosen:
                continue
            if not clock.charge():
                return SearchOutcome(Status.BUDGET_EXHAUSTED, None, "greedy", examined,
                                     bound)
            examined += 1
            after = scores.logits([*chosen, j])
            gain = sum(v >= scores.threshold for v in after) - \
                sum(v >= scores.threshold for v in current)
            lift = min(after) - min(current)
            if gain <= 0 and lift <= _EPS:
                continue
            rate = gain / costs[j] if costs[j] > 0 else float("inf")
            key = (rate, lift)
            if best is None or key > best[0]:
                best = (key, j)
        if best is None:
            return SearchOutcome(Status.NO_EXPLANATION, None, "greedy", examined, bound)
        chosen.append(best[1])
        current = scores.logits(chosen)
        report(progress, "greedy message sets", len(chosen))
    dropped = True
    while dropped:  # until no single message can go: with messages that hurt some steps,
        dropped = False  # dropping one can make another droppable
        for j in sorted(chosen, key=lambda x: (-costs[x], x)):
            rest = [x for x in chosen if x != j]
            examined += 1
            if scores.works(rest):
                chosen, dropped = rest, True
                break
    return SearchOutcome(Status.FOUND, tuple(sorted(chosen)), "greedy", examined, bound)
