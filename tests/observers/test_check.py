"""The independent checker rejects every kind of wrong result."""

from __future__ import annotations

from dataclasses import replace

from xaip.observers.check import check
from xaip.observers.legibility import legibility_score, legible_goal_plan, legible_plan
from xaip.observers.obfuscation import secure_ambiguous_plan
from xaip.observers.problem import example_problem
from xaip.runtime import Status


def test_a_correct_result_passes_and_tampered_ones_fail() -> None:
    port = example_problem("port")
    good = legible_goal_plan(port, j=1)
    assert check(port, good).ok is True
    tampered = {
        "tokens": replace(good, observations=("load|blue", "acquire|3")),
        "goals": replace(good, goals_in_final_belief={"supervisor": ("red", "blue")}),
        "beliefs": replace(good, beliefs=(1, 1, 1)),
        "cost": replace(good, cost=1),
        "plan": replace(good, plan=("acquire n1", "load red"),
                        observations=("acquire|4", "load|3"), beliefs=(1, 2, 6),
                        goals_in_final_belief={"supervisor": ("red", "blue", "green")}),
        "unreached": replace(good, plan=("load blue", "acquire n1"),
                             observations=("load|green,red", "acquire|3")),
        "not executable": replace(good, plan=("load n1",)),
    }
    for what, result in tampered.items():
        report = check(port, result)
        assert report.ok is False, (what, report)
    assert "more than j = 1" in check(port, tampered["plan"]).details


def test_plan_modes_distances_and_bps_are_recomputed() -> None:
    medkit = example_problem("medkit")
    good = legible_plan(medkit, m=2, d=0.5, max_cost=8)
    assert check(medkit, good).ok is True
    assert check(medkit, replace(good, bps_count=3)).ok is False
    assert check(medkit, replace(good, distance_max=0.25)).ok is False
    strict = replace(good, params={**good.params, "d": 0.4})
    assert "more than d" in check(medkit, strict).details
    score = legibility_score(medkit, list(good.plan))
    assert score.verified and score.bps_count == 2


def test_false_unsolvable_claims_are_caught() -> None:
    port = example_problem("port")
    real = legible_goal_plan(port, j=1, max_cost=1)
    assert real.status == Status.UNSOLVABLE and check(port, real).ok is True
    lie = replace(real, params={**real.params, "max_cost": 2})
    report = check(port, lie)
    assert report.ok is False and "(load red) (acquire" in report.details
    # the goal modes' (state, belief) pairs are finite: "no plan at all" is checked too
    unbounded = replace(real, params={**real.params, "max_cost": None})
    report = check(port, unbounded)
    assert report.ok is False and "(load red) (acquire" in report.details
    plan_mode = replace(unbounded, mode="legible-plan", params={"m": 2, "d": 0.5})
    assert "needs a cost bound" in check(port, plan_mode).details


def test_secure_result_is_tied_to_its_decoy_run() -> None:
    port = example_problem("port")
    good = secure_ambiguous_plan(port, k=2, seed=4)
    assert good.verified and good.decoy is not None
    wrong_set = replace(good, decoy={**good.decoy, "goal_set": ["blue", "green"]})
    assert check(port, wrong_set).ok is False
    wrong_run = replace(good, decoy={**good.decoy, "decoy_plan": ["load blue", "acquire n1"]})
    assert "tokens differ" in check(port, wrong_run).details
    no_run = replace(good, decoy={**good.decoy, "decoy_plan": ["load n1"]})
    assert "decoy plan is not executable" in check(port, no_run).details
    others = [g for g in good.decoy["goal_set"] if g != good.decoy["decoy_true_goal"]]
    wrong_goal = replace(good, decoy={**good.decoy, "decoy_true_goal": others[0]})
    assert "does not reach the decoy true goal" in check(port, wrong_goal).details
