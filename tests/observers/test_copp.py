"""The COPP search's outer loop over Δ, budgets, horizons and nodes."""

from __future__ import annotations

from xaip.observers.copp import copp_search
from xaip.observers.goals import goals_from_data, goals_in
from xaip.observers.legibility import legible_goal_plan
from xaip.observers.problem import ObserverProblem, example_problem
from xaip.observers.sensors import observers_from_data
from xaip.planning import ground
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.runtime import Budget, Status

GRAPH = """
(define (domain graph)
  (:requirements :strips :typing)
  (:types node label)
  (:predicates (at ?n - node) (edge ?a ?b - node) (label ?a ?b - node ?l - label))
  (:action move :parameters (?a ?b - node)
    :precondition (and (at ?a) (edge ?a ?b))
    :effect (and (at ?b) (not (at ?a)))))
"""

# Two equally cheap ways into n3: via n1 (labels a b) and via n2 (labels b a). After a b
# the observer also considers n5 (via n4), whose walk goes on to the confounder n7; after
# b a it does not. Only the second way gives a 1-legible plan to n6, but at Δ = 1 the
# second arrival in n3 is a duplicate of the first and is pruned.
EDGES = [("n0", "n1", "a"), ("n0", "n2", "b"), ("n1", "n3", "b"), ("n2", "n3", "a"),
         ("n0", "n4", "a"), ("n4", "n5", "b"), ("n3", "n6", "a"), ("n5", "n7", "a")]


def _graph_problem() -> ObserverProblem:
    facts = " ".join(f"(edge {a} {b}) (label {a} {b} l{x})" for a, b, x in EDGES)
    text = (f"(define (problem p) (:domain graph) (:objects n0 n1 n2 n3 n4 n5 n6 n7 - node "
            f"la lb - label) (:init (at n0) {facts}) (:goal (at n6)))")
    domain, problem = parse_domain(GRAPH), parse_problem(text)
    task = ground(domain, problem)
    observer = {"rules": [{"actions": "move", "token": [{"values": "(label ?0 ?1 ?l)"}]}]}
    model = next(iter(observers_from_data(observer, task, domain=domain).values()))
    goals = goals_from_data({"true": "six", "goals": {"six": ["(at n6)"],
                                                      "seven": ["(at n7)"]}}, task)
    return ObserverProblem(task, model, goals, domain, problem)


def _legible(problem: ObserverProblem):
    true, goals = problem.true_goal, problem.goals.goals
    return lambda node: true.holds(node.state) and len(goals_in(node.belief, goals)) <= 1


def test_delta_grows_until_the_pruned_path_is_explored() -> None:
    problem = _graph_problem()
    found = copp_search(problem.tracker, _legible(problem))
    assert found.status == Status.SOLVED and not found.cheapest
    assert found.plan(problem.task) == tuple(
        problem.resolve(["move n0 n2", "move n2 n3", "move n3 n6"]))
    assert found.delta == 2 and found.stats["iterations"] == 2
    assert found.stats["inexact_prunes"] == 1
    # blind guidance asks for a cheapest plan: one exact uniform-cost iteration, no Δ
    blind = legible_goal_plan(problem, j=1, heuristic="blind")
    assert blind.status == Status.SOLVED and blind.verified and blind.cheapest
    assert blind.plan == ("move n0 n2", "move n2 n3", "move n3 n6")
    assert blind.delta is None and blind.stats["iterations"] == 1
    assert blind.stats["inexact_prunes"] == 0
    # eq. 4.1 steers away from the confounder's side first, so Δ = 1 suffices
    guided = legible_goal_plan(problem, j=1, heuristic="hadd")
    assert guided.plan == blind.plan and guided.delta == 1 and guided.verified
    assert not guided.cheapest


def test_exhaustive_iteration_proves_unsolvable() -> None:
    problem = _graph_problem()
    # 1-legible within 2 steps: impossible (n6 is 3 steps away)
    result = legible_goal_plan(problem, j=1, max_cost=2)
    assert result.status == Status.UNSOLVABLE and result.verified
    assert result.check is not None and "exhaustive search" in result.check.details
    # Δ = 1 cut a path only through an approximate belief, so "unsolvable" may not be
    # answered there: the proof is the Δ = 2 iteration, which pruned nothing inexactly
    assert result.delta == 2 and result.stats["iterations"] == 2
    assert result.stats["inexact_prunes"] == 1


def test_one_node_budget_and_horizon() -> None:
    problem = example_problem("port")
    stopped = legible_goal_plan(problem, j=1, budget=Budget(max_nodes=1))
    assert stopped.status == Status.BUDGET_EXHAUSTED and not stopped.verified
    assert stopped.plan == ()
    short = legible_goal_plan(problem, j=1, horizon=1)
    assert short.status == Status.UNSOLVABLE and short.verified
    assert legible_goal_plan(problem, j=1, horizon=2).plan == ("load red", "acquire n1")


def test_nodes_carry_the_path() -> None:
    problem = example_problem("port")
    true, goals = problem.true_goal, problem.goals.goals
    outcome = copp_search(problem.tracker,
                          lambda n: true.holds(n.state) and len(goals_in(n.belief, goals)) <= 1)
    node = outcome.node
    assert node is not None
    assert [problem.task.actions[i].name for i in node.plan()] == ["load red", "acquire n1"]
    assert len(node.tokens()) == 2 and [len(b) for b in node.beliefs()] == [1, 1, 2]
    assert node.approximate(1) == (node.state,) and len(node.approximate(5)) == 2
