"""``xaip examples``: the bundled examples are listed, copied, and their commands run.

Every command the catalogue prints after a copy is run here in the copy (exit 0), so the
README's worked example and ``xaip examples copy``'s advice cannot drift from the files.
"""

from __future__ import annotations

import json
import shlex
import tomllib
from fnmatch import fnmatch
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.domains.catalogue import EXAMPLES

ROOT = Path(__file__).resolve().parent.parent


def test_list_has_one_line_per_example(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples"]) == 0
    lines = capsys.readouterr().out.splitlines()
    for entry in EXAMPLES:
        row = [line for line in lines if line.split()[:1] == [entry.name]]
        assert len(row) == 1 and entry.family in row[0] and entry.files()[0] in row[0]


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "found"
    assert [e["name"] for e in payload["examples"]] == [e.name for e in EXAMPLES]
    fetch = next(e for e in payload["examples"] if e["name"] == "fetch")
    assert fetch["files"] == ["human.pddl", "problem.pddl", "robot.pddl"]
    assert fetch["commands"][0].startswith("xaip explain ")


def test_every_example_file_is_package_data() -> None:
    """A file outside the package-data globs would be missing from the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["xaip"]
    for entry in EXAMPLES:
        assert entry.files(), entry.name
        for name in entry.files():
            path = f"domains/{entry.folder}/{name}"
            assert any(fnmatch(path, glob.replace("**/", "*")) for glob in globs), path


def test_copy_then_every_listed_command_runs(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    for entry in EXAMPLES:
        target = tmp_path / entry.name
        assert main(["examples", "copy", entry.name, str(target)]) == 0
        out = capsys.readouterr().out
        assert sorted(p.name for p in target.iterdir()) == list(entry.files())
        for command in entry.commands:
            assert command in out
        monkeypatch.chdir(target)
        for command in entry.commands:
            words = shlex.split(command)
            assert words[0] == "xaip"
            code = main(words[1:])
            captured = capsys.readouterr()
            assert code == 0, (command, captured.out[-500:], captured.err[-500:])
            assert "Traceback" not in captured.err


def test_copy_never_overwrites(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "problem.pddl").write_text("mine", encoding="utf-8")
    assert main(["examples", "copy", "fetch", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "already exists" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["problem.pddl"]  # nothing copied
    assert (tmp_path / "problem.pddl").read_text(encoding="utf-8") == "mine"


def test_copy_refuses_unknown_name_and_a_file_as_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples", "copy", "no-such-example", str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "unknown example" in err and "fetch" in err
    assert not (tmp_path / "x").exists()
    a_file = tmp_path / "file"
    a_file.write_text("", encoding="utf-8")
    assert main(["examples", "copy", "fetch", str(a_file)]) == 2
    assert "not a folder" in capsys.readouterr().err


def test_copy_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["examples", "copy", "airport", str(tmp_path / "a"), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["files"] == ["domain.pddl", "problem.pddl"]
    assert payload["commands"] == ["xaip summarize domain.pddl problem.pddl"]


def test_copy_takes_quiet_like_every_command(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """Every command takes --quiet (issue 23), also the nested ``examples copy``."""
    assert main(["examples", "copy", "fetch", str(tmp_path / "a"), "--quiet"]) == 0
    assert main(["examples", "--quiet", "copy", "fetch", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().err == ""
    assert (tmp_path / "a" / "robot.pddl").exists() and (tmp_path / "b" / "robot.pddl").exists()
