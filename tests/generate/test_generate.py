"""Random MRP generation: reproducible, exactly the manifest's edits, the right plan.

Each property is re-derived independently of the generator: the edits by diffing the
features of the written (and re-read) PDDL files, the plan's optimality by A* with h^max
(no heuristic shared with the default LM-cut planner), the need for an explanation by the
validator and that second planner on the human's model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.errors import InputError
from xaip.generate import random_mrp, write_mrp
from xaip.planning.features import model_features
from xaip.planning.pddl import check_problem, read_domain, read_problem
from xaip.planning.planner import plan_model
from xaip.planning.plans import read_plan, validate

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "mrp"
BLOCKS = ROOT / "src" / "xaip" / "domains" / "blocksworld"
MODELS = [(BLOCKS / "domain.pddl", BLOCKS / "problem-5.pddl")]
MODELS += [(DATA / name / "original_domain.pddl", DATA / name / "prob1.pddl")
           for name in ("blocksworld", "logistics", "rover") if (DATA / name).is_dir()]


def blind_optimum(domain_path: Path, problem_path: Path) -> int | None:
    """The optimal cost by A* with h^max (not the default LM-cut), ``None`` when unsolvable."""
    found = plan_model(read_domain(domain_path), read_problem(problem_path), optimal=True,
                       search="astar", heuristic="hmax", engine="builtin")
    assert found.status in ("solved", "unsolvable")
    return None if found.cost is None else int(found.cost)


def edit_keys(edits: list[dict]) -> set[tuple]:
    return {(e["op"], e["feature"]["kind"], e["feature"]["action"] or "",
             e["feature"]["atom"]) for e in edits}


def diff_keys(folder: Path) -> set[tuple]:
    """The edits robot -> human, re-derived from the files by diffing their features."""
    robot = model_features(read_domain(folder / "robot-domain.pddl"),
                           read_problem(folder / "problem.pddl"))
    human = model_features(read_domain(folder / "human-domain.pddl"),
                           read_problem(folder / "human-problem.pddl"))
    keys = set()
    for op, features in (("remove", robot - human), ("add", human - robot)):
        for f in features:
            keys.add((op, f.kind.value, f.action, str(f.atom)))
    return keys


@pytest.mark.parametrize("mode", ["remove", "add", "mix"])
@pytest.mark.parametrize("model", range(len(MODELS)))
def test_instance_is_what_the_manifest_says(tmp_path: Path, model: int, mode: str) -> None:
    domain_path, problem_path = MODELS[model]
    domain, problem = read_domain(domain_path), read_problem(problem_path)
    for seed in (0, 1):
        instance = random_mrp(domain, problem, 3, seed, mode=mode, need_explanation=True)
        folder = tmp_path / f"{mode}-{seed}"
        info = write_mrp(instance, folder)
        assert len(info["edits"]) == 3 and info["tries"] >= 1
        assert info["verified"] is True, info["check"]
        if mode != "mix":
            assert {e["op"] for e in info["edits"]} == {mode}
        assert edit_keys(info["edits"]) == diff_keys(folder)
        # the human model is a well-formed model of the same vocabulary
        check_problem(read_domain(folder / "human-domain.pddl"),
                      read_problem(folder / "human-problem.pddl"))
        # pi: valid and optimal in the robot's model, at the manifest's cost
        robot_d, robot_p = read_domain(folder / "robot-domain.pddl"), read_problem(
            folder / "problem.pddl")
        plan = read_plan(folder / "plan.txt")
        checked = validate(robot_d, robot_p, plan)
        assert checked.valid and checked.cost == info["plan_cost"]
        assert blind_optimum(folder / "robot-domain.pddl", folder / "problem.pddl") == \
            info["plan_cost"]
        # --need-explanation: pi is not optimal for the human
        human_d, human_p = read_domain(folder / "human-domain.pddl"), read_problem(
            folder / "human-problem.pddl")
        in_human = validate(human_d, human_p, plan)
        assert info["needs_explanation"] is True
        assert in_human.valid == info["human_plan_valid"]
        if in_human.valid:
            optimum = blind_optimum(folder / "human-domain.pddl", folder / "human-problem.pddl")
            assert optimum is not None and optimum < in_human.cost
            assert optimum == info["human_optimal_cost"]


def test_same_seed_same_bytes(tmp_path: Path) -> None:
    domain_path, problem_path = MODELS[0]
    domain, problem = read_domain(domain_path), read_problem(problem_path)
    written = []
    for run in ("a", "b"):
        instance = random_mrp(domain, problem, 4, 7, mode="mix")
        write_mrp(instance, tmp_path / run, {"domain": "d", "problem": "p"})
        written.append({p.name: p.read_bytes() for p in (tmp_path / run).iterdir()})
    assert written[0] == written[1]
    other = random_mrp(domain, problem, 4, 8, mode="mix")
    assert other.edits != random_mrp(domain, problem, 4, 7, mode="mix").edits


def test_k_zero_is_the_robot_model() -> None:
    domain, problem = read_domain(MODELS[0][0]), read_problem(MODELS[0][1])
    instance = random_mrp(domain, problem, 0, 3)
    assert instance.edits == ()
    assert model_features(instance.human_domain, instance.human_problem) == \
        model_features(domain, problem)
    assert instance.human_plan_cost == instance.plan_cost


def test_refusals() -> None:
    domain, problem = read_domain(MODELS[0][0]), read_problem(MODELS[0][1])
    available = len([f for f in model_features(domain, problem)
                     if f.kind.value == "precondition"])
    with pytest.raises(InputError, match=f"larger than the {available} features"):
        random_mrp(domain, problem, available + 1, 0, kinds=["precondition"])
    random_mrp(domain, problem, available, 0, kinds=["precondition"])  # all of them is fine
    with pytest.raises(InputError, match="unknown feature kind"):
        random_mrp(domain, problem, 1, 0, kinds=["effect"])
    with pytest.raises(InputError, match="unknown mode"):
        random_mrp(domain, problem, 1, 0, mode="swap")
    with pytest.raises(InputError, match="non-negative"):
        random_mrp(domain, problem, -1, 0)
    # goal facts only, k=1, needing an explanation: a removed goal fact never makes the
    # optimal plan look worse unless a shorter plan appears; retries are bounded and said
    try:
        instance = random_mrp(domain, problem, 1, 0, kinds=["goal"], need_explanation=True,
                              max_tries=3)
        assert 1 <= instance.tries <= 3
    except InputError as error:
        assert "in 3 tries" in str(error)


def test_tries_are_counted() -> None:
    """Without a bound on explanation-free draws, tries says how many edit sets were drawn:
    re-drawing with the same seed reproduces the count."""
    domain, problem = read_domain(MODELS[0][0]), read_problem(MODELS[0][1])
    counts = set()
    for seed in range(6):
        instance = random_mrp(domain, problem, 1, seed, kinds=["init", "goal"],
                              need_explanation=True)
        again = random_mrp(domain, problem, 1, seed, kinds=["init", "goal"],
                           need_explanation=True)
        assert (instance.tries, instance.edits) == (again.tries, again.edits)
        counts.add(instance.tries)
    assert min(counts) >= 1


def test_manifest_is_json(tmp_path: Path) -> None:
    domain, problem = read_domain(MODELS[0][0]), read_problem(MODELS[0][1])
    info = write_mrp(random_mrp(domain, problem, 2, 0), tmp_path / "x")
    assert json.loads((tmp_path / "x" / "manifest.json").read_text()) == info
    assert info["files"]["plan"] == "plan.txt"


def test_one_budget_counts_every_planner_call() -> None:
    """A running clock passed as the budget is charged by the robot's and the human's
    planner calls, so ``--max-nodes`` bounds the whole command, not each call."""
    from xaip.errors import BudgetExhausted
    from xaip.runtime import Budget

    domain, problem = read_domain(MODELS[-1][0]), read_problem(MODELS[-1][1])
    clock = Budget().start()
    random_mrp(domain, problem, 2, 0, mode="remove", need_explanation=True, budget=clock)
    assert clock.nodes > 0
    spent = clock.nodes
    with pytest.raises(BudgetExhausted):
        tight = Budget(max_nodes=spent // 2).start()
        for seed in range(20):  # many instances on one clock run out of nodes
            random_mrp(domain, problem, 2, seed, need_explanation=True, budget=tight)


def test_checker_refuses_and_runs_out() -> None:
    """The checker says no to a wrong cost, and "unverified: checker budget" when its own
    budget (the user's, started afresh) runs out."""
    from xaip.generate.check import check_optimal
    from xaip.runtime import Budget

    domain, problem = read_domain(MODELS[-1][0]), read_problem(MODELS[-1][1])
    found = plan_model(domain, problem, optimal=True)
    assert check_optimal(domain, problem, found, int(found.cost), Budget(), "robot").ok
    wrong = check_optimal(domain, problem, found, int(found.cost) + 1, Budget(), "robot")
    assert wrong.ok is False and "validator" in wrong.details
    starved = check_optimal(domain, problem, found, int(found.cost), Budget(max_nodes=1),
                            "robot")
    assert starved.ok is None and "checker budget" in starved.details
