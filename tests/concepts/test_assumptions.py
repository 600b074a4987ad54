"""The paper's assumption tests (appendix A.10) against a direct count on the same states."""

from __future__ import annotations

import json
import statistics
from collections.abc import Hashable

import pytest

from xaip.cli import main
from xaip.concepts.assumptions import assumption_tests
from xaip.concepts.simulator import INVALID, Outcome, random_walks
from xaip.concepts.vocabulary import Concept, Vocabulary
from xaip.errors import InputError


class Ring:
    """A 6x6 torus; ``act`` works where x is even and costs 10 where y < 2, else 1."""

    name = "ring/test"
    actions = ("right", "up", "act")

    def initial(self) -> Hashable:
        return (0, 0)

    def is_goal(self, state: Hashable) -> bool:
        return state == (5, 5)

    def step(self, state: Hashable, action: str) -> Outcome:
        x, y = state  # type: ignore[misc]
        if action == "right":
            return ((x + 1) % 6, y), 1.0
        if action == "up":
            return (x, (y + 1) % 6), 1.0
        if x % 2:
            return INVALID
        return (x, y), 10.0 if y < 2 else 1.0


CONCEPTS = {
    "x-even": lambda s: s[0] % 2 == 0,
    "x-small": lambda s: s[0] < 3,
    "y-low": lambda s: s[1] < 2,
    "y-even": lambda s: s[1] % 2 == 0,
}
VOCABULARY = Vocabulary(tuple(Concept(n, t) for n, t in CONCEPTS.items()))


def test_both_tests_equal_a_direct_count_on_the_same_states() -> None:
    sim = Ring()
    report = assumption_tests(sim, VOCABULARY, [(0, 0)], samples=3000, seed=5,
                              skip=["y-low"])
    states = random_walks(sim, [(0, 0)], 3000, 5, 15)
    ran = [s for s in states if s[0] % 2 == 0]
    rows = {r.action: r for r in report.independence}
    act = rows["act"]
    assert "x-even" in act.skipped  # the precondition is left out, as the paper did
    diffs = {n: abs(statistics.fmean(bool(t(s)) for s in ran) -
                    statistics.fmean(bool(t(s)) for s in states))
             for n, t in CONCEPTS.items() if n != "x-even"}
    assert act.max_difference == pytest.approx(max(diffs.values()))
    assert act.mean_difference == pytest.approx(statistics.fmean(diffs.values()))
    assert act.concept == max(diffs, key=lambda n: diffs[n]) and act.states == len(ran)
    # the cost test: only ``act`` varies in cost; y-low (the cost's concept) is skipped
    (cost,) = report.cost
    assert cost.action == "act" and cost.concept != "y-low"
    base = statistics.fmean(s[1] < 2 for s in ran)
    expected = {}
    for name, test in CONCEPTS.items():
        present = [s[1] < 2 for s in ran if test(s)]
        if name != "y-low" and len(present) >= 20:
            expected[name] = abs(statistics.fmean(present) - base)
    assert cost.max_difference == pytest.approx(max(expected.values()))
    assert cost.concepts_tested == len(expected)


def test_bad_requests_are_input_errors() -> None:
    with pytest.raises(InputError, match="unknown concept 'nope'"):
        assumption_tests(Ring(), VOCABULARY, [(0, 0)], samples=10, skip=["nope"])
    with pytest.raises(InputError, match="at least one sample"):
        assumption_tests(Ring(), VOCABULARY, [(0, 0)], samples=0)


def test_cli_json_and_misuse(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["why-not", "sokoban-cells", "--assumptions", "400", "--cost-concept",
                 "on-pink-cell", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["samples"] == 400 and data["independence"]
    assert all(r["concept"] != "on-pink-cell" for r in data["cost"])
    assert main(["why-not", "sokoban-cells", "--cost-concept", "on-pink-cell"]) == 2
    assert "--cost-concept goes with --assumptions" in capsys.readouterr().err
