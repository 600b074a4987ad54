"""A Gymnasium environment as a :class:`~xaip.agents.simulator.Simulator` (for capability
discovery).

Why a thin view: resetting, stepping and restoring the environment is the job of the one
adapter, :class:`xaip.gymnasium.GymAdapter`, which "why not my plan?"
(:class:`xaip.concepts.gym.GymBlackBox`) uses too, with the same :class:`GymState` values.
This class only adds the simulator protocol: pure ``step`` from any state, no actions in a
terminated state, and the goal test (default: the episode terminated).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any

from xaip.agents.png import pixels_to_bytes, write_png
from xaip.errors import InputError
from xaip.gymnasium.adapter import GymAdapter, GymState
from xaip.gymnasium.restore import _identity

__all__ = ["GymSimulator", "GymState"]


class GymSimulator:
    """A :class:`~xaip.agents.simulator.Simulator` over a Gymnasium-style environment.

    ``env`` is the environment or a :class:`~xaip.gymnasium.GymAdapter` already built on
    it (then the other adapter options are ignored). ``action_names``, ``restore``,
    ``seed``, ``get_state``/``set_state`` and ``freeze``/``thaw`` are the adapter's.
    ``is_goal`` decides which states count as solved (default: the episode terminated).
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
        restore: str = "auto",
        seed: int | None = 0,
    ) -> None:
        self.adapter = env if isinstance(env, GymAdapter) else GymAdapter(
            env, action_names=action_names, restore=restore, seed=seed, get_state=get_state,
            set_state=set_state, freeze=freeze, thaw=thaw)
        self.env = self.adapter.env
        self.action_names = self.adapter.actions
        self._is_goal = is_goal
        self._current: GymState | None = None

    def reset(self, seed: int | None = None) -> GymState:
        self._current = self.adapter.reset(seed)
        return self._current

    def get_state(self) -> GymState:
        if self._current is None:
            return self.reset()
        return self._current

    def set_state(self, state: GymState) -> None:
        self.adapter.restore(state)
        self._current = state

    def actions(self, state: GymState) -> tuple[str, ...]:
        return () if state.terminated else self.action_names

    def step(self, state: GymState, action: str) -> GymState:
        return self.adapter.step(state, action).state

    def is_goal(self, state: GymState) -> bool:
        if self._is_goal is not None:
            return self._is_goal(state)
        return state.terminated

    def render_text(self, state: GymState) -> str:
        frame = self.adapter.render(state)
        if isinstance(frame, str):
            return frame
        return f"{state.snapshot!r}" + (" (terminated)" if state.terminated else "")

    def render_png(self, state: GymState, path: str | Path) -> None:
        frame = self.adapter.render(state)
        if frame is None or isinstance(frame, str):
            raise InputError(
                "the environment does not render images; create it with render_mode='rgb_array'"
            )
        pixels = frame.tolist() if hasattr(frame, "tolist") else frame
        width, height, rgb = pixels_to_bytes(pixels)
        write_png(path, width, height, rgb)
