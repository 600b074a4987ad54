"""Bad study files are one line of bad input (exit 2), before any cell runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from xaip.cli import main
from xaip.errors import InputError
from xaip.studies import load_study
from xaip.studies.cells import cell_argv, make_cells

from .helpers import plan_study

GOOD = """
[study]
command = "explain"
[parameters]
"--type" = ["mce", "mme"]
[[instances]]
name = "fetch"
files = ["example:fetch/robot.pddl", "example:fetch/human.pddl", "example:fetch/problem.pddl"]
"""


def write(folder: Path, text: str) -> Path:
    path = folder / "s.toml"
    path.write_text(text)
    return path


def test_good_study_expands_to_its_grid(tmp_path: Path) -> None:
    study = load_study(write(tmp_path, GOOD))
    assert study.name == "s" and study.command == "explain"
    assert study.cell_count() == 2
    cells = make_cells(study)
    assert [dict(c.setting) for c in cells] == [{"--type": "mce"}, {"--type": "mme"}]
    assert len({c.key for c in cells}) == 2
    assert cells[0].arguments == ("--type", "mce")


def test_generator_and_vary_templates(tmp_path: Path) -> None:
    study = load_study(plan_study(tmp_path, sizes=[3, 5], repeat=2))
    assert [i.name for i in study.instances] == ["blocks 3", "blocks 5"]
    assert [name for name, _ in study.instances[0].files] == ["domain.pddl", "problem.pddl"]
    assert study.cell_count() == 2 * 2 * 2
    argv = cell_argv(study, study.instances[0], (("--optimal", True),), ["d", "p"])
    assert argv == ["plan", "d", "p", "--optimal", "--max-seconds", "60"]
    argv = cell_argv(study, study.instances[0], (("--optimal", False),), ["d", "p"])
    assert argv == ["plan", "d", "p", "--max-seconds", "60"]


def test_relative_files_and_data_folder(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "x.pddl").write_text("(define (domain x))")
    text = GOOD.replace('"example:fetch/robot.pddl"', '"{data}/x.pddl"')
    study = load_study(write(tmp_path, text.replace("[parameters]", 'data = "data"\n[parameters]')))
    assert study.instances[0].files[0] == ("x.pddl", b"(define (domain x))")
    with pytest.raises(InputError, match="give --data DIR"):
        load_study(write(tmp_path, text))


@pytest.mark.parametrize(("change", "message"), [
    (("[study]", "[study]\ncolour = 1"), "unknown key 'colour'"),
    (("[parameters]", "[params]"), "unknown key 'params'"),
    (('command = "explain"', 'command = 3'), "study.command: expected a string"),
    (('command = "explain"', 'command = "nope"'), "'nope' is not an xaip command"),
    (('command = "explain"', 'command = "study"'), "'study' is not an xaip command"),
    (('"--type" = ["mce", "mme"]', '"--tpye" = ["mce"]'), "has no option --tpye"),
    (('"--type" = ["mce", "mme"]', '"--type" = ["nope"]'), "invalid choice: 'nope'"),
    (('"--type" = ["mce", "mme"]', '"--type" = [true]'), "not a flag"),
    (('"--type" = ["mce", "mme"]', '"--grounded" = ["yes"]'), "--grounded is a flag"),
    (('"--type" = ["mce", "mme"]', '"--type" = []'), "at least one value"),
    (('"--type" = ["mce", "mme"]', '"--type" = ["mce", "mce"]'), "listed twice"),
    (('"--type" = ["mce", "mme"]', 'type = ["mce"]'), "a long option"),
    (("example:fetch/robot.pddl", "example:fetch/nope.pddl"), "has no file 'nope.pddl'"),
    (("example:fetch/robot.pddl", "example:nope/robot.pddl"), "nope"),
    (("example:fetch/robot.pddl", "missing.pddl"), "no such file"),
    (('name = "fetch"', 'name = "{x}"'), "{x} in '{x}' is unknown"),
    (('name = "fetch"', 'name = 3'), "name: expected a string"),
    (("[[instances]]", "[budget]\nmax_nodes = -1\n[[instances]]"), ">= 0"),
    (("[[instances]]", "[budget]\nmax_seconds = 'x'\n[[instances]]"), "expected a number"),
    (("[[instances]]", "[metrics]\nx = 'a..b'\n[[instances]]"), "dotted path"),
    (("[study]", "[study]\nrepeat = 0"), "repeat must be from 1"),
    (("[study]", "x = ["), "not a TOML study file"),
])
def test_bad_study_files_are_one_line(tmp_path: Path, change: tuple[str, str],
                                      message: str) -> None:
    path = write(tmp_path, GOOD.replace(*change, 1))
    with pytest.raises(InputError) as error:
        load_study(path)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_missing_pieces(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="study.command is missing"):
        load_study(write(tmp_path, GOOD.replace('command = "explain"', "")))
    no_instances = GOOD[:GOOD.index("[[instances]]")]
    with pytest.raises(InputError, match="no \\[\\[instances\\]\\]"):
        load_study(write(tmp_path, no_instances))
    twice = GOOD + GOOD[GOOD.index("[[instances]]"):]
    with pytest.raises(InputError, match="two instances are named 'fetch'"):
        load_study(write(tmp_path, twice))
    with pytest.raises(InputError, match="unknown generator"):
        load_study(write(tmp_path, no_instances + '[[instances]]\nname = "g"\n'
                                                  'generator = "nope"\n'))
    with pytest.raises(InputError, match="takes whole numbers"):
        load_study(write(tmp_path, no_instances + '[[instances]]\nname = "g"\n'
                                                  'generator = "gripper"\narguments = ["x"]\n'))
    with pytest.raises(InputError, match="no such study file"):
        load_study(tmp_path / "absent.toml")
    with pytest.raises(InputError, match="no study file or bundled study named 'absent'"):
        load_study("absent")


def test_budget_the_command_lacks(tmp_path: Path) -> None:
    text = """
[study]
command = "discover"
[budget]
max_nodes = 5
[[instances]]
name = "z"
args = ["zelda"]
"""
    with pytest.raises(InputError, match="'xaip discover' has no --max-nodes"):
        load_study(write(tmp_path, text))


def test_cli_bad_study_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, GOOD.replace("[study]", "[study]\ncolour = 1"))
    assert main(["study", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("xaip: error:") and "colour" in err and "\n" not in err
    assert main(["study", str(tmp_path / "none.toml")]) == 2
    assert main(["study", str(path), "--executor", "serial", "--address", "auto"]) == 2
    assert main(["study", str(path), "--workers", "2"]) == 2
    assert "--workers is for --executor processes or ray" in capsys.readouterr().err
    assert main(["study", str(path), "extra"]) == 2
    assert main(["study", str(path), "--csv", "x.csv"]) == 2
    assert not list(tmp_path.glob("*.sqlite"))  # nothing was created
