"""Model features on the shared model-reconciliation benchmark files (/work/shared/data/mrp).

For every robot/human domain pair: the diff is symmetric, applying the diff from A to B
to A gives a model whose features equal B's (and whose grounding has B's grounded
features when nothing structural differs), and applying it is set algebra.
"""

from __future__ import annotations

import itertools
from functools import cache
from pathlib import Path

import pytest

from xaip.planning.features import (
    Feature,
    FeatureKind,
    apply_edits,
    diff,
    model_diff,
    model_features,
    task_features,
    update_features,
)
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Atom, Domain, Problem

pddl = pytest.importorskip("xaip.planning.pddl")
if not hasattr(pddl, "read_domain"):
    pytest.skip("the PDDL reader is not available yet", allow_module_level=True)

MRP = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp"
if not MRP.is_dir():
    pytest.skip(f"shared benchmark data not found at {MRP}", allow_module_level=True)

IPC = ("blocksworld", "logistics", "rover")
FETCH = sorted(p.name for p in (MRP / "fetch").glob("fetchworld-*.pddl"))


@cache
def domain(path: str) -> Domain:
    result = pddl.read_domain(MRP / path)
    assert isinstance(result, Domain)
    return result


@cache
def problem(path: str) -> Problem:
    result = pddl.read_problem(MRP / path)
    assert isinstance(result, Problem)
    return result


PAIRS: list[tuple[str, str, str]] = [
    *(
        (f"{name}/original_domain.pddl", f"{name}/domain{i}.pddl", f"{name}/prob1.pddl")
        for name in IPC
        for i in (1, 2, 3)
    ),
    *(
        (f"fetch/{a}", f"fetch/{b}", "fetch/problem1.pddl")
        for a, b in itertools.combinations(FETCH, 2)
    ),
    ("radar/domain_robot.pddl", "radar/domain_human.pddl", "radar/problem.pddl"),
    ("radar/planner_domain.pddl", "radar/planner_domain_human.pddl", "radar/problem.pddl"),
]


@pytest.mark.parametrize(("path_a", "path_b", "path_p"), PAIRS)
def test_applying_the_diff_reaches_the_target(path_a: str, path_b: str, path_p: str) -> None:
    a, b, p = domain(path_a), domain(path_b), problem(path_p)
    for source, target in ((a, b), (b, a)):
        d = model_diff(source, target, p)
        new, new_problem = apply_edits(source, p, d.edits(), source_domain=target)
        assert new_problem is not None
        assert model_features(new, new_problem) == model_features(target, p)
        assert model_features(new, new_problem) == update_features(
            model_features(source, p), d.edits()
        )
        assert model_diff(new, target, new_problem).features_equal


@pytest.mark.parametrize(("path_a", "path_b", "path_p"), PAIRS)
def test_diffs_are_symmetric(path_a: str, path_b: str, path_p: str) -> None:
    a, b, p = domain(path_a), domain(path_b), problem(path_p)
    ab, ba = model_diff(a, b, p), model_diff(b, a, p)
    assert ab.only_in_a == ba.only_in_b and ab.only_in_b == ba.only_in_a
    assert ab.reversed() == ba
    assert diff(model_features(a, p), model_features(b, p)).only_in_a == ab.only_in_a


def test_blocksworld_human_model_lacks_the_eleven_documented_features() -> None:
    """anchors.md §4.1: domain1 lacks 11 effects/preconditions of the robot's model."""
    d = model_diff(domain("blocksworld/original_domain.pddl"),
                   domain("blocksworld/domain1.pddl"), problem("blocksworld/prob1.pddl"))
    assert d.only_in_b == () and d.value_changes == () and d.mismatches == ()
    assert len(d.only_in_a) == 11
    x, y = ("?x", "?y"), ("?x",)
    assert Feature.precondition("putdown", y, Atom("holding", ("?x",))) in d.only_in_a
    assert Feature.add_effect("unstack", x, Atom("clear", ("?y",))) in d.only_in_a
    assert Feature.delete_effect("stack", x, Atom("clear", ("?y",))) in d.only_in_a


def test_fetch_variants_differ_in_documented_ways() -> None:
    base, tuck = domain("fetch/fetchworld-base-m.pddl"), domain("fetch/fetchworld-tuck-m.pddl")
    d = model_diff(base, tuck, problem("fetch/problem1.pddl"))
    assert Feature.precondition("move", ("?from", "?to"), Atom("hand-tucked")) in d.only_in_b
    duck = domain("fetch/fetchworld-base-duck.pddl")
    mismatches = model_diff(base, duck).mismatches
    assert ("action", "crouch") in {(m.category, m.name) for m in mismatches}


def test_radar_costs_are_fluent_terms() -> None:
    robot = domain("radar/domain_robot.pddl")
    costs = [f for f in model_features(robot) if f.kind is FeatureKind.COST]
    assert len(costs) == len(robot.actions)
    assert {str(f.value) for f in costs if f.action == "alert"} == {"(duration_unit_actions)"}
    values = [f for f in model_features(robot, problem("radar/problem.pddl"))
              if f.kind is FeatureKind.INIT_VALUE]
    assert Feature.init_value(
        next(f.fluent for f in values if f.fluent is not None
             and f.fluent.name == "duration_deploy_big_engines"), 4
    ) in values


@pytest.mark.parametrize(
    ("path_a", "path_b", "path_p"),
    [pair for pair in PAIRS if pair[0].startswith(("blocksworld", "fetch"))],
)
def test_grounded_features_follow_lifted_edits(path_a: str, path_b: str, path_p: str) -> None:
    a, b, p = domain(path_a), domain(path_b), problem(path_p)
    d = model_diff(a, b, p)
    if d.structural or d.mismatches:
        pytest.skip("the models differ beyond features")
    new, new_problem = apply_edits(a, p, d.edits(), source_domain=b)
    assert new_problem is not None
    assert task_features(ground(new, new_problem)) == task_features(ground(b, p))
