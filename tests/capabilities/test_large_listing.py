"""Regression (issue 21): the guard's listing stopped at 20,000 states, so on Snowman 4x5
seed 0 (58,686 states reachable from the known ones) only 713 listed states were closed,
the guard never saw the states where "pick up the bottom piece at cell_1_0" (``c4g1``) is
boxed in, and the checker refuted the model: the prediction came true from none of the
56,674 states reachable from a sampled state. Now the listing from the start goes to
``ROOT_VISITS`` states under the run's budget, every state reachable from the start is
closed and every closed abstraction is guarded.

The end-to-end run takes about 40 s of CPU: it runs when ``XAIP_SLOW`` is set (the
listing test below covers the cause in CI in a few seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from xaip.capabilities.region import ROOT_VISITS, explore
from xaip.capabilities.traces import Abstractor
from xaip.vocab.registry import get_game

from .conftest import reachable


def test_snowman_4x5_seed_0_is_listed_and_closed_whole() -> None:
    spec = get_game("snowman")
    simulator = spec.make(4, 5, 0)
    start = simulator.reset()
    states = reachable(simulator, start)
    assert 20_000 < len(states) < ROOT_VISITS  # the old listing cut this level short
    region = explore(simulator, [start], [], Abstractor(spec.vocabulary()))
    assert not region.truncated
    assert set(region.nodes) == states
    assert all(region.closed)
    # every closed abstraction goes to the guard (there was a cap of 4,000)
    assert len(region.places()) == len(set(region.fluents)) > 4_000


def test_a_listing_cut_short_says_so() -> None:
    spec = get_game("snowman")
    simulator = spec.make(4, 5, 0)
    start = simulator.reset()
    region = explore(simulator, [start], [], Abstractor(spec.vocabulary()), root_visits=500)
    assert region.truncated and not all(region.closed)


@pytest.mark.skipif(not os.environ.get("XAIP_SLOW"), reason="about 40 s of CPU: XAIP_SLOW=1")
def test_snowman_4x5_seed_0_is_verified() -> None:
    code = "import sys; from xaip.cli import main; sys.exit(main())"
    proc = subprocess.run([sys.executable, "-c", code, "discover", "snowman", "--grid",
                           "4x5", "--seed", "0", "--json", "--quiet"],
                          capture_output=True, text=True, timeout=900, check=False)
    payload = json.loads(proc.stdout)
    assert payload["status"] == "complete", proc.stderr
    assert payload["verified"] is True, payload["check"]["details"]
    assert proc.returncode == 0
