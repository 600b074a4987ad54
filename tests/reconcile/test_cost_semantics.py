"""Issue 21: reconciliation prices every model with ``counts_action_costs`` of that model's
domain and problem (declared costs only under ``(:metric minimize (total-cost))``, else 1
per action), never with the domain's ``:action-costs`` requirement alone. Each case below
was a wrong answer before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.planning.features import Edit, Feature, FeatureKind, model_diff, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.plans import parse_plan, validate
from xaip.planning.semantics import counts_action_costs
from xaip.reconcile import explain, make_mrp
from xaip.reconcile.brute_force import brute_force_complete
from xaip.reconcile.checks import is_complete
from xaip.reconcile.problem import empty_model
from xaip.runtime import Budget

MRP_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp"

#: Roads cost 1, a flight declares 10; without a metric every action costs 1.
ROUTES = """
(define (domain routes) (:requirements :strips :action-costs)
  (:predicates (at ?x) (road ?x ?y) (air ?x ?y) (clear-sky))
  (:functions (total-cost))
  (:action drive :parameters (?x ?y)
    :precondition (and (at ?x) (road ?x ?y))
    :effect (and (at ?y) (not (at ?x)) (increase (total-cost) 1)))
  (:action fly :parameters (?x ?y)
    :precondition (and (at ?x) (air ?x ?y) {fly})
    :effect (and (at ?y) (not (at ?x)) (increase (total-cost) 10))))
"""
PROBLEM = """
(define (problem trip) (:domain routes) (:objects a b c d)
  (:init (at a) (road a b) (road b c) (road c d) (air a d) {init})
  (:goal (at d)) {metric})
"""
METRIC = "(:metric minimize (total-cost))"


def domain(fly: str = "", costs: bool = True):  # type: ignore[no-untyped-def]
    text = ROUTES.format(fly=fly)
    if not costs:
        text = (text.replace(" :action-costs", "").replace("(:functions (total-cost))", "")
                .replace("(increase (total-cost) 1)", "").replace("(increase (total-cost) 10)",
                                                                  ""))
    return parse_domain(text)


def problem(metric: bool = False, init: str = ""):  # type: ignore[no-untyped-def]
    return parse_problem(PROBLEM.format(metric=METRIC if metric else "", init=init))


def test_cost_features_follow_the_models_metric() -> None:
    d = domain()
    fly = next(f for f in model_features(d, problem()) if f.kind is FeatureKind.COST
               and f.action == "fly")
    assert fly.value == 1  # declared 10, but no metric: every action costs 1
    fly = next(f for f in model_features(d, problem(metric=True))
               if f.kind is FeatureKind.COST and f.action == "fly")
    assert fly.value == 10


def test_identical_models_with_costs_but_no_metric_need_no_explanation() -> None:
    # Unit costs: flying a->d (1 step) is optimal. Declared costs would make it 10 against
    # 3 roads, and the old pricing said "no explanation exists" (exit 2).
    for metric in (False, True):
        mrp = make_mrp(domain(), problem(metric), domain(), problem(metric))
        assert mrp.plan_cost == (1 if not metric else 3)
        result = explain(mrp, "mce")
        assert result.edits == () and result.complete and result.verified


def test_wrong_cost_edit_is_no_longer_an_mce() -> None:
    # Robot: declares costs but no metric (so fly costs 1) and fly needs a clear sky that
    # the robot's problem lacks. The person: no costs, fly needs nothing, and she believes
    # the sky is clear. The old pricing read the robot's fly as costing 10 and answered
    # the one (false) edit "fly costs 10", verified by a checker that priced alike.
    robot = domain(fly="(clear-sky)")
    human = domain(costs=False)
    mrp = make_mrp(robot, problem(), human, problem(init="(clear-sky)"))
    assert mrp.plan_cost == 3
    result = explain(mrp, "mce")
    kinds = {e.feature.kind for e in result.edits}
    assert FeatureKind.COST not in kinds
    assert result.size == 2 and result.verified
    assert brute_force_complete(mrp, result.edits).complete is True
    cost_only = [Edit(Feature.cost("fly", ("?x", "?y"), 10), "add")]
    assert is_complete(mrp, cost_only).complete is True  # true *if* fly cost 10 ...
    assert not any(e.feature.kind is FeatureKind.COST for e in model_diff(
        human, robot, problem(init="(clear-sky)"), problem()).edits())  # ... but it does not


def test_mpe_is_complete_when_costs_are_declared_without_metric() -> None:
    robot = domain(fly="(clear-sky)")
    mrp = make_mrp(robot, problem(), domain(costs=False), problem(init="(clear-sky)"))
    result = explain(mrp, "mpe")
    assert result.complete is True and result.verified


def test_cost_edit_converts_a_model_whose_costs_do_not_count() -> None:
    # The human domain declares costs but has no metric: every action costs 1 there. An
    # edit "fly costs 10" turns costs on; drive must keep costing 1, and fly cost 10.
    human = domain()
    edited, task = apply_edits(human, problem(), [Edit(Feature.cost("fly", ("?x", "?y"), 10))])
    assert task is not None and counts_action_costs(edited, task)
    costs = {f.action: f.value for f in model_features(edited, task)
             if f.kind is FeatureKind.COST}
    assert costs == {"drive": 1, "fly": 10}
    plan = parse_plan("(drive a b)\n(drive b c)\n(drive c d)")
    assert validate(edited, task, plan).cost == 3


def test_empty_model_keeps_the_robots_costs() -> None:
    # 'empty' knows the actions and what they cost (with the robot's metric, or 1 each
    # without) but no precondition, effect, initial fact or goal: no explanation talks
    # about costs, and the answer is complete in the updated model.
    for metric in (False, True):
        robot, task = domain(), problem(metric)
        human, human_task = empty_model(robot, task)
        assert counts_action_costs(human, human_task) == counts_action_costs(robot, task)
        mrp = make_mrp(robot, task, human, human_task)
        result = explain(mrp, "mce", budget=Budget(max_seconds=60))
        assert result.verified, result.check
        assert not any(e.feature.kind is FeatureKind.COST for e in result.edits)


@pytest.mark.skipif(not (MRP_DATA / "fetch").is_dir(), reason="shared data not found")
def test_shared_fetch_against_the_empty_model_is_explained(
        capsys: pytest.CaptureFixture[str]) -> None:
    # Issue 21: "nothing to explain", refuted by its own checker (exit 1).
    fetch = MRP_DATA / "fetch"
    code = main(["explain", str(fetch / "fetchworld-base-m.pddl"), "empty",
                 str(fetch / "problem1.pddl"), "--json", "--max-seconds", "120"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0, payload["check"]
    assert payload["verified"] and payload["size"] > 0
    assert all(e["feature"]["kind"] != "cost" for e in payload["edits"])
