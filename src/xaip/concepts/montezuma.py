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
148 bottom floor of screen 1), 44 crab x (screen 4), 47 skull x, 51 skull direction
(bit 3), 53 agent mode (4 on a rope, 6 jumping, 8 standing, 10 on a ladder), 58 lives,
65 inventory.

Screens: the paper used screen 1 (the plan reaches the key) and screen 4 (the plan
climbs down past a crab). Screen 4 is room 4 of the game; its start state is reached by
replaying the bundled route ``screen-4.route.txt`` from the start of the game (129
steps, found by breadth-first search over this simulator's steps and stored as plain
actions, so anyone can replay or regenerate it), not by a stored emulator snapshot.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.concepts.results import Query
from xaip.concepts.simulator import INVALID, Invalid, Outcome
from xaip.concepts.vocabulary import Concept, Vocabulary, negation
from xaip.errors import InputError
from xaip.sidefiles import read_text

ROOM, X, Y, SKULL_X, MODE, LIVES, INVENTORY = 3, 42, 43, 47, 53, 58, 65
JUMPING, LADDER, ROPE = 6, 10, 4  # mode 0: holding still on a ladder
SKULL_OFFSET = 33  # the skull is drawn 33 pixels right of its RAM x
SKULL_DIRECTION = 51
SKULL_TURN = 72  # the right end of the skull's path on screen 1
TOP, MIDDLE, BOTTOM = 235, 192, 148
FRAMES = 4        # frames an action is held (the usual Atari frame skip)
MAX_SETTLE = 60   # NOOP steps waited for a jump or a fall to end

# our action names -> ALE action numbers (ale_py.Action values)
ACTIONS: dict[str, int] = {
    "noop": 0, "jump": 1, "up": 2, "right": 3, "left": 4, "down": 5,
    "jump-right": 11, "jump-left": 12,
}
SCREENS = {"1": 1, "4": 4}  # --level names -> room numbers
BELOW_4 = 10  # the room under screen 4: the screen-4 plan's goal is to climb down into it
CRAB_X = 44   # screen 4: the crab's x (drawn where the agent's x would put it, +-1 pixel)
FLOOR_4 = 235  # screen 4: the height of the floor the crab walks on


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
        """The start of the game (screen 1), or for a later screen the state its bundled
        route reaches from the start (``screen-N.route.txt``: replayed step by step)."""
        if self._initial is None:
            self.ale().reset_game()
            state = self._snap()
            if self.screen != "1":
                route = read_montezuma_actions(folder() / f"screen-{self.screen}.route.txt")
                for number, action in enumerate(route):
                    outcome = self.step(state, action)
                    if isinstance(outcome, Invalid):
                        raise InputError(f"the screen-{self.screen} route fails at step "
                                         f"{number + 1} ({action}): is this ale-py 0.12.1?")
                    following = outcome[0]
                    assert isinstance(following, MontezumaState)
                    state = following
                if state.byte(ROOM) != SCREENS[self.screen]:
                    raise InputError(f"the screen-{self.screen} route ends in room "
                                     f"{state.byte(ROOM)}")
            self._initial = state
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
        """The plan's goal: on screen 1 the key is in the inventory; on screen 4 the agent
        has climbed down into the room below."""
        if self.screen == "4":
            assert isinstance(state, MontezumaState)
            return state.byte(ROOM) == BELOW_4
        return has_key(state)

    def frame(self, state: Hashable) -> tuple[int, int, bytes]:
        """``(width, height, rgb)`` of the game screen in ``state``: a snapshot holds no
        picture, so the emulator restores it and runs one NOOP frame to draw it (the
        agent does not move visibly in one frame)."""
        assert isinstance(state, MontezumaState)
        ale = self.ale()
        ale.restoreState(state.snapshot)
        ale.act(ACTIONS["noop"])
        rgb = ale.getScreenRGB()
        height, width = int(rgb.shape[0]), int(rgb.shape[1])
        return width, height, rgb.tobytes()

    def show(self, state: Hashable) -> str:
        """A one-line description of the agent's situation (the sentence's picture)."""
        assert isinstance(state, MontezumaState)
        return (f"room {state.byte(ROOM)}, agent at x={state.byte(X)} y={state.byte(Y)}, "
                f"skull at x={state.byte(SKULL_X)}")


@cache
def shared_simulator() -> Montezuma:
    """One simulator for drawing screens (a renderer has only the result's state)."""
    return Montezuma()


def agent(state: Hashable) -> tuple[int, int, int]:
    """The agent's part of the state: room and position."""
    assert isinstance(state, MontezumaState)
    return state.byte(ROOM), state.byte(X), state.byte(Y)


# ---- screen-1 concepts as functions of RAM -------------------------------------------

def on_ladder(state: Hashable) -> bool:
    """Climbing (mode 10) or holding still (mode 0) on a ladder, away from its ends (at
    the top or bottom rung a sideways step reaches the floor)."""
    assert isinstance(state, MontezumaState)
    y = state.byte(Y)
    return state.byte(MODE) in (0, LADDER) and (MIDDLE + 8 <= y <= TOP - 8
                                                or BOTTOM + 8 <= y <= MIDDLE - 8)


def on_rope(state: Hashable) -> bool:
    """Hanging on a rope (mode 4): only a jump leaves it sideways."""
    assert isinstance(state, MontezumaState)
    return state.byte(MODE) == ROPE


def on_top_platform(state: Hashable) -> bool:
    """At the top level: the start platform (x 63..89) or the ledges either side of it."""
    assert isinstance(state, MontezumaState)
    return state.byte(Y) == TOP and not on_ladder(state)


def on_middle_floor(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return state.byte(Y) == MIDDLE and not on_ladder(state) and not on_rope(state)


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


def skull_gap(state: Hashable) -> int:
    """Agent x minus skull x in screen pixels (the skull's RAM x is 33 pixels short of
    where it is drawn: measured on the frames of the bundled plan)."""
    assert isinstance(state, MontezumaState)
    return state.byte(X) - (state.byte(SKULL_X) + SKULL_OFFSET)


def skull_moving_right(state: Hashable) -> bool:
    """The skull rolls right (bit 3 of RAM byte 51; measured to agree with the skull's
    next move in 99.5% of sampled states, the rest at its turns) and is not at the right
    end of its path (RAM x 72), where it turns back."""
    assert isinstance(state, MontezumaState)
    return bool(state.byte(SKULL_DIRECTION) & 8) and state.byte(SKULL_X) < SKULL_TURN


def skull_on_left(state: Hashable) -> bool:
    """The skull is close on the agent's left, near enough to touch it on a step left:
    within 10 pixels while it rolls towards the agent, 6 while it rolls away (measured:
    a step left fails at gaps 0..10 against a skull rolling closer, and succeeds at 9
    and 10 when it rolls away)."""
    reach = 10 if skull_moving_right(state) else 6
    return on_bottom_floor(state) and 0 <= skull_gap(state) <= reach


def skull_on_right(state: Hashable) -> bool:
    """The mirror image of :func:`skull_on_left`."""
    reach = 6 if skull_moving_right(state) else 10
    return on_bottom_floor(state) and -reach <= skull_gap(state) <= 0


def has_key(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return state.byte(INVENTORY) != 0


def in_left_half(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return state.byte(X) < 77


SCREEN_1: dict[str, tuple[Any, str]] = {
    "on-ladder": (on_ladder, "the agent is on a ladder, away from its ends"),
    "on-rope": (on_rope, "the agent hangs on the rope"),
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


# ---- screen-4 concepts ---------------------------------------------------------------

def _in_room_4(state: MontezumaState) -> bool:
    return state.byte(ROOM) == SCREENS["4"]


def crab_gap(state: Hashable) -> int:
    """Crab x minus agent x in screen pixels (positive: the crab is on the right)."""
    assert isinstance(state, MontezumaState)
    return state.byte(CRAB_X) - state.byte(X)


def on_ladder_4(state: Hashable) -> bool:
    """On screen 4's ladder (climbing or holding still)."""
    assert isinstance(state, MontezumaState)
    return _in_room_4(state) and state.byte(MODE) in (0, LADDER)


def on_floor_4(state: Hashable) -> bool:
    """Standing or walking on the crab's floor."""
    assert isinstance(state, MontezumaState)
    return _in_room_4(state) and state.byte(Y) == FLOOR_4 and state.byte(MODE) == 8


def clear_down_of_crab(state: Hashable) -> bool:
    """The paper's ``is_clear_down_of_crab``: false when the agent is on the ladder one
    step above the crab's floor and the crab is under it (measured: a step down there
    always meets the crab for crab gaps -4..8; the band is kept to where that holds)."""
    assert isinstance(state, MontezumaState)
    under = on_ladder_4(state) and state.byte(Y) == FLOOR_4 + 10 \
        and -6 <= crab_gap(state) <= 8
    return not under


def crab_on_left(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return _in_room_4(state) and crab_gap(state) < 0


def crab_on_right(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return _in_room_4(state) and crab_gap(state) > 0


def crab_near(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return _in_room_4(state) and abs(crab_gap(state)) <= 16


def at_ladder_top(state: Hashable) -> bool:
    """At the top of screen 4's ladder, where the agent enters the screen."""
    assert isinstance(state, MontezumaState)
    return on_ladder_4(state) and state.byte(Y) >= FLOOR_4 + 14


def above_floor(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return _in_room_4(state) and state.byte(Y) > FLOOR_4


def below_floor(state: Hashable) -> bool:
    assert isinstance(state, MontezumaState)
    return _in_room_4(state) and state.byte(Y) < FLOOR_4


def holds_item(state: Hashable) -> bool:
    """Something (key, sword, torch...) is in the inventory."""
    return has_key(state)


SCREEN_4: dict[str, tuple[Any, str]] = {
    "clear-down-of-crab": (clear_down_of_crab, "the way down the ladder is clear of the crab"),
    "on-ladder": (on_ladder_4, "the agent is on the ladder"),
    "on-floor": (on_floor_4, "the agent stands on the crab's floor"),
    "crab-on-left": (crab_on_left, "the crab is left of the agent"),
    "crab-on-right": (crab_on_right, "the crab is right of the agent"),
    "crab-near": (crab_near, "the crab is within 16 pixels of the agent, sideways"),
    "at-ladder-top": (at_ladder_top, "the agent is at the top of the ladder"),
    "above-floor": (above_floor, "the agent is above the crab's floor"),
    "below-floor": (below_floor, "the agent is below the crab's floor"),
    "holds-item": (holds_item, "the agent carries an item"),
}

SCREEN_CONCEPTS: dict[str, dict[str, tuple[Any, str]]] = {"1": SCREEN_1, "4": SCREEN_4}


def screen_concepts(screen: str) -> dict[str, tuple[Any, str]]:
    """``name -> (RAM test, description)`` of the screen's base concepts."""
    if screen not in SCREEN_CONCEPTS:
        raise InputError(f"no Montezuma concepts for screen {screen!r} (one of "
                         f"{', '.join(SCREEN_CONCEPTS)})")
    return SCREEN_CONCEPTS[screen]


def montezuma_library(screen: str) -> dict[str, Concept]:
    """The screen's concepts as exact functions of RAM, each followed by ``not-X``."""
    library: dict[str, Concept] = {}
    for name, (test, description) in screen_concepts(screen).items():
        concept = Concept(name, test, description)
        library[name] = concept
        library[f"not-{name}"] = negation(concept)
    return library


def screen_vocabulary(screen: str = "1") -> Vocabulary:
    """The screen's bundled vocabulary: every concept with its negation."""
    return Vocabulary(tuple(montezuma_library(screen).values()))


def folder() -> Path:
    """Where the bundled plan/foil action lists live."""
    return Path(str(resources.files("xaip") / "domains" / "montezuma"))


# bundled screen-1 pairs: name -> the concept expected to explain the foil's failure
PAIRS = {"ledge-left": "not-on-left-edge", "ledge-right": "not-on-right-edge",
         "ladder-left": "not-on-ladder", "rope-right": "not-on-rope",
         "skull-left": "not-skull-on-left"}
PAIRS["crab-down"] = "clear-down-of-crab"  # screen 4 (the paper's foil D)
PAIR_SCREENS = {pair: "4" if pair == "crab-down" else "1" for pair in PAIRS}


def read_montezuma_actions(path: str | Path) -> tuple[str, ...]:
    """An action list file (one action per line, ``#`` comments); unknown actions are bad
    input."""
    lines = read_text(path, "actions").splitlines()  # limits, devices, FIFOs, UTF-8
    actions = tuple(line.split("#", 1)[0].strip().lower() for line in lines)
    actions = tuple(a for a in actions if a)
    for number, action in enumerate(actions, 1):
        if action not in ACTIONS:
            raise InputError(f"{path}: unknown Montezuma action {action!r} (action "
                             f"{number}; one of {', '.join(ACTIONS)})")
    if not actions:
        raise InputError(f"{path}: no actions")
    return actions


def default_pair(screen: str) -> str:
    """The pair ``xaip why-not montezuma`` explains when no plan or foil is given."""
    return next(name for name, where in PAIR_SCREENS.items() if where == screen) \
        if screen in PAIR_SCREENS.values() else "ledge-left"


def pair_files(pair: str) -> tuple[Path, Path]:
    """``(plan, foil)`` files of a bundled screen-1 pair."""
    if pair not in PAIRS:
        raise InputError(f"no bundled Montezuma pair {pair!r} (one of {', '.join(PAIRS)})")
    prefix = folder() / f"screen-{PAIR_SCREENS[pair]}.{pair}"
    return Path(f"{prefix}.plan.txt"), Path(f"{prefix}.foil.txt")


def montezuma_query(plan: str | Path, foil: str | Path, screen: str = "1",
                    vocabulary: Vocabulary | None = None,
                    sim: Montezuma | None = None) -> Query:
    """A :class:`Query` on ``screen`` from action-list files (or a bundled pair's name)."""
    if screen not in SCREENS:
        raise InputError(f"no Montezuma screen {screen!r} (bundled: {', '.join(SCREENS)})")
    for name in {str(plan), str(foil)} & set(PAIRS):
        if PAIR_SCREENS[name] != screen:
            raise InputError(f"the bundled pair {name!r} is played on screen "
                             f"{PAIR_SCREENS[name]}, not {screen}")
    plan_file = pair_files(str(plan))[0] if str(plan) in PAIRS else plan
    foil_file = pair_files(str(foil))[1] if str(foil) in PAIRS else foil
    return Query(sim or Montezuma(screen), read_montezuma_actions(plan_file),
                 read_montezuma_actions(foil_file), vocabulary or screen_vocabulary(screen))
