"""Start-up guards (issue 26): which modules a command loads, never how long it takes.

``xaip --help``, ``xaip plan`` and ``xaip validate`` must not import the heavy third-party
packages (each costs tens of milliseconds of CPU) nor explainer families they do not use;
the lazy parser must behave exactly as the eagerly built one. Each check runs in a fresh
interpreter, because this test process has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from xaip import cli

DOMAINS = Path(cli.__file__).parent / "domains" / "blocksworld"
DOMAIN = DOMAINS / "domain.pddl"
PROBLEM = DOMAINS / "problem-5.pddl"

#: Third-party packages no planning command may load.
HEAVY = {"matplotlib", "numpy", "highspy", "pycrfsuite", "ale_py", "fastapi", "ray",
         "sklearn", "torch", "scipy", "jinja2", "uvicorn", "PIL", "gymnasium",
         "unified_planning", "pyarrow"}

#: Explainer families (and the pictures) a planning command does not use.
FAMILIES = {"xaip.reconcile", "xaip.summaries", "xaip.capabilities", "xaip.concepts",
            "xaip.explicable", "xaip.balanced", "xaip.observers", "xaip.web", "xaip.agents",
            "xaip.vocab", "xaip.figures", "xaip.studies", "xaip.gymnasium"}

_PROBE = (
    "import sys, json\n"
    "from xaip.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "sys.stderr.write('\\n' + json.dumps([code, sorted(sys.modules)]) + '\\n')\n"
)


def loaded_by(*argv: str) -> tuple[int, set[str]]:
    """The exit code of ``xaip ARGV`` run in a fresh interpreter and the modules it held."""
    done = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True,
                          text=True, check=False)
    assert done.stderr.strip(), done
    code, modules = json.loads(done.stderr.strip().splitlines()[-1])
    return code, set(modules)


def _packages(modules: set[str]) -> set[str]:
    return {m.split(".")[0] for m in modules}


def _families(modules: set[str]) -> set[str]:
    return {f for f in FAMILIES if any(m == f or m.startswith(f + ".") for m in modules)}


def test_importing_the_cli_loads_no_heavy_package_nor_family() -> None:
    code = ("import sys, json, xaip.cli; "
            "print(json.dumps(sorted(sys.modules)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    modules = set(json.loads(done.stdout))
    assert not _packages(modules) & HEAVY
    assert not _families(modules)
    # nor the planning core, the process pool or SQLite: --help needs none of them
    assert not {m for m in modules if m.startswith("xaip.planning")}
    assert not {"concurrent.futures.process", "multiprocessing", "sqlite3", "logging"} & modules


def test_help_loads_no_family() -> None:
    code, modules = loaded_by("--help")
    assert code == 0
    assert not _packages(modules) & HEAVY
    assert not _families(modules)
    assert not {m for m in modules if m.startswith("xaip.planning")}


@pytest.mark.parametrize("command", ["plan", "validate"])
def test_planning_commands_load_no_heavy_package_nor_family(tmp_path: Path,
                                                            command: str) -> None:
    plan_file = tmp_path / "plan.txt"
    assert cli.main(["plan", str(DOMAIN), str(PROBLEM), "-o", str(plan_file), "--quiet",
                     "--json"]) == 0
    argv = [command, str(DOMAIN), str(PROBLEM), "--quiet"]
    if command == "validate":
        argv.insert(3, str(plan_file))
    code, modules = loaded_by(*argv)
    assert code == 0
    assert not _packages(modules) & HEAVY
    assert not _families(modules)


def test_a_family_command_loads_only_its_family() -> None:
    code, modules = loaded_by("explain", "--help")
    assert code == 0
    assert "xaip.reconcile.command" in modules
    assert not {m for m in modules if m.startswith(("xaip.capabilities", "xaip.observers"))}


def _commands(parser: object) -> list[tuple[str, str | None]]:
    sub = next(a for a in parser._actions  # type: ignore[attr-defined]
               if isinstance(a, cli._LazyCommands))
    return [(action.dest, action.help) for action in sub._choices_actions]


def test_the_command_table_matches_what_the_modules_register() -> None:
    """A new or renamed sub-command needs its row in ``xaip.cli.COMMANDS``: without it
    the command still runs but ``xaip --help`` does not list it."""
    eager = _commands(cli.build_parser())
    table = [(name, help_line) for name, _, help_line in cli.COMMANDS]
    assert eager == table, "update xaip.cli.COMMANDS to match the sub-commands registered"


def test_lazy_help_is_the_eager_help() -> None:
    assert cli.build_parser(lazy=True).format_help() == cli.build_parser().format_help()


def test_lazy_and_eager_parsers_agree_on_a_family_command() -> None:
    argv = ["explain", "--help"]
    lazy = cli.build_parser(lazy=True)
    eager = cli.build_parser()
    with pytest.raises(SystemExit):
        lazy.parse_args(argv)
    sub = next(a for a in lazy._actions if isinstance(a, cli._LazyCommands))
    eager_sub = next(a for a in eager._actions if isinstance(a, cli._LazyCommands))
    assert sub.choices["explain"].format_help() == eager_sub.choices["explain"].format_help()
    assert "--quiet" in sub.choices["explain"].format_help()


def test_every_command_takes_quiet_once() -> None:
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, cli._LazyCommands))
    for name, command in sub.choices.items():
        assert "--quiet" in command._option_string_actions, name


def test_an_unknown_command_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["no-such-command"]) == 2
    err = capsys.readouterr().err
    assert "invalid choice" in err and len(err.strip().splitlines()) == 1


def test_a_missing_family_module_is_refused_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(cli, "COMMANDS", (*cli.COMMANDS,
                                          ("vanished", "xaip.no_such_family.command", "gone")))
    assert cli.main(["vanished"]) == 2
    err = capsys.readouterr().err
    assert "not available" in err and len(err.strip().splitlines()) == 1


def test_runtime_names_resolve_lazily() -> None:
    import xaip.runtime as runtime

    for name in runtime.__all__:
        assert getattr(runtime, name) is not None
        assert name in dir(runtime)
    with pytest.raises(AttributeError):
        runtime.no_such_name  # noqa: B018
