"""Derived predicates (``:derived``) through reading, grounding, search, heuristics,
landmarks and validation, checked against an independent brute force.

The domain: blocks where ``(above ?x ?y)`` is the transitive closure of ``on`` (a
recursive rule) and ``(low ?x)`` holds when ``?x`` is at most one block high (a rule with
the negation of ``above``, so of a lower stratum). Stacking needs ``(low ?y)``, so towers
have at most three blocks, and goals ask for ``above`` and ``(not (above ...))``.

The brute force shares nothing with xaip's grounding or search: states are frozensets of
``on``/``ontable``/``holding`` facts, ``above`` and ``low`` are computed directly in
Python, and optimal costs come from breadth-first search over those states.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.errors import SemanticError, UnsupportedFeature, XaipError
from xaip.planning.engines import get_engine
from xaip.planning.engines.compiled import (
    CompiledEngine,
    core_available,
    evaluate,
    preferred_actions,
)
from xaip.planning.engines.grounded import task_pddl
from xaip.planning.grounding import ground, ground_skeleton
from xaip.planning.heuristics import make_heuristic
from xaip.planning.heuristics.relaxation import HFF
from xaip.planning.landmarks import find_landmarks
from xaip.planning.pddl import check_problem, parse_domain, parse_problem
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.planning.pddl.writer import write_domain
from xaip.planning.plans import parse_plan, validate
from xaip.planning.search import solve
from xaip.planning.search.successors import Successors
from xaip.planning.task import Task

DOMAIN = """(define (domain towers)
  (:requirements :strips :typing :derived-predicates :negative-preconditions)
  (:types block)
  (:predicates (on ?x - block ?y - block) (ontable ?x - block) (clear ?x - block)
               (holding ?x - block) (handempty)
               (above ?x - block ?y - block) (low ?x - block))
  (:action pick-up
    :parameters (?x - block)
    :precondition (and (clear ?x) (ontable ?x) (handempty))
    :effect (and (not (ontable ?x)) (not (clear ?x)) (not (handempty)) (holding ?x)))
  (:action put-down
    :parameters (?x - block)
    :precondition (holding ?x)
    :effect (and (not (holding ?x)) (clear ?x) (handempty) (ontable ?x)))
  (:action stack
    :parameters (?x - block ?y - block)
    :precondition (and (holding ?x) (clear ?y) (low ?y))
    :effect (and (not (holding ?x)) (not (clear ?y)) (clear ?x) (handempty) (on ?x ?y)))
  (:action unstack
    :parameters (?x - block ?y - block)
    :precondition (and (on ?x ?y) (clear ?x) (handempty))
    :effect (and (holding ?x) (clear ?y) (not (clear ?x)) (not (handempty))
                 (not (on ?x ?y))))
  (:derived (above ?x - block ?y - block)
    (or (on ?x ?y) (exists (?z - block) (and (on ?x ?z) (above ?z ?y)))))
  (:derived (low ?x - block)
    (not (exists (?z ?w - block) (and (above ?x ?z) (above ?z ?w)))))
)
"""

BLOCKS = ("a", "b", "c", "d")

# A state of the brute force: (frozenset of (x, y) with x on y, block held or None);
# blocks neither on something, held, nor ... are on the table.
BState = tuple[frozenset[tuple[str, str]], str | None]


def above(on: frozenset[tuple[str, str]]) -> set[tuple[str, str]]:
    """Transitive closure of ``on``, computed directly."""
    closure = set(on)
    while True:
        more = {(x, w) for x, y in closure for z, w in closure if y == z} - closure
        if not more:
            return closure
        closure |= more


def low(on: frozenset[tuple[str, str]]) -> set[str]:
    up = above(on)
    return {x for x in BLOCKS
            if not any((x, z) in up and (z, w) in up for z in BLOCKS for w in BLOCKS)}


def moves(state: BState) -> Iterator[BState]:
    on, held = state
    below = {y for _, y in on}
    clear = {x for x in BLOCKS if x not in below and x != held}
    if held is None:
        for x in clear:
            rest = frozenset(p for p in on if p[0] != x)
            yield rest, x  # pick-up (on the table) or unstack (from a block)
    else:
        yield on, None  # put-down
        lows = low(on)
        for y in clear:
            if y in lows:
                yield on | {(held, y)}, None


def distances(start: BState) -> dict[BState, int]:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        state = queue.popleft()
        for nxt in moves(state):
            if nxt not in seen:
                seen[nxt] = seen[state] + 1
                queue.append(nxt)
    return seen


Goal = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, str], ...]]


def satisfies(state: BState, goal: Goal) -> bool:
    up = above(state[0])
    return all(p in up for p in goal[0]) and not any(p in up for p in goal[1])


def optimal_cost(start: BState, goal: Goal) -> int | None:
    found = [d for s, d in distances(start).items() if satisfies(s, goal)]
    return min(found) if found else None


def problem_text(start: BState, goal: Goal) -> str:
    on, _ = start
    tops = {x for x, _ in on}
    below = {y for _, y in on}
    init = [f"(on {x} {y})" for x, y in sorted(on)]
    init += [f"(ontable {x})" for x in BLOCKS if x not in tops]
    init += [f"(clear {x})" for x in BLOCKS if x not in below]
    goals = [f"(above {x} {y})" for x, y in goal[0]]
    goals += [f"(not (above {x} {y}))" for x, y in goal[1]]
    return (f"(define (problem p) (:domain towers) (:objects {' '.join(BLOCKS)} - block)\n"
            f"  (:init {' '.join(init)} (handempty))\n  (:goal (and {' '.join(goals)})))\n")


def random_cases(count: int, seed: int = 7) -> list[tuple[BState, Goal]]:
    rng = random.Random(seed)
    start_states = [s for s in distances((frozenset(), None)) if s[1] is None]
    pairs = [p for p in itertools.permutations(BLOCKS, 2)]
    cases = []
    for _ in range(count):
        start = rng.choice(sorted(start_states, key=repr))
        goal = (tuple(rng.sample(pairs, 2)), tuple(rng.sample(pairs, 1)))
        cases.append((start, goal))
    return cases


CASES = [((frozenset({("a", "b"), ("b", "c")}), None),
          ((("c", "a"), ("d", "c")), (("a", "d"),)))] + random_cases(5)


def task_of(start: BState, goal: Goal) -> tuple[Domain, Problem, Task]:
    domain = parse_domain(DOMAIN)
    problem = parse_problem(problem_text(start, goal))
    return domain, problem, ground(domain, problem)


@pytest.mark.parametrize(("start", "goal"), CASES)
def test_costs_match_brute_force_and_plans_validate(start: BState, goal: Goal) -> None:
    domain, problem, task = task_of(start, goal)
    expected = optimal_cost(start, goal)
    for algorithm, heuristic, optimal in [("astar", "lmcut", True), ("ucs", "blind", True),
                                          ("astar", "hmax", True), ("gbfs", "hff", False),
                                          ("gbfs", "hadd", False)]:
        result = solve(task, algorithm, heuristic)
        if expected is None:
            assert result.status == "unsolvable", (algorithm, heuristic)
            continue
        assert result.status == "solved", (algorithm, heuristic)
        assert result.cost is not None
        if optimal:
            assert result.cost == expected, (algorithm, heuristic)
        else:
            assert result.cost >= expected
        steps = parse_plan("\n".join(str(a) for a in result.plan))
        checked = validate(domain, problem, steps)
        assert checked.valid and checked.cost == result.cost
        if steps:
            assert not validate(domain, problem, steps[:-1]).valid


def test_closed_states_match_the_independent_evaluator_and_heuristics_are_admissible() -> None:
    start, goal = CASES[0]
    _, _, task = task_of(start, goal)
    succ = Successors(task)
    derived_atoms = {task.facts[i] for i in range(task.num_facts) if (task.derived >> i) & 1}
    assert derived_atoms and task.axioms
    # Exhaustive state space of the grounded task, with each state's goal distance.
    parents: dict[int, list[int]] = {}
    order, queue = [task.init], deque([task.init])
    seen = {task.init}
    while queue:
        state = queue.popleft()
        for _, child, _ in succ(state):
            parents.setdefault(child, []).append(state)
            if child not in seen:
                seen.add(child)
                order.append(child)
                queue.append(child)
    assert len(seen) == len(distances(start))  # same reachable states as the brute force
    for state in seen:
        facts = set(task.true_facts(state))
        on = frozenset((a.args[0], a.args[1]) for a in facts if a.predicate == "on")
        expected = {Atom("above", p) for p in above(on)} | {Atom("low", (x,)) for x in low(on)}
        assert {a for a in facts if a in derived_atoms} == expected
        assert task.close(state) == state
    goal_distance = {s: 0 for s in seen if task.is_goal(s)}
    frontier = deque(goal_distance)
    while frontier:
        state = frontier.popleft()
        for parent in parents.get(state, ()):
            if parent not in goal_distance:
                goal_distance[parent] = goal_distance[state] + 1
                frontier.append(parent)
    for name in ("hmax", "lmcut"):
        h = make_heuristic(name, task)
        for state in seen:
            value = h(state)
            if state in goal_distance:
                assert value <= goal_distance[state], (name, task.format_state(state))
    for name in ("hadd", "hff"):
        h = make_heuristic(name, task)
        assert all(h(state) < float("inf") for state in goal_distance)


@pytest.mark.skipif(not core_available(), reason="the compiled core is not built")
@pytest.mark.parametrize(("start", "goal"), CASES)
def test_compiled_engine_evaluates_axioms_itself_with_the_brute_force_costs(
    start: BState, goal: Goal
) -> None:
    domain, problem, task = task_of(start, goal)
    expected = optimal_cost(start, goal)
    engine = get_engine("compiled")
    assert engine.unsupported(task) is None
    for algorithm, heuristic, optimal in [("astar", "lmcut", True), ("ucs", "blind", True),
                                          ("astar", "hmax", True), ("gbfs", "hff", False),
                                          ("gbfs", "hadd", False)]:
        for prune in (True, False):
            result = CompiledEngine(algorithm, heuristic, prune=prune).solve(
                task, optimal=optimal)
            assert result.engine == "compiled", (algorithm, heuristic)
            if expected is None:
                assert result.status == "unsolvable", (algorithm, heuristic)
                continue
            assert result.status == "solved" and result.cost is not None
            assert result.cost == expected if optimal else result.cost >= expected
            steps = parse_plan("\n".join(str(a) for a in result.plan))
            checked = validate(domain, problem, steps)
            assert checked.valid and checked.cost == result.cost, (algorithm, heuristic)
            if not prune:
                # without pruning the core expands what the Python reference expands
                reference = solve(task, algorithm, heuristic)
                assert result.expanded == reference.expanded, (algorithm, heuristic)


@pytest.mark.skipif(not core_available(), reason="the compiled core is not built")
def test_compiled_heuristics_equal_the_python_ones_on_every_reachable_state() -> None:
    _, _, task = task_of(*CASES[0])
    succ = Successors(task)
    seen, queue = {task.init}, deque([task.init])
    while queue:
        for _, child, _ in succ(queue.popleft()):
            if child not in seen:
                seen.add(child)
                queue.append(child)
    for name in ("blind", "hmax", "hadd", "hff", "lmcut"):
        h = make_heuristic(name, task)
        for state in seen:
            assert evaluate(task, name, state) == h(state), (name, task.format_state(state))
    hff = HFF(task)
    for state in seen:
        expected = sorted(set(hff.relaxed_plan(state) or ()))
        assert preferred_actions(task, state, prune=False) == expected, task.format_state(state)


def test_landmarks_include_derived_goals_and_axioms_as_achievers() -> None:
    _, _, task = task_of(*CASES[0])
    for method in ("rhw", "zg"):
        graph = find_landmarks(task, method)
        assert graph.solvable and graph.task is not None
        names = {str(graph.task.facts[f]) for lm in graph.landmarks for f in lm.facts}
        assert {"(above c a)", "(above d c)", "(holding c)", "(holding d)"} <= names


def test_round_trip_and_checks() -> None:
    domain = parse_domain(DOMAIN)
    assert parse_domain(write_domain(domain)) == domain
    assert [rule.name for rule in domain.derived] == ["above", "low"]
    with pytest.raises(SemanticError, match="cannot be an effect"):
        parse_domain(DOMAIN.replace("(clear ?x) (handempty) (on ?x ?y)))",
                                    "(clear ?x) (handempty) (above ?x ?y)))"))
    # A derived predicate may be a conditional effect's condition (IPC psr).
    guarded = parse_domain(DOMAIN.replace("(not (holding ?x)) (clear ?x) (handempty) (ontable ?x)",
                                          "(not (holding ?x)) (clear ?x) (handempty) (ontable ?x)"
                                          " (forall (?y - block) (when (above ?y ?x) (clear ?y)))"))
    assert guarded.derived == domain.derived
    with pytest.raises(SemanticError, match="not declared in :predicates"):
        parse_domain(DOMAIN.replace("(:derived (low ?x", "(:derived (lowest ?x"))
    with pytest.raises(SemanticError, match="takes 1 argument"):
        parse_domain(DOMAIN.replace("(:derived (low ?x - block)", "(:derived (low)"))
    with pytest.raises(SemanticError, match=r"^<string>:\d+:\d+: derived predicates are not "
                                            r"stratifiable: 'above'"):
        parse_domain(DOMAIN.replace("(and (on ?x ?z) (above ?z ?y))",
                                    "(and (on ?x ?z) (not (above ?z ?y)))"))
    problem = parse_problem(problem_text(*CASES[0]).replace("(handempty)",
                                                            "(handempty) (above a c)"))
    with pytest.raises(SemanticError, match="cannot be in :init"):
        check_problem(domain, problem)


def test_cli_plan_validate_landmarks_and_refusal(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem = tmp_path / "d.pddl", tmp_path / "p.pddl"
    domain.write_text(DOMAIN)
    problem.write_text(problem_text(*CASES[0]))
    plan_file = tmp_path / "plan.txt"
    assert main(["plan", str(domain), str(problem), "--optimal", "--output",
                 str(plan_file), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "solved" and payload["cost"] == 8
    assert main(["validate", str(domain), str(problem), str(plan_file)]) == 0
    assert main(["landmarks", str(domain), str(problem)]) == 0
    capsys.readouterr()
    cyclic = DOMAIN.replace("(and (above ?x ?z) (above ?z ?w))", "(and (above ?x ?z) (low ?z))")
    assert cyclic != DOMAIN
    domain.write_text(cyclic)
    assert main(["plan", str(domain), str(problem)]) == 2
    err = capsys.readouterr().err
    assert "not stratifiable" in err and "Traceback" not in err


def test_probabilistic_grounding_and_grounded_pddl_export_refuse_axioms_clearly() -> None:
    domain, problem, task = task_of(*CASES[0])
    with pytest.raises(UnsupportedFeature, match="derived predicates in a probabilistic task"):
        ground_skeleton(domain, problem)
    with pytest.raises(XaipError, match="derived predicates"):
        task_pddl(task)
