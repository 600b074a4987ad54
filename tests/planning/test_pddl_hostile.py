"""Issue 16: hostile PDDL input ends quickly in a clear InputError, never a crash or a hang.

Each numbered case of the issue has a test here; the time limits are generous wall-clock
margins (a hang or quadratic blow-up takes minutes, the fixed reader milliseconds).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from xaip.errors import InputError, PDDLSyntaxError, SemanticError, UnsupportedFeature
from xaip.planning.grounding import ground
from xaip.planning.pddl import check_problem, parse_domain, parse_problem, read_problem
from xaip.planning.pddl.limits import (
    MAX_DEPTH,
    MAX_INPUT_BYTES,
    looks_numeric,
    parse_number,
    quoted,
)
from xaip.planning.plans import parse_plan, validate

DOMAIN = """(define (domain t) (:requirements :adl :action-costs)
 (:predicates (p) (q))
 (:functions (total-cost) - number)
 (:action a :parameters () :precondition (p) :effect (and (q) (increase (total-cost) 1))))"""


def problem(goal: str = "(q)", init: str = "(p)") -> str:
    return f"(define (problem x) (:domain t) (:init {init}) (:goal {goal}))"


def timed(limit: float, function, *args):  # type: ignore[no-untyped-def]
    """Call ``function``; fail if it took longer than ``limit`` seconds (generous margin)."""
    start = time.perf_counter()
    try:
        return function(*args)
    finally:
        elapsed = time.perf_counter() - start
        assert elapsed < limit, f"took {elapsed:.1f} s"


# ----------------------------------------------------------------------- 1. deep nesting


@pytest.mark.parametrize("wrapper,depth", [("and", 500), ("not", 1000), ("or", 5000)])
def test_deep_nesting_is_refused_with_location(wrapper: str, depth: int) -> None:
    goal = f"({wrapper} " * depth + "(q)" + ")" * depth
    with pytest.raises(PDDLSyntaxError, match=f"nesting deeper than {MAX_DEPTH}") as caught:
        timed(5, parse_problem, problem(goal), "deep.pddl")
    assert caught.value.line == 1 and caught.value.column > 1
    assert str(caught.value).startswith("deep.pddl:1:")


def test_nesting_just_under_the_limit_goes_through_every_walker() -> None:
    depth = MAX_DEPTH - 4  # define, goal and the atom take the rest
    goal = "(and " * (depth // 2) + "(not (not " * (depth // 4) + "(q)" + "))" * (
        depth // 4) + ")" * (depth // 2)
    domain = parse_domain(DOMAIN.replace(":precondition (p)", f":precondition {goal}"))
    task_problem = parse_problem(problem(goal))
    check_problem(domain, task_problem)
    from xaip.planning.pddl import write_domain, write_problem

    assert parse_problem(write_problem(task_problem)) == task_problem
    assert parse_domain(write_domain(domain)) == domain
    ground(domain, task_problem)
    result = validate(domain, task_problem, parse_plan("(a)\n"))
    assert not result.valid  # (q) does not hold at the start
    from xaip.planning.features import model_diff, model_features

    assert model_features(domain, task_problem)
    other = parse_domain(DOMAIN)
    assert model_diff(other, domain) is not None


def test_nesting_just_under_the_limit_through_the_command_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from xaip.cli import main

    depth = MAX_DEPTH - 4
    goal = "(and " * (depth // 2) + "(not (not " * (depth // 4) + "(p)" + "))" * (
        depth // 4) + ")" * (depth // 2)
    domain, problem_file, plan = tmp_path / "d.pddl", tmp_path / "p.pddl", tmp_path / "plan"
    domain.write_text(DOMAIN.replace(":precondition (p)", f":precondition {goal}"))
    problem_file.write_text(problem(goal.replace("(p)", "(q)")))
    plan.write_text("(a)\n")
    for argv in (["plan", str(domain), str(problem_file)],
                 ["plan", "--optimal", str(domain), str(problem_file)],
                 ["validate", str(domain), str(problem_file), str(plan)],
                 ["landmarks", str(domain), str(problem_file)]):
        assert main(argv) == 0, capsys.readouterr().err
    capsys.readouterr()
    problem_file.write_text(problem("(and " * 300 + "(q)" + ")" * 300))
    assert main(["plan", str(domain), str(problem_file)]) == 2
    assert "nesting deeper than 200" in capsys.readouterr().err


def test_fifty_megabytes_of_open_parentheses_fail_fast(tmp_path: Path) -> None:
    path = tmp_path / "paren.pddl"
    path.write_bytes(b"(" * 50_000_000)
    with pytest.raises(PDDLSyntaxError, match="nesting deeper"):
        timed(10, read_problem, path)


# ----------------------------------------------------------------------- 2. numbers


@pytest.mark.parametrize("number", [
    "1e999999999", "1e10000000", "1e100000", "9" * 100_000, "1" + "0" * 20, "1e16",
    "-2e15", "1e-31", "1" * 31, "0.0000000000000000000000000000000000001", "1/0",
    "1" * 40 + "/3",
])
def test_numbers_out_of_bounds_are_refused_quickly(number: str) -> None:
    text = problem(init=f"(p) (= (total-cost) {number})")
    with pytest.raises(PDDLSyntaxError, match="number") as caught:
        timed(2, parse_problem, text)
    assert len(str(caught.value)) < 300


def test_action_cost_with_a_huge_exponent_is_refused() -> None:
    with pytest.raises(PDDLSyntaxError, match="out of range"):
        timed(2, parse_domain, DOMAIN.replace("(total-cost) 1)", "(total-cost) 1e100000)"))


@pytest.mark.parametrize("text,value", [
    ("1", 1), ("0.5", 0.5), ("1e15", 1e15), ("-1e15", -1e15), ("2.5E-3", 0.0025),
    ("1/3", 1 / 3), ("0e999999999999", 0), ("000000000000000000000000000000000000042", 42),
    ("1.0000000000000000000000000000000000000000", 1), (".5", 0.5), ("5.", 5),
    ("+7", 7), ("1e-30", 1e-30),
])
def test_numbers_within_bounds_are_exact(text: str, value: float) -> None:
    assert looks_numeric(text)
    assert float(parse_number(text)) == pytest.approx(value)


@pytest.mark.parametrize("text", ["", ".", "-", "e5", "1e", "1_000", "nan", "inf", "0x10"])
def test_non_numbers(text: str) -> None:
    assert not looks_numeric(text)
    with pytest.raises(ValueError):
        parse_number(text)


# ----------------------------------------------------------------------- 3. size, devices


def test_device_files_are_refused_without_reading() -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    with pytest.raises(InputError, match="device"):
        timed(2, read_problem, "/dev/zero")


def test_fifo_is_read_up_to_the_cap(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs")
    import threading

    fifo = tmp_path / "p.pddl"
    os.mkfifo(fifo)

    def writer() -> None:
        with open(fifo, "w") as handle:
            handle.write(problem())

    thread = threading.Thread(target=writer)
    thread.start()
    assert timed(5, read_problem, fifo).name == "x"
    thread.join()


def test_files_over_the_cap_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "big.pddl"
    with open(path, "wb") as handle:  # sparse: no 64 MB written to disk
        handle.seek(MAX_INPUT_BYTES + 10)
        handle.write(b")")
    with pytest.raises(InputError, match="MB limit"):
        timed(2, read_problem, path)


def test_nul_bytes_are_a_syntax_error() -> None:
    with pytest.raises(PDDLSyntaxError, match="NUL byte") as caught:
        parse_problem(problem() + "\n(\x00\x00)")
    assert caught.value.line == 2


# ----------------------------------------------------------------------- 5. messages


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.pddl"
    path.write_bytes(b"\xef\xbb\xbf" + problem().encode())
    assert read_problem(path).name == "x"
    assert parse_problem("\ufeff" + problem()).name == "x"


def test_offending_tokens_are_truncated_and_escaped() -> None:
    evil = "q\u202eevil\x01" + "x" * 10_000
    with pytest.raises(PDDLSyntaxError) as caught:
        parse_problem(problem(goal=f"({evil})"))
    message = str(caught.value)
    assert "\\u202e" in message and "\\x01" in message
    assert "\u202e" not in message and "\x01" not in message
    assert len(message) < 200 and "(10007 characters)" in message


def test_quoted_escapes_every_invisible_character() -> None:
    assert quoted("a\x00b\u200fc\ud800") == "'a\\x00b\\u200fc\\ud800'"
    assert quoted("x" * 100).endswith("... (100 characters)'")
    assert quoted("it's") == "'it\\'s'"


def test_text_that_is_not_utf8_is_read_as_latin1_like_fast_downward(tmp_path: Path) -> None:
    path = tmp_path / "latin.pddl"
    path.write_bytes(problem(goal="(q\xe9)").encode("latin-1") + b" ; caf\xe9")
    assert read_problem(path).goal == parse_problem(problem(goal="(q\xe9)")).goal
    path.write_bytes(b"\xff\x01(define")  # junk, reported escaped with the file
    with pytest.raises(PDDLSyntaxError, match=r":1:1: expected '\(' but found '\xff\\x01'"):
        read_problem(path)
    path.write_bytes(b"\xff\xfe(\x00d\x00")  # UTF-16
    with pytest.raises(PDDLSyntaxError, match=r":1:4: NUL byte"):
        read_problem(path)


def test_problem_for_another_domain_names_line_and_column() -> None:
    domain = parse_domain(DOMAIN, "d.pddl")
    other = parse_problem("(define (problem x)\n  (:domain other) (:init) (:goal (q)))", "p.pddl")
    with pytest.raises(SemanticError, match=r"^p\.pddl:2:12: the problem is for domain 'other'"):
        check_problem(domain, other)


def test_unknown_type_of_an_object_names_its_place_and_the_domain() -> None:
    domain = parse_domain(DOMAIN.replace(":adl", ":adl :typing"), "d.pddl")
    bad = parse_problem("(define (problem x) (:domain t)\n (:objects a - truck) (:init) "
                        "(:goal (q)))", "p.pddl")
    with pytest.raises(SemanticError, match=r"^p\.pddl:2:12: unknown type 'truck' of 'a' "
                       r"\(the domain 't' read from d\.pddl declares object\)"):
        check_problem(domain, bad)


def test_duplicate_objects_and_cyclic_types_have_locations() -> None:
    with pytest.raises(PDDLSyntaxError, match=r"^p\.pddl:3:3: object 'o' declared twice "
                                              r"\(first at line 2, column 12\)"):
        parse_problem("(define (problem x) (:domain t)\n (:objects o - a\n  o - b) (:init) "
                      "(:goal (q)))", "p.pddl")
    with_constant = parse_domain(DOMAIN.replace("(:predicates", "(:types a b - thing)\n "
                                                "(:constants o - a)\n (:predicates"), "d.pddl")
    bad = parse_problem("(define (problem x) (:domain t)\n (:objects\n  o - b) (:init) "
                        "(:goal (q)))", "p.pddl")
    with pytest.raises(SemanticError, match=r"^p\.pddl:3:3: object 'o' is declared as"):
        check_problem(with_constant, bad)
    with pytest.raises(SemanticError, match=r"^d\.pddl:2:\d+: type '(a|thing)' is its own"):
        parse_domain(DOMAIN.replace("(:predicates", "(:types a - thing thing - a)\n "
                                    "(:predicates"), "d.pddl")


def test_unknown_type_in_the_domain_blames_the_domain() -> None:
    with pytest.raises(SemanticError, match=r"^d\.pddl:\d+:\d+: unknown type 'vehicle'"):
        parse_domain(DOMAIN.replace("(:predicates (p) (q))",
                                    "(:types truck) (:predicates (p) (q) (at ?v - vehicle))"),
                     "d.pddl")


@pytest.mark.parametrize("construct,expected", [
    ("(:durative-action a)", "':durative-action'"),
])
def test_unsupported_sections_are_named_with_their_place(construct: str, expected: str) -> None:
    text = DOMAIN[:-1] + "\n " + construct + ")"
    with pytest.raises(UnsupportedFeature, match=rf"^d\.pddl:5:2: .*{expected}"):
        parse_domain(text, "d.pddl")


@pytest.mark.parametrize(("declarations", "kind", "name"), [
    ("(:types a a)", "type", "a"),
    ("(:types a b - object c b - object)", "type", "b"),
    ("(:types a) (:constants c - a c - a)", "constant", "c"),
    ("(:types a) (:constants c) (:constants c - a)", "constant", "c"),
])
def test_names_declared_twice_in_a_domain_are_refused(declarations: str, kind: str,
                                                      name: str) -> None:
    text = DOMAIN.replace("(:predicates", declarations + "\n (:predicates")
    with pytest.raises(PDDLSyntaxError, match=rf"^d\.pddl:2:\d+: {kind} '{name}' declared "
                                              r"twice( as a subtype of '\w+')? \(first at line 2, "
                                              r"column \d+\)"):
        parse_domain(text, "d.pddl")


def test_a_type_under_two_parents_is_not_a_duplicate() -> None:
    """Multiple supertypes, as IPC's Storage declares ``area - object`` and ``area - surface``."""
    domain = parse_domain(DOMAIN.replace("(:predicates", "(:types s a - object a - s)\n "
                                         "(:predicates"), "d.pddl")
    assert {parent for name, parent in domain.types if name == "a"} == {"object", "s"}


def test_objects_declared_twice_across_sections_are_refused() -> None:
    with pytest.raises(PDDLSyntaxError, match=r"^p\.pddl:2:12: object 'o' declared twice"):
        parse_problem("(define (problem x) (:domain t) (:objects o)\n (:objects o) (:init) "
                      "(:goal (q)))", "p.pddl")


def test_declaration_places_are_looked_up_in_a_table_built_once() -> None:
    objects = " ".join(f"o{i}" for i in range(5000))
    read = parse_problem(f"(define (problem x) (:domain t) (:objects {objects}) (:init) "
                         "(:goal (q)))", "p.pddl")
    assert read.location_of("object:o4999") is not None
    table = read.__dict__["_location_table"]
    assert read.location_of("object:o0") is not None
    assert read.__dict__["_location_table"] is table  # not rebuilt per question (quadratic)


def test_reading_stops_at_the_commands_deadline(tmp_path: Path) -> None:
    from xaip.errors import BudgetExhausted
    from xaip.planning.pddl import read_problem
    from xaip.runtime.budget import reading_deadline

    path = tmp_path / "p.pddl"
    path.write_text(problem())
    with reading_deadline(0.0), pytest.raises(BudgetExhausted) as stop:
        read_problem(path)
    assert stop.value.phase == "reading" and str(path) in str(stop.value)
    assert read_problem(path).name  # no deadline outside the block


def test_plan_budget_covers_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from xaip.cli import main

    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(problem())
    code = main(["plan", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), "--max-seconds",
                 "0", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 1 and payload["status"] == "budget_exhausted"
    assert payload["phase"] == "reading"
