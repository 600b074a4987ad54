"""The Gymnasium-style adapter: rewards become costs, the paper's failure semantics, and
the explainers work through it."""

from __future__ import annotations

from typing import Any

import pytest

from xaip.concepts import INVALID, Concept, Vocabulary, run_trace, why_not
from xaip.concepts.gym import EnvState, GymBlackBox
from xaip.errors import InputError


class Space:
    n = 4


class Ledge:
    """Cells 0..6 on a ledge; ``left``/``right`` walk (reward -1), ``jump`` hops two cells
    (reward -5), ``wait`` does nothing; stepping left of 0 is a fall (episode over); 6 is
    the goal. A bare wall at 4 blocks walking right from 3 unless the player jumps."""

    action_space = Space()

    def __init__(self) -> None:
        self.x = 0

    def reset(self, seed: int | None = None) -> tuple[int, dict[str, Any]]:
        self.x = 0
        return self.x, {}

    def get_state(self) -> int:
        return self.x

    def set_state(self, x: int) -> None:
        self.x = x

    def step(self, action: int) -> tuple[int, float, bool, bool, dict[str, Any]]:
        if action == 0:    # left
            self.x -= 1
            if self.x < 0:
                return self.x, -1.0, True, False, {}
            return self.x, -1.0, False, False, {}
        if action == 1:    # right
            if self.x != 3:
                self.x = min(self.x + 1, 6)
            return self.x, -1.0, self.x == 6, False, {}
        if action == 2:    # jump
            self.x = min(self.x + 2, 6)
            return self.x, -5.0, self.x == 6, False, {}
        return self.x, -1.0, False, False, {}


def box() -> GymBlackBox:
    return GymBlackBox(Ledge(), name="ledge/cost", action_names=("left", "right", "jump",
                                                                  "wait"),
                       noop="wait", is_goal=lambda s: s.snapshot == 6)


def test_rewards_are_costs_and_failures_follow_the_paper() -> None:
    sim = box()
    start = sim.initial()
    assert start == EnvState(0, False)
    assert sim.step(start, "left") is INVALID           # a fall to death
    assert sim.step(start, "wait") == (start, 1.0)      # the no-op may change nothing
    assert sim.step(EnvState(3), "right") is INVALID    # no effect: a failure
    assert sim.step(start, "jump") == (EnvState(2), 5.0)
    trace = run_trace(sim, ["right", "right", "right", "jump", "right"])
    assert trace.valid and trace.cost == 9.0 and sim.is_goal(trace.final)


def test_cost_explanation_through_the_adapter() -> None:
    sim = box()
    vocab = Vocabulary((
        Concept("near-start", lambda s: s.snapshot < 2),
        Concept("before-wall", lambda s: s.snapshot == 3),
        Concept("always", lambda s: True),
    ))
    plan = ("right", "right", "right", "jump", "right")
    foil = ("jump", "right", "jump", "right")
    result = why_not(sim, plan, foil, vocab, seed=0)
    assert result.foil_outcome == "costlier" and result.verified
    assert sum(c.at_least for c in result.claims) > result.plan_cost


def test_an_env_without_state_methods_is_restored_by_replay() -> None:
    """Without get_state/set_state the one adapter replays action prefixes from a seeded
    reset; the black box behaves exactly as with the environment's own methods."""

    class Bare(Ledge):
        get_state = None  # type: ignore[assignment]
        set_state = None  # type: ignore[assignment]

    replayed = GymBlackBox(Bare(), name="ledge/cost", action_names=("left", "right", "jump",
                                                                     "wait"),
                           noop="wait", is_goal=lambda s: s.snapshot.key == 6)
    assert replayed.adapter.restore_kind == "replay"
    direct = box()
    plan = ["right", "right", "right", "jump", "right"]
    for actions in (plan, ["left"], ["right", "right", "right", "right"], ["jump", "wait"]):
        a, b = run_trace(replayed, actions), run_trace(direct, actions)
        assert a.failed_step == b.failed_step and a.costs == b.costs
        assert [s.snapshot.key for s in a.states] == [s.snapshot for s in b.states]


def test_needs_reset_and_step() -> None:
    class NoState:
        action_space = Space()

    with pytest.raises(InputError, match="no reset"):
        GymBlackBox(NoState())
