"""Issue 21: the guard's listing says what it covered. A listing cut at ``--listing-limit``
(``Region.truncated``) used to be set and never reported; now the result, the JSON and
the text say how many states were listed, closed and guarded and that the level has more,
and a listing the budget cut short claims nothing (``budget_exhausted``)."""

from __future__ import annotations

import json

import pytest

from xaip.agents.simulator import OutOfTime
from xaip.capabilities import region
from xaip.capabilities.discovery import DiscoveryConfig, discover_game
from xaip.cli import main
from xaip.runtime.budget import Budget
from xaip.runtime.status import Status

GAME = ("zelda", 4, 5)


def test_a_whole_listing_is_reported_as_whole(capsys: pytest.CaptureFixture[str]) -> None:
    result, _ = discover_game(*GAME, seed=0)
    listing = result.listing
    assert listing is not None and not listing.truncated
    assert listing.limit == region.ROOT_VISITS
    assert 0 < listing.guarded <= listing.closed <= listing.states
    assert main(["discover", "zelda", "--grid", "4x5", "--seed", "0", "--quiet",
                 "--no-check"]) == 1
    text = capsys.readouterr().out
    assert f"guard: guarded on {listing.closed:,} closed states" in text
    assert "every state reachable from the start" in text


def test_a_cut_listing_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    config = DiscoveryConfig(seed=0, lifted_types=("cell",), listing_limit=20)
    result, _ = discover_game(*GAME, seed=0, config=config)
    listing = result.listing
    assert listing is not None and listing.truncated and listing.limit == 20
    assert listing.states >= 20 and listing.closed < listing.states
    assert result.status == Status.COMPLETE  # a cut listing is not a budget that ran out
    code = main(["discover", "zelda", "--grid", "4x5", "--seed", "0", "--quiet",
                 "--no-check", "--json", "--listing-limit", "20"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 1 and payload["listing"] == listing.to_dict()
    assert payload["listing"]["truncated"] is True
    main(["discover", "zelda", "--grid", "4x5", "--seed", "0", "--quiet", "--no-check",
          "--listing-limit", "20"])
    text = capsys.readouterr().out
    assert "the listing was cut at 20 states (--listing-limit)" in text
    assert "the level has more than 20 states" in text


@pytest.mark.parametrize("bad", ["0", "-3", "many"])
def test_a_bad_listing_limit_is_one_line(capsys: pytest.CaptureFixture[str],
                                        bad: str) -> None:
    assert main(["discover", "zelda", "--grid", "4x5", "--listing-limit", bad]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--listing-limit" in err[0]


def test_a_listing_the_budget_cut_short_claims_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    calls = {"n": 0}

    def passed() -> None:
        calls["n"] += 1
        if calls["n"] > 5:
            raise OutOfTime("budget exhausted")

    monkeypatch.setattr(region, "check_deadline", passed)
    result, _ = discover_game(*GAME, seed=0, budget=Budget(max_seconds=600))
    assert result.status == Status.BUDGET_EXHAUSTED and result.stats.exhausted
    assert result.listing is None and not result.verified
    code = main(["discover", "zelda", "--grid", "4x5", "--seed", "0", "--quiet", "--json",
                 "--max-seconds", "600"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 1 and payload["status"] == "budget_exhausted"
    assert payload["listing"] is None and payload["verified"] is False
