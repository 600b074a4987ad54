"""Engines are objects from one registry; every engine answers with one PlanResult."""

from __future__ import annotations

import pytest

from xaip.errors import EngineUnavailable, InputError
from xaip.planning import (
    Engine,
    PlanResult,
    Status,
    engine_names,
    get_engine,
    ground,
    parse_domain,
    parse_problem,
    plan,
    register_engine,
    validate,
)
from xaip.planning.engines import BuiltinEngine, fd_available
from xaip.runtime import Budget

DOMAIN = """(define (domain line) (:requirements :strips)
  (:predicates (at ?x) (next ?x ?y))
  (:action step :parameters (?x ?y) :precondition (and (at ?x) (next ?x ?y))
    :effect (and (not (at ?x)) (at ?y))))"""
PROBLEM = """(define (problem p) (:domain line) (:objects a b c d)
  (:init (at a) (next a b) (next b c) (next c d)) (:goal (at d)))"""


def _task():  # type: ignore[no-untyped-def]
    return ground(parse_domain(DOMAIN), parse_problem(PROBLEM))


def test_registry_lists_builtin_and_fd() -> None:
    assert {"builtin", "fd"} <= set(engine_names())
    engine = get_engine("builtin")
    assert isinstance(engine, Engine) and engine.available()
    with pytest.raises(InputError, match="unknown engine"):
        get_engine("nope")


@pytest.mark.skipif(fd_available(), reason="Fast Downward is installed here")
def test_missing_engine_is_reported() -> None:
    with pytest.raises(EngineUnavailable):
        get_engine("fd")


@pytest.mark.parametrize("search", ["astar", "ucs", "bfs"])
def test_optimal_searches_agree(search: str) -> None:
    result = get_engine("builtin", search=search).solve(_task(), optimal=True)
    assert isinstance(result, PlanResult) and result.status == Status.SOLVED
    assert result.cost == 3 and result.optimal and result.engine == "builtin"


def test_cost_bound_and_budget() -> None:
    engine = get_engine("builtin")
    assert engine.solve(_task(), optimal=True, cost_bound=3).status == Status.UNSOLVABLE
    assert engine.solve(_task(), optimal=True, cost_bound=4).status == Status.SOLVED
    exhausted = engine.solve(_task(), optimal=True, budget=Budget(max_nodes=1))
    assert exhausted.status == Status.BUDGET_EXHAUSTED and exhausted.cost is None


def test_front_door_plans_and_validates() -> None:
    domain, problem = parse_domain(DOMAIN), parse_problem(PROBLEM)
    result = plan((domain, problem), optimal=True)
    assert validate(domain, problem, result.steps()).valid
    assert result.to_dict()["status"] == "solved"


def test_bad_optimal_combination_is_rejected() -> None:
    with pytest.raises(InputError, match="admissible"):
        plan(_task(), optimal=True, heuristic="hff")


def test_a_new_engine_is_one_registration() -> None:
    class Reversed(BuiltinEngine):
        name = "reversed-test"

    register_engine("reversed-test", Reversed)
    result = plan(_task(), optimal=True, engine="reversed-test")
    assert result.cost == 3
