"""xaip assist: completion, suggestion, plan check and repair under vetoes; cost semantics;
1-based step numbers; the checker catching wrong answers; budgets; bad input; the command."""

from __future__ import annotations

import dataclasses
import json

import pytest

from xaip.assist import Assistant
from xaip.assist.check import check, vetoed_text
from xaip.assist.registry import EXAMPLE_PREFIX, EXAMPLE_VETOES, bundled_files
from xaip.contract import CHECKER_BUDGET, run_checker
from xaip.errors import InputError
from xaip.planning.pddl.reader import parse_domain, parse_problem
from xaip.runtime import Budget, Status

# A corridor a-b-c with a short cut a-c that is dear; the door to d needs the key from b.
HALLS = """(define (domain halls) (:requirements :strips :action-costs)
 (:predicates (in ?r) (link ?x ?y) (dear ?x ?y) (key-at ?r) (has-key) (locked ?r))
 (:functions (total-cost))
 (:action walk :parameters (?x ?y) :precondition (and (in ?x) (link ?x ?y))
   :effect (and (in ?y) (not (in ?x)) (increase (total-cost) 1)))
 (:action run :parameters (?x ?y) :precondition (and (in ?x) (dear ?x ?y))
   :effect (and (in ?y) (not (in ?x)) (increase (total-cost) 5)))
 (:action take :parameters (?r) :precondition (and (in ?r) (key-at ?r))
   :effect (and (has-key) (not (key-at ?r)) (increase (total-cost) 1)))
 (:action unlock :parameters (?r) :precondition (and (has-key) (locked ?r))
   :effect (and (not (locked ?r)) (increase (total-cost) 1))))"""


def _halls(goal: str = "(in c)", metric: bool = True) -> Assistant:
    problem = ("(define (problem p) (:domain halls) (:objects a b c d) (:init (in a) "
               "(link a b) (link b a) (link b c) (link c b) (dear a c) (key-at b) (locked d) "
               f"(= (total-cost) 0)) (:goal {goal}) "
               + ("(:metric minimize (total-cost))" if metric else "") + ")")
    return Assistant(parse_domain(HALLS), parse_problem(problem))


def test_complete_counts_declared_costs_only_under_the_metric() -> None:
    priced = _halls().complete()
    assert priced.verified and priced.status == Status.SOLVED
    assert priced.completion == ("(walk a b)", "(walk b c)") and priced.completion_cost == 2
    unit = _halls(metric=False).complete()
    assert unit.verified and unit.completion == ("(run a c)",) and unit.completion_cost == 1
    assert not unit.counts_costs and priced.counts_costs


def test_completion_of_a_prefix_and_the_gap_to_the_robot() -> None:
    helper = _halls()
    helper.set_prefix(["(run a c)"])
    result = helper.complete()
    assert result.verified and result.completion == () and result.total_cost == 5
    assert result.robot_cost == 2 and result.cost_gap == 3
    data = result.to_dict()
    assert data["steps_numbered_from"] == 1 and data["cost_gap"] == 3


def test_inapplicable_prefix_step_is_reported_with_its_number_and_unmet_facts() -> None:
    helper = _halls()
    helper.set_prefix(["(walk a b)", "(unlock d)"])
    result = helper.complete()
    assert result.status == Status.INVALID and result.verified
    assert result.failure is not None and result.failure.step == 2
    assert result.failure.unmet == ("(has-key)",)
    assert result.completion is None


def test_goal_true_initially_needs_nothing() -> None:
    result = _halls(goal="(in a)").complete()
    assert result.verified and result.completion == () and result.completion_cost == 0
    assert result.robot_cost == 0
    assert _halls(goal="(in a)").check([]).status == Status.VALID
    suggestion = _halls(goal="(in a)").suggest()
    assert suggestion.verified and suggestion.suggestion is None


def test_vetoes_by_ground_action_and_by_schema() -> None:
    helper = _halls()
    helper.veto("(walk b c)")
    result = helper.complete()
    assert result.verified and result.completion == ("(run a c)",) and result.cost_gap == 3
    helper.veto("run")
    none = helper.complete()
    assert none.status == Status.UNSOLVABLE and none.verified and none.completion is None
    assert none.vetoes == ("(walk b c)", "run")


def test_suggestion_says_why() -> None:
    result = _halls(goal="(and (in c) (not (locked d)))").suggest()
    assert result.verified, result.check
    assert result.suggestion == "(walk a b)"
    assert result.cost_with == 4 and result.cost_without == 9  # run a c, back, key, door
    helper = _halls(goal="(and (in c) (not (locked d)))")
    helper.set_prefix(["(walk a b)"])
    take = helper.suggest()
    assert take.verified and take.suggestion == "(take b)"
    assert "(has-key)" in take.achieves_landmarks and take.cost_without is None


def test_check_names_the_failing_step_and_repairs_from_there() -> None:
    helper = _halls()
    result = helper.check(["(walk a b)", "(walk a b)", "(walk b c)"])
    assert result.status == Status.INVALID and result.verified
    assert result.failure is not None and result.failure.step == 2
    assert result.failure.unmet == ("(in a)",)
    assert result.kept == 1 and result.completion == ("(walk b c)",)
    short = helper.check(["(walk a b)"])
    assert short.failure is not None and short.failure.kind == "goal"
    assert short.failure.unmet == ("(in c)",) and short.completion == ("(walk b c)",)
    good = helper.check(["(walk a b)", "(walk b c)"])
    assert good.status == Status.VALID and good.verified


def test_checker_catches_wrong_answers() -> None:
    helper = _halls()
    domain, problem = helper.domain, helper.problem
    right = helper.complete()
    assert check(domain, problem, right).ok is True
    wrongs = [
        dataclasses.replace(right, completion_cost=1),
        dataclasses.replace(right, completion=("(run a c)",), completion_cost=5),
        dataclasses.replace(right, robot_cost=1),
        dataclasses.replace(right, completion=None, status=Status.UNSOLVABLE),
    ]
    helper.veto("(walk b c)")
    vetoed = helper.complete()
    wrongs.append(dataclasses.replace(vetoed, completion=right.completion,
                                      completion_cost=2))
    helper.clear_vetoes()
    helper.set_prefix(["(walk a b)", "(unlock d)"])
    broken = helper.complete()
    wrongs.append(dataclasses.replace(broken, failure=dataclasses.replace(
        broken.failure, step=1)))
    suggestion = _halls(goal="(and (in c) (not (locked d)))")
    suggestion.set_prefix(["(walk a b)"])
    told = suggestion.suggest()
    wrongs += [dataclasses.replace(told, cost_without=9),
               dataclasses.replace(told, achieves_landmarks=("(in c)",)),
               dataclasses.replace(told, achieves_goals=("(in c)",))]
    for wrong in wrongs:
        assert check(domain, problem, wrong).ok is False, wrong


def test_veto_matcher_reads_plan_text() -> None:
    assert vetoed_text("(walk a b)", ["walk"]) and vetoed_text("(WALK a b)", ["(walk a b)"])
    assert not vetoed_text("(walk a b)", ["(walk b a)", "run", "walk-fast"])


def test_budgets() -> None:
    helper = _halls()
    stopped = helper.complete(Budget(max_nodes=1))
    assert stopped.status == Status.BUDGET_EXHAUSTED and not stopped.verified
    door = _halls(goal="(and (in c) (not (locked d)))")
    right = door.suggest()  # the cost without (walk a b) needs a search of several nodes
    report = run_checker(lambda: check(door.domain, door.problem, right,
                                       Budget(max_nodes=1)))
    assert report.ok is None and CHECKER_BUDGET in report.details


def test_bad_input_is_one_line() -> None:
    helper = _halls()
    for veto in ("fly", "(walk a z)", "(walk a)", "", "(walk (a) b)"):
        with pytest.raises(InputError):
            helper.veto(veto)
    with pytest.raises(InputError):
        helper.set_prefix(["(fly a b)"])
    with pytest.raises(InputError):
        helper.check(["(walk a q)"])


def test_command_exit_codes_and_json(tmp_path, capsys) -> None:
    from xaip.cli import main

    files = bundled_files()
    domain, problem = str(files["domain"]), str(files["problem"])
    prefix = tmp_path / "prefix.plan"
    prefix.write_text("\n".join(EXAMPLE_PREFIX) + "\n")
    veto = ["--veto", EXAMPLE_VETOES[0]]
    assert main(["assist", domain, problem, "suggest", "--prefix", str(prefix), *veto]) == 0
    assert "Verified independently" in capsys.readouterr().out
    assert main(["assist", domain, problem, "complete", "--prefix", str(prefix), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verified"] and data["completion"][0]["step"] == 3
    assert data["steps_numbered_from"] == 1
    assert main(["assist", domain, problem, "complete", "--prefix", str(prefix),
                 "--veto", "stack"]) == 1
    assert main(["assist", domain, problem, "check", "--plan", str(prefix)]) == 1
    assert main(["assist", domain, problem, "--max-nodes", "1"]) == 1
    assert main(["assist", domain, problem, "--veto", "fly"]) == 2
    assert main(["assist", domain, problem, "check"]) == 2
    assert main(["assist", domain, problem, "--prefix", str(tmp_path / "none.plan")]) == 2
