"""xaip foil: the language, the compilation, conflicts, costs, budgets, the checker catching
wrong answers, and the command's exit codes."""

from __future__ import annotations

import dataclasses
import json

import pytest

from xaip.contract import CHECKER_BUDGET, run_checker
from xaip.errors import InputError
from xaip.foils import check, explain_foils, parse_foils
from xaip.foils.bundled import EXAMPLE_FOILS, bundled_files, bundled_task
from xaip.planning.pddl.reader import parse_domain, parse_problem
from xaip.runtime import Budget, Status

ROADS = """(define (domain roads) (:requirements :strips :action-costs)
 (:predicates (at ?p) (road ?a ?b) (tolled ?a ?b))
 (:functions (total-cost))
 (:action drive :parameters (?a ?b) :precondition (and (at ?a) (road ?a ?b))
   :effect (and (at ?b) (not (at ?a)) (increase (total-cost) 2)))
 (:action toll :parameters (?a ?b) :precondition (and (at ?a) (tolled ?a ?b))
   :effect (and (at ?b) (not (at ?a)) (increase (total-cost) 1))))"""


def _problem(metric: bool = True, goal: str = "(at c)") -> str:
    return ("(define (problem p) (:domain roads) (:objects a b c) "
            "(:init (at a) (road a b) (road b c) (road a c) (tolled a c) (= (total-cost) 0)) "
            f"(:goal {goal}) " + ("(:metric minimize (total-cost))" if metric else "") + ")")


def _run(foils: str, metric: bool = True, goal: str = "(at c)", budget: Budget | None = None):
    domain, problem = parse_domain(ROADS), parse_problem(_problem(metric, goal))
    return domain, problem, explain_foils(domain, problem, foils, budget=budget)


def test_bundled_example_conflicts_and_maximal_sets() -> None:
    result = explain_foils(*bundled_task(), EXAMPLE_FOILS)
    assert result.status == Status.UNSOLVABLE and result.realisable is False
    assert result.verified and result.conflicts_complete
    assert set(result.conflicts) == {(0, 1), (1, 3)}
    assert set(result.maximal) == {(0, 2, 3), (1, 2)}
    data = result.to_dict()
    assert data["minimal_conflicts"] == [[1, 2], [2, 4]]
    assert data["constraints"][1]["kind"] == "never_after"


def test_witness_and_cost_gap_under_the_metric() -> None:
    _, _, result = _run("use (drive a b)")
    assert result.realisable and result.verified
    assert result.robot_cost == 1 and result.robot_plan == ("(toll a c)",)
    assert result.witness == ("(drive a b)", "(drive b c)")
    assert result.witness_cost == 4 and result.cost_gap == 3
    data = result.to_dict()
    assert data["witness_plan"][0] == {"step": 1, "action": "(drive a b)"}
    assert data["steps_numbered_from"] == 1 and data["cost_gap"] == 3


def test_costs_ignored_without_metric() -> None:
    """The domain declares costs but the problem has no metric: every action costs 1."""
    _, _, result = _run("use (drive a b)", metric=False)
    assert result.counts_costs is False
    assert result.robot_cost == 1 and result.witness_cost == 2 and result.cost_gap == 1
    assert result.verified


def test_empty_plan_and_a_foil_that_forces_steps() -> None:
    _, _, result = _run("avoid (drive ?x ?y)", goal="(at a)")
    assert result.witness == () and result.witness_cost == 0 and result.robot_cost == 0
    assert result.verified
    _, _, result = _run("(drive a b) then (drive b c)", goal="(at a)")
    assert result.realisable is False  # can never come back to a
    assert result.conflicts == ((0,),) and result.verified


def test_orders_need_distinct_steps() -> None:
    """``sequence A A`` asks for two occurrences: one step advances one position."""
    _, _, result = _run("sequence (toll ?x ?y) (toll ?u ?v)")
    assert result.realisable is False and result.verified
    _, _, result = _run("never (drive ?x ?y) after (drive ?u ?v)")
    assert result.witness == ("(toll a c)",) and result.verified
    _, _, result = _run("use (drive a b)\nnever (drive ?x ?y) after (drive ?u ?v)")
    assert result.realisable is False and result.conflicts == ((0, 1),)


def test_repeated_variable_binds_one_object() -> None:
    domain, problem = parse_domain(ROADS), parse_problem(_problem())
    (constraint,) = parse_foils("use (drive ?x ?x)", domain, problem)
    assert constraint.patterns[0].matches("drive", ("a", "a"))
    assert not constraint.patterns[0].matches("drive", ("a", "b"))


@pytest.mark.parametrize(("text", "where", "what"), [
    ("use (fly a b)", ":1:5:", "no action 'fly'"),
    ("use (drive a)", ":1:5:", "takes 2 argument"),
    ("use (drive a z)", ":1:5:", "no object 'z'"),
    ("\nprefer (drive a b)", ":2:1:", "not a constraint"),
    ("use (drive ?x b) before (drive b ?x)", ":1:25:", "variable ?x"),
    ("use (drive a b", ":1:5:", "closed by ')'"),
    ("; only a comment\n", "", "no constraints"),
    ("use (drive a b))", ":1:16:", "')' without '('"),
    ("use ()", ":1:5:", "empty action"),
])
def test_bad_foils_are_one_line_errors(text: str, where: str, what: str) -> None:
    domain, problem = parse_domain(ROADS), parse_problem(_problem())
    with pytest.raises(InputError) as error:
        parse_foils(text, domain, problem, file="f.txt")
    message = str(error.value)
    assert "\n" not in message and f"f.txt{where}" in message and what in message


def test_too_many_constraints() -> None:
    domain, problem = parse_domain(ROADS), parse_problem(_problem())
    with pytest.raises(InputError, match="at most 16"):
        parse_foils("use (drive a b)\n" * 17, domain, problem)


def test_task_without_plan() -> None:
    _, _, result = _run("use (drive a b)", goal="(road c a)")
    assert result.task_solvable is False and result.realisable is False
    assert result.verified


def test_budget_leaves_it_unfinished_and_unverified() -> None:
    result = explain_foils(*bundled_task(), EXAMPLE_FOILS, budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


def test_checker_budget_is_reported() -> None:
    domain, problem = bundled_task()
    result = explain_foils(domain, problem, EXAMPLE_FOILS, check=False)
    report = run_checker(lambda: check(domain, problem, result, Budget(max_nodes=3)))
    assert report.ok is None and CHECKER_BUDGET in report.details


def test_checker_catches_wrong_answers() -> None:
    domain, problem, good = _run("use (drive a b)")
    assert check(domain, problem, good).ok is True
    for wrong in (dataclasses.replace(good, witness_cost=3),
                  dataclasses.replace(good, witness=("(drive a b)", "(drive b c)",
                                                     "(drive a c)")),
                  dataclasses.replace(good, witness=("(toll a c)",), witness_cost=1),
                  dataclasses.replace(good, robot_cost=2, robot_plan=("(drive a c)",))):
        assert check(domain, problem, wrong).ok is False
    bw_domain, bw_problem = bundled_task()
    conflicts = explain_foils(bw_domain, bw_problem, EXAMPLE_FOILS, check=False)
    for wrong in (dataclasses.replace(conflicts, conflicts=((0, 1),)),
                  dataclasses.replace(conflicts, maximal=((0, 2, 3),)),
                  dataclasses.replace(conflicts, conflicts=((0, 1), (1, 2, 3)))):
        assert check(bw_domain, bw_problem, wrong).ok is False


def test_command_exit_codes_and_json(tmp_path, capsys) -> None:
    from xaip.cli import main

    files = bundled_files()
    domain, problem = str(files["domain"]), str(files["problem"])
    foils = tmp_path / "foils.txt"
    foils.write_text(EXAMPLE_FOILS)
    assert main(["foil", domain, problem, str(foils), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["realisable"] is False and data["verified"] is True
    foils.write_text("use (pick-up b3)\n")
    assert main(["foil", domain, problem, str(foils)]) == 0
    assert "Verified independently" in capsys.readouterr().out
    assert main(["foil", domain, problem, str(foils), "--max-nodes", "1"]) == 1
    foils.write_text("use (pick-up b9)\n")
    assert main(["foil", domain, problem, str(foils)]) == 2
    assert main(["foil", domain, problem, str(tmp_path / "missing.txt")]) == 2


def test_compiled_task_stays_strips() -> None:
    """Regression: order monitors as conditional effects made LM-cut degrade to h_max (the
    shared RADAR firefighting foil ran out of 150 s; with action copies it takes seconds)."""
    from xaip.foils.compile import compile_foils
    from xaip.planning.grounding import ground

    domain, problem = bundled_task()
    constraints = parse_foils(EXAMPLE_FOILS, domain, problem)
    compiled = compile_foils(ground(domain, problem), constraints)
    assert not compiled.has_conditional_effects()
    assert any(f.predicate == "foil-monitor" for f in compiled.facts)
