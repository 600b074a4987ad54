"""``xaip observe`` on files a user writes (not the bundled ones): every mode with
``--json``, pictures, lies behind their opt-in, and one-line errors for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.errors import EXIT_BAD_INPUT, EXIT_NEGATIVE, EXIT_OK

DOMAIN = """
(define (domain rover)
  (:requirements :strips :typing)
  (:types cell)
  (:predicates (at ?c - cell) (adj ?a ?b - cell) (east ?a ?b - cell))
  (:action move :parameters (?from ?to - cell)
    :precondition (and (at ?from) (adj ?from ?to))
    :effect (and (at ?to) (not (at ?from)))))
"""


def _problem() -> str:
    cells = [(r, c) for r in range(3) for c in range(3)]
    adj = [f"(adj r{r}c{c} r{r + dr}c{c + dc})" for r, c in cells
           for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0))
           if 0 <= r + dr < 3 and 0 <= c + dc < 3]
    east = [f"(east r{r}c{c} r{r}c{c + 1})" for r, c in cells if c < 2]
    return (f"(define (problem walk) (:domain rover)\n"
            f" (:objects {' '.join(f'r{r}c{c}' for r, c in cells)} - cell)\n"
            f" (:init (at r1c0) {' '.join(adj + east)})\n (:goal (at r0c2)))\n")


# A tower sees "east" for a move east and "moved" for any other move: it cannot tell
# north from south, so the grid's mirror image hides every plan's end row.
TOWER = {"observer": "tower", "rules": [
    {"actions": ["move"], "if": ["(east ?0 ?1)"], "token": [{"const": "east"}]},
    {"token": [{"const": "moved"}]}]}
TEAM = {"observers": {"spy": {"role": "adversary", "rules": [{"token": [{"const": "moved"}]}]},
                      "mate": {"role": "friend", "rules": [{"token": ["name"]}]}}}
GOALS = {"true": "ne", "goals": {"ne": ["(at r0c2)"], "se": ["(at r2c2)"],
                                 "centre": ["(at r1c1)"]}}


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {"domain": tmp_path / "domain.pddl", "problem": tmp_path / "problem.pddl",
           "tower": tmp_path / "tower.json", "team": tmp_path / "team.json",
           "goals": tmp_path / "goals.json", "plan": tmp_path / "plan.txt",
           "grid": tmp_path / "grid.txt"}
    out["domain"].write_text(DOMAIN)
    out["problem"].write_text(_problem())
    out["tower"].write_text(json.dumps(TOWER))
    out["team"].write_text(json.dumps(TEAM))
    out["goals"].write_text(json.dumps(GOALS))
    out["plan"].write_text("(move r1c0 r1c1)\n(move r1c1 r1c2)\n(move r1c2 r0c2)\n")
    out["grid"].write_text("S..#..\n...#.A\n......\nB....G\n")
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    code = main(["observe", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _base(f: dict[str, Path], observer: str = "tower") -> list[Path | str]:
    return [f["domain"], f["problem"], "--observations", f[observer], "--goals", f["goals"]]


@pytest.mark.parametrize(("extra", "code", "status"), [
    (["--mode", "ambiguous", "--k", "3"], EXIT_OK, "solved"),
    (["--mode", "secure-ambiguous", "--k", "2", "--seed", "1"], EXIT_OK, "solved"),
    # the mirror image keeps 'se' possible: no 1-legible plan (brute force confirms)
    (["--mode", "legible-goal", "--max-cost", "5"], EXIT_NEGATIVE, "unsolvable"),
    (["--mode", "legible-plan", "--m", "2", "--d", "0.5", "--max-cost", "4"], EXIT_NEGATIVE,
     "unsolvable"),
    (["--mode", "diverse", "--l", "2", "--d", "0.5", "--max-cost", "3"], EXIT_NEGATIVE,
     "unsolvable"),
])
def test_single_observer_modes_on_user_files(capsys, files, extra, code, status) -> None:
    got, out, err = run(capsys, *_base(files), *extra, "--json")
    payload = json.loads(out)
    assert (got, payload["status"], err) == (code, status, "")
    assert payload["verified"] is True and "seconds" in payload
    if status == "solved":
        assert len(payload["goals_in_final_belief"]["tower"]) >= 2
        assert payload["plan"][-1].endswith("r0c2)")


def test_bad_plans_to_score_exit_2(capsys, files) -> None:
    for text, message in (("", "the plan is empty"),
                          ("(move r1c0 r1c1)\n(move r1c1 r2c2)\n", "step 2 (move r1c1 r2c2)"),
                          ("(move r0c0 r0c1)\n", "not applicable")):
        files["plan"].write_text(text)
        code, out, err = run(capsys, *_base(files), "--mode", "score", "--plan",
                             files["plan"])
        assert (code, out) == (EXIT_BAD_INPUT, "") and message in err


def test_score_and_mixed_on_user_files(capsys, files) -> None:
    code, out, _ = run(capsys, *_base(files), "--mode", "score", "--plan", files["plan"],
                       "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["observations"] == ["east", "east", "moved"]
    assert payload["score"] == 3 and payload["goals_in_final_belief"]["tower"] == [
        "ne", "se", "centre"]
    for method in ("ip", "search"):
        code, out, _ = run(capsys, *_base(files, "team"), "--mode", "mixed", "--method",
                           method, "--k", "3", "--j", "1", "--horizon", "4", "--json")
        payload = json.loads(out)
        assert code == EXIT_OK and payload["verified"] is True and payload["score"] == 1.0
        assert payload["goals_in_final_belief"] == {"spy": ["ne", "se", "centre"],
                                                    "mate": ["ne"]}
    code, out, _ = run(capsys, *_base(files, "team"), "--mode", "mixed")
    assert "[move r1c0" in out  # tokens with spaces stay readable


def test_pictures_of_a_user_grid(capsys, files, tmp_path) -> None:
    png, gif = tmp_path / "film.png", tmp_path / "film.gif"
    code, out, _ = run(capsys, *_base(files), "--mode", "ambiguous", "--k", "3",
                       "--picture", png, "--animation", gif, "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["picture"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert gif.read_bytes()[:6] == b"GIF89a"
    code, _, _ = run(capsys, "--mode", "deceptive", "--grid", files["grid"], "--animation",
                     gif, "--picture", png)
    assert code == EXIT_OK and gif.read_bytes()[:6] == b"GIF89a"


def test_pictures_never_overwrite_inputs_and_need_a_grid(capsys, files, tmp_path) -> None:
    before = files["goals"].read_bytes()
    code, _, err = run(capsys, *_base(files), "--mode", "ambiguous", "--picture",
                       files["goals"])
    assert code == EXIT_BAD_INPUT and "refusing to overwrite" in err
    assert files["goals"].read_bytes() == before and err.count("\n") == 1
    code, _, err = run(capsys, *_base(files), "--picture", tmp_path)
    assert code == EXIT_BAD_INPUT and "directory" in err
    code, _, err = run(capsys, "--example", "port", "--picture", tmp_path / "p.png")
    assert code == EXIT_BAD_INPUT and "not a grid task" in err
    assert not (tmp_path / "p.png").exists()
    code, out, err = run(capsys, *_base(files), "--max-cost", "4", "--picture",
                         tmp_path / "q.png", "--json")
    assert code == EXIT_NEGATIVE and "no plan to draw" in err  # the answer still stands
    assert json.loads(out)["status"] == "unsolvable" and not (tmp_path / "q.png").exists()


@pytest.mark.parametrize(("goals", "extra", "message"), [
    ({"true": "ne", "goals": {"ne": ["(at r0c2)"], "far": ["(at r9c9)"]}}, [],
     "unknown object 'r9c9'"),
    ({"true": "ne", "goals": {"ne": ["(at r0c2)"], "off": ["(east r0c2 r0c0)"]}}, [],
     "can never hold"),
    ({"true": "ne", "goals": {"ne": ["(at r0c2)"], "again": ["(at r0c2)"]}}, [],
     "same facts"),
    ({"true": "both", "goals": {"both": ["(at r0c2)", "(at r2c2)"], "se": ["(at r2c2)"]}},
     [], "unreachable"),
    ({"goals": {"ne": ["(robot-at r0c2)"]}}, [], "unknown predicate 'robot-at'"),
    (GOALS, ["--mode", "ambiguous", "--k", "4"], "larger than the number of candidate goals"),
    (GOALS, ["--mode", "secure-ambiguous", "--k", "4"], "larger than the number"),
])
def test_bad_goals_exit_2_in_one_line(capsys, files, goals, extra, message) -> None:
    files["goals"].write_text(json.dumps(goals))
    code, out, err = run(capsys, *_base(files), *extra)
    assert (code, out) == (EXIT_BAD_INPUT, "") and message in err and err.count("\n") == 1


def test_bad_observations_and_k_for_mixed(capsys, files) -> None:
    files["tower"].write_text(json.dumps({"rules": [{"token": [{"facts": "robot-at"}]}]}))
    code, _, err = run(capsys, *_base(files))
    assert code == EXIT_BAD_INPUT and "unknown predicate 'robot-at'" in err
    code, _, err = run(capsys, *_base(files, "team"), "--mode", "mixed", "--k", "4")
    assert code == EXIT_BAD_INPUT and "k = 4" in err and err.count("\n") == 1
    # a hook that raises is the user's bug: one line, exit 2 (not an internal error)
    files["tower"].write_text(json.dumps({"rules": [{"token": [{"hook": "os:getcwd"}]}]}))
    code, _, err = run(capsys, *_base(files), "--max-cost", "2")
    assert code == EXIT_BAD_INPUT and "hook os:getcwd failed" in err and err.count("\n") == 1
    code, _, err = run(capsys, *_base(files, "team"), "--mode", "legible-plan", "--d", "nan")
    assert code == EXIT_BAD_INPUT and "finite" in err


ROBOT = """
(define (domain courier)
  (:requirements :strips :typing)
  (:types place)
  (:predicates (at ?p - place) (road ?a ?b - place) (ferry ?a ?b - place) (ticket)
               (office-open))
  (:action drive :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b)) :effect (and (at ?b) (not (at ?a))))
  (:action buy-ticket :parameters () :precondition (office-open) :effect (ticket))
  (:action sail :parameters (?a ?b - place)
    :precondition (and (at ?a) (ferry ?a ?b) (ticket))
    :effect (and (at ?b) (not (at ?a)))))
"""
TRIP = """
(define (problem trip) (:domain courier)
  (:objects home m1 m2 dest - place)
  (:init (at home) (road home m1) (road m1 m2) (road m2 dest) (ferry home dest))
  (:goal (at dest)))
"""


@pytest.fixture
def courier(tmp_path: Path) -> list[Path | str]:
    robot, human, trip = (tmp_path / n for n in ("robot.pddl", "human.pddl", "trip.pddl"))
    robot.write_text(ROBOT)
    human.write_text(ROBOT.replace("(ferry ?a ?b) (ticket))", "(ferry ?a ?b))").replace(
        ":precondition (office-open)", ":precondition ()"))
    trip.write_text(TRIP)
    return [robot, trip, "--mode", "lie", "--human-domain", human]


def test_lies_refuse_without_the_opt_in(capsys, courier) -> None:
    code, out, err = run(capsys, *courier)
    assert (code, out) == (EXIT_BAD_INPUT, "") and "--allow-untruthful" in err
    assert err.count("\n") == 1
    code, _, err = run(capsys, "--example", "port", "--allow-untruthful")
    assert code == EXIT_BAD_INPUT and "only applies to --mode lie" in err


def test_lies_are_labelled_in_text_and_json(capsys, courier) -> None:
    code, out, _ = run(capsys, *courier, "--allow-untruthful")
    assert code == EXIT_OK and out.startswith("UNTRUTHFUL") and "[FALSE]" in out
    code, out, _ = run(capsys, *courier, "--allow-untruthful", "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["label"] == "untruthful" and payload["verified"]
    assert payload["untruthful"] is True and payload["size"] < payload["mce_size"] == 2
    assert payload["false_statements"] == 1 and "UNTRUTHFUL" in payload["warning"]
    code, out, _ = run(capsys, *courier, "--allow-untruthful", "--omission-only", "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and all(e["op"] == "remove" for e in payload["edits"])


FETCH = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "fetch"


def test_no_lie_is_exit_1(capsys) -> None:
    code, out, _ = run(capsys, FETCH / "robot.pddl", FETCH / "problem.pddl", "--mode", "lie",
                       "--human-domain", FETCH / "human.pddl", "--allow-untruthful",
                       "--omission-only", "--json")
    payload = json.loads(out)
    assert code == EXIT_NEGATIVE and payload["status"] == "no_explanation"
    assert payload["label"] == "untruthful" and payload["verified"] is False


def test_mixed_no_plan_is_confirmed_and_missing_roles_keep_gd_in_range(capsys, files) -> None:
    code, out, _ = run(capsys, *_base(files, "team"), "--mode", "mixed", "--horizon", "2",
                       "--json")
    payload = json.loads(out)
    assert code == EXIT_NEGATIVE and payload["status"] == "unsolvable"
    assert payload["verified"] is True and "checker's search" in payload["check"]["details"]
    # only an adversary: GD is its normalised ambiguity, never above 1
    files["team"].write_text(json.dumps({"observers": {"spy": TEAM["observers"]["spy"]}}))
    code, out, _ = run(capsys, *_base(files, "team"), "--mode", "mixed", "--horizon", "3",
                       "--json")
    assert code == EXIT_OK and json.loads(out)["score"] == 1.0
    # only a friend who reads the log: it keeps one goal, GD = (1 - 1) / 2
    files["team"].write_text(json.dumps({"observers": {"mate": TEAM["observers"]["mate"]}}))
    code, out, _ = run(capsys, *_base(files, "team"), "--mode", "mixed", "--horizon", "3",
                       "--json")
    assert code == EXIT_OK and json.loads(out)["score"] == 0.0
