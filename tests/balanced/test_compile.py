"""The MEGA* compilation (B03): the compiled task means what the two models mean.

The references are independent of the compilation: plans are validated on the lifted
models (:func:`xaip.planning.validate`), updated models are rebuilt as PDDL with
``apply_edits``, and optimal costs come from plain search or Fast Downward.
"""

from __future__ import annotations

import itertools
import json
import random

import pytest

from tests.reconcile.test_reconcile import BLOCKS, BLOCKS3  # the same blocks world
from xaip.balanced import balanced_problem
from xaip.balanced.compile import compile_problem, describe, write_compiled
from xaip.balanced.instances import random_instance, usar_problem
from xaip.balanced.objectives import BalancedProblem
from xaip.errors import InputError, UnsupportedFeature
from xaip.planning import get_engine, validate
from xaip.planning.engines.fast_downward import fd_available, fd_solve
from xaip.planning.features import Edit, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.plans import PlanStep
from xaip.planning.search.enumerate import all_plans

# The person thinks fetching the key achieves nothing and that doors need no key; she
# also believes in a door r1-r3 that does not exist (a static fact).
KEYS = """
(define (domain keys) (:requirements :strips :negative-preconditions :action-costs)
  (:predicates (at ?r) (door ?a ?b) (key) (static-ok ?a))
  (:functions (total-cost) - number)
  (:action go :parameters (?a ?b)
    :precondition (and (at ?a) (door ?a ?b) (key) (static-ok ?a))
    :effect (and (at ?b) (not (at ?a)) (increase (total-cost) 1)))
  (:action fetch :parameters ()
    :precondition (and (not (key)))
    :effect (and (key) (increase (total-cost) 2))))
"""
KEYS_HUMAN = """
(define (domain keys) (:requirements :strips :negative-preconditions :action-costs)
  (:predicates (at ?r) (door ?a ?b) (key) (static-ok ?a))
  (:functions (total-cost) - number)
  (:action go :parameters (?a ?b)
    :precondition (and (at ?a) (door ?a ?b) (static-ok ?a))
    :effect (and (at ?b) (not (at ?a)) (increase (total-cost) 1)))
  (:action fetch :parameters ()
    :precondition (and (not (key)))
    :effect (and (increase (total-cost) 2))))
"""
KEYS_PROBLEM = """
(define (problem k) (:domain keys) (:objects r1 r2 r3)
  (:init (at r1) (door r1 r2) (door r2 r3) (static-ok r1) (static-ok r2)
         (= (total-cost) 0))
  (:goal (at r3)) (:metric minimize (total-cost)))
"""
KEYS_HUMAN_PROBLEM = KEYS_PROBLEM.replace("(door r2 r3)", "(door r2 r3) (door r1 r3)")


def random_blocks(seed: int):  # type: ignore[no-untyped-def]
    """BLOCKS3 with 1-3 random preconditions or effects missing from the person's model."""
    rng = random.Random(seed)
    robot = parse_domain(BLOCKS)
    features = sorted(f for f in model_features(robot) if f.kind.value != "cost")
    chosen = rng.sample(features, rng.randint(1, 3))
    human, _ = apply_edits(robot, None, [Edit(f, "remove") for f in chosen])
    problem = parse_problem(BLOCKS3)
    return robot, problem, human, problem


def cases() -> list[tuple[str, tuple]]:  # type: ignore[type-arg]
    out: list[tuple[str, tuple]] = []  # type: ignore[type-arg]
    for seed in range(4):
        out.append((f"roads-{seed}", random_instance(seed, waypoints=4, flips=2)))
    for seed in range(4):
        out.append((f"blocks-{seed}", random_blocks(seed)))
    out.append(("keys", (parse_domain(KEYS), parse_problem(KEYS_PROBLEM),
                         parse_domain(KEYS_HUMAN), parse_problem(KEYS_HUMAN_PROBLEM))))
    # goals that differ, both with a negative literal: she also wants no key at the end
    robot_goal = KEYS_PROBLEM.replace("(:goal (at r3))", "(:goal (and (at r3) (not (at r1))))")
    human_goal = KEYS_HUMAN_PROBLEM.replace("(:goal (at r3))",
                                            "(:goal (and (at r3) (not (key))))")
    out.append(("keys-goals", (parse_domain(KEYS), parse_problem(robot_goal),
                               parse_domain(KEYS_HUMAN), parse_problem(human_goal))))
    return out


CASES = cases()


def steps(plan: tuple[str, ...]) -> tuple[PlanStep, ...]:
    return tuple(PlanStep(s.split()[0], tuple(s.split()[1:])) for s in plan)


def valid_in(domain, problem, plan: tuple[str, ...]) -> bool:  # type: ignore[no-untyped-def]
    return bool(validate(domain, problem, steps(plan)).valid)


def updated(problem, subset):  # type: ignore[no-untyped-def]
    """``M^R_h + E`` rebuilt as lifted PDDL (not the compiled model space)."""
    edits = [problem.differences[i] for i in subset]
    return apply_edits(problem.human_domain, problem.human_problem, edits,
                       source_domain=problem.robot_domain,
                       source_problem=problem.robot_problem)


def robot_plans(problem, extra: int, limit: int = 40) -> list[tuple[str, ...]]:  # type: ignore[no-untyped-def]
    task = ground(problem.robot_domain, problem.robot_problem)
    best = get_engine("builtin").solve(task, optimal=True)
    assert best.cost is not None
    listed = all_plans(task, best.cost + extra, max_plans=limit)
    return [tuple(a.name for a in plan) for plan in listed.plans]


@pytest.mark.parametrize(("name", "models"), CASES, ids=[c[0] for c in CASES])
def test_compiled_plans_are_exactly_the_pairs_valid_in_both_models(name: str, models) -> None:  # type: ignore[no-untyped-def]
    """For every edit set E and robot plan π (enumerated), the compiled task has the
    plan explain(E); start; π; finish iff π is valid in M^R_h + E (lifted validation),
    reading it back gives (π, E), and its compiled cost is α·C(π) + β·C(E)."""
    problem = balanced_problem(*models, default_cost=3)
    compiled = compile_problem(problem)
    n = len(problem.differences)
    assert n >= 1
    plans = robot_plans(problem, extra=3)
    assert plans
    agreed = disagreed = 0
    subsets = [s for k in range(n + 1) for s in itertools.combinations(range(n), k)]
    for subset in subsets[:32]:
        domain, human_problem = updated(problem, subset)
        for plan in plans:
            assert valid_in(problem.robot_domain, problem.robot_problem, plan)
            expected = valid_in(domain, human_problem, plan)
            found = compiled.embed(plan, subset)
            if (found is not None) != expected:
                disagreed += 1
                continue
            agreed += 1
            if found is None:
                continue
            assert compiled.split(found) == (plan, subset)
            ok, cost = compiled.simulate(found)
            robot_cost = validate(problem.robot_domain, problem.robot_problem,
                                  steps(plan)).cost
            assert ok and cost == robot_cost + 3 * len(subset)
    assert disagreed == 0 and agreed > 0


@pytest.mark.parametrize(("name", "models"), CASES, ids=[c[0] for c in CASES])
def test_every_extracted_task_plan_is_valid_for_the_robot_and_the_updated_person(
        name: str, models) -> None:  # type: ignore[no-untyped-def]
    """Enumerate compiled solutions (all of them up to a cost bound): each task plan is
    valid in M^R, valid in M^R_h + E, and with E = ∅ valid in both original models."""
    problem = balanced_problem(*models, default_cost=1)
    compiled = compile_problem(problem)
    task = compiled.as_task()
    best = get_engine("builtin").solve(task, optimal=True)
    assert best.cost is not None
    listed = all_plans(task, best.cost + 2, max_plans=150)
    assert listed.plans
    empty_seen = False
    for solution in listed.plans:
        names = tuple(a.name for a in solution)
        plan, subset = compiled.split(names)
        assert valid_in(problem.robot_domain, problem.robot_problem, plan)
        domain, human_problem = updated(problem, subset)
        assert valid_in(domain, human_problem, plan)
        if not subset:
            empty_seen = True
            assert valid_in(problem.human_domain, problem.human_problem, plan)
    if not empty_seen:  # the person's model alone rules out every robot plan listed
        assert all(compiled.embed(p, ()) is None for p in robot_plans(problem, extra=2))


@pytest.mark.parametrize(("name", "models"), CASES, ids=[c[0] for c in CASES])
def test_pure_cost_optimum_matches_brute_force(name: str, models) -> None:  # type: ignore[no-untyped-def]
    """The compiled task's optimal cost (built-in A* on the split task) is the cheapest
    α·C(π) + β·C(E) over pairs valid in both models, enumerated."""
    problem = balanced_problem(*models, default_cost=2)
    compiled = compile_problem(problem)
    result = get_engine("default").solve(compiled.as_task(), optimal=True)
    n = len(problem.differences)
    best = None
    plans = robot_plans(problem, extra=2 * n + 1, limit=400)
    for k in range(n + 1):
        for subset in itertools.combinations(range(n), k):
            domain, human_problem = updated(problem, subset)
            for plan in plans:
                if valid_in(domain, human_problem, plan):
                    cost = validate(problem.robot_domain, problem.robot_problem,
                                    steps(plan)).cost + 2 * k
                    best = cost if best is None else min(best, cost)
    assert result.cost == best


@pytest.mark.skipif(not fd_available(), reason="Fast Downward is not installed")
@pytest.mark.parametrize("index", [0, 4, 8])
def test_fast_downward_reads_the_pddl_and_agrees_on_cost(index: int, tmp_path) -> None:  # type: ignore[no-untyped-def]
    name, models = CASES[index]
    problem = balanced_problem(*models, default_cost=2)
    domain_path, problem_path = write_compiled(problem, tmp_path / name)
    compiled = compile_problem(problem)
    ours = get_engine("default").solve(compiled.as_task(), optimal=True)
    run = fd_solve(domain_path.read_text(), problem_path.read_text(), search="astar(blind())")
    assert run.status == "solved"
    names = tuple(step.name for step in run.plan)
    ok, cost = compiled.simulate(names)
    assert ok and cost == ours.cost
    plan, subset = compiled.split(names)
    domain, human_problem = updated(problem, subset)
    assert valid_in(problem.robot_domain, problem.robot_problem, plan)
    assert valid_in(domain, human_problem, plan)


@pytest.mark.skipif(not fd_available(), reason="Fast Downward is not installed")
def test_fast_downward_on_usar_pure_cost(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """USAR with one item costing 1: the cheapest pair valid in both models is the
    robot's route with 'P2-P3 is clear' (5 + 1); the rubble route needs nothing but
    costs 6, so FD, the built-in search and the book agree on 6."""
    problem = usar_problem(communication_cost=1)
    write_compiled(problem, tmp_path)
    run = fd_solve((tmp_path / "domain.pddl").read_text(),
                   (tmp_path / "problem.pddl").read_text(), search="astar(hmax())")
    compiled = compile_problem(problem)
    ok, cost = compiled.simulate(tuple(s.name for s in run.plan))
    assert ok and cost == 6
    assert get_engine("default").solve(compiled.as_task(), optimal=True).cost == 6


def test_pddl_names_the_parts_of_the_compilation() -> None:
    problem = usar_problem()
    domain, task_problem = compile_problem(problem).to_pddl()
    for part in ("(:action start", "(:action finish", "(:action explain_0_init_clear_p16_p17",
                 "(b_clear_p2_p3)", "(mu_1_init)", "(when", ":conditional-effects"):
        assert part in domain
    assert "(p-init)" in task_problem and "(:goal (and (p-goal)))" in task_problem
    # she believes P16-P17 clear: its meta fluent starts true; P2-P3's starts false
    assert "(mu_0_init)" in task_problem and "(mu_1_init)" not in task_problem
    summary = describe(compile_problem(problem))
    assert summary["facts"]["mu_1_init"] == ("she believes the model has: "
                                             "init (clear p2 p3)")
    assert summary["explanatory_actions"] == 2 and json.dumps(summary)


def test_fractional_prices_are_scaled_to_integers() -> None:
    problem = balanced_problem(*random_instance(1, waypoints=4, flips=2), default_cost=0.25)
    compiled = compile_problem(problem, alpha=1.5)
    assert compiled.scale == 4
    explain = [a for a in compiled.actions if a.kind == "explain"]
    assert explain and all(a.cost == 1 for a in explain)
    task = [a for a in compiled.actions if a.kind == "task"]
    assert all(a.cost == 6 * a.robot_cost for a in task)


def test_bad_inputs_give_one_line_errors(tmp_path) -> None:  # type: ignore[no-untyped-def]
    problem = usar_problem()
    with pytest.raises(InputError, match="explanation costs for"):
        compile_problem(problem, explanation_costs=[1])
    with pytest.raises(InputError, match="negative"):
        compile_problem(problem, alpha=-1)
    with pytest.raises(InputError, match="not an action of the compiled task"):
        compile_problem(problem).split(["(fly p1 p17)"])
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot write the compiled task"):
        write_compiled(problem, blocker / "sub")


def test_conditional_effects_compile_and_other_parts_are_refused() -> None:
    """B05: conditional effects (the same in both models) compile, and MEGA* agrees with
    the model-space search; a condition that is not a conjunction of literals is refused
    with one line."""
    from xaip.balanced import balance

    def models(when: str) -> BalancedProblem:
        text = BLOCKS.replace("(:requirements :strips)",
                              "(:requirements :strips :conditional-effects "
                              ":disjunctive-preconditions)").replace(
            ":effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x))",
            ":effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)"
            f" {when})")
        human = text.replace("(and (clear ?x) (ontable ?x) (handempty))",
                             "(and (ontable ?x) (handempty))")
        return balanced_problem(parse_domain(text), parse_problem(BLOCKS3),
                                parse_domain(human))

    problem = models("(when (clear ?x) (clear ?x))")
    compiled = compile_problem(problem)
    assert any(a.conditional for a in compiled.actions)
    mega, space = (balance(problem, method=m) for m in ("compile", "model-space"))
    assert mega.verified and space.verified and mega.total == space.total
    with pytest.raises(UnsupportedFeature, match="conjunctions of literals") as error:
        compile_problem(models("(when (or (clear ?x) (handempty)) (clear ?x))"))
    assert "\n" not in str(error.value)


def test_fetch_compiles_with_the_book_differences() -> None:
    from pathlib import Path

    fetch = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "fetch"
    problem = balanced_problem(read_domain(fetch / "robot.pddl"),
                               read_problem(fetch / "problem.pddl"),
                               read_domain(fetch / "human.pddl"))
    compiled = compile_problem(problem)
    assert compiled.stats()["explanatory_actions"] == len(problem.differences) == 3
    result = get_engine("default").solve(compiled.as_task(), optimal=True)
    plan, subset = compiled.split(tuple(a.name for a in result.plan))
    # valid in both models needs move's tucked-hand precondition known... or not: the
    # person's model is more permissive, so the robot-optimal plan needs no explanation
    assert subset == () and len(plan) == 4 and result.cost == 4


@pytest.mark.parametrize(("name", "models"), CASES[4:8], ids=[c[0] for c in CASES[4:8]])
def test_interleaved_explanations_only_add_solutions(name: str, models) -> None:  # type: ignore[no-untyped-def]
    """Without ``explain_first`` an explanation of an action feature may come after
    ``start``; every explain-first solution stays one, so the optimum can only drop."""
    problem = balanced_problem(*models, default_cost=1)
    first = compile_problem(problem)
    later = compile_problem(problem, explain_first=False)
    listed = all_plans(first.as_task(), None, max_plans=20)
    for solution in listed.plans:
        names = tuple(a.name for a in solution)
        assert later.simulate(names)[0]
    engine = get_engine("default")
    assert engine.solve(later.as_task(), optimal=True).cost <= \
        engine.solve(first.as_task(), optimal=True).cost
    init_only = [a for a in later.actions if a.kind == "explain"
                 and problem.differences[a.candidate].feature.kind.value == "init"]
    assert all(a.pre >> later.p_init & 1 for a in init_only)


@pytest.mark.parametrize("seed", range(6))
def test_watched_plans_follow_the_epistemic_reference(seed: int) -> None:
    """With observable predicates (B05), explain(E); start; π; finish is a compiled plan
    iff π is executable for her while she watches (xaip.balanced.epistemic's own
    simulation, on fresh groundings)."""
    from xaip.balanced.epistemic import watched_cost

    observable = (("clear", "on"), ("holding",), ("ontable", "handempty"))[seed % 3]
    problem = balanced_problem(*random_blocks(seed), observable=observable)
    compiled = compile_problem(problem)
    n = len(problem.differences)
    plans = robot_plans(problem, extra=2)
    differ = 0
    for k in range(n + 1):
        for subset in itertools.combinations(range(n), k):
            domain, human_problem = updated(problem, subset)
            for plan in plans:
                expected = watched_cost(problem, domain, human_problem, plan) is not None
                assert (compiled.embed(plan, subset) is not None) == expected
                differ += expected != valid_in(domain, human_problem, plan)
    if seed == 0:
        assert differ > 0  # watching changes what she accepts on this instance
