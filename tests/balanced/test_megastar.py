"""MEGA* (B04, B06): optimal for every objective, checked against brute force over all
(plan, edit set) pairs, against model reconciliation's MCE and against Proposition 9."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from tests.reconcile.test_reconcile import BLOCKS, BLOCKS3  # the same blocks world
from xaip.balanced import balance, balanced_problem
from xaip.balanced.brute_force import brute_force
from xaip.balanced.check import lifted_cost, optimum, updated_model
from xaip.balanced.instances import random_instance, usar_problem
from xaip.balanced.megastar import optimality_delta_bound, proposition9_costs, solve
from xaip.balanced.objectives import Objective, Weights, feature_name
from xaip.errors import InputError
from xaip.planning.features import Edit, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.search.enumerate import all_plans
from xaip.reconcile import explain, make_mrp
from xaip.runtime import Budget, Status

OBJECTIVES = [o.value for o in Objective]



def random_blocks(seed: int):  # type: ignore[no-untyped-def]
    """BLOCKS3 where the robot's model misses 0-1 and the person's 1-3 random
    preconditions or effects of the full domain (so edits go both ways)."""
    rng = random.Random(seed)
    full = parse_domain(BLOCKS)
    features = sorted(f for f in model_features(full) if f.kind.value != "cost")
    chosen = rng.sample(features, 4)
    robot, _ = apply_edits(full, None, [Edit(f, "remove") for f in chosen[:rng.randint(0, 1)]])
    human, _ = apply_edits(full, None, [Edit(f, "remove") for f in chosen[1:rng.randint(2, 4)]])
    problem = parse_problem(BLOCKS3)
    return robot, problem, human, problem


def interesting(models) -> bool:  # type: ignore[no-untyped-def]
    """The robot's optimal plan is not already optimal for the person: every objective
    then has something to trade."""
    from xaip.balanced.evaluate import plan_cost
    from xaip.planning import get_engine

    try:
        problem = balanced_problem(*models)
    except InputError:
        return False
    engine = get_engine("default")
    robot = engine.solve(ground(problem.robot_domain, problem.robot_problem), optimal=True)
    human = problem.space.task(())
    best = engine.solve(human, optimal=True)
    if robot.cost is None or not problem.differences:
        return False
    mine = plan_cost(human, tuple(a.name for a in robot.plan))
    return mine is None or mine != best.cost


def random_costs(problem, seed: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    return {feature_name(e.feature): rng.choice((0.5, 1, 2, 3)) for e in problem.differences}


def instances() -> list[tuple[str, tuple, float]]:  # type: ignore[type-arg]
    """Six road maps and four block worlds where the robot's plan needs explaining."""
    out: list[tuple[str, tuple, float]] = []  # type: ignore[type-arg]
    seed = 0
    while len(out) < 6:
        models = random_instance(seed, waypoints=5, flips=3)
        if interesting(models):
            out.append((f"roads-{seed}", models, (0.5, 1.0, 3.0)[len(out) % 3]))
        seed += 1
    seed = 0
    while len(out) < 10:
        models = random_blocks(seed)
        if interesting(models):
            out.append((f"blocks-{seed}", models, (1.0, 2.0)[len(out) % 2]))
        seed += 1
    return out


INSTANCES = instances()


# ---------------------------------------------------------------------- the book


@pytest.mark.parametrize(("objective", "total", "items", "plan_cost"), [
    ("balanced", 6 + math.e ** 2, 0, 6),
    ("explicable", 57.0, 1, 6),
    ("explicable-optimal", 106.0, 2, 5),
])
def test_usar_reproduces_the_book(objective: str, total: float, items: int,
                                  plan_cost: int) -> None:
    result = balance(usar_problem(objective), method="compile")
    assert result.status == Status.FOUND and result.verified and result.method == "compile"
    assert result.total == pytest.approx(total)
    assert len(result.explanation) == items and result.plan_cost == plan_cost
    if items == 1:
        assert result.to_dict()["explanation"][0]["feature"] == "init (clear p16 p17)"


def test_usar_with_cheap_communication_ties_at_eight() -> None:
    for objective in ("balanced", "explicable", "explicable-optimal"):
        result = solve(usar_problem(objective, communication_cost=1))
        assert result.total == pytest.approx(8.0)
    # both tied pairs are optimal for the balanced objective; the robot route is one
    robot_route = solve(usar_problem("explicable-optimal", communication_cost=1))
    assert robot_route.plan_cost == 5 and len(robot_route.explanation) == 2


# ---------------------------------------------------------------------- brute force


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize(("name", "models", "price"), INSTANCES,
                         ids=[i[0] for i in INSTANCES])
def test_every_objective_is_optimal_against_all_pairs(objective: str, name: str, models,  # type: ignore[no-untyped-def]
                                                      price: float) -> None:
    problem = balanced_problem(*models, objective=objective, default_cost=price)
    oracle = brute_force(problem)
    result = solve(problem)
    if math.isinf(oracle.value):
        assert result.status == Status.UNSOLVABLE
        return
    assert result.status == Status.FOUND
    subset = tuple(sorted(problem.differences.index(e) for e in result.explanation))
    assert oracle.attains(result.plan, subset), (result.plan, subset, oracle.best[:3])
    assert result.stats["missing_actions"] == 0


@pytest.mark.parametrize("seed", range(3))
def test_weights_and_penalties_other_than_the_default(seed: int) -> None:
    models = random_instance(10 + seed, waypoints=5, flips=2)
    for weights, penalty in ((Weights(2, 0.5, 3), "linear"), (Weights(1, 1, 1), "exp-1"),
                             (Weights(1, 0, 1), "exp")):
        problem = balanced_problem(*models, weights=weights, penalty=penalty,
                                   default_cost=1.5)
        oracle = brute_force(problem)
        result = solve(problem)
        assert result.total == pytest.approx(oracle.value)


def test_without_penalty_the_robot_plans_alone() -> None:
    problem = balanced_problem(*random_instance(3, waypoints=5, flips=2),
                               weights=Weights(1, 1, 0))
    result = solve(problem)
    assert result.explanation == () and result.total == pytest.approx(brute_force(problem).value)


@pytest.mark.parametrize("objective", OBJECTIVES)
def test_model_space_search_and_megastar_agree(objective: str) -> None:
    for seed in range(3):
        problem = balanced_problem(*random_instance(20 + seed, waypoints=5, flips=3),
                                   objective=objective, default_cost=2)
        ours = balance(problem, method="compile")
        theirs = balance(problem, method="model-space")
        assert ours.verified and theirs.verified
        value = {"balanced": lambda r: r.total,
                 "explicable": lambda r: r.plan_cost + 2 * len(r.explanation),
                 "explicable-optimal": lambda r: r.explanation_cost}[objective]
        assert value(ours) == pytest.approx(value(theirs))


# ---------------------------------------------------------------------- Proposition 9


def min_complete_cost(problem, plan: tuple[str, ...]) -> float:  # type: ignore[no-untyped-def]
    """The cheapest explanation making ``plan`` optimal in M^R_h + E (all subsets)."""
    n = len(problem.differences)
    best = math.inf
    for k in range(n + 1):
        for subset in itertools.combinations(range(n), k):
            cost = sum(problem.edit_costs[i] for i in subset)
            if cost >= best:
                continue
            domain, updated = updated_model(problem, problem.differences_of(subset))
            mine = lifted_cost(domain, updated, plan)
            if mine is not None and mine == optimum(domain, updated, Budget()):
                best = cost
    return best


@pytest.mark.parametrize(("name", "models", "price"), INSTANCES[:4] + INSTANCES[6:9],
                         ids=[i[0] for i in INSTANCES[:4] + INSTANCES[6:9]])
def test_proposition_9_three_claims(name: str, models, price: float) -> None:  # type: ignore[no-untyped-def]
    problem = balanced_problem(*models, objective="explicable", default_cost=price)
    problem = balanced_problem(*models, objective="explicable",
                               explanation_costs=random_costs(problem, len(name)))
    robot_task = ground(problem.robot_domain, problem.robot_problem)
    robot_best = optimum(problem.robot_domain, problem.robot_problem, Budget())
    delta = optimality_delta_bound(problem.space.task(range(len(problem.differences))))
    scaled = proposition9_costs(problem, delta)
    assert sum(scaled) < delta  # the premise: all explanations together cost less than Δ
    result = solve(problem, robot_optimal=True)
    assert result.objective == Objective.EXPLICABLE_OPTIMAL and result.status == Status.FOUND
    # 1. the task plan is optimal in the robot's model
    assert result.plan_cost == robot_best
    # 2. its explanation is a cheapest complete explanation (an MCE) for that plan
    assert result.explanation_cost == pytest.approx(min_complete_cost(problem, result.plan))
    # 3. no other robot-optimal plan has a cheaper MCE
    plans = all_plans(robot_task, robot_best).plans
    cheapest = min(min_complete_cost(problem, tuple(a.name for a in p)) for p in plans)
    assert result.explanation_cost == pytest.approx(cheapest)


def test_delta_bound_is_below_every_gap() -> None:
    """The gcd bound never exceeds the true optimality delta (plans enumerated)."""
    for seed in range(4):
        problem = balanced_problem(*random_instance(seed, waypoints=5, flips=2))
        task = problem.space.task(range(len(problem.differences)))
        best = optimum(problem.robot_domain, problem.robot_problem, Budget())
        assert best is not None
        costs = {int(sum(a.cost for a in p)) for p in all_plans(task, best + 6).plans}
        gaps = [c - best for c in costs if c > best]
        assert not gaps or optimality_delta_bound(task) <= min(gaps)


def test_robot_optimal_needs_an_explicable_objective() -> None:
    with pytest.raises(InputError, match="Proposition 9"):
        solve(usar_problem("balanced"), robot_optimal=True)


MCE_SEEDS = [seed for seed in range(100, 160) if interesting(random_blocks(seed))][:6]


@pytest.mark.parametrize("seed", MCE_SEEDS)
def test_mce_equals_model_reconciliation_for_the_same_plan(seed: int) -> None:
    """With unit prices, explicable-optimal picks a robot-optimal plan with a cheapest
    MCE; xaip.reconcile's MCE search for that very plan finds an MCE of the same size."""
    robot, problem_pddl, human, _ = random_blocks(seed)
    problem = balanced_problem(robot, problem_pddl, human, objective="explicable-optimal")
    result = solve(problem)
    assert result.status == Status.FOUND
    plan_text = "\n".join(f"({step})" for step in result.plan)
    mrp = make_mrp(robot, problem_pddl, human, plan=plan_text)
    mce = explain(mrp, "mce")
    assert mce.complete
    assert len(result.explanation) == mce.size >= 1


# ---------------------------------------------------------------------- budgets


def test_one_node_budget_is_exhausted_and_not_verified() -> None:
    result = balance(usar_problem("explicable"), method="compile", budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified
    assert result.to_dict()["status"] == "budget_exhausted"


def test_progress_is_reported() -> None:
    """Every 500 expansions (a blind search on a 12-waypoint map expands about 1000; the
    small instances elsewhere expand too few to report anything)."""
    events = []
    problem = balanced_problem(*random_instance(1, waypoints=12, flips=8),
                               objective="explicable-optimal", default_cost=0.5)
    result = solve(problem, progress=events.append, heuristic="blind")
    assert events and all(e.phase == "megastar" for e in events)
    assert [e.done for e in events] == list(range(500, int(result.stats["expanded"]) + 1, 500))


def test_a_time_budget_ends_the_search_on_a_large_mrp() -> None:
    from pathlib import Path

    data = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp" / "logistics"
    if not data.is_dir():
        pytest.skip("shared data not found")
    from xaip.planning.pddl import read_domain, read_problem

    problem = balanced_problem(read_domain(data / "original_domain.pddl"),
                               read_problem(data / "prob1.pddl"),
                               read_domain(data / "domain1.pddl"), objective="balanced")
    assert problem.space is not None  # grounding is not part of the search budget
    import time

    started = time.perf_counter()
    result = solve(problem, budget=Budget(max_seconds=0.5))
    assert time.perf_counter() - started < 0.5 + 5
    assert result.status in (Status.BUDGET_EXHAUSTED, Status.FOUND)


def test_identical_models_need_no_explanation() -> None:
    robot, task, _, _ = random_blocks(0)
    for objective in OBJECTIVES:
        result = solve(balanced_problem(robot, task, robot, objective=objective))
        assert result.status == Status.FOUND and result.explanation == ()
        assert result.plan_cost == 4 and result.human_cost == result.human_optimum == 4


def test_an_unsolvable_robot_problem_is_reported() -> None:
    robot, _, human, _ = random_blocks(1)
    impossible = parse_problem(BLOCKS3.replace("(:goal (on a b))",
                                               "(:goal (and (on a b) (on b a)))"))
    result = balance(balanced_problem(robot, impossible, human, objective="explicable"),
                     method="compile")
    assert result.status == Status.UNSOLVABLE and result.plan == ()


def test_heuristics_must_be_admissible_and_agree() -> None:
    with pytest.raises(InputError, match="admissible"):
        solve(usar_problem(), heuristic="hff")
    problem = balanced_problem(*random_blocks(5), objective="balanced", default_cost=1.5)
    values = {h: solve(problem, heuristic=h).total for h in ("blind", "hmax", "lmcut")}
    assert values["blind"] == pytest.approx(values["hmax"]) == pytest.approx(values["lmcut"])


@pytest.mark.parametrize("objective", OBJECTIVES)
@pytest.mark.parametrize("seed", [0, 4, 5, 9])
def test_watched_plans_are_optimal_against_all_pairs(objective: str, seed: int) -> None:
    """With an observation model (B05) the compiled beliefs follow what she sees; the
    brute force scores pairs with the epistemic module's own watched execution."""
    observable = (("clear", "on"), ("holding",), ("ontable", "handempty"))[seed % 3]
    from .test_compile import random_blocks as blocks  # the compile tests' instances

    problem = balanced_problem(*blocks(seed), objective=objective, observable=observable,
                               default_cost=1.5)
    oracle = brute_force(problem)
    result = solve(problem)
    subset = tuple(sorted(problem.differences.index(e) for e in result.explanation))
    assert oracle.attains(result.plan, subset)
