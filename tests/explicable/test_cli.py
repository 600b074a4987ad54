"""The explicable sub-commands: JSON fields, exit codes, one-line errors."""

from __future__ import annotations

import json

import pytest

from xaip.cli import main
from xaip.errors import EXIT_BAD_INPUT, EXIT_NEGATIVE, EXIT_OK

from .grids import DOMAIN

FOLDER = DOMAIN.parent
B1, B1H = str(FOLDER / "b1.pddl"), str(FOLDER / "b1-human.pddl")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_explicable_json(capsys) -> None:
    code, out, _ = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1,
                       "--human-problem", B1H, "--json")
    payload = json.loads(out)
    assert code == EXIT_OK
    assert {"plan", "robot_cost", "human_cost", "inexplicability", "status", "verified",
            "seconds"} <= set(payload)
    assert (payload["robot_cost"], payload["human_cost"], payload["inexplicability"]) == \
        (6, 6, 2.0)
    code, out, _ = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1,
                       "--human-problem", B1H, "--distance", "composite", "--max-cost", "8")
    assert code == EXIT_OK and "Verified independently" in out


def test_explicable_negative_and_bad_input(capsys, tmp_path) -> None:
    code, out, _ = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--max-cost", "3")
    assert code == EXIT_NEGATIVE and "no plan" in out
    code, out, _ = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--max-nodes", "1",
                       "--json")
    assert code == EXIT_NEGATIVE and json.loads(out)["status"] == "budget_exhausted"
    other = tmp_path / "other.pddl"
    other.write_text(DOMAIN.read_text().replace("(holding)", "(carrying)"))
    code, _, err = run(capsys, "explicable", str(DOMAIN), str(other), B1)
    assert code == EXIT_BAD_INPUT and "vocabular" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--max-cost", "-1")
    assert code == EXIT_BAD_INPUT


def test_distance(capsys) -> None:
    expected = "(pick-up c10) (move c10 c11) (move c11 c12) (put-down c12)"
    detour = ("(pick-up c10) (move c10 c20) (move c20 c21) (move c21 c22) (move c22 c12) "
              "(put-down c12)")
    code, out, _ = run(capsys, "distance", str(DOMAIN), B1H, expected, detour, "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["status"] == "complete"
    assert payload["action"] == pytest.approx(0.75)
    code, _, err = run(capsys, "distance", str(DOMAIN), B1, expected, detour)
    assert code == EXIT_BAD_INPUT and "first plan" in err
    code, _, err = run(capsys, "distance", str(DOMAIN), B1H, expected, detour,
                       "--weights", "1,2")
    assert code == EXIT_BAD_INPUT and "A,C,S" in err


def test_design(capsys) -> None:
    code, out, _ = run(capsys, "design", "--setting", "a", "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["design"] == [] and payload["objective"] == 8.0
    assert payload["verified"] is True
    code, _, err = run(capsys, "design", "--setting", "q")
    assert code == EXIT_BAD_INPUT and "setting" in err
    code, out, _ = run(capsys, "design", "--max-nodes", "1", "--json")
    assert code == EXIT_NEGATIVE and json.loads(out)["status"] == "budget_exhausted"


def test_pictures(capsys, tmp_path) -> None:
    png = tmp_path / "plan.png"
    code, _, _ = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--human-problem",
                     B1H, "--png", str(png))
    assert code == EXIT_OK and png.read_bytes().startswith(b"\x89PNG")
    code, _, _ = run(capsys, "design", "--setting", "c", "--png", str(tmp_path / "d.png"))
    assert code == EXIT_OK and (tmp_path / "d.png").read_bytes().startswith(b"\x89PNG")
    code, _, err = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--png", B1)
    assert code == EXIT_BAD_INPUT and "overwrite" in err


def test_labels_and_compile(capsys, tmp_path) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text(json.dumps({"plan": ["pick-up c10", "move c10 c20", "move c20 c21",
                                          "move c21 c22", "move c22 c12", "put-down c12"],
                                 "labels": [["serve"], [], ["go"], ["go"], ["go"],
                                            ["serve"]]}) + "\n")
    code, out, _ = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--labels",
                       str(notes), "--json")
    payload = json.loads(out)
    assert code == EXIT_OK and payload["verified"] and payload["labels"][0] == ["serve"]
    notes.write_text('{"plan": ["a"], "labels": []}\n')
    code, _, err = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--labels",
                       str(notes))
    assert code == EXIT_BAD_INPUT and "notes.jsonl:1" in err
    code, out, _ = run(capsys, "explicable", str(DOMAIN), str(DOMAIN), B1, "--human-problem",
                       B1H, "--method", "compile", "--json")
    assert code == EXIT_OK and json.loads(out)["method"] == "product"
