"""Declared action costs count only under ``(:metric minimize (total-cost))``, as in Fast
Downward and VAL; without the metric every action costs 1 and xaip says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.planning import parse_domain, parse_problem, plan, validate

DOMAIN = """
(define (domain costly)
  (:requirements :strips :action-costs)
  (:predicates (at ?x) (link ?x ?y))
  (:functions (total-cost) - number)
  (:action cheap-hop :parameters (?x ?y) :precondition (and (at ?x) (link ?x ?y))
    :effect (and (not (at ?x)) (at ?y) (increase (total-cost) 1)))
  (:action jump :parameters (?x ?y) :precondition (at ?x)
    :effect (and (not (at ?x)) (at ?y) (increase (total-cost) 10))))
"""

PROBLEM = """
(define (problem p) (:domain costly)
  (:objects a b c d e)
  (:init (at a) (link a b) (link b c) (link c d) (link d e) (= (total-cost) 0))
  (:goal (at e)) {metric})
"""


def _models(metric: str) -> tuple[object, object]:
    return parse_domain(DOMAIN), parse_problem(PROBLEM.format(metric=metric))


def test_without_metric_costs_are_ignored() -> None:
    domain, problem = _models("")
    result = plan((domain, problem), optimal=True)  # type: ignore[arg-type]
    # Unit costs: one jump is the shortest plan.
    assert result.cost == 1 and len(result.plan) == 1
    assert result.costs_ignored and "note" in result.to_dict()
    assert validate(domain, problem, result.steps()).cost == 1  # type: ignore[arg-type]


def test_with_metric_costs_count() -> None:
    domain, problem = _models("(:metric minimize (total-cost))")
    result = plan((domain, problem), optimal=True)  # type: ignore[arg-type]
    assert result.cost == 4 and [a.schema for a in result.plan] == ["cheap-hop"] * 4
    assert not result.costs_ignored
    assert validate(domain, problem, result.steps()).cost == 4  # type: ignore[arg-type]


@pytest.mark.parametrize(("metric", "cost", "ignored"),
                         [("", 1, True), ("(:metric minimize (total-cost))", 4, False)])
def test_cli_reports_ignored_costs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   metric: str, cost: int, ignored: bool) -> None:
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEM.format(metric=metric))
    code = main(["plan", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), "--optimal",
                 "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["status"] == "solved"
    assert payload["cost"] == cost and payload["costs_ignored"] is ignored
    main(["plan", str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl"), "--optimal"])
    assert ("every action costs 1" in capsys.readouterr().out) is ignored


def test_diff_refuses_a_problem_for_another_domain(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    fetch = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "fetch"
    (tmp_path / "d.pddl").write_text(DOMAIN)
    code = main(["diff", str(fetch / "robot.pddl"), str(fetch / "human.pddl"),
                 "--problem-a", str(tmp_path / "d.pddl")])
    assert code == 2
    code = main(["diff", str(fetch / "robot.pddl"), str(fetch / "human.pddl"),
                 "--problem-a", str(fetch / "problem.pddl")])
    assert code == 0
    (tmp_path / "p.pddl").write_text(PROBLEM.format(metric=""))
    code = main(["diff", str(fetch / "robot.pddl"), str(fetch / "human.pddl"),
                 "--problem-a", str(tmp_path / "p.pddl")])
    assert code == 2 and "domain" in capsys.readouterr().err


@pytest.mark.parametrize("metric", ["", "(:metric minimize (total-cost))"])
def test_costs_equal_fast_downwards(metric: str) -> None:
    from xaip.planning.engines import fd_available

    if not fd_available():
        pytest.skip("Fast Downward is not installed (pip install 'xaip[fd]')")
    domain, problem = _models(metric)
    ours = plan((domain, problem), optimal=True)  # type: ignore[arg-type]
    theirs = plan((domain, problem), optimal=True, engine="fd")  # type: ignore[arg-type]
    assert ours.cost == theirs.cost
