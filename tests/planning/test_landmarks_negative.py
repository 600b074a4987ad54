"""Landmarks with negative goals and preconditions, and landmark budgets (issue 16).

Why: the delete relaxation used to drop negative conditions, so a task whose goal is
``(not (ispoint pos0-4))`` (IPC snake) looked solved initially and got no landmarks, though
the snake's head must enter ``pos0-4`` on every plan. Negative conditions are now compiled
into positive "not p" facts first. Ground truth here is brute force on tiny tasks: a fact
set is a landmark iff no path from the initial state to a goal state avoids it (every
state on the path, the initial one included, lacks all of its facts).
"""

from __future__ import annotations

import json
import random
import time
from collections import deque
from dataclasses import replace
from pathlib import Path

import pytest

from tests.planning.test_landmarks import random_task
from xaip.cli import main
from xaip.planning.grounding import ground
from xaip.planning.landmarks import find_landmarks, is_landmark
from xaip.planning.landmarks.negations import compile_negations, negated_atom
from xaip.planning.pddl.model import Atom
from xaip.planning.pddl.reader import parse_domain, parse_problem
from xaip.planning.task import Task, mask_of
from xaip.runtime import Budget, Status

MARGIN = 10.0  # seconds on top of a budget: generous for a loaded test machine


def goal_reachable_avoiding(task: Task, avoid: int) -> bool:
    """Is a goal state reachable from the initial state through states with no ``avoid``
    fact? Breadth-first over the task's real (not relaxed) semantics."""
    if task.init & avoid:
        return False
    seen = {task.init}
    queue = deque([task.init])
    while queue:
        state = queue.popleft()
        if task.is_goal(state):
            return True
        for action in task.actions:
            if action.applicable(state):
                child = action.apply(state)
                if child & avoid or child in seen:
                    continue
                seen.add(child)
                queue.append(child)
    return False


def true_landmark(task: Task, facts: int) -> bool:
    return not goal_reachable_avoiding(task, facts)


# ---------------------------------------------------------------------------- snake-like

SNAKE = """
(define (domain snake-line) (:requirements :strips :negative-preconditions)
 (:predicates (head ?p) (point ?p) (blocked ?p) (adj ?p ?q))
 (:action move :parameters (?from ?to)
  :precondition (and (head ?from) (adj ?from ?to) (not (blocked ?to)) (not (point ?to)))
  :effect (and (head ?to) (not (head ?from))))
 (:action eat :parameters (?from ?to)
  :precondition (and (head ?from) (adj ?from ?to) (not (blocked ?to)) (point ?to))
  :effect (and (head ?to) (not (head ?from)) (not (point ?to)))))
"""

SNAKE_PROBLEM = """
(define (problem line) (:domain snake-line)
 (:objects p0 p1 p2 p3 p4)
 (:init (head p0) (point p3) (blocked p4)
        (adj p0 p1) (adj p1 p0) (adj p1 p2) (adj p2 p1) (adj p2 p3) (adj p3 p2)
        (adj p3 p4) (adj p4 p3))
 (:goal (not (point p3))))
"""


def snake_task() -> Task:
    return ground(parse_domain(SNAKE), parse_problem(SNAKE_PROBLEM))


@pytest.mark.parametrize("method", ["zg", "rhw"])
def test_snake_like_negative_goal_has_landmarks(method: str) -> None:
    task = snake_task()
    graph = find_landmarks(task, method)
    assert graph.complete and graph.solvable
    found = {str(task.facts[f]) for lm in graph.landmarks if not lm.disjunctive
             for f in lm.facts}
    for landmark in graph.landmarks:  # sound, by brute force
        assert true_landmark(task, mask_of(landmark.facts)), landmark
    # the head passes p1 and p2 to eat at p3 (preconditions: found by both methods)
    assert {"(head p1)", "(head p2)"} <= found
    if method == "zg":  # complete for relaxed landmarks: also the eating step's side effect
        assert "(head p3)" in found
    head_p3 = task.fact_index[Atom("head", ("p3",))]
    assert is_landmark(task, head_p3)
    assert true_landmark(task, 1 << head_p3)


def test_ipc_snake_shape_head_enters_the_point() -> None:
    """IPC snake p01's shape: goal only negative, landmark only a side effect."""
    task = snake_task()
    graph = find_landmarks(task, "zg")
    names = [lm.names(task) for lm in graph.landmarks]
    assert ["(head p3)"] in names
    assert all(lm.is_goal is False for lm in graph.landmarks)  # no positive goal facts


def test_compilation_adds_companion_facts() -> None:
    task = snake_task()
    positive = compile_negations(task)
    assert positive.facts[: task.num_facts] == task.facts
    point = task.fact_index[Atom("point", ("p3",))]
    companion = positive.fact_index[negated_atom(task.facts[point])]
    assert str(positive.facts[companion]) == "(not (point p3))"
    assert positive.goal >> companion & 1 and positive.goal_neg == 0
    assert not positive.init >> companion & 1  # (point p3) holds initially
    eats = [a for a in positive.actions if a.schema == "eat" and a.args[1] == "p3"]
    assert eats and all(a.add >> companion & 1 for a in eats)
    assert all(a.neg_pre == 0 for a in positive.actions)
    assert compile_negations(positive) is positive  # nothing negative is left
    no_negations = replace(task, goal_neg=0, actions=tuple(
        replace(a, neg_pre=0) for a in task.actions))
    assert compile_negations(no_negations) is no_negations


# ---------------------------------------------------------------------------- random tasks


def with_negative_goal(task: Task, rng: random.Random) -> Task:
    candidates = [f for f in range(task.num_facts) if not task.goal >> f & 1]
    return replace(task, goal_neg=1 << rng.choice(candidates))


@pytest.mark.parametrize("method", ["rhw", "zg"])
def test_random_negative_goal_landmarks_are_sound(method: str) -> None:
    rng = random.Random(16)
    solvable = gained = 0
    for seed in range(400):
        task = with_negative_goal(random_task(seed), rng)
        if not goal_reachable_avoiding(task, 0):
            continue  # no plan: every fact is vacuously a landmark
        solvable += 1
        graph = find_landmarks(task, method)
        assert graph.solvable and graph.complete
        for landmark in graph.landmarks:
            assert true_landmark(task, mask_of(landmark.facts)), (seed, landmark)
        # what the negation-blind relaxation would have found: strictly fewer, sometimes
        blind = replace(task, goal_neg=0, actions=tuple(
            replace(a, neg_pre=0, conditional=tuple(
                replace(e, cond_neg=0) for e in a.conditional)) for a in task.actions))
        before = {lm.facts for lm in find_landmarks(blind, method).landmarks}
        after = {lm.facts for lm in graph.landmarks}
        gained += bool(after - before)
    assert solvable >= 100
    assert gained >= 5  # the sample exercises landmarks only negations reveal


def test_every_relaxed_landmark_is_found_by_zg_with_negations() -> None:
    rng = random.Random(7)
    for seed in range(200):
        task = with_negative_goal(random_task(seed), rng)
        graph = find_landmarks(task, "zg")
        if not graph.solvable:
            continue
        found = {lm.facts[0] for lm in graph.landmarks}
        for f in range(task.num_facts):
            assert (f in found) == is_landmark(task, f), (seed, f)


# ---------------------------------------------------------------------------- budgets


def test_find_landmarks_budget_leaves_a_sound_incomplete_graph() -> None:
    task = snake_task()
    graph = find_landmarks(task, "zg", Budget(max_nodes=1))
    assert not graph.complete
    assert graph.to_dict()["status"] == Status.BUDGET_EXHAUSTED
    for landmark in graph.landmarks:
        assert true_landmark(task, mask_of(landmark.facts))


GRID = """
(define (domain grid-walk) (:requirements :strips :negative-preconditions)
 (:predicates (at ?p) (adj ?p ?q) (visited ?p))
 (:action walk :parameters (?from ?to)
  :precondition (and (at ?from) (adj ?from ?to) (not (visited ?to)))
  :effect (and (at ?to) (not (at ?from)) (visited ?to))))
"""


def grid_problem(side: int) -> str:
    cells = [f"c{x}-{y}" for x in range(side) for y in range(side)]
    adj = []
    for x in range(side):
        for y in range(side):
            for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
                if 0 <= x + dx < side and 0 <= y + dy < side:
                    adj.append(f"(adj c{x}-{y} c{x + dx}-{y + dy})")
    goal = " ".join(f"(visited {c})" for c in cells[1:])
    return f"""(define (problem g) (:domain grid-walk) (:objects {" ".join(cells)})
 (:init (at c0-0) (visited c0-0) {" ".join(adj)}) (:goal (and {goal})))"""


@pytest.mark.parametrize("method", ["rhw", "zg"])
def test_cli_landmarks_budget_ends_with_exit_1(method: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem = tmp_path / "d.pddl", tmp_path / "p.pddl"
    domain.write_text(GRID)
    problem.write_text(grid_problem(14))
    started = time.perf_counter()
    code = main(["landmarks", str(domain), str(problem), "--method", method,
                 "--max-seconds", "0.2", "--json"])
    assert time.perf_counter() - started < 0.2 + MARGIN
    payload = json.loads(capsys.readouterr().out)
    assert code == 1
    assert payload["status"] == "budget_exhausted"


def test_cli_landmarks_without_budget_finishes(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    domain, problem = tmp_path / "d.pddl", tmp_path / "p.pddl"
    domain.write_text(SNAKE)
    problem.write_text(SNAKE_PROBLEM)
    code = main(["landmarks", str(domain), str(problem), "--method", "zg", "--json"])
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["status"] == "complete"
    assert ["(head p3)"] in [lm["facts"] for lm in payload["landmarks"]]
