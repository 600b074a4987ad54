"""Wrap a Gymnasium-style environment with a state setter as a :class:`Simulator`.

Why duck typing and no dependency: capability discovery only needs ``reset``, ``step`` and a
way to save and restore the environment's state (``get_state``/``set_state``, or ALE-style
``clone_state``/``restore_state``). Requiring the ``gymnasium`` package for that would tie
xaip to one framework version; any object with these methods works, including old-style
``gym`` environments whose ``step`` returns four values.

The wrapped simulator's states are :class:`GymState` values: the environment's snapshot made
hashable by ``freeze`` (identity by default; e.g. ``bytes`` of a RAM array) plus whether the
episode has terminated. ``step`` restores the snapshot, steps the environment and reads the
new snapshot, so it is pure as far as callers can see.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from xaip.agents.png import pixels_to_bytes, write_png
from xaip.errors import InputError


class GymState(NamedTuple):
    """A state of a wrapped environment: its (hashable) snapshot and the termination flag."""

    snapshot: Hashable
    terminated: bool = False


def _find(env: Any, names: Sequence[str]) -> Callable[..., Any] | None:
    for holder in (env, getattr(env, "unwrapped", None)):
        if holder is None:
            continue
        for name in names:
            method = getattr(holder, name, None)
            if callable(method):
                return method
    return None


def _identity(value: Any) -> Any:
    return value


class GymSimulator:
    """A :class:`~xaip.agents.simulator.Simulator` over a Gymnasium-style environment.

    ``action_names`` names the discrete actions (default ``"0"``, ``"1"``, ... from
    ``env.action_space.n``); ``step`` maps a name to its index. ``is_goal`` decides which
    states count as solved (default: the episode terminated). ``get_state``/``set_state``
    default to the environment's own methods of those names (or ``clone_state`` /
    ``restore_state``), looked up on the environment and on ``env.unwrapped``.
    """

    def __init__(
        self,
        env: Any,
        *,
        action_names: Sequence[str] | None = None,
        get_state: Callable[[], Any] | None = None,
        set_state: Callable[[Any], Any] | None = None,
        freeze: Callable[[Any], Hashable] = _identity,
        thaw: Callable[[Any], Any] = _identity,
        is_goal: Callable[[GymState], bool] | None = None,
    ) -> None:
        self.env = env
        getter = get_state or _find(env, ("get_state", "clone_state", "cloneState"))
        setter = set_state or _find(env, ("set_state", "restore_state", "restoreState"))
        if getter is None or setter is None:
            raise InputError(
                "the environment has no state getter and setter (get_state/set_state or "
                "clone_state/restore_state); pass get_state= and set_state= explicitly"
            )
        self._get, self._set = getter, setter
        self._freeze, self._thaw = freeze, thaw
        if action_names is None:
            space = getattr(env, "action_space", None)
            n = getattr(space, "n", None)
            if n is None:
                raise InputError(
                    "cannot list the actions: the environment's action_space has no 'n' "
                    "(only discrete action spaces are supported); pass action_names="
                )
            action_names = [str(i) for i in range(int(n))]
        self.action_names = tuple(action_names)
        if len(set(self.action_names)) != len(self.action_names):
            raise InputError("action names must be distinct")
        self._index = {name: i for i, name in enumerate(self.action_names)}
        self._is_goal = is_goal
        self._current: GymState | None = None

    def _snapshot(self, terminated: bool) -> GymState:
        frozen = self._freeze(self._get())
        try:
            hash(frozen)
        except TypeError:
            raise InputError(
                f"environment states of type {type(frozen).__name__} are not hashable; "
                "pass freeze= (e.g. bytes or tuple) and thaw= to convert them"
            ) from None
        return GymState(frozen, terminated)

    def reset(self, seed: int | None = None) -> GymState:
        self.env.reset(seed=seed)
        self._current = self._snapshot(False)
        return self._current

    def get_state(self) -> GymState:
        if self._current is None:
            return self.reset()
        return self._current

    def set_state(self, state: GymState) -> None:
        self._set(self._thaw(state.snapshot))
        self._current = state

    def actions(self, state: GymState) -> tuple[str, ...]:
        return () if state.terminated else self.action_names

    def step(self, state: GymState, action: str) -> GymState:
        index = self._index.get(action)
        if index is None:
            raise InputError(f"unknown action '{action}'; actions: {', '.join(self.action_names)}")
        if state.terminated:
            return state
        self._set(self._thaw(state.snapshot))
        result = self.env.step(index)
        # Gymnasium: (obs, reward, terminated, truncated, info); old gym: (obs, reward, done,
        # info). Either way the third value ends the episode.
        if len(result) not in (4, 5):
            raise InputError(f"env.step returned {len(result)} values, expected 4 or 5")
        return self._snapshot(bool(result[2]))

    def is_goal(self, state: GymState) -> bool:
        if self._is_goal is not None:
            return self._is_goal(state)
        return state.terminated

    def _render(self, state: GymState) -> Any:
        self._set(self._thaw(state.snapshot))
        return self.env.render()

    def render_text(self, state: GymState) -> str:
        frame = self._render(state)
        if isinstance(frame, str):
            return frame
        return f"{state.snapshot!r}" + (" (terminated)" if state.terminated else "")

    def render_png(self, state: GymState, path: str | Path) -> None:
        frame = self._render(state)
        if frame is None or isinstance(frame, str):
            raise InputError(
                "the environment does not render images; create it with render_mode='rgb_array'"
            )
        pixels = frame.tolist() if hasattr(frame, "tolist") else frame
        width, height, rgb = pixels_to_bytes(pixels)
        write_png(path, width, height, rgb)
