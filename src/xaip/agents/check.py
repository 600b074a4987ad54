"""Check that a simulator keeps the promises discovery relies on, in the manner of
Gymnasium's ``check_env``.

Why: capability discovery treats the simulator as ground truth. A ``step`` that depends on
hidden state, a ``set_state`` that does not restore, or an action list that disagrees with
``step`` makes the learned capabilities wrong in ways no later check can trace back. These
checks run on states reached by seeded random walks, so a failure names a state and an
action that reproduce it.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.errors import InputError


class SimulatorCheckError(InputError):
    """The simulator breaks one of the promises of :class:`~xaip.agents.simulator.Simulator`;
    the message names the promise, the state and the action."""


@dataclass(frozen=True)
class SimulatorReport:
    """What :func:`check_simulator` looked at (it raises on the first broken promise)."""

    states: int
    transitions: int
    rendered: int
    abstracted: int
    warnings: tuple[str, ...] = ()


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def check_simulator(simulator: Any, *, vocabulary: Any = None, seed: int = 0,
                    walks: int = 4, walk_length: int = 12, png: bool = False) \
        -> SimulatorReport:
    """Check ``simulator`` on the states of ``walks`` seeded random walks from ``reset()``.

    Promises checked, each on every sampled state:

    * states are hashable and ``step`` is deterministic: the same action from the same
      state twice gives equal successors, and ``step`` leaves its argument unchanged;
    * ``get_state``/``set_state`` round trip: after ``set_state(s)``, ``get_state() == s``,
      and stepping from the restored state gives what stepping ``s`` gives;
    * ``actions(s)`` is consistent with ``step``: every listed action steps without error,
      ``successors(s)`` (when defined) lists exactly those actions and their ``step``
      results; a state with no actions is a dead end;
    * ``is_goal`` answers a bool, and ``render_text`` a non-empty string (``render_png``
      too when ``png`` is true);
    * ``vocabulary`` (when given) evaluates on every state to a set of atoms.

    Raises :class:`SimulatorCheckError` on the first broken promise; returns what it saw.
    """
    warnings: list[str] = []
    start = simulator.reset()
    _hashable(start, "reset()")
    rng = random.Random(f"check:{seed}")
    states: list[Any] = [start]
    for _ in range(walks):
        state = start
        for _ in range(walk_length):
            options = tuple(simulator.actions(state))
            if not options:
                break
            state = _deterministic_step(simulator, state, options[rng.randrange(len(options))])
            states.append(state)
    states = list(dict.fromkeys(states))
    transitions = rendered = abstracted = 0
    for state in states:
        _hashable(state, "a state")
        _round_trip(simulator, state)
        actions = simulator.actions(state)
        if not isinstance(actions, tuple | list) or not all(isinstance(a, str) for a in actions):
            raise SimulatorCheckError(f"actions({_short(state)}) must be a tuple of action "
                                      f"names, got {_short(actions)}")
        stepped = {}
        for action in actions:
            stepped[action] = _deterministic_step(simulator, state, action)
            transitions += 1
        successors = getattr(simulator, "successors", None)
        if callable(successors):
            listed = dict(successors(state))
            if listed != stepped:
                raise SimulatorCheckError(
                    f"successors({_short(state)}) disagrees with actions and step: "
                    f"{sorted(listed)} vs {sorted(stepped)}")
        goal = simulator.is_goal(state)
        if not isinstance(goal, bool):
            raise SimulatorCheckError(f"is_goal must return a bool, got {_short(goal)}")
        text = simulator.render_text(state)
        if not isinstance(text, str) or not text.strip():
            raise SimulatorCheckError(f"render_text({_short(state)}) gave no text")
        rendered += 1
        if vocabulary is not None:
            atoms = vocabulary.abstract(state)
            if not isinstance(atoms, frozenset | set):
                raise SimulatorCheckError(f"the vocabulary gave {_short(atoms)} for a state, "
                                          "not a set of atoms")
            abstracted += 1
    if png:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "state.png"
            simulator.render_png(start, path)
            if not path.read_bytes().startswith(b"\x89PNG"):
                raise SimulatorCheckError("render_png did not write a PNG file")
    if len(states) == 1:
        warnings.append("the random walks never left the start state")
    return SimulatorReport(len(states), transitions, rendered, abstracted, tuple(warnings))


def _hashable(state: Any, where: str) -> None:
    if not isinstance(state, Hashable):
        raise SimulatorCheckError(f"{where} returned an unhashable state {_short(state)}")
    try:
        hash(state)
    except TypeError as exc:
        raise SimulatorCheckError(f"{where} returned an unhashable state: {exc}") from None


def _round_trip(simulator: Any, state: Any) -> None:
    simulator.set_state(state)
    back = simulator.get_state()
    if back != state:
        raise SimulatorCheckError(f"set_state then get_state changed the state: "
                                  f"{_short(state)} came back as {_short(back)}")


def _deterministic_step(simulator: Any, state: Any, action: str) -> Any:
    snapshot = repr(state)
    try:
        first = simulator.step(state, action)
    except Exception as exc:  # noqa: BLE001 - reported as the simulator's fault
        raise SimulatorCheckError(f"step({_short(state)}, {action!r}) raised "
                                  f"{type(exc).__name__}: {exc} for a listed action") from None
    if repr(state) != snapshot:
        raise SimulatorCheckError(f"step({_short(state)}, {action!r}) modified its argument")
    _round_trip(simulator, state)
    second = simulator.step(simulator.get_state(), action)
    if first != second:
        raise SimulatorCheckError(f"step is not deterministic: {action!r} from "
                                  f"{_short(state)} gave {_short(first)} and {_short(second)}")
    _hashable(first, f"step(..., {action!r})")
    return first


__all__ = ["SimulatorCheckError", "SimulatorReport", "check_simulator"]
