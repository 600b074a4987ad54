"""The independent check of disjunctive policy landmarks (:mod:`xaip.summaries.disjunctive`).

Why apart: the search finds sets by label propagation over the policy graph, one
propagation per fact; a slip there (a wrong pruning, a label that is not a fixpoint) would
report sets that some run avoids, sets that are not minimal, or miss sets. This module
answers the same questions by plain depth-first reachability on the graph's edges, written
separately, with no labels:

* **every run passes a member**: a depth-first search from the initial state through
  states where no member holds reaches no goal state;
* **minimal**: each reported witness is a real goal-reaching run (starts at the initial
  state, follows edges of the graph, ends in a goal state) on which no member but the
  one it speaks for ever holds; so no proper subset is a disjunctive landmark;
* **complete** (every size up to the searched one): each fact of a reachable state is
  tested alone; for each fact ``a`` that is not a landmark alone, a run avoiding ``a`` is
  found and every fact ``b`` on it is tested with ``a`` (a ``b`` off that run cannot
  form a cut with ``a``: the run avoids both); for size 3 the same one level deeper.
  The qualifying sets must be exactly the reported ones.

What it shares with the search: the policy graph (rebuilt from the policy by
:func:`xaip.summaries.check.landmark_checks`, not the summary's), nothing else. Every
depth-first search charges the checker's clock one node per graph state;
:class:`~xaip.planning.landmarks.BudgetExhausted` propagates to the caller.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from xaip.planning.mdp import PolicyGraph
from xaip.planning.mdp.budgets import require
from xaip.planning.task import State, bits
from xaip.runtime.budget import BudgetClock
from xaip.summaries.disjunctive import DisjunctiveSet


class _Walker:
    """Depth-first reachability on a policy graph, avoiding states with given facts."""

    def __init__(self, graph: PolicyGraph, clock: BudgetClock | None) -> None:
        self.init = graph.init
        self.goals = graph.goal_states
        self.clock = clock
        self.size = len(graph.states)
        self.next: dict[State, list[State]] = {}
        self.pairs: set[tuple[State, State]] = set()
        for edge in graph.edges:
            self.next.setdefault(edge.source, []).append(edge.target)
            self.pairs.add((edge.source, edge.target))

    def run_avoiding(self, facts: Iterable[int]) -> list[State] | None:
        """Some goal-reaching run on which none of ``facts`` holds, or ``None``."""
        if self.clock is not None:
            require(self.clock, self.size, "the check of the disjunctive landmarks")
        mask = 0
        for f in facts:
            mask |= 1 << f
        if self.init & mask:
            return None
        path = [self.init]
        branches = [iter(self.next.get(self.init, ()))]
        visited = {self.init}
        while path:
            if path[-1] in self.goals:
                return path
            step = next(branches[-1], None)
            if step is None:
                path.pop()
                branches.pop()
            elif step not in visited and not step & mask:
                visited.add(step)
                path.append(step)
                branches.append(iter(self.next.get(step, ())))
        return None

    def is_run(self, states: tuple[State, ...]) -> bool:
        return (bool(states) and states[0] == self.init and states[-1] in self.goals
                and all((s, t) in self.pairs for s, t in itertools.pairwise(states)))


def check_disjunctive(graph: PolicyGraph, found: DisjunctiveSet,
                      clock: BudgetClock | None = None) -> list[str]:
    """The problems with ``found`` on ``graph`` (an empty list: confirmed); see the module
    docstring. Raises :class:`~xaip.planning.landmarks.BudgetExhausted` with the clock."""
    if found.size == 0:
        return [] if not found.landmarks else ["sets reported with the search switched off"]
    walk = _Walker(graph, clock)
    problems: list[str] = []
    for d in found.landmarks:
        named = list(d.facts)
        if walk.run_avoiding(named) is not None:
            problems.append(f"some goal-reaching run avoids every fact of {named}")
        if len(d.witnesses) != len(d.facts):
            problems.append(f"{named}: {len(d.witnesses)} witnesses for {len(d.facts)} facts")
            continue
        for f, run in zip(d.facts, d.witnesses, strict=True):
            others = {g for g in d.facts if g != f}
            if not walk.is_run(run) or any(s >> g & 1 for s in run for g in others):
                problems.append(f"{named}: the witness for fact {f} is not a goal-reaching "
                                "run avoiding the other members")
    if not graph.goal_states:
        expected: set[tuple[int, ...]] = set()
    else:
        expected = _all_sets(walk, graph, found.size)
    if expected != found.sets():
        missing = sorted(expected - found.sets())
        extra = sorted(found.sets() - expected)
        problems.append(f"the disjunctive landmarks differ from the brute force: "
                        f"{len(missing)} missing (e.g. {missing[:2]}), {len(extra)} extra "
                        f"(e.g. {extra[:2]})")
    return problems


def _all_sets(walk: _Walker, graph: PolicyGraph, size: int) -> set[tuple[int, ...]]:
    """Every minimal cut of 2..``size`` facts, by depth-first search alone."""
    seen = 0
    for state in graph.states:
        seen |= state
    facts = list(bits(seen))
    free = {f: run for f in facts if (run := walk.run_avoiding([f])) is not None}
    cuts: set[tuple[int, ...]] = set()
    open_pairs: dict[tuple[int, int], list[State]] = {}
    for a, run in free.items():
        on_run = 0
        for s in run:
            on_run |= s
        for b in bits(on_run):
            if b == a or b not in free:
                continue
            pair = (min(a, b), max(a, b))
            if pair in cuts or pair in open_pairs:
                continue
            other = walk.run_avoiding(pair)
            if other is None:
                cuts.add(pair)
            else:
                open_pairs[pair] = other
    if size < 3:
        return cuts
    triples: set[tuple[int, ...]] = set()
    for a, b in itertools.combinations(sorted(free), 2):
        if (a, b) in cuts:
            continue
        run = open_pairs.get((a, b))
        if run is None:  # b is off a's run, which therefore avoids both
            run = free[a] if not any(s >> b & 1 for s in free[a]) else walk.run_avoiding((a, b))
        if run is None:  # cannot happen: a pair that is no cut has a run
            continue
        on_run = 0
        for s in run:
            on_run |= s
        for c in bits(on_run):
            if c in (a, b) or c not in free:
                continue
            triple = tuple(sorted((a, b, c)))
            if triple in triples or any(p in cuts for p in itertools.combinations(triple, 2)):
                continue
            if walk.run_avoiding(triple) is None:
                triples.add(triple)
    return cuts | triples


__all__ = ["check_disjunctive"]
