"""A Gymnasium environment as a black box with failures and costs (for "why not?").

Why a thin view: resetting, stepping and restoring the environment is the job of the one
adapter, :class:`xaip.gymnasium.GymAdapter`, which capability discovery
(:class:`xaip.agents.gym.GymSimulator`) uses too, with the same state type
(:class:`EnvState` is :class:`xaip.gymnasium.GymState`). This class adds what "why not?"
needs: rewards become costs (``cost=`` maps a reward to a cost; by default the negated
reward, so the paper's Sokoban rewards of -1 and -10 are costs 1 and 10).

Failures follow the paper's semantics for Montezuma and Sokoban (appendix A.6) unless
``fails=`` says otherwise: an action other than the no-op that leaves the state unchanged
fails, and so does one that ends the episode outside the goal (a death).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

from xaip.concepts.simulator import INVALID, Outcome
from xaip.errors import InputError
from xaip.gymnasium.adapter import GymAdapter, GymState
from xaip.gymnasium.restore import _identity

EnvState = GymState

__all__ = ["EnvState", "FailTest", "GymBlackBox"]


def _negate(reward: float) -> float:
    return -float(reward)


FailTest = Callable[[GymState, GymState, str, Any], bool]


class GymBlackBox:
    """A :class:`~xaip.concepts.simulator.BlackBox` over a Gymnasium-style environment.

    ``env`` is the environment or a :class:`~xaip.gymnasium.GymAdapter` on it; the
    adapter's options (``action_names``, ``restore``, ``seed``, ``get_state``/``set_state``,
    ``freeze``/``thaw``) are passed through. ``noop`` is the name of the action allowed to
    change nothing; ``is_goal(state)`` decides which ended episodes are successes (default:
    none, so every termination is a failure); ``fails(before, after, action, info)``
    replaces the default failure test. ``enumerable`` tells the checker whether it may
    list the reachable states (not for an emulator, whose state space is huge).
    """

    def __init__(self, env: Any, *, name: str = "gym/default",
                 action_names: Sequence[str] | None = None, noop: str | None = None,
                 get_state: Callable[[], Any] | None = None,
                 set_state: Callable[[Any], Any] | None = None,
                 freeze: Callable[[Any], Hashable] = _identity,
                 thaw: Callable[[Any], Any] = _identity,
                 cost: Callable[[float], float] = _negate,
                 is_goal: Callable[[GymState], bool] | None = None,
                 fails: FailTest | None = None, seed: int | None = 0,
                 restore: str = "auto") -> None:
        self.adapter = env if isinstance(env, GymAdapter) else GymAdapter(
            env, action_names=action_names, restore=restore, seed=seed, get_state=get_state,
            set_state=set_state, freeze=freeze, thaw=thaw)
        self.env, self.name, self.noop, self.seed = self.adapter.env, name, noop, seed
        if noop is not None and noop not in self.adapter.actions:
            raise InputError(f"the no-op {noop!r} is not an action")
        self._cost, self._is_goal, self._fails = cost, is_goal, fails
        self.enumerable = self.adapter.restore_kind != "ale"

    @property
    def actions(self) -> tuple[str, ...]:
        return self.adapter.actions

    def initial(self) -> GymState:
        return self.adapter.initial()

    def is_goal(self, state: Hashable) -> bool:
        assert isinstance(state, GymState)
        return self._is_goal(state) if self._is_goal is not None else False

    def step(self, state: Hashable, action: str) -> Outcome:
        assert isinstance(state, GymState)
        self.adapter.index(action)  # an unknown action is one line of bad input
        if state.terminated:
            return INVALID  # the episode is over: nothing more can be done
        move = self.adapter.step(state, action)
        after = move.state
        if self._fails is not None:
            failed = self._fails(state, after, action, move.info)
        else:
            unchanged = after.snapshot == state.snapshot and action != self.noop
            died = after.terminated and not self.is_goal(after)
            failed = unchanged or died
        return INVALID if failed else (after, self._cost(move.reward))
