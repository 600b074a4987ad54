"""``xaip summarize``: output, files, and bad input (exit code 2, one line, no traceback)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.planning.pddl.model import Atom
from xaip.summaries.command import main
from xaip.summaries.text import phrase, readable, sequence_sentence

GAMBLE_DOMAIN = """(define (domain gamble)
  (:requirements :strips :probabilistic-effects)
  (:predicates (start) (won) (broke) (safe))
  (:action bet :parameters () :precondition (start)
    :effect (and (not (start)) (probabilistic 1/2 (won) 1/2 (broke))))
  (:action walk :parameters () :precondition (start)
    :effect (and (not (start)) (safe)))
  (:action cash :parameters () :precondition (safe) :effect (won)))
"""
GAMBLE_PROBLEM = """(define (problem gamble-1) (:domain gamble)
  (:init (start)) (:goal (won)))
"""
RISKY_DOMAIN = """(define (domain risky)
  (:requirements :strips :probabilistic-effects)
  (:predicates (start) (won) (broke))
  (:action bet :parameters () :precondition (start)
    :effect (and (not (start)) (probabilistic 1/2 (won) 1/2 (broke)))))
"""
RISKY_PROBLEM = """(define (problem risky-1) (:domain risky) (:init (start)) (:goal (won)))
"""
NUMERIC_DOMAIN = """(define (domain fuel)
  (:requirements :strips :fluents)
  (:predicates (there))
  (:functions (fuel))
  (:action go :parameters ()
    :precondition (>= (fuel) 1)
    :effect (there)))
"""


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_bundled_example_in_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run([], capsys)
    assert code == 0
    assert "First get to the bus stop, then get to station 1" in out
    assert ("Value check: pursuing the subgoals one after another costs 8.8, the policy "
            "8.8: equal") in out
    assert "the exact method's subgoals are exactly right" in out
    assert "In what order (6 of the 21 orderings shown; 15 follow from these):" in out
    for internal in ("D(M)", "Proposition 3", "Complete: True"):  # JSON keeps the names
        assert internal not in out


def test_json_has_the_documented_fields(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["--json", "--drill", "(at station1)", "(at the-airport)"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["reachable_states"] == 11
    assert "(at station1)" in data["policy_landmarks"]["facts"]
    assert data["model_landmarks"]["facts"] == [
        "(at the-airport)", "(passed-security)", "(at gate10)"
    ]
    assert {"before": "(at station1)", "after": "(at the-shuttle-station)",
            "kind": "natural"} in data["orderings"]
    assert data["summary"].startswith("Policy summary for 'to-the-airport'")
    assert isinstance(data["seconds"], float)
    assert data["drill"]["common_landmarks"] == ["(at the-shuttle-station)"]
    assert data["checked_ok"] and data["proposition_3"]["equal"]


def test_policy_round_trip_through_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = str(tmp_path / "policy.json")
    code, first, _ = run(["--json", "--save-policy", saved], capsys)
    assert code == 0
    code, second, _ = run(["--json", "--policy", saved], capsys)
    assert code == 0
    a, b = json.loads(first), json.loads(second)
    assert a["policy_landmarks"] == {**b["policy_landmarks"],
                                     "seconds": a["policy_landmarks"]["seconds"]}
    assert a["summary"] == b["summary"]


def test_dot_file_and_svg_note(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "lm.dot"
    code, out, _ = run(["--dot", str(target)], capsys)
    assert code == 0
    text = target.read_text()
    assert text.startswith("digraph") and '"(at station1)"' in text
    edges = [line for line in text.splitlines() if "->" in line and "legend" not in line]
    assert len(edges) == 6  # the chain of seven, transitively reduced (legend aside)
    assert (tmp_path / "lm.svg").read_text().lstrip().startswith(("<svg", "<?xml"))
    assert f"wrote {target} and {tmp_path / 'lm.svg'}" in out


def test_improper_policy_is_summarised_with_a_caution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    domain = write(tmp_path, "d.pddl", RISKY_DOMAIN)
    problem = write(tmp_path, "p.pddl", RISKY_PROBLEM)
    code, out, _ = run([domain, problem], capsys)
    assert code == 0
    assert "Caution: with probability 0.5 the policy does not reach the goal" in out


def test_strict_mode_reports_dead_ends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    domain = write(tmp_path, "d.pddl", RISKY_DOMAIN)
    problem = write(tmp_path, "p.pddl", RISKY_PROBLEM)
    code, _, err = run([domain, problem, "--strict"], capsys)
    assert code == 2
    assert "no proper policy" in err and "(broke)" in err
    assert len(err.strip().splitlines()) == 1


def test_policy_that_never_reaches_the_goal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    domain = write(tmp_path, "d.pddl", GAMBLE_DOMAIN)
    problem = write(tmp_path, "p.pddl", GAMBLE_PROBLEM)
    policy = write(tmp_path, "pi.json", json.dumps({"policy": {"(start)": "walk"}}))
    code, _, err = run([domain, problem, "--policy", policy], capsys)
    assert code == 2
    assert "never reaches the goal" in err


def test_policy_file_for_another_problem(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    domain = write(tmp_path, "d.pddl", GAMBLE_DOMAIN)
    problem = write(tmp_path, "p.pddl", GAMBLE_PROBLEM)
    saved = str(tmp_path / "airport.json")
    assert main(["--save-policy", saved]) == 0
    capsys.readouterr()
    code, _, err = run([domain, problem, "--policy", saved], capsys)
    assert code == 2
    assert "the policy is for task 'to-the-airport', not 'gamble-1'" in err


def test_policy_without_the_initial_state(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    domain = write(tmp_path, "d.pddl", GAMBLE_DOMAIN)
    problem = write(tmp_path, "p.pddl", GAMBLE_PROBLEM)
    policy = write(tmp_path, "pi.json", json.dumps({"policy": {"(safe)": "cash"}}))
    code, _, err = run([domain, problem, "--policy", policy], capsys)
    assert code == 2
    assert "no action for the initial state" in err


def test_unsupported_ppddl_is_named_with_its_location(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    domain = write(tmp_path, "d.pddl", NUMERIC_DOMAIN)
    problem = write(tmp_path, "p.pddl", "(define (problem f) (:domain fuel) (:goal (there)))")
    code, _, err = run([domain, problem], capsys)
    assert code == 2
    assert "d.pddl:6:" in err and "numeric comparison" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--drill", "(at nowhere)", "goal"], "unknown fact (at nowhere)"),
        (["--drill", "(at home)", "(at the-airport)"], None),
        (["--drill", "(taxi-waiting)", "goal"], "never holds on an execution"),
        (["--max-completions", "0"], "--max-completions"),
    ],
)
def test_drill_arguments(
    argv: list[str], message: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(argv, capsys)
    if message is None:
        assert code == 0 and "Drill-down from (at home) to (at the-airport)" in out
    else:
        assert code == 2 and message in err


def test_only_a_domain_is_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["domain.pddl"], capsys)
    assert code == 2 and "both DOMAIN and PROBLEM" in err


def test_phrases_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xaip.domains.airport import airport_paths

    domain, problem = airport_paths()
    phrases = write(tmp_path, "ph.json", json.dumps({"at": "reach {0}", "boarded": "fly"}))
    code, out, _ = run([str(domain), str(problem), "--phrases", phrases], capsys)
    assert code == 0 and "First reach the bus stop" in out and "and finally fly." in out
    bad = write(tmp_path, "bad.json", "[1, 2]")
    code, _, err = run([str(domain), str(problem), "--phrases", bad], capsys)
    assert code == 2 and "predicate -> template" in err


def test_english_helpers() -> None:
    assert readable("station1") == "station 1"
    assert readable("b1") == "b1"
    assert readable("the-shuttle-station") == "the shuttle station"
    assert phrase(Atom("vehicle-at", ("l-1-2",))) == "get to l 1 2"
    assert phrase(Atom("on", ("b1", "b2"))) == "put b1 on b2"
    assert phrase(Atom("on", ("b1",))) == "make (on b1) true"
    assert phrase(Atom("hasspare", ())) == "make (hasspare) true"
    assert sequence_sentence(["a"]) == "A."
    assert sequence_sentence(["a", "b"]) == "First a, and then b."
    assert sequence_sentence(["a", "b", "c"]) == "First a, then b, and finally c."
