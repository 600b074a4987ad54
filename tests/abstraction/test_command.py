"""``xaip abstract-explain`` and ``xaip abstract-locate``: output, JSON, exit codes."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from xaip.abstraction.bundled import bundled_files
from xaip.cli import main


def _files() -> tuple[str, str, str, str]:
    f = bundled_files()
    return str(f["domain"]), str(f["problem"]), str(f["lift-a"]), str(f["keep-c"])


def test_abstract_explain_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem, lift, keep = _files()
    hide = ["--hide", "clear", "handempty", "holding"]
    assert main(["abstract-explain", domain, problem, *hide, "--foil", lift, keep]) == 0
    text = capsys.readouterr().out
    assert "keep track of the predicates clear and handempty" in text
    assert "fails at step 2, (pick-up a)" in text
    assert main(["abstract-explain", domain, problem, *hide, "--foil", lift,
                 "--foil", keep, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["concretise"] == ["clear", "handempty"] and data["verified"] is True
    assert data["refutations"][0]["failed_step"] == 1 and data["steps_numbered_from"] == 1


def test_abstract_explain_writes_the_persons_model(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem, lift, _ = _files()
    out = tmp_path / "mine"
    assert main(["abstract-explain", domain, problem, "--hide", "clear", "handempty",
                 "holding", "--foil", lift, "--write-abstraction", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["written"] == [str(out / "domain.pddl"),
                                                              str(out / "problem.pddl")]
    assert main(["validate", str(out / "domain.pddl"), str(out / "problem.pddl"), lift]) == 1
    assert "(clear a)" in capsys.readouterr().out
    assert "handempty" not in (out / "domain.pddl").read_text()
    here = str(Path(domain).parent)  # would replace the robot's domain.pddl: refused
    assert main(["abstract-explain", domain, problem, "--hide", "clear", "--foil", lift,
                 "--write-abstraction", here]) == 2


def test_abstract_explain_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem, lift, keep = _files()
    hide = ["--hide", "clear", "handempty", "holding"]
    assert main(["abstract-explain", domain, problem, *hide, "--foil", lift,
                 "--max-nodes", "1"]) == 1
    robot = tmp_path / "robot.plan"
    robot.write_text("(unstack c a)\n(put-down c)\n(pick-up b)\n(put-down b)\n(pick-up a)\n"
                     "(stack a b)\n")
    best = tmp_path / "best.plan"
    best.write_text("(unstack c a)\n(put-down c)\n(pick-up a)\n(stack a b)\n")
    assert main(["abstract-explain", domain, problem, *hide, "--foil", str(best),
                 "--plan", str(robot)]) == 1
    assert "cannot be refuted" in capsys.readouterr().out
    bad = tmp_path / "bad.plan"
    bad.write_text("(jump a)\n")
    assert main(["abstract-explain", domain, problem, *hide, "--foil", str(bad)]) == 2
    assert main(["abstract-explain", domain, problem, "--hide", "nope", "--foil", lift]) == 2
    assert main(["abstract-explain", domain, problem, *hide, "--foil", lift, lift]) == 2
    assert main(["abstract-explain", domain, problem, "--foil", lift]) == 2
    assert main(["abstract-explain", domain, problem, *hide]) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err and "no such predicate" in err


def test_abstract_locate_simulated_and_levels(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem, _, _ = _files()
    assert main(["abstract-locate", domain, problem, "--hide", "clear", "handempty",
                 "holding", "--simulate", "clear", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["candidates"] == [["clear"]] and data["queries_asked"] == 3
    assert data["lattice_size"] == 8 and data["log2_lower_bound"] == 3 and data["verified"]
    levels = tmp_path / "levels.txt"
    levels.write_text("clear handempty holding  ; novice\nclear\n-  ; engineer\n")
    assert main(["abstract-locate", domain, problem, "--levels", str(levels),
                 "--simulate"]) == 0
    assert "Your model hides nothing" in capsys.readouterr().out
    assert main(["abstract-locate", domain, problem, "--levels", str(levels),
                 "--simulate", "holding"]) == 2
    assert main(["abstract-locate", domain, problem, "--hide", "clear", "--simulate",
                 "clear", "--max-nodes", "0"]) == 1
    assert main(["abstract-locate", domain, problem, "--hide", "clear"]) == 2


def test_abstract_locate_interactive(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem, _, _ = _files()
    monkeypatch.setattr("sys.stdin", io.StringIO("y\nn\nn\n"))
    assert main(["abstract-locate", domain, problem, "--hide", "clear", "handempty",
                 "holding", "--interactive", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["candidates"] == [["clear"]]
    assert "valid? [y/n]" in captured.err
    monkeypatch.setattr("sys.stdin", io.StringIO("y\n"))
    assert main(["abstract-locate", domain, problem, "--hide", "clear", "handempty",
                 "holding", "--interactive"]) == 2
