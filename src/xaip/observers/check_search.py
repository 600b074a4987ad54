"""The checker's tests of the book's definitions, and its own exhaustive search for a plan
that passes them (to confirm "cheapest" and "no plan").

* :func:`look` -- how one token sequence looks to the observer, recomputed in the checker's
  world (:mod:`.check_world`): belief sizes, goals left, |BPS| counted forward, the BPS
  listed (when small enough) and its distance extremes.
* :func:`failures` -- why a look fails its mode's test (Def. 15 j-legible, Def. 39
  k-ambiguous, Def. 19 m-similar, Def. 43 ℓ-diverse), empty when it passes.
* :func:`first_passing` -- a uniform-cost search of the checker's own over (true state,
  belief) for the goal modes and over (true state, token history) for the plan modes,
  each with exact duplicate detection: the cheapest plan within the bounds that passes, or
  ``None``. Every node is one charge of the checker's budget. It shares no code with the
  COPP search (:mod:`xaip.observers.copp`): states are atom sets, beliefs are updated by
  :meth:`World.update`, BPS sizes by :meth:`World.advance`.

Why a search and not the plan listing the checker used before: the number of plans grows
exponentially with the cost bound (1 971 555 plans for cost 12 on a 6×6 grid), while the
(state, belief) pairs the definitions depend on stay few; the goal modes' pairs are finite
even without a bound, so "no plan" is confirmed without one too.
"""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.explicable.distances import trace_distance, trace_of
from xaip.observers.check_world import AtomState, World
from xaip.observers.goals import Goal
from xaip.observers.sensors import Token

#: Distance extremes are computed only for BPSs up to this size (the pairwise work grows
#: quadratically), or up to a plan mode's own ``bps_cap`` when that is larger.
BPS_LISTED_LIMIT = 400
GOAL_MODES = ("legible-goal", "ambiguous", "secure-ambiguous")
PLAN_MODES = ("legible-plan", "diverse")


@dataclass(frozen=True)
class Look:
    """One token sequence as the observer sees it, recomputed by the checker."""

    tokens: tuple[Token, ...]
    goals: tuple[str, ...]
    layers: tuple[int, ...]
    count: int
    final: frozenset[AtomState]
    listing: tuple[tuple[AtomState, tuple[str, ...]], ...] | None
    low: float | None
    high: float | None


def _action_distance(a: Sequence[str], b: Sequence[str]) -> float:
    union = set(a) | set(b)
    return 0.0 if not union else 1.0 - len(set(a) & set(b)) / len(union)


def spread(world: World, plans: Sequence[tuple[AtomState, tuple[str, ...]]], distance: str
           ) -> tuple[float | None, float | None]:
    """Pairwise distance extremes; the action distance is recomputed here (1 − Jaccard of
    action-name sets), the others through :mod:`xaip.explicable.distances` on each plan's
    trace from its own start state."""
    if distance == "action":
        values = []
        for number, (a, b) in enumerate(itertools.combinations(plans, 2)):
            if number % 1024 == 0:
                world.tick()  # up to 80 000 pairs: read the clock on the way
            values.append(_action_distance(a[1], b[1]))
    else:
        from dataclasses import replace

        from xaip.planning.pddl.model import Atom

        task = world.problem.task
        traces = []
        for start, names in plans:
            atoms = [Atom(w[0], tuple(w[1:])) for w in (a.strip("()").split() for a in start)]
            base = replace(task, init=task.state_of(atoms)) if start != world.init else task
            traces.append(trace_of(base, world.problem.resolve(list(names)), prefix=True))
        values = []
        for number, (x, y) in enumerate(itertools.combinations(traces, 2)):
            if number % 256 == 0:
                world.tick()
            values.append(trace_distance(distance, x, y))
    return (min(values), max(values)) if values else (None, None)


def look(world: World, tokens: Sequence[Token], distance: str = "action",
         with_spread: bool = True, limit: int = BPS_LISTED_LIMIT) -> Look:
    """How ``tokens`` look to the observer; ``with_spread``: also list the BPS when it has
    at most ``limit`` members, and its distance extremes (only the plan modes and scores
    report them)."""
    layers = world.layers(tokens)
    count = sum(layers[-1].values())
    listing = low = high = None
    if with_spread and count <= limit:
        listing = tuple((s, n) for s, n, _ in world.listing(tokens, layers))
        low, high = spread(world, listing, distance)
    final = frozenset(layers[-1])
    return Look(tuple(tokens), world.goals_left(final), tuple(len(x) for x in layers), count,
                final, listing, low, high)


def failures(world: World, mode: str, params: Mapping[str, Any], seen: Look, reaches: bool,
             true: Goal, required: Sequence[str] | None = None) -> list[str]:
    """Why a plan ending where ``reaches`` says fails its mode's test (empty: it passes).
    ``required``: goals that must all stay in the final belief (fixed decoys, or the
    secure run's drawn goal set)."""
    out: list[str] = []
    goals = seen.goals
    if mode != "score" and not reaches:
        out.append(f"the plan does not reach the true goal '{true.name}'")
    if mode == "legible-goal" and len(goals) > int(params["j"]):
        out.append(f"{len(goals)} goals left, more than j = {params['j']}")
    if mode in ("ambiguous", "secure-ambiguous") and len(goals) < int(params["k"]):
        out.append(f"{len(goals)} goals left, fewer than k = {params['k']}")
    if required and not set(required) <= set(goals):
        out.append(f"goals {list(required)} not all in the final belief {list(goals)}")
    if mode in PLAN_MODES:
        cap = int(params.get("bps_cap", BPS_LISTED_LIMIT))
        if not all(world.holds(true, s) for s in seen.final):
            out.append("some plan of the BPS does not reach the true goal")
        if seen.count > cap:
            out.append(f"|BPS| {seen.count} is above the enumeration cap {cap}")
        elif mode == "legible-plan":
            if seen.count < int(params["m"]):
                out.append(f"|BPS| {seen.count} below m = {params['m']}")
            if seen.high is not None and seen.high > float(params["d"]) + 1e-9:
                out.append(f"BPS plans {seen.high:.3f} apart, more than d = {params['d']}")
        else:
            if seen.count < int(params["l"]):
                out.append(f"|BPS| {seen.count} below l = {params['l']}")
            if seen.low is not None and seen.low < float(params["d"]) - 1e-9:
                out.append(f"BPS plans only {seen.low:.3f} apart, less than d = {params['d']}")
    return out


class _Node:
    __slots__ = ("state", "cost", "depth", "names", "tokens", "belief", "counts")

    def __init__(self, state: AtomState, cost: int, depth: int, names: tuple[str, ...],
                 tokens: tuple[Token, ...], belief: frozenset[AtomState],
                 counts: dict[AtomState, int] | None) -> None:
        self.state, self.cost, self.depth = state, cost, depth
        self.names, self.tokens = names, tokens
        self.belief, self.counts = belief, counts


@dataclass(frozen=True)
class Passing:
    """A passing plan the checker found, and how many nodes it expanded."""

    names: tuple[str, ...] | None
    cost: int | None
    expanded: int


def first_passing(world: World, mode: str, params: Mapping[str, Any], true: Goal,
                  max_cost: float = math.inf, max_steps: float = math.inf,
                  required: Sequence[str] | None = None) -> Passing:
    """The cheapest plan from the real initial state, of cost at most ``max_cost`` and at
    most ``max_steps`` steps, that passes ``mode``'s test for the true goal ``true``
    (``names`` ``None``: none does). Uniform-cost, exact duplicate detection on (state,
    belief) -- or (state, tokens) for the plan modes, whose test reads the whole BPS --
    pruning a node only when one with the same key was expanded no costlier and no
    deeper."""
    history = mode in PLAN_MODES
    distance = str(params.get("distance", "action"))
    start = dict.fromkeys(world.starts, 1)
    root = _Node(world.init, 0, 0, (), (), world.starts, start if history else None)
    heap: list[tuple[int, int, int, _Node]] = [(0, 0, 0, root)] if max_cost >= 0 else []
    tie = itertools.count(1)
    closed: dict[Any, list[int]] = {}
    views: dict[tuple[Token, ...], bool] = {}
    expanded = 0
    while heap:
        _, _, _, node = heapq.heappop(heap)
        key = (node.state, node.tokens if history else node.belief)
        depths = closed.setdefault(key, [])
        if any(d <= node.depth for d in depths):
            continue
        depths.append(node.depth)
        world.charge()
        expanded += 1
        if world.holds(true, node.state) and _passes(world, mode, params, true, node,
                                                     required, distance, views):
            return Passing(node.names, node.cost, expanded)
        if node.depth >= max_steps:
            continue
        for step, nxt, token in world.moves(node.state):
            cost = node.cost + step.cost
            if cost > max_cost:
                continue
            tokens = (*node.tokens, token) if history else ()
            counts = None if node.counts is None else world.advance(node.counts, token)
            belief = (frozenset(counts) if counts is not None
                      else world.update(node.belief, token))
            child = _Node(nxt, cost, node.depth + 1, (*node.names, step.name), tokens,
                          belief, counts)
            heapq.heappush(heap, (cost, child.depth, next(tie), child))
    return Passing(None, None, expanded)


def _passes(world: World, mode: str, params: Mapping[str, Any], true: Goal, node: _Node,
            required: Sequence[str] | None, distance: str,
            views: dict[tuple[Token, ...], bool]) -> bool:
    """The mode's test on a node whose true state reaches the goal."""
    if mode not in PLAN_MODES:
        goals = world.goals_left(node.belief)
        if mode == "legible-goal":
            return len(goals) <= int(params["j"])
        if required and not set(required) <= set(goals):
            return False
        return len(goals) >= int(params["k"])
    found = views.get(node.tokens)
    if found is None:
        assert node.counts is not None
        count = sum(node.counts.values())
        cap = int(params.get("bps_cap", BPS_LISTED_LIMIT))
        low = int(params["m"] if mode == "legible-plan" else params["l"])
        # the cheap parts of the test first: the listing is only made for candidates
        if count > cap or count < low or not all(world.holds(true, s) for s in node.counts):
            found = False
        else:
            seen = look(world, node.tokens, distance, limit=cap)
            found = not failures(world, mode, params, seen, True, true)
        views[node.tokens] = found
    return found

