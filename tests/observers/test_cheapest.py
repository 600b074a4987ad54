"""Cheapest-plan claims (issue 21): ``--heuristic blind`` returns a cheapest passing plan,
says so, and the checker re-proves it; the checker runs under the search's budget."""

from __future__ import annotations

from dataclasses import replace

from xaip.contract import CHECKER_BUDGET
from xaip.observers.check import check
from xaip.observers.copp import copp_search
from xaip.observers.goals import goals_in
from xaip.observers.legibility import finish, legible_goal_plan
from xaip.observers.obfuscation import ambiguous_plan
from xaip.observers.problem import example_problem
from xaip.runtime import Budget, Status

from .tiny import passes, random_walk


def test_blind_ambiguity_is_cheapest_where_the_delta_search_is_not() -> None:
    """The reproducer the differential tests found: walk 36 (5 nodes), k = 3. The cheapest
    3-ambiguous plan costs 5 (n0 n4 n3 n4 n3 n2); the Δ = 1 search returned a cost-6 plan
    because the cheap path's second visit to n3 was pruned as a duplicate of its first,
    cheaper one under a smaller belief."""
    walk = random_walk(36, n=5, goals=3)
    problem = walk.problem()
    best = min(len(n) for n, lab, s in walk.plans(6)
               if passes(walk, "ambiguous", {"k": 3}, n, lab, s))
    assert best == 5
    true, goals = problem.true_goal, problem.goals.goals
    delta = copp_search(problem.tracker,
                        lambda n: true.holds(n.state) and len(goals_in(n.belief, goals)) >= 3)
    assert delta.node is not None and delta.node.g == 6 and not delta.cheapest
    blind = ambiguous_plan(problem, k=3, heuristic="blind")
    assert blind.cost == 5 and blind.cheapest and blind.verified
    guided = ambiguous_plan(problem, k=3, heuristic="hadd")
    assert guided.verified and not guided.cheapest  # a passing plan, no claim on its cost


def test_a_false_cheapest_claim_is_refuted() -> None:
    walk = random_walk(36, n=5, goals=3)
    problem = walk.problem()
    true, goals = problem.true_goal, problem.goals.goals
    outcome = copp_search(problem.tracker,
                          lambda n: true.holds(n.state) and len(goals_in(n.belief, goals)) >= 3)
    result = finish(problem, outcome, "ambiguous", {"k": 3, "max_cost": None, "horizon": None,
                                                    "decoys": None}, 0.0, with_bps=False)
    assert result.verified and result.cost == 6
    report = check(problem, replace(result, cheapest=True))
    assert report.ok is False and "not the cheapest" in report.details
    assert "(cost 5)" in report.details


def test_cheapest_within_a_horizon_and_a_bound() -> None:
    port = example_problem("port")
    best = legible_goal_plan(port, j=1, heuristic="blind", max_cost=4, horizon=3)
    assert best.cheapest and best.verified and best.cost == 2
    assert "no cheaper plan passes" in best.check.details


def test_checker_runs_under_the_search_budget() -> None:
    port = example_problem("port")
    found = ambiguous_plan(port, k=3, heuristic="blind")
    assert found.verified
    report = check(port, found, Budget(max_nodes=1))
    assert report.ok is None and report.details.startswith(CHECKER_BUDGET)
    # an unsolvable answer whose check runs out is not verified either
    none = legible_goal_plan(port, j=1, max_cost=1)
    assert none.status == Status.UNSOLVABLE and none.verified
    assert check(port, none, Budget(max_nodes=1)).details.startswith(CHECKER_BUDGET)


def test_goal_true_initially_is_the_empty_plan() -> None:
    """The empty plan passes when the goal holds initially and the test passes there: cost 0,
    solved, verified (book semantics: the empty plan is a plan)."""
    walk = random_walk(3, n=4, goals=2)
    problem = walk.problem()
    from xaip.observers.goals import GoalSet, make_goal

    atom = str(problem.task.facts[next(i for i in range(len(problem.task.facts))
                                       if problem.task.init >> i & 1)]).lower()
    goals = GoalSet((make_goal(problem.task, "here", [atom]), *problem.goals.goals), "here")
    start = replace(problem, goals=goals)
    found = legible_goal_plan(start, j=len(goals.goals), heuristic="blind")
    assert found.status == Status.SOLVED and found.plan == () and found.cost == 0
    assert found.verified and found.cheapest


def test_scoring_the_empty_plan_short_of_the_goal_is_checked() -> None:
    """Found by the differential tests: the empty plan scored where the true goal does not
    hold initially was 'not verified: no plan to check' (the checker took it for a search
    that found nothing); a scored plan is always re-checked."""
    from xaip.observers.legibility import legibility_score

    port = example_problem("port")
    scored = legibility_score(port, [])
    assert scored.status == Status.UNSOLVABLE and scored.plan == ()
    assert scored.verified and scored.beliefs == (1,) and scored.bps_count == 1


COSTED = """(define (domain roads) (:requirements :strips :typing :action-costs)
  (:types loc) (:predicates (at ?l - loc) (road ?a ?b - loc))
  (:functions (toll ?a ?b - loc) - number (total-cost) - number)
  (:action drive :parameters (?a ?b - loc) :precondition (and (at ?a) (road ?a ?b))
    :effect (and (not (at ?a)) (at ?b) (increase (total-cost) (toll ?a ?b)))))"""


def _roads(metric: bool, rules: list | None = None):
    from xaip.observers.goals import goals_from_data
    from xaip.observers.problem import ObserverProblem
    from xaip.observers.sensors import observers_from_data
    from xaip.planning import ground
    from xaip.planning.pddl import parse_domain, parse_problem

    text = ("(define (problem p) (:domain roads) (:objects a b c - loc) (:init (at a) "
            "(road a c) (road a b) (road b c) (= (toll a c) 5) (= (toll a b) 1) "
            "(= (toll b c) 1) (= (total-cost) 0)) (:goal (at c))"
            + (" (:metric minimize (total-cost))" if metric else "") + ")")
    domain, problem = parse_domain(COSTED), parse_problem(text)
    task = ground(domain, problem)
    model = next(iter(observers_from_data({"rules": rules or [{"token": ["name"]}]}, task,
                                          domain=domain).values()))
    goals = goals_from_data({"true": "c", "goals": {"c": ["(at c)"], "b": ["(at b)"]}}, task)
    return ObserverProblem(task, model, goals, domain, problem)


def test_costs_follow_the_one_semantics() -> None:
    """Declared costs count only under (:metric minimize (total-cost)); without the metric
    every action costs 1 (xaip.planning.semantics), in the search and in the checker."""
    tolls = legible_goal_plan(_roads(metric=True), j=2, heuristic="blind")
    assert tolls.plan == ("drive a b", "drive b c") and tolls.cost == 2 and tolls.verified
    steps = legible_goal_plan(_roads(metric=False), j=2, heuristic="blind")
    assert steps.plan == ("drive a c",) and steps.cost == 1 and steps.verified
    lie = replace(steps, cost=5)
    assert "cost 1 recomputed, 5 reported" in check(_roads(metric=False), lie).details


def test_tokens_that_print_alike_still_differ() -> None:
    """A ``holds`` part that is true and a constant ``"yes"`` both print as ``yes`` but are
    different tokens; the checker compares tokens, not their text (it once compared text
    and would have merged the two beliefs)."""
    from xaip.observers.legibility import legibility_score

    rules = [{"actions": ["drive"], "if": ["(at c)"], "token": [{"const": "yes"}]},
             {"token": [{"holds": "(at b)"}]}]
    roads = _roads(metric=False, rules=rules)
    scored = legibility_score(roads, ["drive a c"])
    assert scored.observations == ("yes",) and scored.beliefs == (1, 1)
    assert scored.verified
