"""The ``xaip observe`` sessions shown in docs/observers.md run and print what the page
says, and the files and pictures the page shows exist.

A ```console block holds ``$ xaip observe ...`` commands (``\\`` continues a line; a
trailing ``# exit N`` gives the expected exit code, default 0), each followed by lines its
output must contain. Pictures are written to a temporary folder, never into docs/.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from xaip.cli import main

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "observers.md"
_CONSOLE = re.compile(r"^```console\n(.*?)^```$", re.DOTALL | re.MULTILINE)
_SHOWN_FILE = re.compile(r"^`(docs/examples/observers/[\w.]+)`:\n\n```json\n(.*?)^```$",
                         re.DOTALL | re.MULTILINE)


def sessions() -> list[tuple[str, int, list[str]]]:
    out = []
    for block in _CONSOLE.findall(PAGE.read_text(encoding="utf-8")):
        block = block.replace("\\\n", " ")
        for chunk in block.split("$ ")[1:]:
            command, *expected = chunk.strip("\n").split("\n")
            code = 0
            if "# exit" in command:
                command, _, tail = command.partition("# exit")
                code = int(tail)
            out.append((command.strip(), code, [e.strip() for e in expected if e.strip()]))
    return out


@pytest.mark.parametrize(("command", "code", "expected"), sessions(),
                         ids=lambda v: v if isinstance(v, str) else None)
def test_console_sessions(command, code, expected, capsys, monkeypatch, tmp_path) -> None:
    argv = shlex.split(command)
    assert argv[:2] == ["xaip", "observe"]
    for flag in ("--picture", "--animation"):
        if flag in argv:
            at = argv.index(flag) + 1
            argv[at] = str(tmp_path / Path(argv[at]).name)
    monkeypatch.chdir(ROOT)
    assert main(argv[1:]) == code
    out = capsys.readouterr().out
    for line in expected:
        assert line in out, f"{line!r} not in the output of {command}:\n{out}"
    if "--picture" in argv:
        assert (tmp_path / "rover.png").read_bytes()[:4] == b"\x89PNG"


def test_the_page_has_sessions_and_shows_real_files() -> None:
    assert len(sessions()) >= 4
    shown = _SHOWN_FILE.findall(PAGE.read_text(encoding="utf-8"))
    assert shown
    for path, text in shown:
        assert json.loads(text) == json.loads((ROOT / path).read_text(encoding="utf-8"))


def test_pictures_referenced_by_the_page_exist() -> None:
    images = re.findall(r"\]\((images/[\w.-]+)\)", PAGE.read_text(encoding="utf-8"))
    assert any(i.endswith(".png") for i in images)
    for image in images:
        assert (ROOT / "docs" / image).stat().st_size > 100
