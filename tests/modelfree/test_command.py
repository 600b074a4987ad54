"""``xaip model-free`` and the input files: exit codes, JSON, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.errors import InputError
from xaip.modelfree.bundled import FOLDER
from xaip.modelfree.data import parse_messages, parse_records

MESSAGES = "a 1 move requires (hand-tucked)\nb 2 tuck makes (crouched) true\n"


def test_bundled_run_is_verified(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["model-free"]) == 0
    text = capsys.readouterr().out
    assert "Model-free explanation: tell" in text and "Verified independently" in text
    assert main(["model-free", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "found" and payload["verified"] is True
    assert payload["steps_numbered_from"] == 1 and payload["method"] == "exact"


def test_files_and_budget(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    args = ["--labels", str(FOLDER / "labels.jsonl"), "--messages",
            str(FOLDER / "messages.txt"), "--plan", str(FOLDER / "plan.txt")]
    assert main(["model-free", *args, "--max-subsets", "2"]) == 0
    assert "greedy" in capsys.readouterr().out
    assert main(["model-free", *args, "--max-nodes", "1", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["status"] == "budget_exhausted"
    odd = tmp_path / "odd.plan"
    odd.write_text("(crouch)\n(crouch)\n(tuck)\n(move loc1 loc2)\n")
    assert main(["model-free", "--plan", str(odd)]) == 1  # no message set works
    assert "no messages make every step" in capsys.readouterr().out


@pytest.mark.parametrize("extra", [
    ["--labels", "x.jsonl"],
    ["--threshold", "1"],
    ["--held-out", "1"],
    ["--max-subsets", "0"],
    ["--plan", "/nonexistent/plan.txt"],
    ["--generate", "out", "--plan", "p"],
])
def test_bad_input_exits_2(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["model-free", *extra]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_generate_writes_a_data_set_and_never_overwrites(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "data"
    assert main(["model-free", "--generate", str(out), "--seed", "3"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["labels.jsonl", "messages.txt",
                                                     "plan.txt", "problem.pddl"]
    capsys.readouterr()
    assert main(["model-free", "--labels", str(out / "labels.jsonl"), "--messages",
                 str(out / "messages.txt"), "--plan", str(out / "plan.txt"), "--json"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["status"] in ("found", "no_explanation")
    assert main(["model-free", "--generate", str(out)]) == 2


@pytest.mark.parametrize("text, message", [
    ("a 1\n", "expected 'ID COST TEXT'"),
    ("a x says\n", "is not a cost"),
    ("a -1 says\n", "finite number >= 0"),
    ("a nan says\n", "finite number >= 0"),
    ("a 1 says\na 2 again\n", "declared twice"),
    ("; only a comment\n", "declares no messages"),
    ("a+b 1 joined\n", "letters, digits"),
])
def test_message_files(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_messages(text, "m.txt")


@pytest.mark.parametrize("line, message", [
    ('{"plan": ["tuck"], "labels": [true, false]}', "1 steps but 2 labels"),
    ('{"plan": ["tuck"], "messages": ["zz"], "labels": [true]}', "not among the messages"),
    ('{"plan": ["tuck"], "labels": [1]}', "expected true or false"),
    ('{"plan": "tuck", "labels": [true]}', "'plan': expected a list"),
    ('[1, 2]', "expected an object"),
    ('{"plan": [""], "labels": [true]}', "an empty step"),
    ('{"plan": ["tuck"], "labels": [true]', "l.jsonl:1"),
])
def test_label_files(line: str, message: str) -> None:
    messages = parse_messages(MESSAGES)
    with pytest.raises(InputError, match=message):
        parse_records(line + "\n", messages, "l.jsonl")


def test_records_are_normalised() -> None:
    records = parse_records('{"plan": ["(Move  LOC1 loc2)"], "messages": ["a"], '
                            '"labels": [false]}\n', parse_messages(MESSAGES))
    assert records[0].plan == ("move loc1 loc2",) and records[0].messages == {"a"}
