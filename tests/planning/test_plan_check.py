"""``xaip plan`` checks its own claims (issue 21): valid on the lifted model, optimal and
'no plan (cheaper than C)' by the checkers' proof (A* + certified LM-cut) on a fresh
grounding."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import xaip.domains
from xaip.cli import main
from xaip.domains.generators import gripper
from xaip.planning import plan, read_domain, read_problem
from xaip.planning.check import check_plan
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.runtime import Budget, Status

BLOCKS = Path(xaip.domains.__file__).parent / "blocksworld"
DOMAIN, PROBLEM = BLOCKS / "domain.pddl", BLOCKS / "problem-5.pddl"


def _model():  # type: ignore[no-untyped-def]
    return read_domain(DOMAIN), read_problem(PROBLEM)


def test_optimal_plan_is_verified() -> None:
    domain, problem = _model()
    result = plan((domain, problem), optimal=True)
    report = check_plan(domain, problem, result)
    assert report.ok is True and "optimal" in report.details


def test_a_suboptimal_plan_claimed_optimal_is_refuted() -> None:
    domain, problem = _model()
    greedy = plan((domain, problem))
    best = plan((domain, problem), optimal=True)
    assert greedy.cost is not None and best.cost is not None and greedy.cost > best.cost
    claimed = dataclasses.replace(greedy, optimal=True)
    report = check_plan(domain, problem, claimed)
    assert report.ok is False and f"cost {best.cost}" in report.details


def test_a_wrong_cost_and_a_wrong_no_plan_are_refuted() -> None:
    domain, problem = _model()
    best = plan((domain, problem), optimal=True)
    assert check_plan(domain, problem, dataclasses.replace(best, cost=3)).ok is False
    no_plan = dataclasses.replace(best, status=Status.UNSOLVABLE, plan=(), cost=None)
    assert check_plan(domain, problem, no_plan).ok is False
    assert check_plan(domain, problem, no_plan, cost_bound=best.cost).ok is True


def test_checker_out_of_budget_is_unverified_in_the_shared_words() -> None:
    # Gripper with 4 balls: LM-cut is not perfect there, so the proof needs many nodes
    # (on the 5-block blocksworld it is, and the proof prunes the initial state at once).
    domain_text, problem_text = gripper(4)
    domain, problem = parse_domain(domain_text), parse_problem(problem_text)
    best = plan((domain, problem), optimal=True)
    report = check_plan(domain, problem, best, budget=Budget(max_nodes=1))
    assert report.ok is None and report.details.startswith("unverified: checker budget")


def test_cli_reports_verified_and_exits_by_it(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["plan", str(DOMAIN), str(PROBLEM), "--optimal", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["verified"] is True and "optimal" in payload["check"]
    assert main(["plan", str(DOMAIN), str(PROBLEM), "--no-check", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verified"] is False
