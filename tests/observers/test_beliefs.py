"""Belief tracking and belief plan sets against an oracle, and the book's numbers."""

from __future__ import annotations

import random

from xaip.explicable.distances import action_distance, trace_of
from xaip.observers.beliefs import (
    BeliefTracker,
    belief_plan_set,
    count_plans,
    initial_belief,
    plan_beliefs,
)
from xaip.observers.goals import goals_in
from xaip.observers.problem import example_problem

from .tiny import random_walk


def _as_oracle_state(problem, state: int) -> tuple[str, frozenset[str]]:
    where, visited = "", set()
    for fact in problem.task.true_facts(state):
        if fact.predicate == "at":
            where = fact.args[0]
        elif fact.predicate == "visited":
            visited.add(fact.args[0])
    return where, frozenset(visited)


def test_beliefs_and_bps_match_the_oracle_on_random_walks() -> None:
    rng = random.Random(7)
    checked = 0
    for seed in range(30):
        walk = random_walk(seed)
        problem = walk.problem()
        plans = [p for p in walk.plans(4) if p[0]]
        for names, labels, _ in rng.sample(plans, min(5, len(plans))):
            actions = problem.resolve(list(names))
            tokens, beliefs = plan_beliefs(problem.tracker, actions)
            sequences, final = walk.view(labels)
            for i in range(len(names) + 1):
                expected = {s for n, lab, s in walk.plans(i)
                            if len(n) == i and lab == labels[:i]}
                assert {_as_oracle_state(problem, s) for s in beliefs[i]} == expected
            assert {_as_oracle_state(problem, s) for s in beliefs[-1]} == final
            assert count_plans(problem.tracker, beliefs, tokens) == len(sequences)
            listed = belief_plan_set(problem.tracker, beliefs, tokens, cap=10_000)
            assert listed.complete
            assert sorted(listed.names(problem.task)) == sorted(sequences)
            if len(sequences) > 1:
                capped = belief_plan_set(problem.tracker, beliefs, tokens, cap=1)
                assert len(capped.plans) == 1 and not capped.complete
                assert capped.count == len(sequences)
            checked += 1
    assert checked > 100


def test_port_goal_legibility_numbers() -> None:
    """Book §4.2: load-then-acquire is 1-legible; acquire-then-load leaves >= 3 goals."""
    problem = example_problem("port")
    goals = problem.goals.goals
    for plan, left in ((["load red", "acquire n1"], ("red",)),
                       (["acquire n1", "load red"], ("red", "blue", "green"))):
        _, beliefs = plan_beliefs(problem.tracker, problem.resolve(plan))
        assert goals_in(beliefs[-1], goals) == left


def test_medkit_plan_legibility_numbers() -> None:
    """Book §4.3: via M1 |BPS| = 2 with action distance 0.5; via M2 |BPS| >= 12; every BPS
    member emits the same tokens."""
    problem = example_problem("medkit")
    tracker, task = problem.tracker, problem.task
    via_m1 = ["move c00 c10", "move c10 c11", "pickup m1 c11", "move c11 c12",
              "move c12 c13", "treat m1 c13"]
    via_m2 = ["move c00 c10", "move c10 c20", "move c20 c21", "move c21 c22",
              "pickup m2 c22", "move c22 c12", "move c12 c13", "treat m2 c13"]
    counts = []
    for plan in (via_m1, via_m2):
        tokens, beliefs = plan_beliefs(tracker, problem.resolve(plan))
        bps = belief_plan_set(tracker, beliefs, tokens)
        assert bps.complete and bps.count == count_plans(tracker, beliefs, tokens)
        for member in bps.plans:
            assert tracker.tokens_of(member.ground(task)) == tokens
        counts.append(bps.count)
        if plan is via_m1:
            a, b = (trace_of(task, m.ground(task)) for m in bps.plans)
            assert action_distance(a, b) == 0.5
            assert {m.names(task)[0] for m in bps.plans} == {"move c00 c10", "move c00 c01"}
    assert counts[0] == 2 and counts[1] >= 12
    assert counts[1] == 28  # our recreation: 12 through M2 plus 16 detours through M1


def test_final_filter_and_initial_alternatives() -> None:
    problem = example_problem("port")
    actions = problem.resolve(["acquire n1", "load red"])
    tokens, beliefs = plan_beliefs(problem.tracker, actions)
    red = problem.goals.by_name("red")
    assert count_plans(problem.tracker, beliefs, tokens) == 6
    assert count_plans(problem.tracker, beliefs, tokens, final=red.holds) == 2
    other = actions[0].apply(problem.task.init)  # pretend the observer cannot tell
    tracker = BeliefTracker(problem.task, problem.model,
                            initial_belief(problem.task, [other]))
    beliefs = tracker.sequence(tokens)
    assert len(beliefs[0]) == 2 and len(beliefs[-1]) == 6  # the alternative cannot emit acquire|4
