"""The Sokoban variants follow the paper's rules (appendix A.6) and reject bad input."""

from __future__ import annotations

import pytest

from xaip.concepts import INVALID, Session, Sokoban, parse_level, run_trace
from xaip.concepts.sokoban import ACTIONS, parse_actions
from xaip.errors import InputError

LEVEL = """
#######
#s  c #
# @$ .#
#  $ .#
#######
"""


def sim(env: str = "sokoban-switch", variant: str = "precondition") -> Sokoban:
    return Sokoban(parse_level(LEVEL), env, variant)


def test_nine_actions() -> None:
    assert len(ACTIONS) == 9 and "noop" in ACTIONS


def test_moves_need_an_empty_cell_and_pushes_a_box() -> None:
    s = sim("sokoban-switch", "cost")
    start = s.initial()
    assert s.step(start, "move-right") is INVALID          # a box is there
    assert s.step(start, "push-left") is INVALID           # nothing to push
    assert s.step(start, "noop") == (start, 1.0)
    moved = s.step(start, "move-left")
    assert moved is not INVALID and moved[1] == 1.0
    pushed = s.step(start, "push-right")
    assert pushed is not INVALID
    state, cost = pushed
    assert cost == 10.0                                    # switch off: pushes cost 10
    assert state.player == start.player + 1 and state.boxes != start.boxes


def test_push_fails_when_the_box_cannot_move() -> None:
    s = sim("sokoban-switch", "cost")
    trace = run_trace(s, ["move-down", "push-right", "push-right", "push-right"])
    assert trace.failed_step == 3                          # the box is against the wall


def test_switch_toggles_on_each_visit_and_gates_pushes() -> None:
    s = sim()
    assert s.step(s.initial(), "push-right") is INVALID
    trace = run_trace(s, ["move-up", "move-left"])
    assert trace.final.switch_on
    assert run_trace(s, ["move-up", "move-left", "move-right", "move-left"]).final.switch_on \
        is False
    on = run_trace(s, ["move-up", "move-left", "move-down", "move-right", "push-right"])
    assert on.valid and on.costs[-1] == 1.0


def test_pink_cells_make_pushes_expensive() -> None:
    level = parse_level("#######\n#@$c .#\n#######\n")
    s = Sokoban(level, "sokoban-cells", "cost")
    trace = run_trace(s, ["push-right", "push-right", "push-right"])
    assert trace.costs == (1.0, 1.0, 10.0)  # the 3rd push is made from the pink cell
    assert s.is_goal(trace.final)


def test_session_saves_and_restores_states() -> None:
    session = Session(sim("sokoban-switch", "cost"))
    saved = session.get_state()
    assert session.act("move-left") is not INVALID
    assert session.get_state() != saved
    session.set_state(saved)
    assert session.get_state() == saved
    assert session.act("move-right") is INVALID and session.get_state() == saved


@pytest.mark.parametrize("text, message", [
    ("####\n#$.#\n####", "exactly one player"),
    ("#####\n#@$@#\n#..##\n", "exactly one player"),
    ("####\n#@.#\n####", "at least one box"),
    ("#####\n#@$x#\n#####", "unknown level symbol"),
    ("", "empty"),
])
def test_bad_levels(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_level(text)


def test_bad_actions_and_variants() -> None:
    with pytest.raises(InputError, match="unknown action 'jump'"):
        parse_actions("move-up\njump\n", "foil.txt")
    assert parse_actions("(move-up)\n; comment\n\nPUSH-LEFT\n") == ("move-up", "push-left")
    with pytest.raises(InputError, match="no 'precondition' variant"):
        Sokoban(parse_level(LEVEL), "sokoban-cells", "precondition")
    with pytest.raises(InputError, match="needs a switch"):
        Sokoban(parse_level("#####\n#@$.#\n#####"), "sokoban-switch", "precondition")
