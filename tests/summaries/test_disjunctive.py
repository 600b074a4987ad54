"""Disjunctive policy landmarks ("either A or B happens on every run"): search, checker,
result, command (issue 25)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace

import pytest

from xaip.planning.landmarks import BudgetExhausted
from xaip.planning.mdp import PolicyEdge, PolicyGraph
from xaip.runtime.budget import Budget
from xaip.summaries.command import main
from xaip.summaries.disjunctive import (
    DisjunctiveLandmark,
    DisjunctiveSet,
    avoiding_run,
    disjunctive_landmarks,
)
from xaip.summaries.disjunctive_check import check_disjunctive

# Facts: 0 start, 1 road A, 2 road B, 3 road C, 4 goal, 5 toll (on road A's run only).
S, A, B, C, G = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4
TOLL = 1 << 5


def graph(roads: list[int], extra: Sequence[tuple[int, int]] = ()) -> PolicyGraph:
    """From the start, one probabilistic step onto each road, then on to the goal."""
    edges = [PolicyEdge(S, "go", r, 1 / len(roads)) for r in roads]
    edges += [PolicyEdge(r, "on", G, 1.0) for r in roads]
    edges += [PolicyEdge(a, "x", b, 1.0) for a, b in extra]
    states = tuple(dict.fromkeys([S, *roads, G, *(b for _, b in extra)]))
    return PolicyGraph(init=S, states=states, edges=tuple(edges), goal_states=frozenset({G}),
                       dead_ends=frozenset(), unhandled=frozenset())


def test_two_roads_make_one_pair_with_witnesses() -> None:
    g = graph([A, B])
    found = disjunctive_landmarks(g, 2)
    assert found.sets() == {(1, 2)}
    (pair,) = found.landmarks
    assert pair.witnesses == ((S, A, G), (S, B, G))  # each road needed: the other avoided
    assert check_disjunctive(g, found) == []


def test_a_single_landmark_is_never_part_of_a_set() -> None:
    # The toll is on both roads: a landmark alone, so {A, toll} is not minimal.
    g = graph([A | TOLL, B | TOLL])
    found = disjunctive_landmarks(g, 3)
    assert found.sets() == {(1, 2)}
    assert 5 not in found.candidates


def test_three_roads_need_size_three() -> None:
    g = graph([A, B, C])
    assert disjunctive_landmarks(g, 2).sets() == set()
    three = disjunctive_landmarks(g, 3)
    assert three.sets() == {(1, 2, 3)}
    assert check_disjunctive(g, three) == []
    assert disjunctive_landmarks(g, 0).sets() == set()


def test_a_shortcut_breaks_the_pair() -> None:
    # start -> goal directly as well: no set is met by every run
    g = graph([A, B], extra=[(S, G)])
    assert disjunctive_landmarks(g, 3).sets() == set()
    assert avoiding_run(g, A | B) == (S, G)


def test_the_checker_catches_missing_extra_and_false_witnesses() -> None:
    g = graph([A, B, C])
    right = disjunctive_landmarks(g, 3)
    assert check_disjunctive(g, replace(right, landmarks=())) != []  # missing
    (triple,) = right.landmarks
    bogus = DisjunctiveLandmark((1, 2), ((S, A, G), (S, B, G)))  # road C avoids both
    problems = check_disjunctive(g, replace(right, landmarks=(triple, bogus)))
    assert any("avoids every fact" in p for p in problems)
    liar = DisjunctiveLandmark(triple.facts, ((S, A, G), (S, A, G), (S, C, G)))
    problems = check_disjunctive(g, replace(right, landmarks=(liar,)))
    assert any("witness" in p for p in problems)
    jump = DisjunctiveLandmark(triple.facts, ((S, A, G), (S, B, G), (C, G)))
    assert check_disjunctive(g, replace(right, landmarks=(jump,))) != []


def test_a_non_minimal_set_is_rejected() -> None:
    g = graph([A, B])
    padded = DisjunctiveSet(3, (1, 2, 4), (DisjunctiveLandmark(
        (1, 2, 3), ((S, A, G), (S, B, G), (S, A, G))),))
    problems = check_disjunctive(g, padded)
    assert problems  # not minimal (its witness for 3 is false) and the pair is missing


def test_the_initial_goal_has_no_disjunctive_landmarks() -> None:
    g = PolicyGraph(init=G, states=(G,), edges=(), goal_states=frozenset({G}),
                    dead_ends=frozenset(), unhandled=frozenset())
    found = disjunctive_landmarks(g, 3)
    assert found.sets() == set()
    assert check_disjunctive(g, found) == []


def test_budgets_stop_search_and_checker() -> None:
    g = graph([A, B, C])
    cut = disjunctive_landmarks(g, 3, Budget(max_nodes=6).start())
    assert not cut.complete
    with pytest.raises(BudgetExhausted):
        check_disjunctive(g, disjunctive_landmarks(g, 3), Budget(max_nodes=6).start())


def test_command_reports_the_airport_pair(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    text = capsys.readouterr().out
    assert ("either (at the-north-platform) or (at the-south-platform) happens on every "
            "run of this policy") in text
    assert main(["--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    found = payload["disjunctive_landmarks"]
    assert payload["verified"] and found["complete"] and found["max_size"] == 2
    assert [d["facts"] for d in found["landmarks"]] == [
        ["(at the-north-platform)", "(at the-south-platform)"]]
    assert "disjunctive landmarks confirmed" in payload["check_details"]
    witness = found["landmarks"][0]["witnesses"][0]
    assert witness["needs"] == "(at the-north-platform)"
    assert ["(at the-south-platform)"] not in witness["states"]
    assert payload["stats"]["disjunctive_landmarks"] == 1


def test_command_size_zero_and_bad_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "--disjunctive-size", "0"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["disjunctive_landmarks"]["landmarks"] == []
    assert main(["--disjunctive-size", "4"]) == 2
    err = capsys.readouterr().err
    assert "--disjunctive-size" in err and "Traceback" not in err
