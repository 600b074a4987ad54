"""Docs that run: every ```python snippet and every shell command in the README and docs/.

The snippets of one page run in order in one namespace (later snippets may use names
from earlier ones), with the project root as the working directory, so a page reads as a
session a user could type. A snippet that stops working fails here, not in a user's hands.

Shell blocks (```sh, ```console) are transcripts: a line starting with ``$ `` is a command
(a line ending in a backslash continues on the next), every other line is output and is
not compared. The commands of one page run in order in one ``bash`` session (``cd`` and
variables carry over) in a fresh temporary folder, where ``docs`` and ``src`` link to the
project's so paths relative to the project root work and every file a command writes lands
in the temporary folder. Each command must exit with the code its trailing comment gives
(``# exit 1``; 0 without one) and never print a traceback. A shell block without ``$``
prompts is only allowed for what a test cannot run: installing (``pip install``, ``venv``)
and ``xaip serve``; a synopsis with placeholders is a ```text block.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def snippets(page: Path) -> list[str]:
    return _BLOCK.findall(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", [p for p in PAGES if snippets(p)],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_snippets_run(page: Path, capsys: pytest.CaptureFixture[str]) -> None:
    namespace: dict[str, object] = {"__name__": f"docs:{page.name}"}
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        for number, code in enumerate(snippets(page), start=1):
            compiled = compile(code, f"{page.name} (snippet {number})", "exec")
            exec(compiled, namespace)  # noqa: S102 - running our own docs is the point
    finally:
        os.chdir(here)
    capsys.readouterr()


def test_every_page_with_code_is_found() -> None:
    assert any(snippets(page) for page in PAGES)


# --------------------------------------------------------------------------- shell commands

_SHELL = re.compile(r"^```(?:sh|console|bash|shell)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
_EXIT = re.compile(r"#\s*exit (\d+)")
#: Lines of prompt-less shell blocks that no test can run (installing, a server).
_NOT_RUN = re.compile(r"pip install|python3 -m venv|xaip serve")
#: Seconds for all commands of one page (the slowest page takes a few seconds).
PAGE_BUDGET = 240


@dataclass(frozen=True)
class Command:
    line: int  # where it starts on its page (1-based)
    text: str  # as bash reads it (continuations kept)
    exit: int  # the documented exit code


def shell_commands(page: Path) -> list[Command]:
    """The ``$`` commands of every shell block of ``page``, in order."""
    text = page.read_text(encoding="utf-8")
    commands: list[Command] = []
    for block in _SHELL.finditer(text):
        first = text.count("\n", 0, block.start(1)) + 1
        lines = block.group(1).splitlines()
        number = 0
        while number < len(lines):
            line = lines[number]
            if not line.startswith("$ "):
                number += 1
                continue
            start, parts = first + number, [line[2:]]
            while parts[-1].endswith("\\") and number + 1 < len(lines):
                number += 1
                parts.append(lines[number])
            number += 1
            command = "\n".join(parts)
            found = _EXIT.search(parts[-1])
            commands.append(Command(start, command, int(found.group(1)) if found else 0))
    return commands


def unrun_shell_lines(page: Path) -> list[str]:
    """``xaip`` lines of prompt-less shell blocks that are not installing or serving."""
    text = page.read_text(encoding="utf-8")
    return [line for block in _SHELL.finditer(text) for line in block.group(1).splitlines()
            if not any(other.startswith("$ ") for other in block.group(1).splitlines())
            and "xaip" in line and not _NOT_RUN.search(line)]


def _session(commands: list[Command], logs: Path) -> str:
    """One bash script running ``commands`` in order, each one's output and exit code
    written to ``logs`` (a ``{ }`` group keeps ``cd`` and variables in the session)."""
    lines = ["set +e"]
    for index, command in enumerate(commands):
        lines.append(f"{{ {command.text}\n}} </dev/null >'{logs}/{index}.out' "
                     f"2>'{logs}/{index}.err'; echo $? >'{logs}/{index}.rc'")
    return "\n".join(lines) + "\n"


SHELL_PAGES = [p for p in PAGES if shell_commands(p)]


def run_page(page: Path, tmp_path: Path) -> list[str]:
    """Run the shell commands of ``page``; one message per command that went wrong."""
    commands = shell_commands(page)
    work, logs = tmp_path / "work", tmp_path / "logs"
    work.mkdir()
    logs.mkdir()
    for name in ("docs", "src"):
        (work / name).symlink_to(ROOT / name)
    bin_dir = Path(sys.executable).parent  # the xaip script of this environment
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    assert shutil.which("xaip", path=env["PATH"]), "the xaip command is not installed"
    subprocess.run(["bash", "-c", _session(commands, logs)], cwd=work, env=env,
                   timeout=PAGE_BUDGET, check=False)
    failures = []
    for index, command in enumerate(commands):
        where = f"{page.name}:{command.line}: $ {command.text}"
        rc_file = logs / f"{index}.rc"
        if not rc_file.exists():
            failures.append(f"{where}: did not run")
            continue
        code = int(rc_file.read_text().strip())
        err = (logs / f"{index}.err").read_text(errors="replace")
        if code != command.exit:
            out = (logs / f"{index}.out").read_text(errors="replace")
            failures.append(f"{where}: exit {code}, documented {command.exit}\n"
                            f"{out[-600:]}{err[-600:]}")
        elif "Traceback" in err:
            failures.append(f"{where}: printed a traceback\n{err[-600:]}")
    return failures


@pytest.mark.parametrize("page", SHELL_PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_shell_commands_run(page: Path, tmp_path: Path) -> None:
    failures = run_page(page, tmp_path)
    assert not failures, "\n\n".join(failures)


def test_a_wrong_exit_code_is_reported(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("```sh\n$ xaip examples copy fetch f\n$ cd f\n"
                    "$ xaip validate robot.pddl problem.pddl \\\n    missing.plan\n"
                    "xaip: error: ...\n$ xaip diff robot.pddl human.pddl   # exit 1\n```\n",
                    encoding="utf-8")
    assert [c.exit for c in shell_commands(page)] == [0, 0, 0, 1]
    failures = run_page(page, tmp_path)
    assert len(failures) == 2
    assert "page.md:4:" in failures[0] and "exit 2, documented 0" in failures[0]
    assert "page.md:7:" in failures[1] and "exit 0, documented 1" in failures[1]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_shell_command_is_run(page: Path) -> None:
    """An ``xaip`` command in a shell block without ``$`` prompts would never be run."""
    assert unrun_shell_lines(page) == []


def test_transcripts_are_found() -> None:
    commands = shell_commands(ROOT / "README.md")
    assert any(c.text.startswith("xaip examples copy") for c in commands)
    assert any(c.exit == 1 for c in commands)
