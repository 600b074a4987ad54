"""The explicable checker's pruned goal-distance sweep (issue 24: the RADAR explicable
suggestion's check ran out of 240 s sweeping 918,000 states for 112 plans).

The sweep keeps a state only when ``g + h <= bound`` for the certified LM-cut ``h``; the
distances must equal those of the unpruned sweep on every state on a plan within the bound,
the listed plans must be the same, and the RADAR check must now fit a node budget far below
the unpruned sweep's."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from xaip.domains.generators import blocksworld
from xaip.explicable.bounds import certified_bound, zero
from xaip.explicable.exact import cheapest, goal_distances, plans_within
from xaip.explicable.problem import load_problem
from xaip.planning.engines.compiled import core_available
from xaip.runtime import Budget, Status

from ..differential.explicable import _write, generate
from .grids import DOMAIN

RADAR = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp" / "radar"


def _same_listing(task, bound: int) -> None:
    clock = Budget().start()
    pruned = goal_distances(task, bound, clock)
    plain = goal_distances(task, bound, clock, lower=zero)
    assert pruned == plain
    listed = [tuple(a.name for a in p) for p, _ in plans_within(task, bound, clock)]
    # the same plans as an unpruned listing (plans_within uses the pruned distances)
    unpruned = [tuple(a.name for a in p) for p, _ in plans_within(task, bound, clock,
                                                                  lower=zero)]
    assert sorted(listed) == sorted(unpruned)


@pytest.mark.parametrize("bound", [4, 6, 8, 10])
def test_restaurant_distances_equal_the_unpruned_sweep(bound: int) -> None:
    folder = DOMAIN.parent
    task = load_problem(DOMAIN, DOMAIN, folder / "b1.pddl", folder / "b1-human.pddl")
    _same_listing(task.robot_task, bound)
    _same_listing(task.human_task, bound)


@pytest.mark.parametrize("seed", range(2))
def test_blocksworld_distances_equal_the_unpruned_sweep(tmp_path, seed: int) -> None:
    domain, problem = blocksworld(4, seed)
    (tmp_path / "d.pddl").write_text(domain)
    (tmp_path / "p.pddl").write_text(problem)
    task = load_problem(tmp_path / "d.pddl", tmp_path / "d.pddl", tmp_path / "p.pddl")
    found = cheapest(task.robot_task, Budget().start())
    assert found is not None
    _same_listing(task.robot_task, found[0] + 2)


@pytest.mark.parametrize("seed", random.Random(24).sample(range(10_000), 40))
def test_random_pairs_distances_equal_the_unpruned_sweep(tmp_path, seed: int) -> None:
    instance = generate(seed)
    files = _write(tmp_path, instance)
    task = load_problem(*files)
    for model in (task.robot_task, task.human_task):
        _same_listing(model, instance.bound)


def test_the_bound_is_admissible_on_random_pairs(tmp_path) -> None:
    """Never above the true goal distance (else plans would be lost)."""
    for seed in range(30):
        files = _write(tmp_path, generate(seed))
        task = load_problem(*files)
        h = certified_bound(task.robot_task)
        distances = goal_distances(task.robot_task, 12, Budget().start(), lower=zero)
        assert all(h(state) <= d for state, d in distances.items()), seed


@pytest.mark.skipif(not (RADAR / "domain_robot.pddl").exists() or not core_available(),
                    reason="needs ../shared/data/mrp/radar and the compiled core")
def test_radar_explicable_suggestion_is_checked_within_a_small_budget() -> None:
    """The RADAR example of docs/assist.md: the answer (IE 1/6, cost 12, 112 plans within
    the bound) is confirmed under 100,000 nodes; the unpruned sweep needed 918,000."""
    from xaip.assist.human import explicable_problem, her_plan, remainder
    from xaip.explicable import make_problem
    from xaip.explicable.checks import check
    from xaip.explicable.results import ExplicablePlan
    from xaip.planning import read_domain, read_problem
    from xaip.planning.plans import parse_plan

    domain = read_domain(RADAR / "domain_robot.pddl")
    problem = read_problem(RADAR / "problem.pddl")
    human = read_domain(RADAR / "domain_human.pddl")
    prefix_text = ["alert firechief mesafire", "contact_media firechief",
                   "deploy_bulldozers firechief mesafire rural", "alert firechief mesafire",
                   "deploy_helicopters firechief mesafire rural", "alert firechief mesafire",
                   "deploy_big_engines firechief mesafire rural", "alert firechief adminfire",
                   "extinguish_big_fire firechief rural"]
    rest = ["deploy_rescuers firechief mesafire rural", "search_casualties firechief rural",
            "deploy_small_engines firechief adminfire byeng",
            "extinguish_small_fire firechief byeng", "address_media firechief"]
    prefix = parse_plan("\n".join(f"({s})" for s in prefix_text))
    whole = parse_plan("\n".join(f"({s})" for s in prefix_text + rest))
    robot_here, her_here = explicable_problem(domain, problem, (human, problem), prefix)
    task = make_problem(domain, robot_here, human, her_here)
    expected = [her_plan(task, remainder(prefix, whole))]
    plan = ("alert firechief mesafire", "deploy_rescuers firechief mesafire rural",
            "deploy_small_engines firechief adminfire byeng",
            "extinguish_small_fire firechief byeng", "search_casualties firechief rural",
            "address_media firechief")
    answer = ExplicablePlan(Status.FOUND, plan, 12, 12, 1 / 6, "action", "enumerate", 12,
                            tuple(rest), 1, 112, 0.0)
    report = check(task, answer, expected=expected, budget=Budget(max_nodes=100_000))
    assert report.ok is True, report.details
    wrong = ExplicablePlan(Status.FOUND, plan, 12, 12, 1 / 6, "action", "enumerate", 12,
                           tuple(rest), 1, 111, 0.0)
    assert check(task, wrong, expected=expected, budget=Budget(max_nodes=100_000)).ok is False


@pytest.mark.parametrize("seed", range(0, 400, 10))
def test_negative_preconditions_and_zero_costs_keep_the_distances(seed: int) -> None:
    """The planning family's random tasks (negative preconditions, zero-cost actions,
    declared costs with and without the metric): the certified LM-cut ignores negative
    conditions, which only lowers it; the distances must not change."""
    from xaip.explicable.problem import ground_model
    from xaip.planning import parse_domain, parse_problem

    from ..differential.planning import domain_text, problem_text
    from ..differential.planning import generate as planning_task

    instance = planning_task(seed)
    task = ground_model(parse_domain(domain_text(instance)),
                        parse_problem(problem_text(instance)))
    h = certified_bound(task)
    for bound in (3, 6):
        plain = goal_distances(task, bound, Budget().start(), lower=zero)
        assert goal_distances(task, bound, Budget().start()) == plain
        assert all(h(state) <= d for state, d in plain.items())
