"""Grounding is checked against a brute-force lifted oracle.

The oracle enumerates every binding of every action by type, evaluates formulas directly
on sets of atoms (the lifted validator's evaluator, which shares no code with grounding)
and explores the whole state space. The grounded task must have exactly the same
reachable states, transitions (with costs) and goal states.
"""

from __future__ import annotations

import itertools
from collections import deque
from pathlib import Path

import pytest

from xaip.errors import UnsupportedFeature
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.planning.plans import _effects, _holds, _World
from xaip.planning.task import Task

CASES = Path(__file__).parent / "pddl_cases"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"

Transition = tuple[str, frozenset[Atom], int]


def lifted_space(
    domain: Domain, problem: Problem, limit: int = 20000
) -> tuple[dict[frozenset[Atom], set[Transition]], set[frozenset[Atom]]]:
    world = _World(domain, problem)
    init = frozenset(Atom(a.predicate, a.args) for a in problem.init)
    graph: dict[frozenset[Atom], set[Transition]] = {}
    queue = deque([init])
    goals = set()
    while queue:
        state = queue.popleft()
        if state in graph:
            continue
        assert len(graph) < limit, "oracle state space too large for this test"
        graph[state] = set()
        if _holds(problem.goal, state, {}, world):
            goals.add(state)
        for action in domain.actions:
            names = [p.name for p in action.parameters]
            domains = [world.of_type(p.type) for p in action.parameters]
            for values in itertools.product(*domains):
                binding = dict(zip(names, values, strict=True))
                if not _holds(action.precondition, state, binding, world):
                    continue
                adds: set[Atom] = set()
                deletes: set[Atom] = set()
                cost = _effects(action.effect, state, binding, world, adds, deletes)
                step_cost = int(cost) if world.uses_costs else 1
                successor = (state - deletes) | adds
                graph[state].add((" ".join((action.name, *values)), successor, step_cost))
                queue.append(successor)
    return graph, goals


def grounded_space(
    task: Task,
) -> tuple[dict[frozenset[Atom], set[Transition]], set[frozenset[Atom]]]:
    static = frozenset(task.static_facts)

    def atoms(state: int) -> frozenset[Atom]:
        return frozenset(task.true_facts(state)) | static

    graph: dict[frozenset[Atom], set[Transition]] = {}
    goals = set()
    queue = deque([task.init])
    seen = set()
    while queue:
        state = queue.popleft()
        if state in seen:
            continue
        seen.add(state)
        key = atoms(state)
        graph[key] = set()
        if task.is_goal(state):
            goals.add(key)
        for action in task.applicable(state):
            successor = action.apply(state)
            graph[key].add((action.name, atoms(successor), action.cost))
            queue.append(successor)
    return graph, goals


def assert_same_space(domain: Domain, problem: Problem) -> Task:
    task = ground(domain, problem)
    expected_graph, expected_goals = lifted_space(domain, problem)
    graph, goals = grounded_space(task)
    assert set(graph) == set(expected_graph)
    for state, transitions in expected_graph.items():
        assert graph[state] == transitions, f"transitions differ in {sorted(map(str, state))}"
    assert goals == expected_goals
    return task


def test_adl_domain_matches_lifted_oracle() -> None:
    domain = read_domain(CASES / "adl_domain.pddl")
    problem = read_problem(CASES / "adl_problem.pddl")
    task = assert_same_space(domain, problem)
    # Static facts are removed from the task but kept for rendering.
    assert Atom("door", ("hall", "kitchen")) in task.static_facts
    assert all(f.predicate != "door" for f in task.facts)
    # The disjunctive precondition of move becomes two variants only where both doors
    # exist; here each pair of rooms has one door, so one variant per move.
    assert len(task.action_index["move r1 hall kitchen"]) == 1
    # Costs come from the static cost function.
    (move,) = (task.actions[i] for i in task.action_index["move r1 attic hall"])
    assert move.cost == 3


@pytest.mark.parametrize(
    "domain_file, problem_file",
    [
        ("fetch/fetchworld-base-m.pddl", "fetch/problem1.pddl"),
        ("fetch/fetchworld-empty-m.pddl", "fetch/problem1.pddl"),
        ("radar/domain_robot.pddl", "radar/problem.pddl"),
    ],
)
def test_shared_domains_match_lifted_oracle(domain_file: str, problem_file: str) -> None:
    if not SHARED.exists():
        pytest.skip("../shared/data is not present")
    domain = read_domain(SHARED / "mrp" / domain_file)
    problem = read_problem(SHARED / "mrp" / problem_file)
    try:
        assert_same_space(domain, problem)
    except AssertionError as error:
        if "too large" in str(error):
            pytest.skip("state space too large for the brute-force oracle")
        raise


def test_statically_false_goal_is_unsolvable_not_an_error() -> None:
    domain = parse_domain(
        """(define (domain d) (:requirements :strips)
             (:predicates (p) (q) (s))
             (:action a :parameters () :precondition (p) :effect (q)))"""
    )
    problem = parse_problem(
        """(define (problem x) (:domain d) (:init (p)) (:goal (and (q) (s))))"""
    )
    task = ground(domain, problem)
    graph, goals = grounded_space(task)
    assert goals == set()
    assert len(graph) == 2


def test_probabilistic_effects_are_rejected_or_determinised() -> None:
    domain = parse_domain(
        """(define (domain coin) (:requirements :probabilistic-effects)
             (:predicates (heads) (tails) (tossed))
             (:action toss :parameters () :precondition (not (tossed))
               :effect (and (tossed) (probabilistic 1/2 (heads) 1/2 (tails)))))"""
    )
    problem = parse_problem(
        """(define (problem p) (:domain coin) (:init) (:goal (heads)))"""
    )
    with pytest.raises(UnsupportedFeature, match="probabilistic"):
        ground(domain, problem)
    task = ground(domain, problem, probabilistic="all-outcomes")
    names = sorted(a.name for a in task.actions)
    assert names == ["toss_o1", "toss_o2"]


def test_unreachable_actions_are_not_instantiated() -> None:
    domain = parse_domain(
        """(define (domain chain) (:requirements :strips :typing)
             (:types node)
             (:predicates (at ?n - node) (edge ?a ?b - node))
             (:action go :parameters (?a ?b - node)
               :precondition (and (at ?a) (edge ?a ?b)) :effect (and (at ?b) (not (at ?a)))))"""
    )
    problem = parse_problem(
        """(define (problem p) (:domain chain)
             (:objects n1 n2 n3 n4 - node)
             (:init (at n1) (edge n1 n2) (edge n2 n3) (edge n4 n1))
             (:goal (at n3)))"""
    )
    task = ground(domain, problem)
    assert sorted(a.name for a in task.actions) == ["go n1 n2", "go n2 n3"]
    assert Atom("at", ("n4",)) not in task.fact_index


def test_grounding_order_does_not_depend_on_string_hashing() -> None:
    """Tasks (and so search tie-breaking, plans and explanation statistics) must be the
    same in every process: Python salts string hashes per process, and exploration
    iterates sets."""
    import os
    import subprocess
    import sys

    rover = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "mrp" / "rover"
    domain, problem = rover / "original_domain.pddl", rover / "prob1.pddl"
    if not domain.exists():
        from xaip.demo import example_paths

        domain, problem = example_paths()
    script = ("import sys\nfrom xaip.planning.grounding import ground\n"
              "from xaip.planning.pddl import read_domain, read_problem\n"
              f"t = ground(read_domain({str(domain)!r}), read_problem({str(problem)!r}))\n"
              "print([a.name for a in t.actions])\n")
    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                              text=True, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_task_sharing_index_equals_the_constructor() -> None:
    """``Task.sharing_index`` (model-space searches) builds the task the constructor does,
    with the caller's fact index and the indexes the constructor would build."""
    from xaip.domains.generators import gripper

    domain, problem = gripper(3)
    task = ground(parse_domain(domain), parse_problem(problem))
    actions = task.actions[::2] + task.actions[:1]  # a repeated name: two indices
    fields = {"name": task.name, "facts": task.facts, "actions": actions, "init": task.init,
              "goal": task.goal, "goal_neg": task.goal_neg, "has_costs": True}
    shared = Task.sharing_index(task.fact_index, [a.name for a in actions], **fields)
    built = Task(**fields)  # type: ignore[arg-type]
    assert shared == built and shared.fact_index is task.fact_index
    assert shared.fact_index == built.fact_index
    assert shared.action_index == built.action_index
    assert len(shared.action_index[actions[0].name]) == 2
    assert (shared.static_facts, shared.axioms, shared.costs_ignored) == \
        (built.static_facts, built.axioms, built.costs_ignored)
    assert shared.close(task.init) == task.init
