"""xaip as a unified-planning engine, checked against unified-planning itself.

The references are unified-planning's own: its ``sequential_plan_validator``, its example
problems (``unified_planning.test.examples``, with their known valid and invalid plans and
optima), its PDDL reader (bundled xaip domains read by UP, not by xaip) and a breadth-first
search over its ``SequentialSimulator`` for optimal plan lengths.
"""

from __future__ import annotations

import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("unified_planning")

from unified_planning.engines import PlanGenerationResultStatus as S  # noqa: E402
from unified_planning.engines import ValidationResultStatus as V  # noqa: E402
from unified_planning.engines.mixins import OptimalityGuarantee  # noqa: E402
from unified_planning.engines.results import FailedValidationReason  # noqa: E402
from unified_planning.environment import Environment, get_environment  # noqa: E402
from unified_planning.io import PDDLReader  # noqa: E402
from unified_planning.plans import ActionInstance, SequentialPlan  # noqa: E402
from unified_planning.shortcuts import (  # noqa: E402
    BoolType,
    Fluent,
    InstantaneousAction,
    Int,
    MinimizeActionCosts,
    Not,
    Object,
    OneshotPlanner,
    PlanValidator,
    Problem,
    SequentialSimulator,
    UserType,
)
from unified_planning.test.examples import get_example_problems  # noqa: E402

import xaip.interop.unified_planning as xup  # noqa: E402
from xaip.errors import InputError, UnsupportedFeature  # noqa: E402
from xaip.interop.unified_planning.engine import XaipPlanner  # noqa: E402
from xaip.planning import plan, read_domain, read_problem  # noqa: E402

EXAMPLES = get_example_problems()
SUPPORTED = sorted(n for n, e in EXAMPLES.items() if XaipPlanner.supports(e.problem.kind))
#: Supported by kind but refused with a reason: an existential *goal* (xaip takes
#: quantifiers in preconditions only; the kind cannot tell goals from preconditions).
REFUSED = {"hierarchical_blocks_world_exists"}
DOMAINS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains"
#: Bundled classical xaip models (domain, problem), read by unified-planning's PDDL reader.
BUNDLED = [("blocksworld/domain.pddl", "blocksworld/problem-5.pddl"),
           ("fetch/robot.pddl", "fetch/problem.pddl"),
           ("fetch/human.pddl", "fetch/problem.pddl"),
           ("balanced/robot.pddl", "balanced/problem.pddl"),
           ("balanced/human.pddl", "balanced/human-problem.pddl"),
           ("restaurant/domain.pddl", "restaurant/b2.pddl"),
           ("usar/robot.pddl", "usar/problem.pddl"),
           ("usar/human.pddl", "usar/human-problem.pddl"),
           ("observers/port/domain.pddl", "observers/port/problem.pddl"),
           ("observers/truck/domain.pddl", "observers/truck/problem.pddl"),
           ("observers/medkit/domain.pddl", "observers/medkit/problem.pddl")]


def shortest_length(problem: Any) -> int | None:
    """Breadth-first search over unified-planning's own simulator (shares nothing with
    xaip): the length of a shortest plan, ``None`` when there is none."""
    fluents = list(problem.initial_values)
    with SequentialSimulator(problem) as simulator:
        start = simulator.get_initial_state()

        def key(state: Any) -> tuple[bool, ...]:
            return tuple(state.get_value(f).bool_constant_value() for f in fluents)

        seen, queue = {key(start)}, deque([(start, 0)])
        while queue:
            state, depth = queue.popleft()
            if simulator.is_goal(state):
                return depth
            for action, params in simulator.get_applicable_actions(state):
                nxt = simulator.apply(state, action, params)
                if nxt is not None and key(nxt) not in seen:
                    seen.add(key(nxt))
                    queue.append((nxt, depth + 1))
    return None


def up_valid(problem: Any, candidate: Any) -> Any:
    with PlanValidator(name="sequential_plan_validator") as validator:
        return validator.validate(problem, candidate)


# ----------------------------------------------------------------- the factory


def test_the_factory_finds_both_engines_by_name() -> None:
    assert {"xaip", "xaip-opt"} <= set(get_environment().factory.engines)
    for name in ("xaip", "xaip-opt"):
        with OneshotPlanner(name=name) as planner:
            assert planner.name == name
        with PlanValidator(name=name) as validator:
            assert validator.name == name


def test_the_factory_picks_xaip_by_kind_and_guarantee() -> None:
    environment = Environment()
    xup.register(environment)
    xup.register(environment)  # idempotent
    environment.factory.preference_list = ["xaip", "xaip-opt"]
    kind = EXAMPLES["robot_loader"].problem.kind
    optimal = environment.factory.OneshotPlanner(
        problem_kind=kind, optimality_guarantee=OptimalityGuarantee.SOLVED_OPTIMALLY)
    satisficing = environment.factory.OneshotPlanner(
        problem_kind=kind, optimality_guarantee=OptimalityGuarantee.SATISFICING)
    assert (optimal.name, satisficing.name) == ("xaip-opt", "xaip")


def test_the_entry_points_name_the_registered_classes() -> None:
    import importlib
    import tomllib

    pyproject = tomllib.loads((DOMAINS.parents[2] / "pyproject.toml").read_text())
    declared = pyproject["project"]["entry-points"]["unified_planning.engines"]
    assert set(declared) == set(xup.ENGINES)
    for name, target in declared.items():
        module, _, class_name = target.partition(":")
        assert class_name == xup.ENGINES[name]
        engine_class = getattr(importlib.import_module(module), class_name)
        assert engine_class is get_environment().factory.engine(name)


# ----------------------------------------------------------------- UP's examples


def test_twenty_one_examples_are_supported_by_kind() -> None:
    assert len(SUPPORTED) == 21, SUPPORTED
    assert "locations_connected_cost_minimize" in SUPPORTED  # real-typed, whole costs


def test_every_claimed_feature_is_exercised() -> None:
    """Each feature of ``supported_kind`` occurs in an example solved below or in the
    differential test's random problems (plan length, action costs)."""
    from tests.differential.interop import generate, to_up

    seen = set().union(*(EXAMPLES[n].problem.kind.features for n in SUPPORTED
                         if n not in REFUSED))
    for seed in range(40):
        seen |= set(to_up(generate(seed)).kind.features)
    assert seen == set(xup.SUPPORTED_FEATURES)


@pytest.mark.parametrize("name", SUPPORTED)
def test_example_solved_optimally_and_valid_for_ups_validator(name: str) -> None:
    example = EXAMPLES[name]
    problem = example.problem
    with OneshotPlanner(name="xaip-opt") as planner:
        answer = planner.solve(problem)
    if name in REFUSED:
        assert answer.status == S.UNSUPPORTED_PROBLEM
        assert "goal" in answer.log_messages[0].message
        return
    assert answer.status == S.SOLVED_OPTIMALLY, answer.log_messages
    assert answer.metrics["verified"] == "true"
    verdict = up_valid(problem, answer.plan)
    assert verdict.status == V.VALID
    cost = int(answer.metrics["cost"])
    if example.optimum is not None:
        assert cost == example.optimum
    else:  # no costs: the optimum is the shortest plan, found by BFS over UP's simulator
        assert cost == len(answer.plan.actions) == shortest_length(problem)
    with OneshotPlanner(name="xaip") as planner:
        greedy = planner.solve(problem)
    assert greedy.status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY)
    assert up_valid(problem, greedy.plan).status == V.VALID


@pytest.mark.parametrize("name", [n for n in SUPPORTED if n not in REFUSED])
def test_example_plans_judged_as_ups_validator_judges_them(name: str) -> None:
    example = EXAMPLES[name]
    with PlanValidator(name="xaip") as validator:
        for candidate in example.valid_plans:
            assert validator.validate(example.problem, candidate).status == V.VALID
        for candidate in example.invalid_plans:
            assert validator.validate(example.problem, candidate).status == V.INVALID


@pytest.mark.parametrize("name", sorted(set(EXAMPLES) - set(SUPPORTED)))
def test_unsupported_example_is_refused_not_misread(name: str) -> None:
    problem = EXAMPLES[name].problem
    assert not XaipPlanner.supports(problem.kind)
    with pytest.raises(InputError) as refused:
        plan(problem)
    assert "\n" not in str(refused.value)
    if isinstance(problem, Problem):
        with OneshotPlanner(name="xaip-opt") as planner:
            planner.skip_checks = True
            answer = planner.solve(problem)
        assert answer.status == S.UNSUPPORTED_PROBLEM


# ----------------------------------------------------------------- bundled xaip models


@pytest.mark.parametrize(("domain", "problem"), BUNDLED, ids=[d for d, _ in BUNDLED])
def test_bundled_models_read_by_up_cost_what_xaip_says(domain: str, problem: str) -> None:
    up_problem = PDDLReader().parse_problem(str(DOMAINS / domain), str(DOMAINS / problem))
    own = plan((read_domain(DOMAINS / domain), read_problem(DOMAINS / problem)), optimal=True)
    with OneshotPlanner(name="xaip-opt") as planner:
        answer = planner.solve(up_problem)
    assert answer.status == S.SOLVED_OPTIMALLY
    assert int(answer.metrics["cost"]) == own.cost
    verdict = up_valid(up_problem, answer.plan)
    assert verdict.status == V.VALID
    values = list((verdict.metric_evaluations or {}).values())
    assert values in ([], [own.cost])


def test_to_up_round_trip_keeps_the_optimum() -> None:
    domain = read_domain(DOMAINS / "fetch/robot.pddl")
    problem = read_problem(DOMAINS / "fetch/problem.pddl")
    up_problem = xup.to_up(domain, problem)
    assert plan(up_problem, optimal=True).cost == plan((domain, problem), optimal=True).cost


# ----------------------------------------------------------------- answers and errors


def _switch(cost_of_noop: int | None = None, reachable: bool = True) -> Problem:
    """A light that ``on`` switches on; optionally an effect-less ``wait`` with a cost."""
    room = UserType("room")
    lit = Fluent("lit", BoolType(), r=room)
    power = Fluent("power", BoolType())
    on = InstantaneousAction("on", r=room)
    on.add_precondition(power())
    on.add_precondition(Not(lit(on.parameter("r"))))
    on.add_effect(lit(on.parameter("r")), True)
    problem = Problem("switch")
    problem.add_fluent(lit, default_initial_value=False)
    problem.add_fluent(power, default_initial_value=False)
    problem.add_action(on)
    hall = Object("hall", room)
    problem.add_object(hall)
    problem.set_initial_value(power(), reachable)
    problem.add_goal(lit(hall))
    if cost_of_noop is not None:
        wait = InstantaneousAction("wait")
        problem.add_action(wait)
        problem.add_quality_metric(MinimizeActionCosts({on: Int(2), wait: Int(cost_of_noop)}))
    return problem


def test_unsolvable_problem_is_proven_unsolvable() -> None:
    for name in ("xaip", "xaip-opt"):
        with OneshotPlanner(name=name) as planner:
            answer = planner.solve(_switch(reachable=False))
        assert answer.status == S.UNSOLVABLE_PROVEN
        assert answer.metrics["verified"] == "true"


def test_an_effectless_action_keeps_its_cost() -> None:
    """Regression (differential seed 40): UP's PDDL writer drops the cost of an action
    without effects, which then cost 0 in xaip."""
    problem = _switch(cost_of_noop=3)
    wait, on = problem.action("wait"), problem.action("on")
    candidate = SequentialPlan([ActionInstance(wait), ActionInstance(on, [problem.object(
        "hall")])])
    with PlanValidator(name="xaip") as validator:
        verdict = validator.validate(problem, candidate)
    assert verdict.status == V.VALID
    assert list(verdict.metric_evaluations.values()) == [5]
    assert list(up_valid(problem, candidate).metric_evaluations.values()) == [5]


def test_an_inapplicable_step_is_named() -> None:
    problem = _switch()
    on = problem.action("on")
    hall = problem.object("hall")
    twice = SequentialPlan([ActionInstance(on, [hall]), ActionInstance(on, [hall])])
    with PlanValidator(name="xaip") as validator:
        verdict = validator.validate(problem, twice)
        assert verdict.status == V.INVALID
        assert verdict.reason == FailedValidationReason.INAPPLICABLE_ACTION
        assert verdict.inapplicable_action is twice.actions[1]
        empty = validator.validate(problem, SequentialPlan([]))
        assert empty.reason == FailedValidationReason.UNSATISFIED_GOALS


def test_a_budget_of_one_node_times_out() -> None:
    problem = EXAMPLES["robot_loader_adv"].problem
    with OneshotPlanner(name="xaip-opt", params={"max_nodes": 1}) as planner:
        assert planner.solve(problem).status == S.TIMEOUT
    with pytest.raises(InputError, match="max_nodes"):
        OneshotPlanner(name="xaip", params={"max_nodes": 0})


@pytest.mark.parametrize(("params", "match"), [
    ({"search": "gbfs"}, "optimal"),
    ({"heuristic": "hff"}, "admissible|optimal"),
    ({"engine": "nope"}, "unknown xaip engine"),
])
def test_wrong_parameters_are_refused_when_the_planner_is_made(params: dict[str, str],
                                                                 match: str) -> None:
    with pytest.raises(InputError, match=match):
        OneshotPlanner(name="xaip-opt", params=params)


def test_other_searches_are_configurable() -> None:
    problem = EXAMPLES["robot_loader_adv"].problem
    with OneshotPlanner(name="xaip-opt", params={"search": "ucs"}) as planner:
        answer = planner.solve(problem)
    assert answer.status == S.SOLVED_OPTIMALLY and answer.metrics["search"] == "ucs"
    with OneshotPlanner(name="xaip", params={"search": "ehc"}) as planner:
        assert planner.solve(problem).status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY)


def test_unsupported_problem_gives_a_reason_not_a_traceback() -> None:
    problem = EXAMPLES["basic_numeric"].problem
    with OneshotPlanner(name="xaip") as planner:
        planner.skip_checks = True
        answer = planner.solve(problem)
    assert answer.status == S.UNSUPPORTED_PROBLEM
    assert "\n" not in answer.log_messages[0].message
    with pytest.raises(UnsupportedFeature):
        plan(problem)


# ----------------------------------------------------------------- front doors


def test_front_doors_take_up_problems() -> None:
    from xaip.explicable import explicable_plan, make_problem
    from xaip.reconcile import explain, make_mrp

    problem = EXAMPLES["robot_loader_adv"].problem
    result = plan(problem, optimal=True)
    up_plan = xup.as_up_plan(result, problem)
    assert up_valid(problem, up_plan).status == V.VALID
    assert xup.from_up_plan(up_plan, problem) == result.steps()
    mrp = make_mrp(problem, None, problem, plan=up_plan)
    assert explain(mrp, "mce").verified
    assert explicable_plan(make_problem(problem, None, problem)).verified
    with pytest.raises(InputError, match="alone"):
        make_mrp(problem, problem.clone(), problem)
    converted = xup.from_up(problem)
    with pytest.raises(InputError, match="unified-planning Problem"):
        make_mrp(converted.domain, converted.problem, problem, plan=up_plan)

def test_xaip_imports_unified_planning_only_for_up_inputs() -> None:
    code = ("import sys, xaip.planning, xaip.reconcile, xaip.explicable, xaip.planning.inputs;"
            "print('unified_planning' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_balanced_and_observers_take_up_problems() -> None:
    from xaip.balanced import balance, balanced_problem
    from xaip.observers import load_problem

    def read(domain: str, problem: str) -> Any:
        return PDDLReader().parse_problem(str(DOMAINS / domain), str(DOMAINS / problem))

    robot = read("balanced/robot.pddl", "balanced/problem.pddl")
    human = read("balanced/human.pddl", "balanced/human-problem.pddl")
    from_up = balance(balanced_problem(robot, None, human))
    own = balance(balanced_problem(read_domain(DOMAINS / "balanced/robot.pddl"),
                                   read_problem(DOMAINS / "balanced/problem.pddl"),
                                   read_domain(DOMAINS / "balanced/human.pddl"),
                                   read_problem(DOMAINS / "balanced/human-problem.pddl")))
    assert from_up.verified and own.verified
    assert from_up.to_dict()["total"] == own.to_dict()["total"]
    port = read("observers/port/domain.pddl", "observers/port/problem.pddl")
    observed = load_problem(port, None, DOMAINS / "observers/port/observer.json",
                            DOMAINS / "observers/port/goals.json")
    assert observed.goals.true_goal.reachable
    with pytest.raises(InputError, match="problem file"):
        load_problem(DOMAINS / "observers/port/domain.pddl", None,
                     DOMAINS / "observers/port/observer.json")


def test_an_unproved_optimum_is_not_claimed(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the checker's proofs guided by h^max alone, the search finishes within 50 nodes
    and its checker does not: the plan is valid but its optimality unproved, so the answer
    is satisficing, "unverified". (With the certified LM-cut, which is perfect on this
    task, the proof prunes the initial state and needs no node.)"""
    import xaip.planning.proofs

    monkeypatch.setattr(xaip.planning.proofs, "CHECK_HEURISTIC", "hmax")
    problem = PDDLReader().parse_problem(str(DOMAINS / "blocksworld/domain.pddl"),
                                         str(DOMAINS / "blocksworld/problem-5.pddl"))
    with OneshotPlanner(name="xaip-opt", params={"max_nodes": 50}) as planner:
        answer = planner.solve(problem)
    assert answer.status == S.SOLVED_SATISFICING
    assert answer.metrics["verified"] == "false"
    assert answer.log_messages[0].message.startswith("unverified: checker budget")
    assert up_valid(problem, answer.plan).status == V.VALID


def test_a_fractional_cost_is_refused_in_one_line() -> None:
    from fractions import Fraction

    from unified_planning.shortcuts import Real

    problem = _switch()
    problem.add_quality_metric(MinimizeActionCosts({problem.action("on"): Real(Fraction(3, 2))}))
    with OneshotPlanner(name="xaip-opt") as planner:
        answer = planner.solve(problem)
    assert answer.status == S.UNSUPPORTED_PROBLEM
    assert "non-integer action cost" in answer.log_messages[0].message


def test_a_plan_ups_validator_rejects_is_an_internal_error(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """A conversion bug (simulated: the model xaip plans on has the power on, the UP
    problem has not) is caught by UP's own validator, never answered as solved."""
    import dataclasses

    from xaip.interop.unified_planning import engine

    wrong = xup.from_up(_switch())
    monkeypatch.setattr(engine, "from_up",
                        lambda problem: dataclasses.replace(wrong, source=problem))
    with OneshotPlanner(name="xaip") as planner:
        answer = planner.solve(_switch(reachable=False))
    assert answer.status == S.INTERNAL_ERROR
    assert answer.plan is None and answer.metrics["verified"] == "false"
    assert "unified-planning's own validator refutes" in answer.log_messages[0].message
