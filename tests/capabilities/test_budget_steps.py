"""Issue 21, discovery: a budget that runs out inside the steps that make a model sound --
the listing of what the simulator reaches and the guard built on it, the generalisation
test, re-learning refuted lifted capabilities grounded -- leaves the run
``budget_exhausted``, never verified, exit 1, and the partial model honest: the
capabilities that step would have replaced stay marked with what refuted them, and
re-grounded ones the budget cut short are marked as such.

``escape --grid 3x4 --seed 0`` re-learns two refuted lifted capabilities grounded, so every
step runs on it (72 queries, under a second)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from xaip.agents.simulator import OutOfTime
from xaip.capabilities import region
from xaip.capabilities.discovery import discover_game
from xaip.cli import main
from xaip.runtime.budget import Budget
from xaip.runtime.progress import ProgressEvent
from xaip.runtime.status import Status

GAME = ("escape", 3, 4)


class Events:
    """A progress listener that keeps every event."""

    def __init__(self) -> None:
        self.events: list[ProgressEvent] = []

    def __call__(self, event: ProgressEvent) -> None:
        self.events.append(event)

    def watch(self, clock: Any) -> None:
        pass

    def notice(self, text: str) -> None:
        pass

    def asked_before(self, phase: str) -> int | None:
        """Queries asked when ``phase`` was first reported (``None``: never reported)."""
        asked = 0
        for event in self.events:
            if event.phase == phase:
                return asked
            if event.phase == "queries":
                asked = event.done
        return None


def _cli(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, dict[str, Any]]:
    code = main(["discover", GAME[0], "--grid", f"{GAME[1]}x{GAME[2]}", "--seed", "0",
                 "--json", "--quiet", *flags])
    return code, json.loads(capsys.readouterr().out)


def _exhausted(result: Any) -> None:
    assert result.status == Status.BUDGET_EXHAUSTED and result.stats.exhausted
    assert not result.verified


def test_the_full_run_regrounds_so_every_step_is_exercised() -> None:
    events = Events()
    result, _ = discover_game(*GAME, seed=0, progress=events)
    assert result.status == Status.COMPLETE and result.stats.split >= 1
    assert events.asked_before("regrounding") is not None


def test_queries_of_the_generalisation_test_count_against_the_budget(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``--max-queries 40`` asked 72 queries and said "complete": the generalisation
    test's questions were not charged."""
    code, payload = _cli(capsys, "--max-queries", "40")
    assert code == 1
    assert payload["status"] == "budget_exhausted" and payload["verified"] is False
    assert payload["queries"] <= 40 and payload["check"] is None


def test_budget_running_out_while_regrounding(capsys: pytest.CaptureFixture[str]) -> None:
    events = Events()
    discover_game(*GAME, seed=0, progress=events)
    before = events.asked_before("regrounding")
    assert before is not None
    cut = Events()
    result, _ = discover_game(*GAME, seed=0, progress=cut, budget=Budget(max_nodes=before + 1))
    assert cut.asked_before("regrounding") == before  # it ran out in that step
    _exhausted(result)
    grounded = [c for c in result.model.capabilities if "g" in c.name]
    assert grounded and all(not c.reliable for c in grounded)
    assert all(any("budget ran out" in n for n in c.notes) for c in grounded)
    code, payload = _cli(capsys, "--max-queries", str(before + 1))
    assert code == 1 and payload["status"] == "budget_exhausted"
    assert payload["verified"] is False and payload["stats"]["exhausted"] is True
    assert all(not c["reliable"] for c in payload["capabilities"] if "g" in c["name"])


@pytest.mark.parametrize("where", ["listing", "guard"])
def test_budget_running_out_in_the_listing_or_the_guard(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        where: str) -> None:
    """The deadline passes while the simulator's states are listed, or while the guard
    excludes them (both check it: the listing per state, the guard per literal)."""
    from xaip.capabilities import gameover

    module = region if where == "listing" else gameover
    calls = {"n": 0}

    def passed() -> None:
        calls["n"] += 1
        if calls["n"] > 3:
            raise OutOfTime("budget exhausted")

    monkeypatch.setattr(module, "check_deadline", passed)
    result, _ = discover_game(*GAME, seed=0, budget=Budget(max_seconds=600))
    _exhausted(result)
    assert calls["n"] > 3
    # the refuted lifted capabilities were neither guarded nor re-grounded: none is
    # presented as re-learned, and the text says the budget ran out
    assert result.stats.split == 0
    code, payload = _cli(capsys, "--max-seconds", "600")
    assert code == 1 and payload["status"] == "budget_exhausted"
    assert payload["verified"] is False and payload["check"] is None
    code = main(["discover", GAME[0], "--grid", "3x4", "--seed", "0", "--quiet",
                 "--max-seconds", "600"])
    text = capsys.readouterr().out
    assert code == 1 and "budget exhausted" in text and "\nverified" not in text
