"""xaip unsolvable: cores, landmarks, traces, budgets, the checker catching wrong answers."""

from __future__ import annotations

import dataclasses
import json

import pytest

from xaip.contract import CHECKER_BUDGET, run_checker
from xaip.errors import InputError
from xaip.planning.pddl.reader import parse_domain, parse_problem
from xaip.planning.plans import parse_plan
from xaip.runtime import Budget, Status
from xaip.unsolvable import check, explain_unsolvable
from xaip.unsolvable.bundled import bundled_files, bundled_task
from xaip.unsolvable.landmark import UnreachableLandmark

SWITCHES = """(define (domain switches) (:requirements :strips)
 (:predicates (on ?x) (off ?x) (broken ?x))
 (:action flip-up :parameters (?x) :precondition (off ?x)
   :effect (and (on ?x) (not (off ?x))))
 (:action flip-pair :parameters (?x ?y) :precondition (and (on ?x) (off ?y))
   :effect (and (off ?x) (not (on ?x)) (on ?y) (not (off ?y)))))"""


def _problem(goal: str, init: str = "(off a) (off b) (off c)") -> str:
    return (f"(define (problem p) (:domain switches) (:objects a b c) (:init {init}) "
            f"(:goal (and {goal})))")


def _run(goal: str, init: str = "(off a) (off b) (off c)", trace: str | None = None,
         budget: Budget | None = None):
    domain, problem = parse_domain(SWITCHES), parse_problem(_problem(goal, init))
    steps = None if trace is None else parse_plan(trace)
    return domain, problem, explain_unsolvable(domain, problem, steps, budget=budget, repair=1)


def test_bundled_example_core_landmark_and_trace() -> None:
    from xaip.planning.plans import read_plan

    domain, problem = bundled_task()
    result = explain_unsolvable(domain, problem, read_plan(bundled_files()["trace"]),
                                repair=1)
    assert result.status == Status.FOUND and result.solvable is False and result.verified
    assert result.core == ("(parcel-at tools harbour)",)
    assert result.core_positions == (1,) and result.core_kind == "minimum"
    landmark = result.landmark
    assert landmark is not None and landmark.fact == "(parcel-at tools harbour)"
    assert landmark.kind == "relaxed-unreachable" and landmark.chain is not None
    # every unload at the harbour needs the van there; every drive there needs a road
    assert landmark.chain.facts == ("(parcel-at tools harbour)", "(truck-at van harbour)")
    assert [(b.action, b.unmet) for b in landmark.chain.blocked] == [
        ("(drive van depot harbour)", ("(road depot harbour)",)),
        ("(drive van market harbour)", ("(road market harbour)",)),
        ("(drive van harbour harbour)", ("(truck-at van harbour)", "(road harbour harbour)"))]
    assert result.trace is not None and result.trace.step == 5
    assert result.trace.unmet == ("(road market harbour)",)
    assert result.repair is not None and result.repair.facts == ("(road depot harbour)",)
    payload = result.to_dict()
    assert payload["init_repair"]["facts"] == ["(road depot harbour)"]
    assert payload["trace"]["steps_numbered_from"] == 1
    assert payload["core_goal_positions"] == [2]


def test_solvable_task_gets_its_plan_and_no_explanation() -> None:
    domain, problem, result = _run("(on a) (on b)")
    assert result.status == Status.SOLVED and result.solvable is True and result.verified
    assert result.plan == ("(flip-up a)", "(flip-up b)") and result.plan_cost == 2
    assert not result.core and result.landmark is None


def test_goal_true_initially_is_the_empty_plan() -> None:
    _, _, result = _run("(off a)")
    assert result.solvable is True and result.plan == () and result.plan_cost == 0
    assert result.verified


def test_two_goal_facts_that_cannot_hold_together() -> None:
    # (on a) and (off a) are each reachable, never together: a core of two facts, no
    # unreachable landmark; (on b) before them in goal order is beside the point.
    _, _, result = _run("(on b) (on a) (off a)")
    assert result.solvable is False and result.verified
    assert result.core == ("(on a)", "(off a)") and result.core_kind == "minimum"
    assert result.landmark is None


def test_negated_goal_core_with_side_effect_landmark() -> None:
    """Regression (differential seed 3772): a core of one negated goal fact whose only
    achiever adds another fact; the checker's relaxation must count the core's negated
    facts, or it rejects the landmark."""
    from tests.differential.unsolvable import check as differential

    assert differential(3772) is None
    assert differential(100) is None  # negative preconditions in the checker's relaxation


def test_never_true_goal_fact() -> None:
    _, _, result = _run("(on a) (broken a)")
    assert result.core == ("(broken a)",)
    assert result.landmark is not None and result.landmark.kind == "never-true"
    assert result.verified


def test_trace_that_applies_but_misses_the_goal() -> None:
    _, _, result = _run("(on a) (off a)", trace="(flip-up a)\n")
    assert result.trace is not None and result.trace.step is None
    assert result.trace.unmet == ("(off a)",) and result.verified


def test_valid_trace_on_a_solvable_task() -> None:
    _, _, result = _run("(on a)", trace="(flip-up a)\n")
    assert result.trace is None and result.trace_valid is True and result.verified


def test_budget_exhausted_exploration_is_unverified() -> None:
    _, _, result = _run("(on a) (off a)", budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and result.solvable is None
    assert not result.verified


def test_core_search_out_of_budget_falls_back_to_deletion() -> None:
    goal = "(on a) (on b) (on c) (off a)"
    _, _, full = _run(goal)
    assert full.core == ("(on a)", "(off a)")
    nodes = full.stats["expanded"] + 1  # the exploration finishes, the subsets do not
    _, _, result = _run(goal, budget=Budget(max_nodes=nodes))
    assert result.core_kind == "subset-minimal" and result.status == Status.BUDGET_EXHAUSTED
    assert result.core == ("(on a)", "(off a)")  # deletion drops (on b), (on c)
    assert result.check is not None and result.check.ok is True  # subset-minimal confirmed
    assert not result.verified  # unfinished answers are never verified


@pytest.mark.parametrize("tamper", ["solvable-core", "not-minimum", "later-tie",
                                    "landmark", "trace-step", "repair-later", "repair-none",
                                    "chain-link", "chain-blocked"])
def test_checker_rejects_wrong_answers(tamper: str) -> None:
    domain, problem, result = _run("(on b) (on a) (off a) (off c)", trace="(flip-up c)\n")
    assert result.verified and result.core == ("(on a)", "(off a)")
    if tamper == "solvable-core":
        wrong = dataclasses.replace(result, core_positions=(0, 1))
    elif tamper == "not-minimum":  # a larger set that is impossible but not minimum
        wrong = dataclasses.replace(result, core_positions=(0, 1, 2))
    elif tamper == "later-tie":  # impossible and as small, but not first in goal order
        domain, problem, result = _run("(on a) (off a) (on b) (off b)")
        assert result.core_positions == (0, 1) and result.verified
        wrong = dataclasses.replace(result, core_positions=(2, 3))
        assert check(domain, problem, dataclasses.replace(wrong, core_kind="subset-minimal")
                     ).ok is True  # as a subset-minimal core it is right
    elif tamper == "repair-later":  # a later candidate also works, but is not the first
        domain, problem, result = _run("(on a) (broken a)")
        fix = result.repair
        assert fix is not None and fix.facts == ("(broken a)",) and result.verified
        wrong = dataclasses.replace(result, repair=dataclasses.replace(fix, facts=("(off a)",),
                                                                       atoms=()))
    elif tamper == "repair-none":  # "no single fact helps" while one does
        domain, problem, result = _run("(on a) (broken a)")
        assert result.repair is not None
        wrong = dataclasses.replace(result, repair=dataclasses.replace(
            result.repair, facts=None, plan=(), atoms=()))
    elif tamper in ("chain-link", "chain-blocked"):
        domain, problem = bundled_task()
        result = explain_unsolvable(domain, problem)
        assert result.verified and result.landmark is not None
        chain = result.landmark.chain
        assert chain is not None
        if tamper == "chain-link":  # a fact the unloads do not need
            chain = dataclasses.replace(chain, facts=(*chain.facts[:1], "(in tools van)"))
        else:  # one drive to the harbour left out
            chain = dataclasses.replace(chain, blocked=chain.blocked[1:])
        wrong = dataclasses.replace(result, landmark=dataclasses.replace(result.landmark,
                                                                         chain=chain))
        assert check(domain, problem, wrong).ok is False
        return
    elif tamper == "landmark":
        wrong = dataclasses.replace(result, landmark=UnreachableLandmark("(on a)",
                                                                         "relaxed-landmark"))
    else:
        assert result.trace is not None
        wrong = dataclasses.replace(result, trace=dataclasses.replace(result.trace, step=None,
                                                                      unmet=("(on b)",)))
    report = check(domain, problem, wrong, trace=parse_plan("(flip-up c)\n"))
    assert report.ok is False, report


def test_checker_proves_the_plan_is_a_cheapest_one() -> None:
    # regression (issue 21): the answer says the plan is a cheapest one; the checker used to
    # replay it only, so a valid plan of cost 2 where (flip-up b) costs 1 was "verified"
    from xaip.planning.engines.compiled import CERTIFIED_LMCUT, core_available, search_counts

    domain, problem, result = _run("(on b)")
    assert result.plan == ("(flip-up b)",) and result.verified
    before = search_counts(CERTIFIED_LMCUT)
    assert check(domain, problem, result).ok is True
    if core_available():  # the proof is the certified LM-cut's A*, every certificate passes
        after = search_counts(CERTIFIED_LMCUT)
        assert after["searches"] == before["searches"] + 1
        assert after["rejected"] == before["rejected"]
    detour = dataclasses.replace(result, plan=("(flip-up a)", "(flip-pair a b)"), plan_cost=2)
    report = check(domain, problem, detour)
    assert report.ok is False and "not a cheapest plan" in report.details, report
    mispriced = dataclasses.replace(result, plan_cost=3)
    assert check(domain, problem, mispriced).ok is False


def test_checker_runs_under_the_budget() -> None:
    domain, problem, result = _run("(on a) (off a)")
    report = run_checker(lambda: check(domain, problem, result, Budget(max_nodes=2)))
    assert report.ok is None and report.details.startswith(CHECKER_BUDGET)


def test_disjunctive_goal_is_refused() -> None:
    domain = parse_domain(SWITCHES)
    problem = parse_problem("(define (problem p) (:domain switches) (:objects a) "
                            "(:init (off a)) (:goal (or (on a) (off a))))")
    with pytest.raises(InputError, match="conjunction"):
        explain_unsolvable(domain, problem)


def test_cli_exit_codes_and_json(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from xaip.cli import main

    files = bundled_files()
    domain, problem, trace = str(files["domain"]), str(files["problem"]), str(files["trace"])
    assert main(["unsolvable", domain, problem, "--trace", trace, "--repair", "1",
                 "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["core"] == ["(parcel-at tools harbour)"] and payload["verified"]
    assert payload["trace"]["failed_step"] == 5
    assert payload["init_repair"]["facts"] == ["(road depot harbour)"]
    assert main(["unsolvable", domain, problem, "--max-nodes", "1"]) == 1
    capsys.readouterr()
    bad = tmp_path / "bad.plan"
    bad.write_text("(teleport van harbour)\n")
    assert main(["unsolvable", domain, problem, "--trace", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_repairs_of_one_and_two_facts_and_repair_off() -> None:
    domain = parse_domain(SWITCHES)
    problem = parse_problem(_problem("(broken a) (broken b)"))
    result = explain_unsolvable(domain, problem, repair=1)  # at most one fact: none helps
    assert result.repair is not None and result.repair.facts is None
    assert result.repair.complete and result.verified
    result = explain_unsolvable(domain, problem, repair=2)
    assert result.repair is not None and result.verified
    assert result.repair.facts == ("(broken a)", "(broken b)")
    assert explain_unsolvable(domain, problem).repair is None  # off by default
