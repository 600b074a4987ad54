"""How a Gymnasium environment's state is saved and restored: four strategies, one protocol.

Why several: xaip's explainers ask "what happens if the agent does ``a`` in state ``s``?"
thousands of times, so they need to put the environment back into ``s``. Environments offer
that in different ways, and the adapter uses the environment's own way wherever it has one:

``methods``
    the environment (or ``env.unwrapped``) has ``get_state``/``set_state`` -- or the caller
    passes its own getter and setter. The snapshot is what the getter returns, made
    hashable by ``freeze``.
``ale``
    an Arcade Learning Environment game (``ale_py.AtariEnv``): ``clone_state`` /
    ``restore_state`` restore the emulator exactly; identity is the 128 bytes of RAM (the
    emulator snapshot rides along but does not take part in equality), as in
    :mod:`xaip.concepts.montezuma`.
``attribute``
    Gymnasium's toy-text environments (FrozenLake, CliffWalking, Taxi, Blackjack-free
    discrete ones): their whole state is the integer ``env.unwrapped.s`` (they also carry a
    transition table ``P``); restoring sets it (and clears ``lastaction``, which only the
    renderer reads).
``replay``
    the documented fallback for any other environment: a state is the action prefix that
    reached it from ``reset(seed=seed)``, and restoring resets with that seed and replays
    the prefix. Identity is the observation (the environment is taken to be fully
    observable). Each replay is checked: if the replayed observation differs from the one
    recorded, the environment is not deterministic and restoring stops with one
    :class:`~xaip.errors.InputError` line -- never a silently wrong state.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from xaip.errors import InputError

KINDS = ("auto", "methods", "ale", "attribute", "replay")


def freeze_observation(observation: Any) -> Hashable:
    """A hashable value equal for equal observations: numbers as they are, arrays as
    (shape, dtype, bytes), tuples and dicts element by element."""
    if hasattr(observation, "tobytes") and hasattr(observation, "shape"):
        if observation.shape == ():
            return observation.item()
        return (tuple(observation.shape), str(observation.dtype), observation.tobytes())
    if isinstance(observation, tuple | list):
        return tuple(freeze_observation(part) for part in observation)
    if isinstance(observation, dict):
        return tuple(sorted((str(k), freeze_observation(v)) for k, v in observation.items()))
    try:
        hash(observation)
    except TypeError:
        raise InputError(f"observations of type {type(observation).__name__} cannot be "
                         "compared; restore by the environment's own state methods "
                         "(get_state/set_state)") from None
    return observation


@dataclass(frozen=True, eq=False)
class KeyedSnapshot:
    """A snapshot compared and hashed by ``key`` only; ``payload`` is what restores it
    (an emulator state, or the action prefix of a replay)."""

    key: Hashable
    payload: Any = field(repr=False)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyedSnapshot) and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)


def _identity(value: Any) -> Any:
    return value


def find_method(env: Any, names: tuple[str, ...]) -> Callable[..., Any] | None:
    """The first callable of ``names`` on ``env`` or ``env.unwrapped``."""
    for holder in (env, getattr(env, "unwrapped", None)):
        if holder is None:
            continue
        for name in names:
            method = getattr(holder, name, None)
            if callable(method):
                return method
    return None


class Restorer:
    """Save and restore an environment's state (one strategy; see the module docstring).

    ``save(observation)`` returns the hashable snapshot of the current state;
    ``load(snapshot)`` makes it current again. ``on_reset``/``on_step`` tell the strategy
    what the adapter did to the environment (only replay needs them).
    """

    kind = "methods"

    def save(self, observation: Any) -> Hashable:
        raise NotImplementedError

    def load(self, snapshot: Hashable) -> None:
        raise NotImplementedError

    def on_reset(self, seed: int | None) -> None:
        """The adapter reset the environment with ``seed``."""

    def on_step(self, index: int) -> None:
        """The adapter stepped the environment with action ``index``."""


class MethodRestorer(Restorer):
    kind = "methods"

    def __init__(self, get: Callable[[], Any], put: Callable[[Any], Any],
                 freeze: Callable[[Any], Hashable] = _identity,
                 thaw: Callable[[Any], Any] = _identity) -> None:
        self._get, self._put, self._freeze, self._thaw = get, put, freeze, thaw

    def save(self, observation: Any) -> Hashable:
        frozen = self._freeze(self._get())
        try:
            hash(frozen)
        except TypeError:
            raise InputError(f"environment states of type {type(frozen).__name__} are not "
                             "hashable; pass freeze= (e.g. bytes or tuple) and thaw=") from None
        return frozen

    def load(self, snapshot: Hashable) -> None:
        self._put(self._thaw(snapshot))


class AleRestorer(Restorer):
    kind = "ale"

    def __init__(self, env: Any) -> None:
        self._env = env.unwrapped
        self._ale = self._env.ale

    def save(self, observation: Any) -> Hashable:
        return KeyedSnapshot(bytes(self._ale.getRAM()), self._env.clone_state())

    def load(self, snapshot: Hashable) -> None:
        assert isinstance(snapshot, KeyedSnapshot)
        self._env.restore_state(snapshot.payload)


class AttributeRestorer(Restorer):
    kind = "attribute"

    def __init__(self, env: Any, attribute: str = "s") -> None:
        self._env = env.unwrapped
        self._attribute = attribute

    def save(self, observation: Any) -> Hashable:
        return int(getattr(self._env, self._attribute))

    def load(self, snapshot: Hashable) -> None:
        setattr(self._env, self._attribute, snapshot)
        if hasattr(self._env, "lastaction"):
            self._env.lastaction = None


class ReplayRestorer(Restorer):
    """Restore by ``reset(seed=seed)`` and replaying the action prefix, checked."""

    kind = "replay"

    def __init__(self, env: Any, seed: int | None) -> None:
        self._env = env
        self._seed = seed
        self._prefix: tuple[int, ...] = ()  # the actions since the last reset

    def on_reset(self, seed: int | None) -> None:
        self._seed = seed
        self._prefix = ()

    def on_step(self, index: int) -> None:
        self._prefix += (index,)

    def save(self, observation: Any) -> Hashable:
        return KeyedSnapshot(freeze_observation(observation), (self._seed, self._prefix))

    def load(self, snapshot: Hashable) -> None:
        assert isinstance(snapshot, KeyedSnapshot)
        seed, prefix = snapshot.payload
        if seed == self._seed and prefix == self._prefix:
            return  # the environment is there already
        if seed == self._seed and prefix[:len(self._prefix)] == self._prefix:
            rest = prefix[len(self._prefix):]  # continue from where it is
            observation: Any = None
        else:
            observation, _ = _reset(self._env, seed)
            rest = prefix
        for index in rest:
            observation = self._env.step(index)[0]
        self._seed, self._prefix = seed, prefix
        if rest and freeze_observation(observation) != snapshot.key:
            self._prefix = ("?",)  # type: ignore[assignment]  # unknown: reset next time
            raise InputError(
                f"the environment is not deterministic: replaying {len(prefix)} actions "
                f"from reset(seed={seed}) gave a different observation; restore by replay "
                "needs a deterministic environment (or give it get_state/set_state)")


def _reset(env: Any, seed: int | None) -> tuple[Any, Any]:
    result = env.reset(seed=seed)
    if isinstance(result, tuple) and len(result) == 2:
        return result[0], result[1]
    return result, {}  # old gym: reset returns the observation alone


def choose(env: Any, kind: str, seed: int | None, *,
           get_state: Callable[[], Any] | None = None,
           set_state: Callable[[Any], Any] | None = None,
           freeze: Callable[[Any], Hashable] = _identity,
           thaw: Callable[[Any], Any] = _identity) -> Restorer:
    """The restorer of ``kind`` for ``env`` (``auto``: the environment's own way first, in
    the order of the module docstring, replay last); one line of bad input when the
    environment lacks what ``kind`` needs."""
    if kind not in KINDS:
        raise InputError(f"unknown restore strategy {kind!r} (one of {', '.join(KINDS)})")
    if get_state is not None or set_state is not None:
        if get_state is None or set_state is None:
            raise InputError("pass both get_state= and set_state=, or neither")
        return MethodRestorer(get_state, set_state, freeze, thaw)
    unwrapped = getattr(env, "unwrapped", env)
    if kind in ("auto", "methods"):
        getter = find_method(env, ("get_state",))
        setter = find_method(env, ("set_state",))
        if getter is not None and setter is not None:
            return MethodRestorer(getter, setter, freeze, thaw)
        if kind == "methods":
            raise InputError("the environment has no get_state/set_state methods; pass "
                             "get_state= and set_state=, or use another restore strategy")
    has_ale = hasattr(unwrapped, "ale") and callable(getattr(unwrapped, "clone_state", None)) \
        and callable(getattr(unwrapped, "restore_state", None))
    if kind in ("auto", "ale"):
        if has_ale:
            return AleRestorer(env)
        clone = find_method(env, ("clone_state", "cloneState"))
        restore = find_method(env, ("restore_state", "restoreState"))
        if clone is not None and restore is not None:  # ALE-style methods without an ALE
            return MethodRestorer(clone, restore, freeze, thaw)
        if kind == "ale":
            raise InputError("the environment is not an Arcade Learning Environment game "
                             "(no clone_state/restore_state)")
    if kind in ("auto", "attribute"):
        if _toy_text(unwrapped):
            return AttributeRestorer(env)
        if kind == "attribute":
            raise InputError("the environment keeps no integer state 's' with a transition "
                             "table 'P' (as Gymnasium's toy-text environments do)")
    return ReplayRestorer(env, seed)


def _toy_text(unwrapped: Any) -> bool:
    """Gymnasium's toy-text signature: a discrete observation space of ``n`` states and the
    transition table ``P`` over them (the state ``s`` itself appears only after reset)."""
    table = getattr(unwrapped, "P", None)
    n = getattr(getattr(unwrapped, "observation_space", None), "n", None)
    return isinstance(table, dict) and n is not None and len(table) == int(n)
