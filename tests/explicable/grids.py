"""Small random restaurant-like grids for brute-force comparisons (test helper)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from xaip.explicable.design import restaurant_spec

DOMAIN = restaurant_spec().parent / "domain.pddl"


def cell(c: tuple[int, int]) -> str:
    return f"c{c[0]}{c[1]}"


def passages(width: int, height: int) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    cells = [(x, y) for x in range(width) for y in range(height)]
    return [((x, y), (x + dx, y + dy)) for (x, y) in cells for dx, dy in ((1, 0), (0, 1))
            if (x + dx, y + dy) in cells]


def problem_text(width: int, height: int, opened: list, start: tuple[int, int],
                 goal: tuple[int, int]) -> str:
    cells = [(x, y) for x in range(width) for y in range(height)]
    facts = " ".join(f"(open {cell(a)} {cell(b)}) (open {cell(b)} {cell(a)})"
                     for a, b in opened)
    return (f"(define (problem grid) (:domain restaurant)\n"
            f"  (:objects {' '.join(cell(c) for c in cells)} - cell)\n"
            f"  (:init (at {cell(start)}) (food-at {cell(start)}) (hand-empty) {facts})\n"
            f"  (:goal (food-at {cell(goal)})))\n")


def random_design(folder: Path, seed: int, width: int = 3, height: int = 3,
                  tasks: int = 2, horizon: int = 6) -> Path:
    """A design problem: some passages blocked for the robot only, a barrier per blocked
    passage, random start and booths; returns the spec file."""
    rng = random.Random(seed)
    every = passages(width, height)
    blocked = rng.sample(every, rng.randint(2, 4))
    robot_open = [p for p in every if p not in blocked]
    cells = [(x, y) for x in range(width) for y in range(height)]
    start = rng.choice(cells)
    entries = []
    for i in range(tasks):
        goal = rng.choice([c for c in cells if c != start])
        (folder / f"t{i}.pddl").write_text(problem_text(width, height, robot_open, start, goal))
        (folder / f"t{i}-h.pddl").write_text(problem_text(width, height, every, start, goal))
        entries.append({"name": f"T{i}", "problem": f"t{i}.pddl",
                        "human_problem": f"t{i}-h.pddl", "probability": 1 / tasks})
    (folder / "domain.pddl").write_text(DOMAIN.read_text())
    mods = [{"name": f"barrier {cell(a)}-{cell(b)}", "cost": rng.choice([1, 2]),
             "human_init_remove": [f"(open {cell(a)} {cell(b)})", f"(open {cell(b)} {cell(a)})"]}
            for a, b in blocked]
    spec = {"robot_domain": "domain.pddl", "tasks": entries, "modifications": mods,
            "horizon": horizon, "discount": 0.9}
    path = folder / "design.json"
    path.write_text(json.dumps(spec))
    return path
