"""Montezuma's Revenge as a black box with failures, through ``ale-py`` (ICLR'22 §5).

Why these semantics: the paper turns the game into a simulator whose actions can fail, so
that "why not my plan?" has preconditions to find. Here, as there:

* an action is held for four frames; while the agent is then in mid-air (jumping, or
  falling: its height still changes under NOOP) NOOPs follow until it lands, so a step
  ends in a settled state and a jump or a fall is one step;
* a step in which a life is lost fails (⊥): walking off a ledge is a certain fall to death;
* a non-NOOP action that leaves the agent where it was fails (⊥): "left" on a ladder.

The game is deterministic with ``repeat_action_probability=0``. A state is the 128 RAM
bytes (equality and hash) plus ALE's ``cloneState`` snapshot, which ``step`` restores;
ALE snapshots pickle, and the ALE instance is built lazily per process, so sampling on a
process pool works. RAM addresses (measured, /work/shared/research/envs.md §2 and this
module's tests): 3 room, 42 agent x, 43 agent y (235 top platform, 192 middle floor,
148 bottom floor of screen 1), 47 skull x, 53 agent mode (6 jumping, 10 on a ladder),
58 lives, 65 inventory.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.concepts.results import Query
from xaip.concepts.simulator import INVALID, Outcome
from xaip.concepts.vocabulary import Concept, Vocabulary, negation
from xaip.errors import InputError

ROOM, X, Y, SKULL_X, MODE, LIVES, INVENTORY = 3, 42, 43, 47, 53, 58, 65
JUMPING, LADDER = 6, 10  # mode 0: holding still on a ladder
TOP, MIDDLE, BOTTOM = 235, 192, 148
FRAMES = 4        # frames an action is held (the usual Atari frame skip)
MAX_SETTLE = 60   # NOOP steps waited for a jump or a fall to end

# our action names -> ALE action numbers (ale_py.Action values)
ACTIONS: dict[str, int] = {
    "noop": 0, "jump": 1, "up": 2, "right": 3, "left": 4, "down": 5,
    "jump-right": 11, "jump-left": 12,
}
SCREENS = {"1": 1}  # --level names -> room numbers (screen 4 is not bundled yet)


@dataclass(frozen=True)
class MontezumaState:
    """RAM bytes (identity) and the ALE snapshot that restores the emulator exactly."""

    ram: bytes
    snapshot: Any = field(compare=False, repr=False)

    def byte(self, address: int) -> int:
        return self.ram[address]


class Montezuma:
    """The first screen of Montezuma's Revenge as a :class:`BlackBox` (unit costs)."""

    name = "montezuma"
    enumerable = False  # the checker re-tests on fresh samples instead of listing states

    def __init__(self, screen: str = "1") -> None:
        self.screen = screen
        self._ale: Any = None
        self._initial: MontezumaState | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"screen": self.screen, "_ale": None, "_initial": self._initial}

    @property
    def actions(self) -> tuple[str, ...]:
        return tuple(ACTIONS)

    def ale(self) -> Any:
        """This process's ALE instance (built on first use, ROM from the ale-py wheel)."""
        if self._ale is None:
            import ale_py
            from ale_py import ALEInterface, roms

            ALEInterface.setLoggerMode(ale_py.LoggerMode.Error)
            ale = ALEInterface()
            ale.setFloat("repeat_action_probability", 0.0)
            ale.setInt("frame_skip", 1)
            ale.setInt("random_seed", 0)
            rom = roms.get_rom_path("montezuma_revenge")
            if rom is None:
                raise InputError("ale-py has no Montezuma's Revenge ROM (ale-py==0.12.1 "
                                 "bundles it)")
            ale.loadROM(rom)
            self._ale = ale
        return self._ale

    def _snap(self) -> MontezumaState:
        ale = self.ale()
        return MontezumaState(bytes(ale.getRAM()), ale.cloneState())

    def initial(self) -> MontezumaState:
        if self._initial is None:
            self.ale().reset_game()
            self._initial = self._snap()
        return self._initial

    def _hold(self, code: int) -> Any:
        ale = self.ale()
        lives = int(ale.getRAM()[LIVES])
        for _ in range(FRAMES):
            ale.act(code)
        ram = ale.getRAM()
        return ram if int(ram[LIVES]) >= lives and not ale.game_over() else None

    def step(self, state: Hashable, action: str) -> Outcome:
        assert isinstance(state, MontezumaState)
        code = ACTIONS.get(action)
        if code is None:
            return INVALID
        self.ale().restoreState(state.snapshot)
        ram = self._hold(code)
        for _ in range(MAX_SETTLE):
            if ram is None:
                return INVALID  # a life was lost: a certain death
            height = int(ram[Y])
            mode = int(ram[MODE])
            ram = self._hold(ACTIONS["noop"])
            if ram is None:
                return INVALID
            if int(ram[Y]) == height and mode != JUMPING and int(ram[MODE]) != JUMPING:
                break
        after = self._snap()
        if action != "noop" and agent(after) == agent(state):
            return INVALID  # nothing happened to the agent
        return after, 1.0

    def is_goal(self, state: Hashable) -> bool:
        """The plan's goal on screen 1: the key is in the inventory."""
        return has_key(state)

    def show(self, state: Hashable) -> str:
        """A one-line description of the agent's situation (the sentence's picture)."""
        assert isinstance(state, MontezumaState)
        return (f"room {state.byte(ROOM)}, agent at x={state.byte(X)} y={state.byte(Y)}, "
                f"skull at x={state.byte(SKULL_X)}")


def agent(state: Hashable) -> tuple[int, int, int]:
    """The agent's part of the state: room and position."""
    assert isinstance(state, MontezumaState)
    return state.byte(ROOM), state.byte(X), state.byte(Y)


# ---- screen-1 concepts as functions of RAM -------------------------------------------

def on_ladder(state: Hashable) -> bool:
    """Climbing (mode 10) or holding still (mode 0) on a ladder, away from its ends (at
    the top rung a sideways step reaches the platform)."""
    assert isinstance(state, MontezumaState)
    return state.byte(MODE) in (0, LADDER) and MIDDLE + 8 <= state.byte(Y) <= TOP - 8


def on_top_platform(state: Hashable) -> bool:
    """At the top level: the start platform (x 63..89) or the ledges either side of it."""
    assert isinstance(state, MontezumaState)
    return state.byte(Y) == TOP and not on_ladder(state)


def on_middle_floor(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return state.byte(Y) == MIDDLE and not on_ladder(state)


def on_bottom_floor(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return state.byte(Y) == BOTTOM and not on_ladder(state)


def on_left_edge(state: Hashable) -> bool:
    """At the left end of the start platform: one more step left is over the edge."""
    assert isinstance(state, MontezumaState)
    return on_top_platform(state) and 58 <= state.byte(X) <= 66


def on_right_edge(state: Hashable) -> bool:
    """At the right end of the start platform: one more step right is over the edge."""
    assert isinstance(state, MontezumaState)
    return on_top_platform(state) and 84 <= state.byte(X) <= 92


def skull_on_left(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    gap = state.byte(X) - state.byte(SKULL_X)
    return on_bottom_floor(state) and 0 <= gap <= 16


def skull_on_right(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    gap = state.byte(SKULL_X) - state.byte(X)
    return on_bottom_floor(state) and 0 <= gap <= 16


def has_key(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return state.byte(INVENTORY) != 0


def in_left_half(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return state.byte(X) < 77


SCREEN_1: dict[str, tuple[Any, str]] = {
    "on-ladder": (on_ladder, "the agent is on a ladder, away from its ends"),
    "on-top-platform": (on_top_platform, "the agent stands at the top level"),
    "on-middle-floor": (on_middle_floor, "the agent is on the middle floor"),
    "on-bottom-floor": (on_bottom_floor, "the agent is on the bottom floor"),
    "on-left-edge": (on_left_edge, "the agent is at the left edge of the start platform"),
    "on-right-edge": (on_right_edge, "the agent is at the right edge of the start platform"),
    "skull-on-left": (skull_on_left, "the skull is just left of the agent"),
    "skull-on-right": (skull_on_right, "the skull is just right of the agent"),
    "has-key": (has_key, "the agent holds the key"),
    "in-left-half": (in_left_half, "the agent is left of the screen's middle"),
}


def screen_vocabulary(screen: str = "1") -> Vocabulary:
    """The screen's concepts as exact functions of RAM, each with its negation ``not-X``."""
    if screen not in SCREENS:
        raise InputError(f"no Montezuma concepts for screen {screen!r} (one of "
                         f"{', '.join(SCREENS)})")
    concepts: list[Concept] = []
    for name, (test, description) in SCREEN_1.items():
        concept = Concept(name, test, description)
        concepts += [concept, negation(concept)]
    return Vocabulary(tuple(concepts))


def folder() -> Path:
    """Where the bundled plan/foil action lists live."""
    return Path(str(resources.files("xaip") / "domains" / "montezuma"))


# bundled screen-1 pairs: name -> the concept expected to explain the foil's failure
PAIRS = {"ledge-right": "not-on-right-edge", "ledge-left": "not-on-left-edge",
         "ladder-left": "not-on-ladder"}


def read_montezuma_actions(path: str | Path) -> tuple[str, ...]:
    """An action list file (one action per line, ``#`` comments); unknown actions are bad
    input."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise InputError(f"cannot read {path}: {error.strerror}") from None
    actions = tuple(line.split("#", 1)[0].strip().lower() for line in lines)
    actions = tuple(a for a in actions if a)
    for number, action in enumerate(actions, 1):
        if action not in ACTIONS:
            raise InputError(f"{path}: unknown Montezuma action {action!r} (action "
                             f"{number}; one of {', '.join(ACTIONS)})")
    if not actions:
        raise InputError(f"{path}: no actions")
    return actions


def pair_files(pair: str) -> tuple[Path, Path]:
    """``(plan, foil)`` files of a bundled screen-1 pair."""
    if pair not in PAIRS:
        raise InputError(f"no bundled Montezuma pair {pair!r} (one of {', '.join(PAIRS)})")
    return folder() / f"screen-1.{pair}.plan.txt", folder() / f"screen-1.{pair}.foil.txt"


def montezuma_query(plan: str | Path, foil: str | Path, screen: str = "1",
                    vocabulary: Vocabulary | None = None,
                    sim: Montezuma | None = None) -> Query:
    """A :class:`Query` on ``screen`` from action-list files (or a bundled pair's name)."""
    if screen not in SCREENS:
        raise InputError(f"no Montezuma screen {screen!r} (bundled: {', '.join(SCREENS)})")
    plan_file = pair_files(str(plan))[0] if str(plan) in PAIRS else plan
    foil_file = pair_files(str(foil))[1] if str(foil) in PAIRS else foil
    return Query(sim or Montezuma(screen), read_montezuma_actions(plan_file),
                 read_montezuma_actions(foil_file), vocabulary or screen_vocabulary(screen))
