"""Shared helpers for the capability tests: a tiny world whose truth is computable."""

from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple

import pytest

from xaip.planning.pddl.model import Atom
from xaip.vocab import Predicate, Vocabulary


class Lamp(NamedTuple):
    """The lamp world: a robot on a line of cells, a gem, and a light that only turns on.

    - ``left``/``right`` move the robot; ``switch`` on cell 0 turns the light on (for good);
    - ``grab`` on the gem's cell picks the gem up, *only when the light is on*;
    - ``place`` puts the held gem down on the robot's cell.
    """

    robot: int
    gem: int  # -1 when held
    light: bool


CELLS = 3


class LampWorld:
    """A simulator for :class:`Lamp` (pure ``step``, hashable states)."""

    name = "lamp"

    def __init__(self, start: Lamp | None = None) -> None:
        start = start if start is not None else Lamp(2, 1, False)
        self.start = start
        self._state = start

    def reset(self, seed: int | None = None) -> Lamp:
        self._state = self.start
        return self._state

    def get_state(self) -> Lamp:
        return self._state

    def set_state(self, state: Lamp) -> None:
        self._state = state

    def actions(self, s: Lamp) -> tuple[str, ...]:
        out = []
        if s.robot > 0:
            out.append("left")
        if s.robot < CELLS - 1:
            out.append("right")
        if s.robot == 0 and not s.light:
            out.append("switch")
        if s.gem == s.robot and s.light:
            out.append("grab")
        if s.gem == -1:
            out.append("place")
        return tuple(out)

    def step(self, s: Lamp, action: str) -> Lamp:
        if action not in self.actions(s):
            return s
        if action == "left":
            return s._replace(robot=s.robot - 1)
        if action == "right":
            return s._replace(robot=s.robot + 1)
        if action == "switch":
            return s._replace(light=True)
        if action == "grab":
            return s._replace(gem=-1)
        return s._replace(gem=s.robot)

    def is_goal(self, s: Lamp) -> bool:
        return s.gem == -1

    def distance_lower_bound(self, s: Lamp, goal: Lamp) -> int:
        if goal.light is False and s.light:
            return 10**6
        return abs(s.robot - goal.robot) + (s.gem != goal.gem) + (s.light != goal.light)

    def render_text(self, s: Lamp) -> str:
        return f"robot={s.robot} gem={s.gem} light={int(s.light)}"

    def render_png(self, s: Lamp, path: Any) -> None:  # pragma: no cover - unused
        raise NotImplementedError


def lamp_vocabulary() -> Vocabulary:
    cells = tuple(f"c{i}" for i in range(CELLS))
    return Vocabulary(
        [
            Predicate("robot_at", ("cell",), lambda s: [(f"c{s.robot}",)], "set",
                      "the robot is at ?c"),
            Predicate("gem_at", ("cell",), lambda s: [(f"c{s.gem}",)] if s.gem >= 0 else [],
                      "set", "the gem is at ?c"),
            Predicate("holding", (), lambda s: s.gem == -1, "set", "the robot holds the gem"),
            Predicate("light", (), lambda s: s.light, "set", "the light is on"),
        ],
        [Predicate("cell", ("cell",), lambda s: cells, "type", "a cell")],
        name="lamp",
    )


def lamp_refine(atoms: frozenset[Atom], like: Any) -> Lamp | None:
    robot = [int(a.args[0][1:]) for a in atoms if a.predicate == "robot_at"]
    gem = [int(a.args[0][1:]) for a in atoms if a.predicate == "gem_at"]
    holding = Atom("holding") in atoms
    light = Atom("light") in atoms
    if len(robot) != 1 or len(gem) > 1 or holding == bool(gem):
        return None
    return Lamp(robot[0], -1 if holding else gem[0], light)


def all_lamp_states() -> list[Lamp]:
    return [Lamp(r, g, light) for r in range(CELLS) for g in range(-1, CELLS)
            for light in (False, True)]


def reachable(world: Any, start: Any) -> set[Any]:
    """Every state reachable from ``start`` in any simulator (plain breadth-first search,
    written from the definition: the oracle the listing tests compare with)."""
    seen = {start}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        for a in world.actions(s):
            n = world.step(s, a)
            if n not in seen:
                seen.add(n)
                queue.append(n)
    return seen


def open_capability(name: str, open_atoms: int) -> Any:
    """A capability whose ``open_atoms`` precondition tuples are all still open (every mode
    possible): what the pass-cutting tests cut."""
    from xaip.capabilities.candidates import ABSENT, NEG, POS
    from xaip.capabilities.pal import CapState

    atoms = [Atom("at", (f"c{i}",)) for i in range(open_atoms)]
    modes = {a: {POS, NEG, ABSENT} for a in atoms}
    return CapState(name, None, atoms, modes,  # type: ignore[arg-type]
                    {a: set(m) for a, m in modes.items()},
                    {a: set(m) for a, m in modes.items()},
                    {a: set(m) for a, m in modes.items()})


@pytest.fixture
def lamp() -> LampWorld:
    return LampWorld()
