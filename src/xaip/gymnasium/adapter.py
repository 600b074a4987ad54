"""One adapter over a ``gymnasium.Env`` as it is, shared by discovery and why-not.

Why one: capability discovery (:class:`xaip.agents.gym.GymSimulator`) and "why not my
plan?" (:class:`xaip.concepts.gym.GymBlackBox`) both need the same three things from an
environment -- reset it, step it with a named discrete action, and put it back into a saved
state -- and the same state type, so a state found by one can be handed to the other and a
vocabulary written once reads both. Both are thin views of :class:`GymAdapter`.

Duck typing, no import of ``gymnasium``: any object with ``reset``, ``step``, a discrete
``action_space`` (``n``) and one of the restore strategies of :mod:`xaip.gymnasium.restore`
works, including old-style ``gym`` environments (``step`` returning four values, ``reset``
returning the observation alone). States are :class:`GymState` values: the strategy's
hashable snapshot plus whether the episode terminated there. The episode's time limit
(``truncated``) is not part of a state: the explainers reason about what actions do, not
about how long an episode may last, so truncation is reported but never ends anything.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from xaip.errors import InputError
from xaip.gymnasium.restore import KeyedSnapshot, Restorer, _identity, _reset, choose

#: Action names of Gymnasium's toy-text environments (their documented meanings), by class.
TOY_TEXT_ACTIONS = {
    "FrozenLakeEnv": ("left", "down", "right", "up"),
    "CliffWalkingEnv": ("up", "right", "down", "left"),
    "TaxiEnv": ("south", "north", "east", "west", "pickup", "dropoff"),
}


class GymState(NamedTuple):
    """A state of a wrapped environment: its hashable snapshot and whether the episode
    terminated there (a terminated state has no successors)."""

    snapshot: Hashable
    terminated: bool = False


def state_key(state: GymState) -> Hashable:
    """What identifies ``state``: the toy-text integer, the ALE RAM bytes, the replayed
    observation, or the frozen snapshot of ``get_state``."""
    snapshot = state.snapshot
    return snapshot.key if isinstance(snapshot, KeyedSnapshot) else snapshot


@dataclass(frozen=True)
class Transition:
    """What one step did: the successor, the reward, and the episode flags."""

    state: GymState
    reward: float
    terminated: bool
    truncated: bool
    info: Any


def default_action_names(env: Any) -> tuple[str, ...]:
    """Names of a discrete action space: the environment's own meanings (ALE's
    ``get_action_meanings``), the toy-text environments' documented ones, else ``"0"``,
    ``"1"``, ...; one line of bad input for a space that is not discrete."""
    space = getattr(env, "action_space", None)
    n = getattr(space, "n", None)
    if n is None or isinstance(n, bool):
        kind = type(space).__name__ if space is not None else "no action_space"
        raise InputError(f"xaip needs a discrete action space (gymnasium.spaces.Discrete); "
                         f"this environment has {kind}")
    count = int(n)
    if count < 1:
        raise InputError("the environment's action space is empty")
    start = int(getattr(space, "start", 0))
    if start != 0:
        raise InputError("a Discrete action space must start at 0 (got start="
                         f"{start})")
    unwrapped = getattr(env, "unwrapped", env)
    meanings = getattr(unwrapped, "get_action_meanings", None)
    if callable(meanings):
        names = tuple(str(m).lower().replace("_", "-") for m in meanings())
        if len(names) == count:
            return names
    names = TOY_TEXT_ACTIONS.get(type(unwrapped).__name__, ())
    return names if len(names) == count else tuple(str(i) for i in range(count))


class GymAdapter:
    """Reset, step and restore a Gymnasium-style environment with named actions.

    ``restore`` chooses the strategy (``auto``: the environment's own, see
    :mod:`xaip.gymnasium.restore`); ``get_state``/``set_state`` (with ``freeze``/``thaw``)
    override it. ``seed`` is the seed of every reset without one (the replay strategy
    needs every reset reproducible). ``restore_kind`` says which strategy runs.
    """

    def __init__(self, env: Any, *, action_names: Sequence[str] | None = None,
                 restore: str = "auto", seed: int | None = 0,
                 get_state: Callable[[], Any] | None = None,
                 set_state: Callable[[Any], Any] | None = None,
                 freeze: Callable[[Any], Hashable] = _identity,
                 thaw: Callable[[Any], Any] = _identity) -> None:
        for method in ("reset", "step"):
            if not callable(getattr(env, method, None)):
                raise InputError(f"the environment has no {method}() method")
        self.env = env
        self.seed = seed
        names = tuple(action_names) if action_names is not None else default_action_names(env)
        if len(set(names)) != len(names):
            raise InputError("action names must be distinct")
        if not names:
            raise InputError("the environment needs at least one action")
        self.actions = names
        self._index = {name: i for i, name in enumerate(names)}
        self._restorer: Restorer = choose(env, restore, seed, get_state=get_state,
                                          set_state=set_state, freeze=freeze, thaw=thaw)
        self._initial: GymState | None = None

    @property
    def restore_kind(self) -> str:
        """The restore strategy in use: methods, ale, attribute or replay."""
        return self._restorer.kind

    @property
    def name(self) -> str:
        """The environment's registered id (``FrozenLake-v1``) or its class name."""
        spec = getattr(self.env, "spec", None)
        return str(getattr(spec, "id", None) or type(getattr(self.env, "unwrapped",
                                                             self.env)).__name__)

    def index(self, action: str) -> int:
        """The action's index in the action space; bad input for an unknown name."""
        found = self._index.get(action)
        if found is None:
            raise InputError(f"unknown action {action!r}; actions: {', '.join(self.actions)}")
        return found

    def reset(self, seed: int | None = None) -> GymState:
        """Reset (with ``seed``, default the adapter's) and return the first state."""
        seed = self.seed if seed is None else seed
        observation, _ = _reset(self.env, seed)
        self._restorer.on_reset(seed)
        return GymState(self._restorer.save(observation), False)

    def initial(self) -> GymState:
        """The state after ``reset(seed=self.seed)`` (computed once)."""
        if self._initial is None:
            self._initial = self.reset()
        return self._initial

    def restore(self, state: GymState) -> None:
        """Put the environment into ``state``."""
        self._restorer.load(state.snapshot)

    def current_snapshot(self) -> Hashable | None:
        """The snapshot of the environment as it is now (``None`` under replay, whose
        snapshot needs the observation of the step that reached it)."""
        if self._restorer.kind == "replay":
            return None
        return self._restorer.save(None)

    def step(self, state: GymState, action: str) -> Transition:
        """Restore ``state``, step ``action`` and read the successor; a terminated state
        stays as it is (reward 0)."""
        index = self.index(action)
        if state.terminated:
            return Transition(state, 0.0, True, False, {})
        self._restorer.load(state.snapshot)
        result = self.env.step(index)
        if not isinstance(result, tuple) or len(result) not in (4, 5):
            got = len(result) if isinstance(result, tuple) else type(result).__name__
            raise InputError(f"env.step returned {got} values, expected 5 (Gymnasium) or 4 "
                             "(old gym)")
        self._restorer.on_step(index)
        terminated = bool(result[2])
        truncated = bool(result[3]) if len(result) == 5 else False
        after = GymState(self._restorer.save(result[0]), terminated)
        try:
            reward = float(result[1])
        except (TypeError, ValueError):
            raise InputError(f"env.step returned a reward that is not a number: "
                             f"{result[1]!r}"[:200]) from None
        return Transition(after, reward, terminated, truncated, result[-1])

    def render(self, state: GymState) -> Any:
        """The environment's ``render()`` of ``state``."""
        self._restorer.load(state.snapshot)
        return self.env.render()
