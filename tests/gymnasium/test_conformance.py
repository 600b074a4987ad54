"""check_env and the restore strategies on stock Gymnasium environments (and on made-up
ones that break the rules), through the one adapter."""

from __future__ import annotations

import random
from typing import Any

import pytest

from xaip.agents.gym import GymSimulator
from xaip.concepts.gym import GymBlackBox
from xaip.concepts.simulator import INVALID
from xaip.errors import InputError
from xaip.gymnasium import GymAdapter, GymState, check_env, state_key

gymnasium = pytest.importorskip("gymnasium")


def make(env_id: str, **options: Any) -> Any:
    if env_id.startswith("ALE/"):
        import ale_py

        gymnasium.register_envs(ale_py)
    return gymnasium.make(env_id, **options)


@pytest.mark.parametrize(("env_id", "options", "actions"), [
    ("FrozenLake-v1", {"is_slippery": False}, ("left", "down", "right", "up")),
    ("CliffWalking-v1", {}, ("up", "right", "down", "left")),
    ("Taxi-v3", {}, ("south", "north", "east", "west", "pickup", "dropoff")),
])
def test_toy_text_envs_restore_by_their_state(env_id: str, options: dict[str, Any],
                                              actions: tuple[str, ...]) -> None:
    report = check_env(make(env_id, **options), steps=40)
    assert report.restore == "attribute" and report.actions == actions
    assert report.transitions > 0 and report.to_dict()["conforms"] is True


def test_montezuma_restores_by_ale_snapshots() -> None:
    env = make("ALE/MontezumaRevenge-v5", repeat_action_probability=0.0)
    report = check_env(env, steps=6, repeats=2)
    assert report.restore == "ale" and report.actions[:3] == ("noop", "fire", "up")
    adapter = GymAdapter(env)
    start = adapter.reset()
    after = adapter.step(start, "right").state
    assert isinstance(state_key(after), bytes) and len(state_key(after)) == 128
    assert adapter.step(start, "right").state == after  # restored, stepped again: the same


def test_envs_xaip_cannot_use_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="discrete action space.*Box"):
        check_env(make("Pendulum-v1"))
    with pytest.raises(InputError, match="not deterministic.*is_slippery"):
        check_env(make("FrozenLake-v1", is_slippery=True))
    with pytest.raises(InputError, match="not deterministic"):
        check_env(make("CliffWalking-v1", is_slippery=True))
    with pytest.raises(InputError, match="not deterministic.*repeat_action_probability"):
        check_env(make("ALE/MontezumaRevenge-v5"), steps=8)  # sticky actions
    # replayed, a slippery lake is reproducible along one path, but equal states reached
    # along different paths behave differently: caught too
    with pytest.raises(InputError, match="not deterministic.*replay"):
        check_env(GymAdapter(make("FrozenLake-v1", is_slippery=True), restore="replay"))
    with pytest.raises(InputError, match="unknown restore strategy"):
        GymAdapter(make("Taxi-v3"), restore="magic")
    with pytest.raises(InputError, match="no clone_state"):
        GymAdapter(make("Taxi-v3"), restore="ale")


def test_replay_is_the_fallback_and_agrees_with_the_envs_own_restore() -> None:
    """CartPole has no state methods: replay from the seeded reset. FrozenLake forced to
    replay must give exactly what its own state restore gives."""
    cartpole = GymAdapter(make("CartPole-v1"))
    assert cartpole.restore_kind == "replay"
    check_env(cartpole, steps=30)
    own = GymAdapter(make("FrozenLake-v1", is_slippery=False))
    replayed = GymAdapter(make("FrozenLake-v1", is_slippery=False), restore="replay")
    rng = random.Random(3)
    states = [(own.reset(), replayed.reset())]
    for _ in range(200):
        a, b = states[rng.randrange(len(states))]
        action = own.actions[rng.randrange(4)]
        x, y = own.step(a, action), replayed.step(b, action)
        assert state_key(x.state) == state_key(y.state)
        assert (x.reward, x.terminated) == (y.reward, y.terminated)
        states.append((x.state, y.state))


class Coin:
    """An environment whose reset ignores the seed: replay cannot restore it."""

    class Space:
        n = 2

    action_space = Space()

    def __init__(self) -> None:
        self.rng = random.Random()
        self.x = 0

    def reset(self, seed: int | None = None) -> tuple[int, dict[str, Any]]:
        self.x = self.rng.randrange(1000)
        return self.x, {}

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        self.x += action
        return self.x, 0.0, False, False, {}


def test_replay_of_a_non_deterministic_env_fails_loudly() -> None:
    adapter = GymAdapter(Coin())
    assert adapter.restore_kind == "replay"
    start = adapter.reset()
    one = adapter.step(start, "1").state
    adapter.reset()  # the environment is elsewhere now; restoring must replay
    with pytest.raises(InputError, match="not deterministic: replaying"):
        adapter.step(one, "1")


def test_discovery_and_why_not_share_the_adapter_and_the_state_type() -> None:
    adapter = GymAdapter(make("FrozenLake-v1", is_slippery=False))
    sim = GymSimulator(adapter, is_goal=lambda s: state_key(s) == 15)
    box = GymBlackBox(adapter, is_goal=lambda s: state_key(s) == 15)
    start = sim.reset()
    assert start == box.initial() == GymState(0, False)
    down = sim.step(start, "down")
    assert box.step(start, "down") == (down, 0.0)  # the same successor; reward 0 is cost 0
    assert box.step(start, "left") is INVALID  # into the edge: unchanged, a failure
    hole = sim.step(down, "right")  # (1, 1) is a hole: the episode ends outside the goal
    assert hole.terminated and not sim.is_goal(hole) and box.step(down, "right") is INVALID
