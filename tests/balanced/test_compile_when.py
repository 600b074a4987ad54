"""MEGA* with conditional effects and inferred conditions (B05, compile_when)."""

from __future__ import annotations

import itertools
import random

import pytest

from xaip.balanced import balance, balanced_problem
from xaip.balanced.compile import compile_problem
from xaip.balanced.compile_when import Item, prioritised
from xaip.balanced.objectives import BalancedProblem
from xaip.errors import InputError
from xaip.planning.engines import get_engine
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem

DOOR = """(define (domain door) (:requirements :strips :conditional-effects :action-costs)
  (:predicates (at-door) (unlocked) (open) (through)) (:functions (total-cost) - number)
  (:action open :parameters () :precondition (at-door)
    :effect (and (when (unlocked) (open)) (increase (total-cost) 1)))
  (:action pass :parameters () :precondition (and (open) (unlocked))
    :effect (and (through) (increase (total-cost) 1)))
  (:action unlock :parameters () :precondition (at-door)
    :effect (and (unlocked) (increase (total-cost) 5)))
  (:action detour :parameters () :precondition (at-door)
    :effect (and (through) (increase (total-cost) 4))))"""
ROBOT = ("(define (problem p) (:domain door) (:init (at-door) (unlocked) "
         "(= (total-cost) 0)) (:goal (through)) (:metric minimize (total-cost)))")
HUMAN = ROBOT.replace("(unlocked) ", "")


def door(**watching: object) -> BalancedProblem:
    return balanced_problem(parse_domain(DOOR), parse_problem(ROBOT), parse_domain(DOOR),
                            parse_problem(HUMAN), default_cost=10,
                            **watching)  # type: ignore[arg-type]


@pytest.mark.parametrize("objective", ["balanced", "explicable", "explicable-optimal"])
@pytest.mark.parametrize("watching", [{}, {"observable": {"open"}},
                                      {"observable": {"open"}, "infer_conditions": True}])
def test_both_methods_agree_on_the_door(objective: str, watching: dict[str, object]) -> None:
    problem = door(objective=objective, **watching)
    mega, space = (balance(problem, method=m) for m in ("compile", "model-space"))
    assert mega.verified and space.verified
    assert (mega.total, mega.plan_cost) == (space.total, space.plan_cost)


def test_inferring_the_unlocked_door_needs_no_explanation() -> None:
    seen = balance(door(observable={"open"}, infer_conditions=True), method="compile")
    assert seen.plan == ("open", "pass") and seen.explanation == () and seen.total == 3


def test_compiled_pddl_round_trips() -> None:
    compiled = compile_problem(door(observable={"open"}, infer_conditions=True))
    domain, problem = compiled.to_pddl()
    engine = get_engine("default")
    read = engine.solve(ground(parse_domain(domain), parse_problem(problem)), optimal=True)
    split = engine.solve(compiled.as_task(), optimal=True)
    assert read.cost == split.cost == 2
    assert compiled.simulate([a.name for a in read.plan]) == (True, 2)


def test_learning_with_conditional_effects_is_refused() -> None:
    problem = door(observable={"open"}, learn_from_watching=True)
    with pytest.raises(InputError, match="conditional effects"):
        balance(problem, method="compile")


def _first_firing(items: list[Item], true: set[tuple[str, int]]) -> dict[object, bool]:
    """The definition: each target takes the value of its first item that fires."""
    out: dict[object, bool] = {}
    for item in items:
        pos, neg = item.condition
        holds = pos <= true and not neg & true and not any(
            p <= true and not n & true for p, n in item.blockers)
        if holds and item.target not in out:
            out[item.target] = item.value
    return out


@pytest.mark.parametrize("seed", range(60))
def test_prioritised_effects_match_first_firing(seed: int) -> None:
    rng = random.Random(seed)
    refs = [("w", i) for i in range(4)]

    def conjunction() -> tuple[frozenset[tuple[str, int]], frozenset[tuple[str, int]]]:
        chosen = rng.sample(refs, rng.randint(0, 2))
        split = rng.randint(0, len(chosen))
        return frozenset(chosen[:split]), frozenset(chosen[split:])

    items = [Item(("b", rng.randint(0, 1)), rng.random() < 0.5, conjunction(),
                  tuple(conjunction() for _ in range(rng.randint(0, 2))))
             for _ in range(rng.randint(1, 5))]
    effects = prioritised(items)
    for values in itertools.product((False, True), repeat=len(refs)):
        true = {r for r, v in zip(refs, values, strict=True) if v}
        fired: dict[object, set[bool]] = {}
        for (pos, neg), target, value in effects:
            if pos <= true and not neg & true:
                fired.setdefault(target, set()).add(value)
        assert all(len(v) == 1 for v in fired.values()), "two values for one bit"
        assert {t: v.pop() for t, v in fired.items()} == _first_firing(items, true)
