"""Checking a study against the command it runs, before any cell runs.

Why here and not in the cells: a study of 500 cells whose parameter ``--tpye`` is
misspelled would otherwise record 500 usage errors. The command's own argument parser (the
one ``xaip COMMAND`` uses) reads every cell's command line with placeholder file names;
whatever it refuses is one line of bad input naming the instance and setting.
"""

from __future__ import annotations

import argparse
import contextlib
import io

from xaip.errors import InputError
from xaip.studies.spec import NOT_IN_STUDIES, Study

#: Cells whose command lines are parsed up front (the rest share their options).
MAX_PARSED = 5000


def command_parser(command: str, source: str) -> argparse.ArgumentParser:
    """The argument parser of ``xaip COMMAND`` (bad input when there is no such command)."""
    from xaip.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions  # noqa: SLF001 - argparse has no public accessor
               if isinstance(a, argparse._SubParsersAction))  # noqa: SLF001
    names = sorted(n for n in sub.choices if n not in NOT_IN_STUDIES)
    if command not in names:
        raise InputError(f"{source}: study.command {command!r} is not an xaip command a "
                         f"study can run (one of {', '.join(names)})")
    found: argparse.ArgumentParser = sub.choices[command]
    return found


def check_command(study: Study) -> None:
    """Refuse options the command lacks, flags given values (or options given true/false)
    and any cell's command line its parser refuses."""
    from xaip.studies.cells import cell_argv

    parser = command_parser(study.command, study.source)
    known = parser._option_string_actions  # noqa: SLF001
    for option, _ in study.budget:
        if option not in known:
            key = option.removeprefix("--").replace("-", "_")
            raise InputError(f"{study.source}: 'xaip {study.command}' has no {option} "
                             f"(drop budget.{key})")
    for option, values in study.parameters:
        if option not in known:
            raise InputError(f"{study.source}: parameters: 'xaip {study.command}' has no "
                             f"option {option}")
        flag = known[option].nargs == 0
        for value in values:
            if flag != isinstance(value, bool):
                what = ("a flag: give true or false" if flag else
                        "not a flag: give its values, not true or false")
                raise InputError(f"{study.source}: parameters: {option} is {what}")
    parsed = 0
    for instance in study.instances:
        placeholders = [f"f{i}/{name}" for i, (name, _) in enumerate(instance.files)]
        for setting in study.settings():
            argv = cell_argv(study, instance, setting, placeholders)
            _parse(parser, argv[1:], study.source, instance.name, setting)
            parsed += 1
            if parsed >= MAX_PARSED:
                return


def _parse(parser: argparse.ArgumentParser, argv: list[str], source: str, name: str,
           setting: tuple[tuple[str, object], ...]) -> None:
    errors = io.StringIO()
    try:
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit:
        lines = [line for line in errors.getvalue().splitlines() if line.strip()]
        reason = lines[-1] if lines else "refused"
        reason = reason.split("error: ", 1)[-1]
        where = f"instance {name!r}" + (f" with {_setting_text(setting)}" if setting else "")
        raise InputError(f"{source}: {where}: 'xaip {argv and parser.prog.split()[-1]}' "
                         f"refuses its arguments: {reason}") from None


def _setting_text(setting: tuple[tuple[str, object], ...]) -> str:
    return " ".join(f"{option}={value}" for option, value in setting)
