"""Differential tests of the Gymnasium adapter and the environment-file pipeline on random
FrozenLake lakes and random Taxi episodes, against oracles written from the environments'
documented rules (:mod:`tests.differential.gymnasium_worlds`).

Each seed draws a world (two in three: a FrozenLake lake of 3 to 5 cells a side with random
holes; one in three: Taxi from a random reset), a random subset of its concepts, a restore
strategy (the environment's own state ``s``, or the replay fallback for half the lakes and
a quarter of the taxis) and a foil, writes an
environment file and runs it through :func:`xaip.gymnasium.vocabulary.load_env_file`.

The oracle knows only the rules and the black box's failure semantics (an action fails
when it changes nothing or ends the episode outside the goal; every action costs 1). It
compares

1. the adapter: random steps from random earlier states (restored) against the oracle's
   state number, episode end and reward;
2. why-not: the foil's outcome (the failing step and action, "does not reach the goal",
   costlier or not worse than the oracle's shortest plan), and for a failing action the
   set of concepts that are false where it fails and true in *every* reachable state
   where it succeeds (the definition of a missing precondition): an answer the checker
   verified must be in that set, "incomplete" only when it is empty; a right answer must
   not be refused by the checker (a wrong answer of the sampling search that the checker
   refuses is the system working: it is reported unverified, and counted).

A world whose goal cannot be reached has no agent plan; then only part 1 runs (agreement).
"""

from __future__ import annotations

import json
import random
import tempfile
from collections import deque
from collections.abc import Hashable
from functools import cache
from pathlib import Path
from typing import Any

from tests.differential.gymnasium_worlds import World, frozen_lake, taxi

CI_INSTANCES = 200
OUTCOMES: dict[str, int] = {}  # what the oracle saw, per kind (for campaign reports)


@cache
def _taxi_env() -> Any:
    import gymnasium

    return gymnasium.make("Taxi-v3")


def _taxi_start(seed: int) -> int:
    """The state Taxi resets to for ``seed`` (the one thing taken from the environment)."""
    return int(_taxi_env().reset(seed=seed)[0])


def _seen(kind: str) -> None:
    OUTCOMES[kind] = OUTCOMES.get(kind, 0) + 1


def _succeeds(world: World, state: Any, action: str) -> Any:
    """The black box's semantics: the successor, or None when the action fails."""
    if world.terminal(state):
        return None  # the episode is over
    after, ended, _ = world.move(state, action)
    if after == state or (ended and not world.is_goal(after)):
        return None
    return after


def _search(world: World) -> tuple[list[Hashable], list[str] | None]:
    """Every reachable state, and a shortest plan to the goal (None: unreachable)."""
    parent: dict[Hashable, tuple[Hashable, str] | None] = {world.start: None}
    frontier = deque([world.start])
    plan: list[str] | None = None
    while frontier:
        state = frontier.popleft()
        if plan is None and world.is_goal(state):
            plan = []
            at = state
            while parent[at] is not None:
                at, action = parent[at]  # type: ignore[misc]
                plan.append(action)
            plan.reverse()
        for action in world.actions:
            after = _succeeds(world, state, action)
            if after is not None and after not in parent:
                parent[after] = (state, action)
                frontier.append(after)
    return list(parent), plan


def _check_adapter(adapter: Any, world: World, rng: random.Random) -> str | None:
    known = [(adapter.initial(), world.start, False)]
    for _ in range(40):
        state, truth, ended = known[rng.randrange(len(known))]
        action = rng.choice(world.actions)
        move = adapter.step(state, action)
        if ended:
            if move.state != state:
                return f"a terminated state moved under {action}"
            continue
        after, stop, reward = world.move(truth, action)
        snapshot = move.state.snapshot
        got = snapshot if adapter.restore_kind == "attribute" else snapshot.key
        if (got, move.terminated, move.reward) != (world.key(after), stop, reward):
            return (f"{adapter.restore_kind}: {action} from {truth} gave state {got}, "
                    f"ended {move.terminated}, reward {move.reward}; the rules say "
                    f"{world.key(after)} {after}, {stop}, {reward}")
        known.append((move.state, after, stop))
    return None


def _foil(world: World, plan: list[str], rng: random.Random) -> list[str]:
    """A random walk, the plan with a detour (there and back), or the plan with two
    neighbouring actions swapped (often another shortest route, or a failure)."""
    kind = rng.random()
    if kind < 0.4 or not plan:
        return [rng.choice(world.actions) for _ in range(rng.randint(0, len(plan) + 3))]
    foil = list(plan)
    at = rng.randrange(len(plan))
    if kind < 0.7:
        there = rng.choice(tuple(world.opposite))
        foil[at:at] = [there, world.opposite[there]]
    elif len(plan) > 1:
        at = min(at, len(plan) - 2)
        foil[at], foil[at + 1] = foil[at + 1], foil[at]
    return foil


def _foil_outcome(world: World, foil: list[str]) -> tuple[str, int | None, str | None, Any]:
    state = world.start
    for index, action in enumerate(foil):
        after = _succeeds(world, state, action)
        if after is None:
            return "invalid", index, action, state
        state = after
    if not world.is_goal(state):
        return "invalid", len(foil), "reach-goal", state
    return "valid", None, None, state


def check(seed: int) -> str | None:
    from xaip.concepts import why_not
    from xaip.errors import InputError
    from xaip.gymnasium.vocabulary import black_box, load_env_file, why_not_vocabulary

    rng = random.Random(seed)
    world = taxi(rng, _taxi_start) if seed % 3 == 2 else frozen_lake(rng)
    names = rng.sample(sorted(world.concepts), rng.randint(2, min(8, len(world.concepts))))
    # replay on half the lakes and a quarter of the taxis (a replayed taxi restores by
    # replaying up to twenty actions per step: four times the time of the others)
    replay = seed % 12 == 11 if seed % 3 == 2 else seed % 2 == 1
    data = {**world.env, "restore": "replay" if replay else "attribute",
            "concepts": {n: world.concepts[n][0] for n in names}}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "world.json"
        path.write_text(json.dumps(data))
        spec = load_env_file(path, check=seed % 5 == 0)
    where = f"{world.env['env']} {json.dumps(world.env.get('make', world.env.get('seed')))}"
    problem = _check_adapter(spec.adapter, world, rng)
    if problem is not None:
        return f"{where}: {problem}"
    reachable, plan = _search(world)
    if plan is None:
        _seen("no plan (adapter only)")
        return None  # no agent plan: only the adapter is compared (see the docstring)
    foil = _foil(world, plan, rng)
    if foil == plan:  # a swap of two equal actions: the question makes no sense
        try:
            why_not(black_box(spec), plan, foil, why_not_vocabulary(spec), seed=seed)
        except InputError:
            _seen("foil is the plan (bad input)")
            return None
        return f"{where}: a foil equal to the plan was not refused"
    result = why_not(black_box(spec), plan, foil, why_not_vocabulary(spec), seed=seed)
    where += f", plan {plan}, foil {foil}"
    outcome, index, action, state = _foil_outcome(world, foil)
    if outcome == "valid":
        expected = "costlier" if len(foil) > len(plan) else "not_worse"
        _seen(expected)
        if result.foil_outcome != expected or not result.verified:
            return (f"{where}: foil valid with {len(foil)} steps vs {len(plan)}: expected "
                    f"{expected}, got {result.foil_outcome} (verified {result.verified})")
        return None
    if (result.foil_outcome, result.failed_step, result.action) != ("invalid", index, action):
        return (f"{where}: the foil fails at index {index} ({action}); xaip says "
                f"{result.foil_outcome} at {result.failed_step} ({result.action})")
    if action == "reach-goal":  # the paper's goal action: it succeeds in goal states only
        succeeding = [s for s in reachable if world.is_goal(s)]
    else:
        succeeding = [s for s in reachable if _succeeds(world, s, action) is not None]
    right = set()
    for name in names:
        test = world.concepts[name][1]
        for label, sign in ((name, True), (f"not-{name}", False)):
            if bool(test(state)) != sign and all(bool(test(s)) == sign for s in succeeding):
                right.add(label)
    _seen("fails, explained" if right else "fails, vocabulary incomplete")
    correct = not right if result.incomplete else \
        bool(result.concepts) and result.concepts[0] in right
    if result.verified and not correct:
        return f"{where}: verified {result.concepts or 'incomplete'} but the definition " \
               f"gives {sorted(right) or 'no concept'}"
    if not result.verified:
        if correct and result.status.finished:
            return f"{where}: the checker refused a right answer ({result.text})"
        # the sampling search may keep a concept that only unsampled states refute; the
        # checker catching it is the system working (the answer is reported unverified)
        _seen("search wrong, checker refused it")
    return None
