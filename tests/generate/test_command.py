"""``xaip generate``: files, manifest, refusals, and instances that ``xaip explain``
explains with a verified answer."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.generate.test_generate import MODELS

ROBOT, PROBLEM = MODELS[0]


def xaip(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "xaip.cli", *args], capture_output=True,
                          text=True, check=False)


def test_mrp_count_json_and_files(tmp_path: Path) -> None:
    out = xaip("generate", "mrp", str(ROBOT), str(PROBLEM), "--k", "2", "--seed", "3",
               "--count", "2", "--mode", "mix", "--out", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    payload = json.loads(out.stdout)
    assert [m["seed"] for m in payload["instances"]] == [3, 4]
    assert payload["verified"] is True
    for info in payload["instances"]:
        folder = tmp_path / info["instance"]
        assert json.loads((folder / "manifest.json").read_text()) == info
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            [*info["files"].values(), "manifest.json"])


def test_same_seed_same_bytes_from_the_command(tmp_path: Path) -> None:
    for run in ("a", "b"):
        out = xaip("generate", "mrp", str(ROBOT), str(PROBLEM), "--k", "3", "--seed", "9",
                   "--need-explanation", "--out", str(tmp_path / run), "--quiet")
        assert out.returncode == 0, out.stderr
    a, b = (tmp_path / "a" / "mrp-k3-s9"), (tmp_path / "b" / "mrp-k3-s9")
    assert {p.name: p.read_bytes() for p in a.iterdir()} == \
        {p.name: p.read_bytes() for p in b.iterdir()}


@pytest.mark.parametrize("args, message", [
    (["--k", "500"], "larger than the"),
    (["--k", "1", "--kinds", "cost"], "not perturbed"),
    (["--k", "1", "--max-tries", "3"], "only applies with --need-explanation"),
    (["--k", "-1"], "must not be negative"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    out = xaip("generate", "mrp", str(ROBOT), str(PROBLEM), *args, "--out", str(tmp_path))
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) <= 2  # argparse adds its usage line


def test_outputs_never_replace_inputs(tmp_path: Path) -> None:
    folder = tmp_path / "mrp-k1-s0"
    folder.mkdir()
    robot = folder / "robot-domain.pddl"
    robot.write_text(ROBOT.read_text())
    before = robot.read_bytes()
    out = xaip("generate", "mrp", str(robot), str(PROBLEM), "--k", "1", "--out", str(tmp_path))
    assert out.returncode == 2 and "refusing to overwrite" in out.stderr
    assert robot.read_bytes() == before


def test_budget_exhausted_exits_1(tmp_path: Path) -> None:
    out = xaip("generate", "mrp", str(MODELS[-1][0]), str(MODELS[-1][1]), "--k", "1",
               "--max-nodes", "1", "--out", str(tmp_path), "--json")
    assert out.returncode == 1, out.stderr
    assert "budget" in (out.stdout + out.stderr)


@pytest.mark.parametrize("name, size", [("blocksworld", 4), ("gripper", 2), ("logistics", 2)])
def test_task(tmp_path: Path, name: str, size: int) -> None:
    out = xaip("generate", "task", name, "--size", str(size), "--seed", "1", "--out",
               str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    planned = xaip("plan", info["domain"], info["problem"], "--json")
    assert planned.returncode == 0, planned.stderr


@pytest.mark.parametrize("model", range(len(MODELS)))
@pytest.mark.parametrize("mode", ["remove", "add"])
def test_generated_instances_are_explained_and_verified(tmp_path: Path, model: int,
                                                        mode: str) -> None:
    robot, problem = MODELS[model]
    out = xaip("generate", "mrp", str(robot), str(problem), "--k", "2", "--seed", "0",
               "--count", "2", "--mode", mode, "--need-explanation", "--out", str(tmp_path),
               "--json", "--max-seconds", "120")
    assert out.returncode == 0, out.stderr
    for info in json.loads(out.stdout)["instances"]:
        folder = tmp_path / info["instance"]
        files = {key: str(folder / name) for key, name in info["files"].items()}
        explained = xaip("explain", files["robot_domain"], files["human_domain"],
                         files["problem"], "--human-problem", files["human_problem"],
                         "--plan", files["plan"], "--json", "--max-seconds", "120")
        assert explained.returncode == 0, explained.stdout + explained.stderr
        answer = json.loads(explained.stdout)
        assert answer["verified"] is True
        assert answer["size"] >= 1  # the plan needed an explanation
