"""``xaip examples``: list the bundled examples, or copy one into a folder.

    xaip examples [--json]                 one line per example: name, family, files, what
    xaip examples copy NAME DIR [--json]   copy NAME's files into DIR (created if missing)

Why: the README's worked example must run from a clone and from an installed wheel alike;
the files are package data (:mod:`xaip.domains.catalogue`) and this command puts them where
a user can read and change them. ``copy`` never overwrites a file (exit 2 naming it, before
anything is written) and an unknown NAME is bad input (exit 2).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from xaip.commandline import add_json_arg, emit
from xaip.domains.catalogue import EXAMPLES, Example, example, example_files
from xaip.errors import EXIT_OK, InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``examples`` (and its ``copy``) on the ``xaip`` parser."""
    parser = sub.add_parser(
        "examples", help="list the bundled examples, or copy one into a folder",
        description="List the examples that ship with xaip (name, family, files, what it "
                    "shows), or copy one into a folder to run the commands it lists.")
    add_json_arg(parser)
    parser.set_defaults(handler=run_list)
    actions = parser.add_subparsers(dest="examples_action", metavar="ACTION")
    copy = actions.add_parser("copy", help="copy one example's files into DIR",
                              description="Copy the files of example NAME into DIR (created "
                                          "if missing); an existing file is never "
                                          "overwritten.")
    copy.add_argument("name", metavar="NAME", help="an example name from 'xaip examples'")
    copy.add_argument("directory", metavar="DIR", help="the folder to copy into")
    add_json_arg(copy)
    # every command takes --quiet (xaip.cli adds it to ``examples``, not to its ``copy``);
    # SUPPRESS keeps ``xaip examples --quiet copy ...`` quiet too
    copy.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS,
                      help="no progress bar or notes on stderr")
    copy.set_defaults(handler=run_copy)


def _files_text(entry: Example, width: int = 40) -> str:
    """The example's file names, as many as fit in ``width`` characters, then a count."""
    files = entry.files()
    shown: list[str] = []
    for number, name in enumerate(files):
        rest = len(files) - number - 1
        tail = f" +{rest} more" if rest else ""
        if shown and len(" ".join([*shown, name])) + len(tail) > width:
            return " ".join(shown) + f" +{len(files) - number} more"
        shown.append(name)
    return " ".join(shown)


def run_list(args: argparse.Namespace) -> int:
    rows = [(e.name, e.family, _files_text(e), e.summary) for e in EXAMPLES]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = [f"{'name':<{widths[0]}}  {'family':<{widths[1]}}  {'files':<{widths[2]}}  what"]
    lines += [f"{n:<{widths[0]}}  {f:<{widths[1]}}  {files:<{widths[2]}}  {s}"
              for n, f, files, s in rows]
    lines.append("")
    lines.append("Copy one with 'xaip examples copy NAME DIR'; it prints the commands to try.")
    payload = {"status": "found", "examples": [e.to_dict() for e in EXAMPLES]}
    emit(args, payload, "\n".join(lines))
    return EXIT_OK


def run_copy(args: argparse.Namespace) -> int:
    entry = example(args.name)
    target = Path(args.directory)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target} exists and is not a folder")
    files = list(example_files(entry))
    for name, _ in files:  # refuse before writing anything
        if os.path.lexists(target / name):
            raise InputError(f"{target / name} already exists; copy into another folder "
                             "(nothing was copied)")
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name, content in files:
            with open(target / name, "xb") as out:  # "x": never overwrite, even in a race
                out.write(content)
    except FileExistsError as error:
        raise InputError(f"{error.filename} already exists; copy into another folder"
                         ) from None
    except OSError as error:
        raise InputError(f"cannot copy into {target}: {error.strerror}") from None
    lines = [f"Copied {entry.name} ({len(files)} files) into {target}: "
             + " ".join(name for name, _ in files),
             "Try:", f"  cd {_shell_word(str(target))}"]
    lines += [f"  {command}" for command in entry.commands]
    payload = {"status": "found", "example": entry.name, "directory": str(target),
               "files": [name for name, _ in files], "commands": list(entry.commands)}
    emit(args, payload, "\n".join(lines))
    return EXIT_OK


def _shell_word(text: str) -> str:
    import shlex

    return shlex.quote(text)
