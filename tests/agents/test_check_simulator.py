"""check_simulator on every registered game and the Gym adapter, and on broken simulators
(each broken promise is caught)."""

from __future__ import annotations

from typing import Any

import pytest

from xaip.agents.check import SimulatorCheckError, check_simulator
from xaip.agents.gym import GymSimulator
from xaip.vocab.registry import game_names, get_game


@pytest.mark.parametrize("game", game_names())
def test_every_registered_game_passes(game: str) -> None:
    spec = get_game(game)
    report = check_simulator(spec.make(4, 5, 0), vocabulary=spec.vocabulary(), png=True)
    assert report.states > 1 and report.transitions > 0
    assert report.abstracted == report.states


class Counter:
    """A tiny Gymnasium-style environment: a counter from 0 to 3."""

    def __init__(self) -> None:
        self.value = 0

    def reset(self, seed: int | None = None) -> tuple[int, dict[str, Any]]:
        self.value = 0
        return 0, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        self.value = max(0, min(3, self.value + (1 if action == 1 else -1)))
        return self.value, 0.0, self.value == 3, False, {}

    def get_state(self) -> int:
        return self.value

    def set_state(self, value: int) -> None:
        self.value = value

    def render(self) -> str:
        return f"counter {self.value}"


def test_the_gym_adapter_passes() -> None:
    report = check_simulator(GymSimulator(Counter(), action_names=("down", "up")))
    assert report.states >= 3


class Broken:
    """A line world whose promises can be broken one at a time."""

    def __init__(self, flaw: str) -> None:
        self.flaw = flaw
        self.state = 0
        self.calls = 0

    def reset(self, seed: int | None = None) -> int:
        self.state = 0
        return 0

    def get_state(self) -> int:
        return self.state + (1 if self.flaw == "restore" else 0)

    def set_state(self, state: int) -> None:
        self.state = state

    def actions(self, state: int) -> tuple[str, ...]:
        return ("left", "right", "jump") if self.flaw == "actions" else ("left", "right")

    def step(self, state: int, action: str) -> int:
        self.calls += 1
        if action == "jump":
            raise KeyError(action)
        out = state + (1 if action == "right" else -1)
        if self.flaw == "random":
            out += self.calls % 2
        return out

    def is_goal(self, state: int) -> bool:
        return state == 3

    def render_text(self, state: int) -> str:
        return str(state)


@pytest.mark.parametrize(("flaw", "message"), [
    ("restore", "set_state then get_state"),
    ("actions", "raised KeyError"),
    ("random", "not deterministic"),
])
def test_each_broken_promise_is_caught(flaw: str, message: str) -> None:
    with pytest.raises(SimulatorCheckError, match=message):
        check_simulator(Broken(flaw))


def test_a_sound_line_world_passes() -> None:
    assert check_simulator(Broken("none")).states > 1
