"""Goal and plan obfuscation, secure obfuscation under attack, and the book instances."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest

from xaip.errors import InputError
from xaip.observers.goals import goals_from_data
from xaip.observers.legibility import legibility_score, legible_goal_plan, legible_plan
from xaip.observers.obfuscation import ambiguous_plan, diverse_plan, secure_ambiguous_plan
from xaip.observers.problem import ObserverProblem, example_problem
from xaip.observers.sensors import format_token, observers_from_data
from xaip.planning import ground
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.runtime import Status

# Two routes, each able to reach both goals: the observer sees which hub the agent went
# to, then only "walked". Going through hub A is cheaper for g1, through hub B for g2, so
# a deterministic k-ambiguous planner reveals the goal by its hub; the secure one must not.
FORK = """
(define (domain fork)
  (:requirements :strips :typing :action-costs)
  (:types place)
  (:predicates (at ?p - place) (hub ?p - place) (road ?a ?b - place))
  (:functions (length ?a ?b - place) (total-cost))
  (:action go :parameters (?a ?b - place)
    :precondition (and (at ?a) (road ?a ?b))
    :effect (and (at ?b) (not (at ?a)) (increase (total-cost) (length ?a ?b)))))
"""
FORK_PROBLEM = """
(define (problem fork) (:domain fork)
  (:objects s ha hb g1 g2 - place)
  (:init (at s) (hub ha) (hub hb) (road s ha) (road s hb) (road ha g1) (road ha g2)
         (road hb g1) (road hb g2)
         (= (length s ha) 1) (= (length s hb) 1) (= (length ha g1) 1) (= (length ha g2) 2)
         (= (length hb g1) 2) (= (length hb g2) 1) (= (total-cost) 0))
  (:goal (at g1)) (:metric minimize (total-cost)))
"""
FORK_OBSERVER = {"observer": "adversary", "role": "adversary", "rules": [
    {"if": ["(at ?h)", "(hub ?h)"], "token": [{"values": "(at ?h)"}]},
    {"token": [{"const": "walked"}]}]}


def _fork(true: str = "g1") -> ObserverProblem:
    domain, problem = parse_domain(FORK), parse_problem(FORK_PROBLEM)
    task = ground(domain, problem)
    model = next(iter(observers_from_data(FORK_OBSERVER, task, domain=domain).values()))
    goals = goals_from_data({"true": true, "goals": {"g1": ["(at g1)"], "g2": ["(at g2)"]}},
                            task)
    return ObserverProblem(task, model, goals, domain, problem)


def test_deterministic_obfuscation_leaks_and_secure_does_not() -> None:
    # the cheapest 2-ambiguous plan (blind search is uniform-cost) goes through the hub
    # nearer the goal, so rerunning it for each candidate identifies the goal
    plain = {g: ambiguous_plan(_fork(g), k=2, heuristic="blind") for g in ("g1", "g2")}
    assert plain["g1"].observations == ("ha", "walked")
    assert plain["g2"].observations == ("hb", "walked")
    assert all(r.verified and r.score == 2 for r in plain.values())
    hit_rate, outputs = _attack(_fork, ("g1", "g2"), k=2, seeds=200, heuristic="blind")
    assert outputs == {("ha", "walked"), ("hb", "walked")}  # the decoy decides the hub
    assert abs(hit_rate - 1 / 2) < 0.08


def test_secure_obfuscation_on_the_port_under_attack() -> None:
    names = ("red", "blue", "green")
    hit_rate, _ = _attack(lambda g: example_problem("port").with_true(g), names, k=3,
                          seeds=60)
    assert abs(hit_rate - 1 / 3) < 0.08


def _attack(make, names: tuple[str, ...], k: int, seeds: int, heuristic: str = "hadd"
            ) -> tuple[float, set[tuple[str, ...]]]:
    """The adversary knows the algorithm: it reruns it with every candidate as the input
    over many seeds, tabulates which token sequences each input produces, and guesses the
    input most likely to have produced what it saw (ties broken at random)."""
    likelihood: dict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
    runs = []
    for goal in names:
        problem = make(goal)
        for seed in range(seeds):
            result = secure_ambiguous_plan(problem, k=k, seed=seed, heuristic=heuristic,
                                           check=seed < 3)
            assert result.status == Status.SOLVED
            assert problem.true_goal.holds(_final(problem, result.plan))
            if seed < 3:
                assert result.verified
            likelihood[goal][result.observations] += 1
            runs.append((goal, result.observations))
    rng = random.Random(1)
    hits = 0
    for goal, seen in runs:
        best = max(likelihood[g][seen] for g in names)
        guesses = [g for g in names if likelihood[g][seen] == best]
        hits += rng.choice(guesses) == goal
    return hits / len(runs), {seen for _, seen in runs}


def _final(problem: ObserverProblem, plan: tuple[str, ...]) -> int:
    state = problem.task.init
    for action in problem.resolve(list(plan)):
        state = action.apply(state)
    return state


def test_secure_plan_has_the_decoy_runs_tokens() -> None:
    problem = _fork("g1")
    seen = set()
    for seed in range(20):
        result = secure_ambiguous_plan(problem, k=2, seed=seed, heuristic="blind")
        assert result.verified and result.decoy is not None
        decoy = problem.resolve(result.decoy["decoy_plan"])
        tokens = problem.tracker.tokens_of(decoy)
        assert tuple(format_token(t) for t in tokens) == result.observations
        seen.add(result.decoy["decoy_true_goal"])
    assert seen == {"g1", "g2"}


def test_port_and_medkit_book_settings() -> None:
    port = example_problem("port")
    legible = legible_goal_plan(port, j=1)
    assert legible.plan == ("load red", "acquire n1") and legible.score == 1
    assert legible.verified
    ambiguous = ambiguous_plan(port, k=3)
    assert ambiguous.plan[0].startswith("acquire") and ambiguous.score == 3
    assert legibility_score(port, ["acquire n1", "load red"]).score == 3
    medkit = example_problem("medkit")
    similar = legible_plan(medkit, m=2, d=0.5, max_cost=8)
    assert (similar.bps_count, similar.distance_max, similar.cost) == (2, 0.5, 6)
    diverse = diverse_plan(medkit, ell=12, d=0.25, max_cost=8)
    assert diverse.verified and diverse.bps_count >= 12 and diverse.distance_min >= 0.25
    none = diverse_plan(medkit, ell=12, d=0.3, max_cost=8)
    assert none.status == Status.UNSOLVABLE and none.verified


def test_fixed_decoys() -> None:
    port = example_problem("port")
    result = ambiguous_plan(port, k=2, decoys=["green"])
    assert "green" in result.goals_in_final_belief["supervisor"] and result.verified


@pytest.mark.parametrize(("call", "message"), [
    (lambda p: ambiguous_plan(p, k=4), "larger than the number of candidate goals"),
    (lambda p: secure_ambiguous_plan(p, k=5), "larger than the number of candidate goals"),
    (lambda p: ambiguous_plan(p, k=0), "at least 1"),
    (lambda p: ambiguous_plan(p, k=3, decoys=["blue"]), "give at least 2 decoys"),
    (lambda p: ambiguous_plan(p, k=2, decoys=["purple"]), "no goal named 'purple'"),
    (lambda p: diverse_plan(p, ell=2), "needs a cost bound"),
    (lambda p: legible_plan(p, m=2, max_cost=3, distance="colour"), "unknown plan distance"),
    (lambda p: legible_goal_plan(p, heuristic="magic"), "unknown heuristic"),
])
def test_bad_parameters(call, message: str) -> None:
    with pytest.raises(InputError, match=message):
        call(example_problem("port"))


def test_medkit_goal_obfuscation_needs_four_moves_and_delta_two() -> None:
    """Book §9.1: a 4-step 2-ambiguous plan keeps both medkits plausible. Picking M1 after
    two moves reveals it (M2 is four moves away); after four moves both are possible. At
    Δ = 1 the search prunes the detour's second arrival in a cell, so Δ grows to 2."""
    from xaip.observers import load_problem
    from xaip.observers.problem import example_dir

    base = example_dir("medkit")
    kits = load_problem(base / "domain.pddl", base / "problem.pddl", base / "observer.json",
                        base / "kits.json")
    direct = legible_goal_plan(kits, j=1)
    assert len(direct.plan) == 3 and direct.goals_in_final_belief["step counter"] == ("m1",)
    hidden = ambiguous_plan(kits, k=2)
    assert hidden.verified and hidden.plan[-1] == "pickup m1 c11"
    assert hidden.observations == ("move",) * 4 + ("pickup",)
    assert hidden.goals_in_final_belief["step counter"] == ("m1", "m2")
    assert hidden.delta == 2
