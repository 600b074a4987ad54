"""The explicable checker (issue 21): the empty plan, costs declared without a metric, a
6-block blocksworld it used to give up on, its budget, and wrong answers it must refute."""

from __future__ import annotations

import dataclasses
import re

import pytest

from xaip.cli import main
from xaip.contract import CHECKER_BUDGET
from xaip.domains.generators import blocksworld
from xaip.errors import EXIT_OK
from xaip.explicable.checks import check
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import load_problem
from xaip.runtime import Budget, Status

from .grids import DOMAIN

FOLDER = DOMAIN.parent
COSTS = {"pick-up": 2, "put-down": 1, "stack": 3, "unstack": 1}


def costed_blocksworld(folder, blocks: int = 6, seed: int = 3, metric: bool = False):
    """Blocksworld whose domain declares costs; the problem has the metric or not."""
    domain, problem = blocksworld(blocks, seed)
    domain = domain.replace("(:requirements :strips :typing)",
                            "(:requirements :strips :typing :action-costs)")
    domain = domain.replace("(holding ?x - block))",
                            "(holding ?x - block))\n  (:functions (total-cost) - number)", 1)
    for name, cost in COSTS.items():
        domain = re.sub(rf"(\(:action {name}\b.*?:effect \(and)",
                        rf"\1 (increase (total-cost) {cost})", domain, flags=re.S)
    if metric:
        problem = problem.replace("(:goal", "(:metric minimize (total-cost))\n  (:goal")
    (folder / "d.pddl").write_text(domain)
    (folder / "p.pddl").write_text(problem)
    return folder / "d.pddl", folder / "p.pddl"


def test_six_blocks_costs_declared_no_metric_is_verified(tmp_path, capsys) -> None:
    """The issue's case: the answer was right but the checker stopped at 200,000 nodes."""
    domain, problem = costed_blocksworld(tmp_path)
    assert main(["explicable", str(domain), str(domain), str(problem)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "robot cost 18" in out and "Verified independently" in out  # 18 steps, cost 1


def test_costs_count_under_the_metric(tmp_path) -> None:
    domain, problem = costed_blocksworld(tmp_path, 4, 1, metric=True)
    task = load_problem(domain, domain, problem)
    result = explicable_plan(task)
    assert result.verified, result.check
    declared = sum(COSTS[step.split()[0]] for step in result.plan)
    assert result.robot_cost == declared != len(result.plan)


def test_goal_true_initially_gives_the_verified_empty_plan(tmp_path, capsys) -> None:
    (tmp_path / "done.pddl").write_text(
        "(define (problem done) (:domain blocksworld) (:objects b1 b2 - block)\n"
        "  (:init (handempty) (ontable b1) (on b2 b1) (clear b2)) (:goal (on b2 b1)))")
    domain = tmp_path.parent / "bw.pddl"
    domain.write_text(blocksworld(2, 0)[0])
    task = load_problem(domain, domain, tmp_path / "done.pddl")
    for distance in ("cost", "action", "causal", "state", "composite"):
        result = explicable_plan(task, distance)
        assert result.has_plan and result.plan == () and result.robot_cost == 0
        assert result.inexplicability == 0 and result.verified, (distance, result.check)
    code = main(["explicable", str(domain), str(domain), str(tmp_path / "done.pddl")])
    out = capsys.readouterr().out
    assert code == EXIT_OK and "(empty plan)" in out and "no plan" not in out


def test_the_checker_runs_under_the_budget(tmp_path) -> None:
    domain, problem = costed_blocksworld(tmp_path)
    task = load_problem(domain, domain, problem)
    result = explicable_plan(task, check=False)
    report = check(task, result, budget=Budget(max_nodes=50))
    assert report.ok is None and report.details.startswith(CHECKER_BUDGET)


@pytest.fixture(scope="module")
def b1():
    return load_problem(DOMAIN, DOMAIN, FOLDER / "b1.pddl", FOLDER / "b1-human.pddl")


@pytest.mark.parametrize("distance, bound", [("cost", None), ("cost", 8), ("state", 8),
                                             ("action", 8)])
def test_wrong_claims_are_refuted(b1, distance, bound) -> None:
    right = explicable_plan(b1, distance, bound, check=False)
    assert check(b1, right).ok is True
    detour = ("pick-up c10", "move c10 c20", "move c20 c10", "move c10 c20", "move c20 c21",
              "move c21 c22", "move c22 c12", "put-down c12")
    wrongs = [
        dataclasses.replace(right, robot_cost=(right.robot_cost or 0) + 1),
        dataclasses.replace(right, inexplicability=(right.inexplicability or 0) + 0.5),
        dataclasses.replace(right, expected_count=right.expected_count + 1),
        dataclasses.replace(right, plan=detour, robot_cost=8, human_cost=None,
                            inexplicability=None),
        dataclasses.replace(right, plan=(), robot_cost=None, status=Status.UNSOLVABLE),
    ]
    for wrong in wrongs:
        assert check(b1, wrong).ok is False, wrong


def test_a_robot_bound_the_unbounded_search_ignores(b1) -> None:
    """Under a robot cost bound the cheapest plan for the person may be too dear for the
    robot; the bi-objective front finds the bounded optimum."""
    result = explicable_plan(b1, "cost", 6)
    assert result.verified and result.robot_cost == 6
    assert explicable_plan(b1, "cost", 5).status == Status.UNSOLVABLE


@pytest.mark.parametrize("method", ["search", "enumerate"])
def test_no_plan_within_the_bound_is_checked_for_every_method(b1, method) -> None:
    """Differential seeds 4, 6, 12...: the anytime search returned 'no plan' unchecked."""
    result = explicable_plan(b1, "state", 5, method)
    assert result.status == Status.UNSOLVABLE and not result.has_plan
    assert result.verified, result.check
