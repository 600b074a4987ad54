"""The ``discover`` and ``learn-model`` sub-commands, the SQLite store (resume), and bad
input: failing agents, non-deterministic simulators, predicates that raise, bad grids."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from xaip.agents import SearchAgent
from xaip.agents.agents import Attempt
from xaip.capabilities.command import add_parser, parse_grid, run
from xaip.capabilities.discovery import DiscoveryConfig, discover
from xaip.capabilities.queries import EngineConfig
from xaip.capabilities.store import SQLiteStore
from xaip.domains import generators
from xaip.errors import InputError
from xaip.vocab import Predicate, VocabularyError

from .conftest import LampWorld, lamp_refine, lamp_vocabulary


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser(prog="xaip")
    sub = parser.add_subparsers(dest="command", required=True)
    add_parser(sub)
    args = parser.parse_args(argv)
    code = run(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_discover_json_and_resume_from_store(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "zelda.sqlite"
    argv = ["discover", "zelda", "--grid", "3x4", "--seed", "1", "--store", str(store),
            "--json", "--check"]
    code, out, err = _run(argv, capsys)
    first = json.loads(out)
    assert first["status"] == "complete"
    assert code == (0 if first["verified"] else 1)  # exit 0 only for a verified answer
    for key in ("capabilities", "queries", "seconds", "seconds_per_query"):
        assert key in first
    for cap in first["capabilities"]:
        assert {"name", "parameters", "preconditions", "effects", "text"} <= set(cap)
    assert first["stats"]["asked"] == first["queries"] > 0
    assert first["checks"]["consistency"]["consistent"]
    assert "[traces]" in err and "[done]" in err  # progress on stderr
    code, out, _ = _run(argv, capsys)
    second = json.loads(out)
    assert second["queries"] == first["queries"]
    assert second["stats"]["asked"] == 0 and second["stats"]["cached"] == first["queries"]
    assert [c["text"] for c in second["capabilities"]] == \
        [c["text"] for c in first["capabilities"]]


def test_discover_text_pddl_and_pictures(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    pddl = tmp_path / "caps.pddl"
    code, out, _ = _run(["discover", "escape", "--grid", "3x3", "--quiet", "--pddl",
                         str(pddl), "--pictures", str(tmp_path / "pics")], capsys)
    assert code == (0 if "\nverified: " in out else 1)
    assert "checks: consistent with every trace" in out  # checked by default
    assert "Capability c1" in out and "agent can act so that" in out
    from xaip.planning.pddl import parse_domain

    domain = parse_domain(pddl.read_text())
    assert domain.actions
    assert list((tmp_path / "pics").glob("*.png"))


def test_a_store_of_another_run_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s.sqlite"
    _run(["discover", "zelda", "--grid", "3x4", "--seed", "1", "--store", str(store),
          "--quiet"], capsys)
    with pytest.raises(InputError, match="another run"):
        _run(["discover", "zelda", "--grid", "3x4", "--seed", "2", "--store", str(store),
              "--quiet"], capsys)
    not_a_store = tmp_path / "x.sqlite"
    not_a_store.write_text("hello, I am not a database")
    with pytest.raises(InputError):
        SQLiteStore(not_a_store)


@pytest.mark.parametrize("argv", [
    ["discover", "zelda", "--grid", "3by4"],
    ["discover", "zelda", "--grid", "1x9"],
    ["discover", "tetris"],
    ["discover", "cookmepasta", "--grid", "2x2"],
])
def test_bad_input_is_an_input_error(argv: list[str],
                                     capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(InputError):
        _run([*argv, "--quiet"], capsys)


def test_parse_grid() -> None:
    assert parse_grid("6x7") == (6, 7)
    assert parse_grid("8X8") == (8, 8)


def test_learn_model_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem = generators.gripper(2)
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "p.pddl").write_text(problem)
    code, out, _ = _run(["learn-model", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")],
                        capsys)
    assert code == 0 and "(:action pick" in out and "equals the hidden model" in out
    code, out, _ = _run(["learn-model", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"),
                         "--json", "-o", str(tmp_path / "learned.pddl")], capsys)
    payload = json.loads(out)
    assert payload["equal_to_hidden"] and payload["queries"] < 17
    assert (tmp_path / "learned.pddl").read_text() == payload["pddl"]


# --------------------------------------------------------------------------- bad agents


class Interrupting:
    """A search agent that is killed (KeyboardInterrupt) at its n-th query."""

    def __init__(self, world: LampWorld, after: int) -> None:
        self.inner = SearchAgent(world)
        self.simulator = world
        self.after = after
        self.calls = 0

    def query(self, start: Any, goal: Any, budget: Any = None) -> Attempt[Any]:
        self.calls += 1
        if self.calls > self.after:
            raise KeyboardInterrupt
        return self.inner.query(start, goal, budget)

    def reachable(self, start: Any, goal: Any, budget: Any = None) -> Any:
        raise NotImplementedError

    def run(self, task: Any) -> Attempt[Any]:
        raise NotImplementedError


def _lamp(agent: Any, store: Any = None, **extra: Any) -> Any:
    config = DiscoveryConfig(lifted_types=("cell",), tasks=6, random_states=30, **extra)
    return discover(agent.simulator, agent, lamp_vocabulary(), refine=lamp_refine,
                    config=config, store=store)


def test_a_killed_run_resumes_without_asking_again(tmp_path: Path) -> None:
    world = LampWorld()
    counter = Interrupting(world, after=10**9)
    full = _lamp(counter, SQLiteStore(tmp_path / "full.sqlite"))
    total = full.stats.queries
    assert total >= 3
    trace_calls = _trace_calls(tmp_path)
    path = tmp_path / "lamp.sqlite"
    store = SQLiteStore(path, {"world": "lamp"})
    killer = Interrupting(world, after=trace_calls + 1)  # traces, one query, then killed
    with pytest.raises(KeyboardInterrupt):
        _lamp(killer, store)
    store.close()
    with SQLiteStore(path, {"world": "lamp"}) as again:
        assert again.count() == 1  # only the query in flight was lost
        resumed = _lamp(SearchAgent(world), again)
    assert resumed.stats.queries == total
    assert resumed.stats.cached == 1 and resumed.stats.asked == total - 1
    assert [c.text for c in resumed.model.capabilities] == \
        [c.text for c in full.model.capabilities]


def _trace_calls(tmp_path: Path) -> int:
    """How many agent calls the lamp run's traces take (some tasks repeat): a run that
    asks nothing after them. (The calls of a whole run less its queries would overcount
    them: two units of a pass may compute the same query, recorded once.)"""
    counter = Interrupting(LampWorld(), after=10**9)
    _lamp(counter, SQLiteStore(tmp_path / "count.sqlite"), engine=EngineConfig(max_passes=0),
          generalise=False)
    return counter.calls


class Raising(SearchAgent[Any]):
    """An agent that raises on every query after its traces."""

    def __init__(self, world: LampWorld, after: int) -> None:
        super().__init__(world)
        self.calls = 0
        self.after = after

    def query(self, start: Any, goal: Any, budget: Any = None) -> Attempt[Any]:
        self.calls += 1
        if self.calls > self.after:
            raise RuntimeError("the agent crashed")
        return super().query(start, goal, budget)


def test_an_agent_that_raises_gives_failed_answers_and_the_run_goes_on(tmp_path: Path) \
        -> None:
    result = _lamp(Raising(LampWorld(), _trace_calls(tmp_path)))
    assert result.stats.errors == result.stats.queries > 0
    assert all(q.status == "error" and "crashed" in q.reason for q in result.queries)
    assert result.model.capabilities  # traces still give capabilities


class Flaky(SearchAgent[Any]):
    """A non-deterministic agent: answers the same query differently on every other ask."""

    def __init__(self, world: LampWorld, after: int) -> None:
        super().__init__(world)
        self.calls = 0
        self.after = after

    def query(self, start: Any, goal: Any, budget: Any = None) -> Attempt[Any]:
        self.calls += 1
        attempt = super().query(start, goal, budget)
        if self.calls > self.after and self.calls % 2 == 0:
            return Attempt("unreachable", (), (), 0, 0.0, "flaky") if attempt.reached \
                else Attempt("reached", (), (start,), 0, 0.0)
        return attempt


def test_a_non_deterministic_agent_is_flagged(tmp_path: Path) -> None:
    result = _lamp(Flaky(LampWorld(), _trace_calls(tmp_path)), recheck=10)
    assert result.stats.nondeterministic > 0
    assert any(not c.reliable for c in result.model.capabilities)
    assert any("deterministic" in note for c in result.model.capabilities for note in c.notes)


def test_a_predicate_that_raises_names_itself_and_the_state() -> None:
    world = LampWorld()
    vocab = lamp_vocabulary()

    def broken(state: Any) -> bool:
        raise ZeroDivisionError("oops")

    bad = vocab.extend(Predicate("sparkly", (), broken, "set"))
    with pytest.raises(VocabularyError, match="sparkly.*ZeroDivisionError.*robot="):
        discover(world, SearchAgent(world), bad, refine=lamp_refine,
                 config=DiscoveryConfig(lifted_types=("cell",), tasks=2))


def test_a_query_budget_stops_the_run_and_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["discover", "zelda", "--grid", "4x5", "--max-queries", "3",
                         "--json", "--quiet"], capsys)
    payload = json.loads(out)
    assert code == 1 and payload["stats"]["exhausted"]
    assert payload["status"] == "budget_exhausted" and payload["verified"] is False
    assert payload["queries"] <= 3 + 4  # the query in progress may ask a few more
    assert payload["capabilities"]


def test_a_store_of_another_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(str(path))
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES ('format', 'xaip-capabilities-store-1')")
    db.commit()
    db.close()
    with pytest.raises(InputError, match="another version of xaip"):
        SQLiteStore(path)
