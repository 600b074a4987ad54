"""A Gymnasium-style environment as a black box with failures and costs.

Why duck typing (as :mod:`xaip.agents.gym`): the explainers need ``reset``, ``step`` and a
way to save and restore the environment's state (``get_state``/``set_state``, or ALE-style
``clone_state``/``restore_state``); any object with these works, without importing
``gymnasium``. Rewards become costs (``cost=`` maps a reward to a cost; by default the
negated reward, so the paper's Sokoban rewards of -1 and -10 are costs 1 and 10).

Failures follow the paper's semantics for Montezuma and Sokoban (appendix A.6) unless
``fails=`` says otherwise: an action other than the no-op that leaves the state unchanged
fails, and so does one that ends the episode outside the goal (a death).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, NamedTuple

from xaip.concepts.simulator import INVALID, Outcome
from xaip.errors import InputError


class EnvState(NamedTuple):
    """A hashable snapshot of the environment and whether the episode ended there."""

    snapshot: Hashable
    terminated: bool = False


def _lookup(env: Any, names: Sequence[str]) -> Callable[..., Any] | None:
    for holder in (env, getattr(env, "unwrapped", None)):
        for name in names:
            method = getattr(holder, name, None) if holder is not None else None
            if callable(method):
                return method
    return None


def _negate(reward: float) -> float:
    return -float(reward)


def _same(value: Any) -> Any:
    return value


FailTest = Callable[[EnvState, EnvState, str, Any], bool]


class GymBlackBox:
    """A :class:`~xaip.concepts.simulator.BlackBox` over a Gymnasium-style environment.

    ``action_names`` names the discrete actions (default ``"0"``, ``"1"``, ...); ``noop`` is
    the name of the action allowed to change nothing; ``is_goal(state)`` decides which
    ended episodes are successes (default: none, so every termination is a failure);
    ``fails(before, after, action, info)`` replaces the default failure test.
    """

    def __init__(self, env: Any, *, name: str = "gym/default",
                 action_names: Sequence[str] | None = None, noop: str | None = None,
                 get_state: Callable[[], Any] | None = None,
                 set_state: Callable[[Any], Any] | None = None,
                 freeze: Callable[[Any], Hashable] = _same, thaw: Callable[[Any], Any] = _same,
                 cost: Callable[[float], float] = _negate,
                 is_goal: Callable[[EnvState], bool] | None = None,
                 fails: FailTest | None = None, seed: int | None = 0) -> None:
        self.env, self.name, self.noop, self.seed = env, name, noop, seed
        getter = get_state or _lookup(env, ("get_state", "clone_state", "cloneState"))
        setter = set_state or _lookup(env, ("set_state", "restore_state", "restoreState"))
        if getter is None or setter is None:
            raise InputError("the environment has no state getter and setter (get_state/"
                             "set_state or clone_state/restore_state); pass them explicitly")
        self._get, self._set, self._freeze, self._thaw = getter, setter, freeze, thaw
        if action_names is None:
            n = getattr(getattr(env, "action_space", None), "n", None)
            if n is None:
                raise InputError("only discrete action spaces are supported; pass "
                                 "action_names=")
            action_names = [str(i) for i in range(int(n))]
        self._names = tuple(action_names)
        self._index = {a: i for i, a in enumerate(self._names)}
        if noop is not None and noop not in self._index:
            raise InputError(f"the no-op {noop!r} is not an action")
        self._cost, self._is_goal, self._fails = cost, is_goal, fails
        self._initial: EnvState | None = None

    @property
    def actions(self) -> tuple[str, ...]:
        return self._names

    def _snapshot(self, terminated: bool) -> EnvState:
        frozen = self._freeze(self._get())
        try:
            hash(frozen)
        except TypeError:
            raise InputError(f"environment states of type {type(frozen).__name__} are not "
                             "hashable; pass freeze= (e.g. bytes) and thaw=") from None
        return EnvState(frozen, terminated)

    def initial(self) -> EnvState:
        if self._initial is None:
            self.env.reset(seed=self.seed)
            self._initial = self._snapshot(False)
        return self._initial

    def is_goal(self, state: Hashable) -> bool:
        assert isinstance(state, EnvState)
        return self._is_goal(state) if self._is_goal is not None else False

    def step(self, state: Hashable, action: str) -> Outcome:
        assert isinstance(state, EnvState)
        if action not in self._index:
            raise InputError(f"unknown action {action!r}; actions: {', '.join(self._names)}")
        if state.terminated:
            return INVALID  # the episode is over: nothing more can be done
        self._set(self._thaw(state.snapshot))
        result = self.env.step(self._index[action])
        if len(result) not in (4, 5):
            raise InputError(f"env.step returned {len(result)} values, expected 4 or 5")
        reward, info = result[1], result[-1]
        after = self._snapshot(bool(result[2]))
        if self._fails is not None:
            failed = self._fails(state, after, action, info)
        else:
            unchanged = after.snapshot == state.snapshot and action != self.noop
            died = after.terminated and not self.is_goal(after)
            failed = unchanged or died
        return INVALID if failed else (after, self._cost(float(reward)))
