"""Discovery through an executor: the processes executor gives the run a serial executor
gives, query for query (the look-ahead batches leave no trace)."""

from __future__ import annotations

import json

import pytest

from xaip.capabilities.discovery import discover_game
from xaip.cli import main


def _signature(result: object) -> tuple[object, ...]:
    return ([c.text for c in result.model.capabilities],  # type: ignore[attr-defined]
            [(q.capability, q.start, q.goal, q.status, q.reached, q.cached)
             for q in result.queries],  # type: ignore[attr-defined]
            result.stats.asked, str(result.status))  # type: ignore[attr-defined]


@pytest.mark.parametrize(("game", "agent"), [("zelda", "search"), ("escape", "policy")])
def test_processes_give_the_serial_run(game: str, agent: str) -> None:
    serial, _ = discover_game(game, 3, 4, seed=0, agent=agent)
    pooled, _ = discover_game(game, 3, 4, seed=0, agent=agent, executor="processes",
                              workers=2)
    assert serial.stats.queries > 0
    assert _signature(pooled) == _signature(serial)


def test_the_cli_takes_workers(capsys: pytest.CaptureFixture[str]) -> None:
    pooled_code = main(["discover", "zelda", "--grid", "3x4", "--workers", "2", "--json",
                        "--quiet"])
    pooled = json.loads(capsys.readouterr().out)
    serial_code = main(["discover", "zelda", "--grid", "3x4", "--json", "--quiet"])
    serial = json.loads(capsys.readouterr().out)
    assert pooled_code == serial_code == (0 if serial["verified"] else 1)
    assert pooled["verified"] == serial["verified"]
    assert pooled["status"] == serial["status"] == "complete"
    assert pooled["capabilities"] == serial["capabilities"]
    assert pooled["queries"] == serial["queries"]
