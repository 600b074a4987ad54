"""Learning the whole local symbolic model of a black box from samples (book 7.1-7.3, V03).

Why intersection and union: in a STRIPS model over the user's concepts an action's
precondition holds in every state where it succeeds, so the intersection of the concept
sets of the sampled success states is the weakest precondition the samples allow, and it
only shrinks toward the true one as samples grow (an over-approximation: a superset of
literals). Effects are the concept changes observed; when a concept changes in one sample
and not in another that agreed on it before, no unconditional effect fits, and the action
is reported as not consistent (a conditional effect or a concept the vocabulary lacks)
with the two witness states.

The region: states at the end of random walks of 0..15 steps from ``starts`` (default),
drawn uniformly from the states within ``radius`` steps, or, with ``samples=None``,
every state within ``radius`` (default 15) steps -- the exhaustive limit for enumerable
simulators such as Sokoban. Concepts are read with the vocabulary's classifiers
(``observe``, their simulated noise included, seeded), as a user's labellers would.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable, Sequence

from xaip.concepts.simulator import BlackBox, Invalid, random_walks
from xaip.concepts.vocabulary import Vocabulary
from xaip.errors import InputError
from xaip.localmodel.pddl import declares_costs, domain_text, problem_text
from xaip.localmodel.results import ActionModel, EffectConflict, LocalModel
from xaip.runtime import Budget, Status
from xaip.runtime.budget import UNLIMITED, BudgetClock
from xaip.runtime.progress import Progress, report

WALK_DEPTH = 15
MIN_SUPPORT = 10
#: An exhaustive region larger than this is refused (use sampling instead).
MAX_REGION = 200_000


def _within(sim: BlackBox, starts: Sequence[Hashable], depth: int,
            clock: BudgetClock) -> tuple[list[Hashable], bool]:
    """Every state within ``depth`` steps of ``starts`` (breadth first, deterministic
    order) and whether the enumeration finished within the budget (one node per state
    expanded)."""
    seen = dict.fromkeys(starts)
    frontier = list(seen)
    for _ in range(depth):
        following = []
        for state in frontier:
            if not clock.charge():
                return list(seen), False
            for action in sim.actions:
                outcome = sim.step(state, action)
                if not isinstance(outcome, Invalid) and outcome[0] not in seen:
                    seen[outcome[0]] = None
                    following.append(outcome[0])
        if len(seen) > MAX_REGION:
            raise InputError(f"more than {MAX_REGION} states within {depth} steps: "
                             "give --samples N to sample the region")
        if not following:
            break
        frontier = following
    return list(seen), True


def region_states(sim: BlackBox, starts: Sequence[Hashable], samples: int | None,
                  radius: int | None, seed: int,
                  clock: BudgetClock) -> tuple[list[Hashable], str, bool]:
    """The learner's states (with repeats when sampled), the region's name, and whether
    drawing them finished within the budget."""
    if samples is None:
        states, done = _within(sim, starts, WALK_DEPTH if radius is None else radius, clock)
        return states, "all", done
    if radius is None:
        return random_walks(sim, starts, samples, seed, WALK_DEPTH), "walks", True
    region, done = _within(sim, starts, radius, clock)
    rng = random.Random(seed)  # uniform with replacement, as the paper's bounded region
    return [region[rng.randrange(len(region))] for _ in range(samples)], "radius", done


class _Tally:
    """Running statistics of one action over the samples (masks are concept bit sets)."""

    def __init__(self) -> None:
        self.tried = 0
        self.pre = -1  # all bits: the intersection of nothing
        self.add = 0
        self.delete = 0
        self.costs: list[float] = []
        self.transitions: list[tuple[int, int, Hashable]] = []
        self.failures: list[int] = []


def learn_local_model(sim: BlackBox, vocabulary: Vocabulary, starts: Sequence[Hashable],
                      samples: int | None = 1000, radius: int | None = None, seed: int = 0,
                      budget: Budget = UNLIMITED, progress: Progress | None = None,
                      min_support: int = MIN_SUPPORT) -> LocalModel:
    """Learn every action's precondition, effects and cost over the local region.

    ``starts`` are the states the region grows from (the plan's and the foil's states);
    ``samples`` the number of states drawn (``None``: every state within ``radius``);
    ``budget`` counts one node per state probed, and one per state expanded while
    enumerating a region (``samples=None`` or ``radius``). The result is unverified; the
    family's checker (:func:`xaip.localmodel.check_local_model`) confirms it, and
    :func:`xaip.localmodel.learn_and_check` runs both.
    """
    began = time.perf_counter()
    if not starts:
        raise InputError("learn-local needs at least one start state")
    if samples is not None and samples < 1:
        raise InputError("samples must be at least 1")
    if radius is not None and radius < 0:
        raise InputError("radius must be at least 0")
    clock = budget.start()
    states, region, drawn = region_states(sim, starts, samples, radius, seed, clock)
    concepts = vocabulary.names
    rng = random.Random(seed * 7_919 + 101)
    labels: dict[Hashable, int] = {}

    def label(state: Hashable) -> int:
        if state not in labels:
            labels[state] = vocabulary.observe_mask(state, rng)
        return labels[state]

    tallies = {a: _Tally() for a in sim.actions}
    goal_mask, goal_states, probed = -1, 0, 0
    goal_seen: set[Hashable] = set()
    status = Status.FOUND if drawn else Status.BUDGET_EXHAUSTED
    for index, state in enumerate(states if drawn else ()):
        if not clock.charge():
            status = Status.BUDGET_EXHAUSTED
            break
        probed += 1
        if index % 50 == 0:
            report(progress, "sampling", index, len(states))
        before = label(state)
        for action in sim.actions:
            tally = tallies[action]
            tally.tried += 1
            outcome = sim.step(state, action)
            if isinstance(outcome, Invalid):
                tally.failures.append(before)
                continue
            after = label(outcome[0])
            tally.pre &= before
            tally.add |= after & ~before
            tally.delete |= before & ~after
            tally.costs.append(float(outcome[1]))
            tally.transitions.append((before, after, state))
            for seen in (state, outcome[0]):
                if seen not in goal_seen and sim.is_goal(seen):
                    goal_seen.add(seen)
                    goal_mask &= label(seen)
                    goal_states += 1
    report(progress, "sampling", probed, len(states))
    full = (1 << len(concepts)) - 1
    models = tuple(_model(a, tallies[a], vocabulary, min_support, full)
                   for a in sim.actions)
    initial = vocabulary.names_of(label(sim.initial()))
    goal = vocabulary.names_of(goal_mask & full) if goal_states else ()
    costs = declares_costs(models)
    return LocalModel(
        status=status, env=sim.name, actions=models, concepts=concepts, initial=initial,
        goal=goal, goal_states=goal_states, samples=probed,
        distinct_states=len(dict.fromkeys(states[:probed])), region=region, radius=radius,
        seed=seed, domain_pddl=domain_text(sim.name, concepts, models),
        problem_pddl=problem_text(sim.name, concepts, initial, goal, costs),
        seconds=time.perf_counter() - began,
        stats={"samples": probed, "simulator_steps": probed * len(sim.actions),
               "nodes": clock.nodes})


def _model(name: str, tally: _Tally, vocabulary: Vocabulary, min_support: int,
           full: int) -> ActionModel:
    successes = len(tally.transitions)
    if not successes:
        return ActionModel(name, tally.tried, 0, (), (), (), None, None,
                           unexplained_failures=0)
    pre = tally.pre & full
    conflicts = _conflicts(tally, vocabulary)
    weak = []
    for i, concept in enumerate(vocabulary.names):
        if not pre >> i & 1:
            continue
        rest = pre & ~(1 << i)
        needed = any(not f >> i & 1 and f & rest == rest for f in tally.failures)
        if successes < min_support or not needed:
            weak.append(concept)
    unexplained = sum(1 for f in tally.failures if f & pre == pre)
    return ActionModel(name, tally.tried, successes, vocabulary.names_of(pre),
                       vocabulary.names_of(tally.add), vocabulary.names_of(tally.delete),
                       min(tally.costs), max(tally.costs), conflicts, tuple(weak),
                       unexplained)


def _conflicts(tally: _Tally, vocabulary: Vocabulary) -> tuple[EffectConflict, ...]:
    out: list[EffectConflict] = []
    for i, concept in enumerate(vocabulary.names):
        bit = 1 << i
        for kind, was in (("add", 0), ("delete", bit)):
            changed = [s for b, a, s in tally.transitions if b & bit == was and a & bit != was]
            kept = [s for b, a, s in tally.transitions if b & bit == was and a & bit == was]
            if changed and kept:
                out.append(EffectConflict(concept, kind, len(changed), len(kept),
                                          changed[0], kept[0]))
        added = [s for b, a, s in tally.transitions if not b & bit and a & bit]
        deleted = [s for b, a, s in tally.transitions if b & bit and not a & bit]
        if added and deleted:  # flips both ways: no STRIPS effect (add wins) fits
            out.append(EffectConflict(concept, "toggle", len(added), len(deleted),
                                      added[0], deleted[0]))
    return tuple(out)
