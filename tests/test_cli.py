"""The ``xaip`` command end to end: outputs, JSON fields and exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from xaip.cli import main

CASES = Path(__file__).parent / "planning" / "pddl_cases"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
FETCH = SHARED / "mrp" / "fetch"

BLOCKS_DOMAIN = """
(define (domain bw) (:requirements :strips :typing)
  (:types block)
  (:predicates (on ?x ?y - block) (ontable ?x - block) (clear ?x - block)
               (handempty) (holding ?x - block))
  (:action pick-up :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action put-down :parameters (?x - block)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  (:action stack :parameters (?x ?y - block)
    :precondition (and (holding ?x) (clear ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action unstack :parameters (?x ?y - block)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty)) (not (on ?x ?y)))))
"""
SUSSMAN = """
(define (problem bw3) (:domain bw) (:objects a b c - block)
  (:init (ontable a) (ontable b) (on c a) (clear b) (clear c) (handempty))
  (:goal (and (on a b) (on b c))))
"""
IMPOSSIBLE = """
(define (problem bw-impossible) (:domain bw) (:objects a b - block)
  (:init (ontable a) (ontable b) (clear a) (clear b) (handempty))
  (:goal (and (on a b) (on b a))))
"""


@pytest.fixture()
def bw(tmp_path: Path) -> tuple[Path, Path]:
    domain = tmp_path / "domain.pddl"
    problem = tmp_path / "problem.pddl"
    domain.write_text(BLOCKS_DOMAIN)
    problem.write_text(SUSSMAN)
    return domain, problem


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_plan_optimal_json(bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "plan", str(bw[0]), str(bw[1]), "--optimal", "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["cost"] == 6 and payload["optimal"] is True
    assert len(payload["plan"]) == 6 and payload["plan"][0] == "(unstack c a)"
    assert payload["expanded"] >= 1 and payload["seconds"] >= 0


def test_plan_then_validate(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plan_file = tmp_path / "out.plan"
    code, out, _ = run(capsys, "plan", str(bw[0]), str(bw[1]), "-o", str(plan_file))
    assert code == 0 and plan_file.exists()
    code, out, _ = run(capsys, "validate", str(bw[0]), str(bw[1]), str(plan_file), "--json")
    assert code == 0 and json.loads(out)["valid"] is True


def test_validate_invalid_plan_exit_1(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plan_file = tmp_path / "bad.plan"
    plan_file.write_text("(unstack c a)\n(stack c b)\n(pick-up b)\n")
    code, out, _ = run(capsys, "validate", str(bw[0]), str(bw[1]), str(plan_file), "--json")
    payload = json.loads(out)
    assert code == 1
    assert payload["valid"] is False and payload["failed_step"] == 3  # 1-based, as people count
    assert payload["steps_numbered_from"] == 1
    assert "(clear b)" in payload["reason"]


def test_unsolvable_exit_1(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    problem = tmp_path / "impossible.pddl"
    problem.write_text(IMPOSSIBLE)
    code, out, _ = run(capsys, "plan", str(bw[0]), str(problem), "--optimal", "--json")
    assert code == 1 and json.loads(out)["status"] == "unsolvable"


def test_budget_exhausted_exit_1(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        capsys, "plan", str(bw[0]), str(bw[1]), "--optimal", "--search", "ucs",
        "--max-nodes", "2", "--json",
    )
    assert code == 1 and json.loads(out)["status"] == "budget_exhausted"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("(define (domain bw) (:requirements :strips", ":1:"),  # truncated
        ("(define (domain bw) (:requirements :quantum))", "quantum"),
        (BLOCKS_DOMAIN.replace("(holding ?x)))\n  (:action put-down",
                               "(holdin ?x)))\n  (:action put-down"), "undeclared predicate"),
        (BLOCKS_DOMAIN.replace(":precondition (holding ?x)", ":precondition (holding ?x ?x)"),
         "takes 1"),
        (BLOCKS_DOMAIN.replace("(?x - block)\n    :precondition (holding",
                               "(?x - brick)\n    :precondition (holding"), "unknown type"),
        (BLOCKS_DOMAIN.replace("(:action put-down", "(:action pick-up"), "declared twice"),
    ],
)
def test_bad_domain_exit_2(
    tmp_path: Path, bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
    text: str, fragment: str,
) -> None:
    domain = tmp_path / "broken.pddl"
    domain.write_text(text)
    code, out, err = run(capsys, "plan", str(domain), str(bw[1]))
    assert code == 2
    assert err.startswith("xaip: error:") and fragment in err
    assert "Traceback" not in err


def test_missing_file_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "plan", "nope.pddl", "nope2.pddl")
    assert code == 2 and "nope.pddl" in err


def test_optimal_with_inadmissible_heuristic_is_bad_input(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "plan", str(bw[0]), str(bw[1]), "--optimal", "--heuristic", "hff")
    assert code == 2 and "admissible" in err


def test_landmarks_json_and_dot(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    dot = tmp_path / "lm.dot"
    code, out, _ = run(capsys, "landmarks", str(bw[0]), str(bw[1]), "--dot", str(dot), "--json")
    payload = json.loads(out)
    assert code == 0
    facts = {f for lm in payload["landmarks"] for f in lm["facts"]}
    assert {"(on a b)", "(on b c)", "(holding a)", "(holding b)"} <= facts
    assert all({"before", "after", "kind"} <= set(o) for o in payload["orderings"])
    assert dot.read_text().lstrip().startswith("digraph")


@pytest.mark.skipif(not FETCH.exists(), reason="../shared/data is not present")
def test_diff_fetch(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        capsys, "diff", str(FETCH / "fetchworld-base-m.pddl"),
        str(FETCH / "fetchworld-tuck-m.pddl"), "--json",
    )
    assert code == 0
    payload = json.loads(out)
    assert isinstance(payload, dict) and payload


def test_demo(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "demo", "--json")
    payload = json.loads(out)
    assert code == 0
    assert payload["optimal"] is True and payload["validation"]["valid"] is True
    assert payload["validation"]["cost"] == payload["cost"]
    assert payload["explanation"]["verified"] is True
    assert payload["capabilities"]["consistent"] is True
    assert payload["capabilities"]["verified"] is True  # checked against the simulator
    effects = {str(e) for c in payload["capabilities"]["capabilities"] for e in c["effects"]}
    assert {"(has_key)", "(escaped)"} <= effects  # the black-box side: key and door found


def test_plan_naming_unknown_object_exit_2(
    tmp_path: Path, bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str],
) -> None:
    plan = tmp_path / "bad.plan"
    plan.write_text("(unstack c a)\n(put-down z)\n")
    code, _, err = run(capsys, "validate", str(bw[0]), str(bw[1]), str(plan))
    assert code == 2 and "unknown object 'z'" in err and "Traceback" not in err


# ------------------------------------------------------------------ hostile input, round 2


def test_unknown_heuristic_is_a_usage_error(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "plan", str(bw[0]), str(bw[1]), "--heuristic", "ff")
    assert code == 2 and "invalid choice: 'ff'" in err and "internal" not in err


@pytest.mark.parametrize("option", ["--max-nodes", "--cost-bound"])
def test_counts_past_64_bits_are_refused(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], option: str
) -> None:
    code, _, err = run(capsys, "plan", str(bw[0]), str(bw[1]), "--optimal", option,
                       str(2**63))
    assert code == 2 and "at most 9223372036854775807" in err


def test_largest_counts_reach_the_compiled_core(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "plan", str(bw[0]), str(bw[1]), "--optimal", "--engine",
                       "default", "--max-nodes", str(2**63 - 1), "--cost-bound",
                       str(2**63 - 1), "--json")
    assert code == 0 and json.loads(out)["cost"] == 6


def test_compiled_engine_clamps_counts_beyond_its_c_types(bw: tuple[Path, Path]) -> None:
    from xaip.planning import read_domain, read_problem
    from xaip.planning.engines.compiled import CompiledEngine, core_available
    from xaip.runtime import Budget

    if not core_available():
        pytest.skip("the compiled core is not built")
    domain, problem = read_domain(bw[0]), read_problem(bw[1])
    result = CompiledEngine().solve_model(domain, problem, optimal=True, cost_bound=2**80,
                                          budget=Budget(max_nodes=2**90))
    assert result.status == "solved" and result.cost == 6


def test_device_as_problem_is_refused(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "plan", str(bw[0]), "/dev/zero")
    assert code == 2 and "/dev/zero: is a device" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("which", ["domain", "problem", "plan"])
def test_fifo_without_writer_never_blocks(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path, which: str
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    plan = tmp_path / "plan.txt"
    plan.write_text("(unstack c a)\n")
    files = {"domain": str(bw[0]), "problem": str(bw[1]), "plan": str(plan)}
    files[which] = str(fifo)
    code, _, err = run(capsys, "validate", files["domain"], files["problem"], files["plan"])
    assert code == 2 and "FIFO with no writer" in err


def test_output_over_a_file_read_is_refused(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    link = tmp_path / "other-name.pddl"
    os.link(bw[1], link)  # the same file under another name
    before = bw[1].read_text()
    code, _, err = run(capsys, "plan", str(bw[0]), str(bw[1]), "--output", str(link))
    assert code == 2 and "refusing to overwrite" in err
    assert bw[1].read_text() == before


def test_output_checks_know_every_input(tmp_path: Path) -> None:
    from xaip.commandline import OutputError, check_output, check_output_dir, check_outputs
    from xaip.sidefiles import read_text, recording

    named = tmp_path / "named.pddl"
    named.write_text("x")
    store = tmp_path / "s.db"  # an input that does not exist yet (a store to create)
    with pytest.raises(OutputError, match="refusing to overwrite"):
        check_output(store, [store])
    with pytest.raises(OutputError, match="two outputs would be written to one file"):
        check_outputs([tmp_path / "x.svg", tmp_path / "x.svg"])
    with pytest.raises(OutputError, match="refusing to overwrite"):
        check_output_dir(tmp_path, ["compiled.pddl", "named.pddl"], [named])
    with recording():
        read_text(named)  # read by the command (a file named inside a spec, say)
        with pytest.raises(OutputError, match="refusing to overwrite"):
            check_output(named)
    assert check_output(named) == named  # outside that command it may be written
    assert check_output_dir(tmp_path / "new", ["a", "b"]) == [tmp_path / "new" / "a",
                                                                tmp_path / "new" / "b"]


# Outputs over inputs: the four cases of issue 22, each refused before anything is written.
DOMAINS = Path(__file__).resolve().parents[1] / "src" / "xaip" / "domains"


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def test_summarize_dot_named_svg_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "summarize", "--dot", str(tmp_path / "x.svg"))
    assert code == 2 and "give the DOT file a name ending in .dot" in err
    assert not (tmp_path / "x.svg").exists()


def test_balance_write_compiled_into_the_inputs_folder_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import shutil

    for name in ("robot.pddl", "human.pddl", "problem.pddl"):
        shutil.copy(DOMAINS / "balanced" / name, tmp_path / name)
    before = _snapshot(tmp_path)
    code, _, err = run(capsys, "balance", str(tmp_path / "robot.pddl"),
                       str(tmp_path / "human.pddl"), str(tmp_path / "problem.pddl"),
                       "--write-compiled", str(tmp_path), "--max-seconds", "30")
    assert code == 2 and "refusing to overwrite" in err
    assert _snapshot(tmp_path) == before


def test_design_png_over_a_task_file_the_spec_names_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import shutil

    folder = tmp_path / "restaurant"
    shutil.copytree(DOMAINS / "restaurant", folder)
    before = _snapshot(folder)
    code, _, err = run(capsys, "design", str(folder / "design.json"), "--png",
                       str(folder / "b1.pddl"), "--max-seconds", "30")
    assert code == 2 and "refusing to overwrite" in err and "b1.pddl" in err
    assert _snapshot(folder) == before


def test_discover_pddl_over_its_store_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    store = tmp_path / "s.db"
    code, _, err = run(capsys, "discover", "zelda", "--store", str(store), "--pddl",
                       str(store), "--max-seconds", "5", "--quiet")
    assert code == 2 and "refusing to overwrite" in err
    assert not store.exists() or store.read_bytes()[:15] == b"SQLite format 3"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_output_to_a_fifo_nobody_reads_is_refused(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "plan", str(bw[0]), str(bw[1]), "-o", str(fifo))
    assert code == 2 and "a FIFO that no process reads" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_output_to_a_fifo_with_a_reader_is_written(
    bw: tuple[Path, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader is there first
    try:
        code, _, _ = run(capsys, "plan", str(bw[0]), str(bw[1]), "-o", str(fifo))
        written = os.read(reader, 1 << 16).decode()  # a short plan fits in the pipe
    finally:
        os.close(reader)
    assert code == 0 and "(unstack c a)" in written
