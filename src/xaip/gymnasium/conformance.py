"""Can xaip use this environment? A ``check_env`` for the adapter, in the manner of
``gymnasium.utils.env_checker.check_env``.

Why: the explainers step the environment from thousands of restored states and trust that
"action ``a`` in state ``s``" always has the same outcome. An environment that breaks this
(continuous actions, sticky actions, a restore that misses part of the state) would give
wrong explanations quietly; the check finds it first and says so in one line
(:class:`~xaip.errors.InputError`, exit 2 on the command line).

What is checked, on a seeded random walk of ``steps`` actions:

1. the action space is discrete and ``reset``/``step`` return what Gymnasium specifies;
2. a restore strategy exists (:mod:`xaip.gymnasium.restore`) and snapshots are hashable;
3. restoring is exact: a snapshot taken after restoring a state equals the state;
4. restoring is deterministic: every action tried from a restored state -- restored again
   after visiting another state in between -- gives the same successor, reward and
   termination each time (``repeats`` times).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xaip.errors import InputError
from xaip.gymnasium.adapter import GymAdapter, GymState, Transition
from xaip.runtime.progress import report


@dataclass(frozen=True)
class ConformanceReport:
    """What :func:`check_env` confirmed: the environment, its actions, how states are
    restored, and how many states, transitions and replays were compared."""

    env: str
    actions: tuple[str, ...]
    restore: str
    states: int
    transitions: int
    repeats: int

    def to_dict(self) -> dict[str, Any]:
        return {"status": "found", "conforms": True, "env": self.env,
                "actions": list(self.actions), "restore": self.restore,
                "states": self.states, "transitions": self.transitions,
                "repeats": self.repeats}

    def text(self) -> str:
        return (f"{self.env}: usable by xaip. {len(self.actions)} actions "
                f"({', '.join(self.actions)}); states restored by {self.restore}; "
                f"{self.transitions} transitions from {self.states} states each gave the "
                f"same outcome {self.repeats} times.")


def _same(first: Transition, second: Transition) -> bool:
    return (first.state == second.state and first.reward == second.reward
            and first.terminated == second.terminated)


def check_env(env: Any, *, steps: int = 60, repeats: int = 3, seed: int = 0,
              restore: str = "auto", action_names: Sequence[str] | None = None
              ) -> ConformanceReport:
    """Check that ``env`` (or a :class:`GymAdapter` on it) can be used by xaip; raise one
    :class:`~xaip.errors.InputError` line naming the first problem."""
    if steps < 1 or repeats < 2:
        raise InputError("check_env needs steps >= 1 and repeats >= 2")
    adapter = env if isinstance(env, GymAdapter) else GymAdapter(
        env, action_names=action_names, restore=restore, seed=seed)
    name = adapter.name
    start = adapter.reset(seed)
    rng = random.Random(seed)
    # A seeded random walk (back to the start after an episode ends). Every visit is kept:
    # equal states reached along different paths must behave alike too (a replayed
    # environment may carry a random generator along its path; an emulator may hide state
    # outside the RAM that identifies it).
    visits: dict[GymState, list[GymState]] = {start: [start]}
    state = start
    for _ in range(steps):
        if state.terminated:
            state = start
        state = adapter.step(state, adapter.actions[rng.randrange(len(adapter.actions))]).state
        group = visits.setdefault(state, [])
        if len(group) < repeats and all(state.snapshot is not s.snapshot for s in group):
            group.append(state)
    states = list(visits)
    transitions = 0
    for number, state in enumerate(states):
        report(None, "check-env", number, len(states), f"{transitions} transitions compared")
        adapter.restore(state)
        now = adapter.current_snapshot()  # None for replay, which checks every replay
        if now is not None and now != state.snapshot:
            raise InputError(f"{name}: restoring a saved state does not give it back (the "
                             f"snapshot read after restoring differs; restore: "
                             f"{adapter.restore_kind})")
        if state.terminated:
            continue
        for action in adapter.actions:
            first = adapter.step(state, action)
            tries = [visits[state][k % len(visits[state])] for k in range(1, repeats)]
            for again in tries:
                other = states[rng.randrange(len(states))]
                if not other.terminated:  # visit another state in between
                    adapter.step(other, adapter.actions[rng.randrange(len(adapter.actions))])
                if not _same(first, adapter.step(again, action)):
                    raise InputError(
                        f"{name}: not deterministic from a restored state: action "
                        f"{action!r} gave two different outcomes (restore: "
                        f"{adapter.restore_kind}); xaip needs the same outcome every time "
                        "(turn off sticky actions or slipperiness, e.g. "
                        "repeat_action_probability=0.0 or is_slippery=False)")
            transitions += 1
    return ConformanceReport(name, adapter.actions, adapter.restore_kind, len(states),
                             transitions, repeats)
