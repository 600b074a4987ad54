"""``xaip why-not``: bundled defaults, files, JSON, pictures and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.concepts.bundled import folder

D = folder()


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_bundled_example_runs_without_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why-not", "sokoban-switch")
    assert code == 0 and "switch-on" in out and "confidence" in out


def test_json_and_picture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "fail.png"
    code, out, _ = run(capsys, "why-not", "sokoban-cells", "--json", "--picture",
                       str(picture), "--seed", "3")
    payload = json.loads(out)
    assert code == 0 and payload["foil_outcome"] == "costlier"
    assert payload["concepts"] == ["on-pink-cell"] and payload["verified"] is True
    assert picture.read_bytes().startswith(b"\x89PNG")


def test_files_variant_and_vocabulary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why-not", "sokoban-switch", "--level", str(D / "switch-2.txt"),
                       "--plan", str(D / "switch-2.plan.txt"), "--foil",
                       str(D / "switch-2.foil.txt"), "--budget", "500", "--json")
    assert code == 0 and json.loads(out)["failed_step"] == 10  # 1-based, as a person reads it
    code, out, _ = run(capsys, "why-not", "sokoban-switch", "--vocabulary",
                       str(D / "switch-incomplete.json"))
    assert code == 1 and "incomplete" in out
    code, out, _ = run(capsys, "why-not", "sokoban-switch", "--level", "switch-2",
                       "--variant", "cost", "--json")
    assert code == 0 and json.loads(out)["concepts"] == ["switch-off"]


def test_budget_exhausted_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why-not", "sokoban-switch", "--max-nodes", "1", "--json")
    payload = json.loads(out)
    assert code == 1 and payload["status"] == "budget_exhausted" and not payload["verified"]


def test_bad_input_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    foil = tmp_path / "foil.txt"
    foil.write_text("push-right\njump\n")
    nobody = tmp_path / "level.txt"
    nobody.write_text("####\n#$.#\n####\n")
    vocab = tmp_path / "v.json"
    vocab.write_text('{"concepts": ["switch-on", "flying"]}')
    cases = [
        ("--level", str(D / "switch-1.txt"), "--plan", str(D / "switch-1.plan.txt"),
         "--foil", str(foil)),
        ("--level", str(nobody), "--plan", str(D / "switch-1.plan.txt"), "--foil",
         str(D / "switch-1.foil.txt")),
        ("--level", str(D / "switch-1.txt"), "--plan", str(D / "switch-1.plan.txt"),
         "--foil", str(D / "switch-1.plan.txt")),
        ("--vocabulary", str(vocab)),
        ("--level", str(D / "switch-1.txt")),
    ]
    for extra in cases:
        code, out, err = run(capsys, "why-not", "sokoban-switch", *extra)
        assert code == 2, extra
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_time_budget_ends_the_search(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why-not", "sokoban-cells", "--max-seconds", "0", "--json")
    payload = json.loads(out)
    assert code == 1 and payload["status"] == "budget_exhausted"
    assert payload["verified"] is False and "unfinished" in payload["text"]
