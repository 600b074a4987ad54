"""Tiny random observer instances and a brute-force oracle that shares no xaip code.

A *walk* instance is a directed graph whose edges carry a label ``a`` or ``b``; the agent
walks from ``n0`` and every node it enters becomes visited. The observer sees only the
label of each edge taken. The oracle enumerates action sequences on its own graph
representation, computes the belief from scratch (every sequence with the same labels) and
tests the definitions of the book directly.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass

from xaip.observers.goals import goals_from_data
from xaip.observers.problem import ObserverProblem
from xaip.observers.sensors import observers_from_data
from xaip.planning import ground
from xaip.planning.pddl import parse_domain, parse_problem

DOMAIN = """
(define (domain walk)
  (:requirements :strips :typing)
  (:types node label)
  (:predicates (at ?n - node) (edge ?a ?b - node) (label ?a ?b - node ?l - label)
               (visited ?n - node))
  (:action move
    :parameters (?a ?b - node)
    :precondition (and (at ?a) (edge ?a ?b))
    :effect (and (at ?b) (visited ?b) (not (at ?a)))))
"""

OBSERVER = {"observer": "labels",
            "rules": [{"actions": ["move"], "token": [{"values": "(label ?0 ?1 ?l)"}]}]}

State = tuple[str, frozenset[str]]  # (where, visited)


@dataclass(frozen=True)
class Walk:
    """One random instance: nodes, labelled edges and candidate goals ``(visited X)``."""

    nodes: tuple[str, ...]
    edges: tuple[tuple[str, str, str], ...]
    goals: tuple[str, ...]  # goal i is "node goals[i] visited"
    true: int

    def problem_text(self) -> str:
        facts = ["(at n0)"] + [f"(edge {a} {b}) (label {a} {b} l{x})" for a, b, x in self.edges]
        return (f"(define (problem walk) (:domain walk)\n"
                f"  (:objects {' '.join(self.nodes)} - node la lb - label)\n"
                f"  (:init {' '.join(facts)})\n"
                f"  (:goal (visited {self.goals[self.true]})))")

    def problem(self) -> ObserverProblem:
        domain, problem = parse_domain(DOMAIN), parse_problem(self.problem_text())
        task = ground(domain, problem)
        model = next(iter(observers_from_data(OBSERVER, task, "<walk>", domain).values()))
        goal_data = {"true": f"g{self.true}",
                     "goals": {f"g{i}": [f"(visited {n})"] for i, n in enumerate(self.goals)}}
        goals = goals_from_data(goal_data, task)
        return ObserverProblem(task, model, goals, domain, problem, name="walk")

    # ---------------------------------------------------------------- the oracle

    def steps(self, state: State) -> Iterator[tuple[str, str, State]]:
        where, visited = state
        for a, b, label in self.edges:
            if a == where:
                yield f"move {a} {b}", "l" + label, (b, visited | {b})

    def plans(self, length: int) -> Iterator[tuple[tuple[str, ...], tuple[str, ...], State]]:
        """Every (actions, labels, end state) of at most ``length`` steps."""
        stack: list[tuple[tuple[str, ...], tuple[str, ...], State]] = [
            ((), (), ("n0", frozenset()))]
        while stack:
            names, labels, state = stack.pop()
            yield names, labels, state
            if len(names) < length:
                for name, label, nxt in self.steps(state):
                    stack.append(((*names, name), (*labels, label), nxt))

    def view(self, labels: tuple[str, ...]) -> tuple[list[tuple[str, ...]], set[State]]:
        """The sequences emitting ``labels`` and the final belief."""
        same = [(n, s) for n, lab, s in self.plans(len(labels))
                if len(n) == len(labels) and lab == labels]
        return [n for n, _ in same], {s for _, s in same}

    def goals_left(self, belief: set[State]) -> set[int]:
        return {i for i, node in enumerate(self.goals) if any(node in v for _, v in belief)}

    def reaches(self, state: State) -> bool:
        return self.goals[self.true] in state[1]


def action_distance(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    union = set(a) | set(b)
    return 0.0 if not union else 1 - len(set(a) & set(b)) / len(union)


def passes(walk: Walk, mode: str, params: dict[str, float], names: tuple[str, ...],
           labels: tuple[str, ...], end: State) -> bool:
    """The book's definition of each mode, straight from the oracle's enumeration."""
    if not walk.reaches(end):
        return False
    bps, belief = walk.view(labels)
    left = walk.goals_left(belief)
    if mode == "legible-goal":
        return len(left) <= params["j"]
    if mode == "ambiguous":
        return len(left) >= params["k"]
    if not all(walk.reaches(s) for s in belief):
        return False
    pairs = [action_distance(a, b) for a, b in itertools.combinations(bps, 2)]
    if mode == "legible-plan":
        return len(bps) >= params["m"] and all(d <= params["d"] + 1e-9 for d in pairs)
    if mode == "diverse":
        return len(bps) >= params["l"] and all(d >= params["d"] - 1e-9 for d in pairs)
    raise ValueError(mode)


def random_walk(seed: int, n: int = 5, goals: int = 3) -> Walk:
    rng = random.Random(seed)
    nodes = tuple(f"n{i}" for i in range(n))
    edges = []
    for a in nodes:
        for b in rng.sample(nodes, rng.randint(1, 3)):
            if a != b:
                edges.append((a, b, rng.choice("ab")))
    chosen = tuple(rng.sample(nodes[1:], goals))
    return Walk(nodes, tuple(edges), chosen, rng.randrange(goals))
