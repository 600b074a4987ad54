"""Discovery's rounds (issue 26, scaling): query passes and the game-over guard run as
units of one capability, on the workers of a processes executor or here, and the run is
the same either way -- the JSON a user gets and every query record, byte for byte."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from xaip.capabilities.discovery import discover_game
from xaip.capabilities.rounds import _fresh, dumps
from xaip.planning.pddl.model import Atom


def _output(result: Any) -> str:
    """The run's JSON without its clock readings, and its query records."""
    payload = result.to_dict()
    for key in ("seconds", "seconds_per_query"):
        payload.pop(key, None)
    for key in ("seconds", "query_seconds", "trace_seconds", "seconds_per_query"):
        payload["stats"].pop(key, None)
    queries = [(q.capability, q.start, q.goal, q.status, q.reached, q.cached, q.reason)
               for q in result.queries]
    return json.dumps([payload, queries], sort_keys=True)


@pytest.mark.parametrize(("game", "rows", "cols", "seed"),
                         [("cookmepasta", 4, 4, 0), ("zelda", 4, 4, 1)])
def test_processes_give_the_serial_output_byte_for_byte(game: str, rows: int, cols: int,
                                                        seed: int) -> None:
    serial, _ = discover_game(game, rows, cols, seed=seed)
    pooled, _ = discover_game(game, rows, cols, seed=seed, executor="processes", workers=2)
    assert serial.stats.queries > 0 and len(serial.model.capabilities) > 1
    assert _output(pooled) == _output(serial)


def test_a_serial_run_measures_its_parallel_fraction() -> None:
    result, _ = discover_game("zelda", 3, 4, seed=0)
    assert 0 < result.parallel_seconds <= result.seconds


def test_a_fresh_copy_shares_nothing_mutable() -> None:
    atom = Atom("at", ("c1",))
    state = frozenset({atom})
    value = {"pre": {atom: {"+", "0"}}, "runs": [({"?x": "c1"}, state)], "key": ("a", [1])}
    copied = _fresh(value)
    assert copied == value
    copied["pre"][atom].discard("+")
    copied["runs"][0][0]["?x"] = "c2"
    copied["key"][1].append(2)
    assert value == {"pre": {atom: {"+", "0"}}, "runs": [({"?x": "c1"}, state)],
                     "key": ("a", [1])}
    assert copied["runs"][0][1] is state  # immutable parts are shared, not rebuilt


def test_atoms_survive_the_fast_pickler() -> None:
    atoms = [Atom("at", ("c1", "c2")), Atom("free")]
    back = pickle.loads(dumps({"atoms": atoms, "state": frozenset(atoms)}))
    assert back["atoms"] == atoms and back["state"] == frozenset(atoms)
    assert all(isinstance(a, Atom) for a in back["atoms"])
