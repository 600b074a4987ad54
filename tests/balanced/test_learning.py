"""Learning from watching (B05, ``--learn-from-watching``): a demonstrated effect updates
her model of the action, free of charge, and the plan is judged in her final model."""

from __future__ import annotations

import dataclasses
import json

import pytest

from xaip.balanced import balance, balanced_problem
from xaip.balanced.check import check
from xaip.balanced.objectives import BalancedProblem
from xaip.cli import main
from xaip.errors import InputError
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.runtime import Budget

LAMP = """(define (domain lamp) (:requirements :strips :action-costs)
  (:predicates (moved) (light)) (:functions (total-cost) - number)
  (:action push :parameters ()
    :effect (and (moved) (not (light)) (increase (total-cost) 1)))
  (:action switch :parameters ()
    :effect (and (light) (increase (total-cost) 1))))"""
HERS = LAMP.replace("(moved) (not (light))", "(moved) (light)")  # push lights it, she thinks
TASK = ("(define (problem p) (:domain lamp) (:init (= (total-cost) 0)) "
        "(:goal (and (moved) (light))) (:metric minimize (total-cost)))")


def lamp(objective: str = "balanced", **watching: object) -> BalancedProblem:
    return balanced_problem(parse_domain(LAMP), parse_problem(TASK), parse_domain(HERS),
                            parse_problem(TASK), objective=objective, default_cost=10,
                            **watching)  # type: ignore[arg-type]


def test_a_demonstrated_effect_needs_no_explanation() -> None:
    told = balance(lamp("explicable"), method="compile")
    assert told.plan == ("push", "switch") and len(told.explanation) == 1
    assert told.total == 13 and told.verified
    # watching alone fixes her belief about the light, not her model of push
    seen = balance(lamp("explicable", observable={"light"}), method="compile")
    assert seen.total == 13 and len(seen.explanation) == 1
    learnt = balance(lamp("explicable", observable={"light"}, learn_from_watching=True),
                     method="compile")
    assert learnt.plan == ("push", "switch") and learnt.explanation == ()
    assert {item["text"] for item in learnt.to_dict()["learned"]} == {
        "push() does not make (light) true", "push() makes (light) false"}
    assert learnt.human_optimum == 2 and learnt.total == 3 and learnt.verified


def test_balanced_value_counts_her_final_model() -> None:
    plain = balance(lamp(observable={"light"}), method="compile")
    learnt = balance(lamp(observable={"light"}, learn_from_watching=True), method="compile")
    assert plain.plan == learnt.plan == ("push", "switch")
    assert plain.penalty > 2.7 and learnt.penalty == 1 and learnt.verified


def test_checker_recomputes_what_she_learns() -> None:
    problem = lamp("explicable", observable={"light"}, learn_from_watching=True)
    answer = balance(problem, method="compile", check=False)
    forgot = dataclasses.replace(answer, learned=())
    report = check(problem, forgot, Budget(max_seconds=60))
    assert report.ok is False and "teaches her" in report.details
    assert check(problem, answer, Budget(max_seconds=60)).ok is True


def test_bad_combinations_are_one_line_errors() -> None:
    with pytest.raises(InputError, match="needs observable"):
        lamp(learn_from_watching=True)
    with pytest.raises(InputError, match="approximate"):
        balance(lamp(observable={"light"}, learn_from_watching=True), exact=False)


@pytest.mark.parametrize("objective", ["balanced", "explicable", "explicable-optimal"])
def test_both_methods_learn_alike(objective: str) -> None:
    problem = lamp(objective, observable={"light"}, learn_from_watching=True)
    space, mega = (balance(problem, method=m) for m in ("model-space", "compile"))
    assert space.verified and mega.verified
    assert (space.plan, space.total, set(space.learned)) == (
        mega.plan, mega.total, set(mega.learned))


def test_cli_learns_from_watching(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    files = []
    for name, text in (("robot.pddl", LAMP), ("human.pddl", HERS), ("task.pddl", TASK)):
        (tmp_path / name).write_text(text)
        files.append(str(tmp_path / name))
    code = main(["balance", *files, "--objective", "explicable", "--communication-cost",
                 "10", "--observable", "light", "--learn-from-watching", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["method"] == "model-space" and payload["verified"]
    assert payload["explanation"] == [] and len(payload["learned"]) == 2
    code = main(["balance", *files, "--learn-from-watching"])
    assert code == 2 and "needs --observable" in capsys.readouterr().err
    code = main(["balance", *files, "--observable", "light", "--learn-from-watching",
                 "--approximate"])
    assert code == 2 and "approximate" in capsys.readouterr().err


@pytest.mark.parametrize("seed", [62, 124, 165, 166, 707, 1829])
def test_differential_regressions(seed: int) -> None:
    """Disagreements the balanced_learn campaign found: MEGA* dropped edit sets whose told
    model has no plan though watching teaches her one (62, 165); the checker and MEGA*
    missed a delete of a fact the robot's grounding drops, which she still sees (124,
    166); with γ = 0 the checker stopped learning where her model could not execute the
    plan, though what she learns depends on the robot's execution only (707, 1829)."""
    from tests.differential.balanced_learn import check as differential

    assert differential(seed) is None
