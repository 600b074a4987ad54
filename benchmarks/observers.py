"""Observer-aware planning benchmark: COPP search vs Δ and size, brute force beside it; the
mixed-observer IP vs horizon, with the ⟨k, j⟩ search and brute force beside it; deceptive
paths vs grid size.

* COPP (k-ambiguous goal obfuscation, blind greedy search of :func:`copp_search`) on
  n×n grids (a coarse sensor: "moved" and which half, north or south, the robot is in;
  candidate goals three corners) and on logistics-style trucks (m factories × p
  packages, the adversary sees only "load"; goals: pairs of packages), for each
  starting Δ: status, final Δ, nodes expanded, seconds; then brute force (every plan up
  to the length bound, beliefs tracked along each) under ``--seconds``: plans tried,
  seconds, and the time ratio.
* Mixed observers on trucks of growing size: IP time vs horizon T, the best GD, the ⟨k, j⟩
  search for the IP's bounds, brute-force enumeration of every plan up to T (GD equal?).
* Deceptive paths on open n×n rooms: seconds, cells, path cost vs the shortest.

    python benchmarks/observers.py [--quick] [--json] [--seconds S]
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from xaip.observers.beliefs import BeliefTracker  # noqa: E402
from xaip.observers.copp import copp_search  # noqa: E402
from xaip.observers.deception import deceptive_plan, parse_grid  # noqa: E402
from xaip.observers.goals import goals_from_data, goals_in  # noqa: E402
from xaip.observers.mixed import (  # noqa: E402
    MixedObserver,
    enumerate_mixed,
    explore,
    make_inputs,
    solve_mixed,
)
from xaip.observers.sensors import ObservationModel  # noqa: E402
from xaip.planning import ground, parse_domain, parse_problem  # noqa: E402
from xaip.runtime import Budget, Status  # noqa: E402

GRID_DOMAIN = """(define (domain grid) (:requirements :strips :typing) (:types cell)
  (:predicates (robot-at ?c - cell) (adjacent ?a ?b - cell))
  (:action move :parameters (?a ?b - cell)
    :precondition (and (robot-at ?a) (adjacent ?a ?b))
    :effect (and (robot-at ?b) (not (robot-at ?a)))))"""
TRUCK_DOMAIN = (ROOT / "src/xaip/domains/observers/truck/domain.pddl").read_text()


def grid_task(n: int) -> tuple[Any, list[list[str]]]:
    cells = [f"c{x}_{y}" for x in range(n) for y in range(n)]
    adjacent = [f"(adjacent c{x}_{y} c{x + dx}_{y + dy})" for x in range(n) for y in range(n)
                for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1))
                if 0 <= x + dx < n and 0 <= y + dy < n]
    problem = (f"(define (problem g{n}) (:domain grid) (:objects {' '.join(cells)} - cell) "
               f"(:init (robot-at c0_0) {' '.join(adjacent)}) "
               f"(:goal (robot-at c{n - 1}_{n - 1})))")
    task = ground(parse_domain(GRID_DOMAIN), parse_problem(problem))
    corners = [(n - 1, n - 1), (n - 1, 0), (0, n - 1)]
    return task, [[f"(robot-at c{x}_{y})"] for x, y in corners]


def _half(task: Any, state: int, n: int) -> str:
    """A coarse sensor: which half of the grid (by y) the robot is in."""
    for i in range(len(task.facts)):
        if state >> i & 1 and task.facts[i].predicate == "robot-at":
            y = int(task.facts[i].args[0].split("_")[1])
            return "north" if 2 * y >= n else "south"
    return "?"


def truck_task(factories: int, per: int) -> tuple[Any, list[list[str]]]:
    packages = [f"p{f}{i}" for f in range(factories) for i in range(per)]
    names = [f"f{f}" for f in range(factories)]
    init = " ".join(f"(at p{f}{i} f{f})" for f in range(factories) for i in range(per))
    problem = (f"(define (problem t{factories}x{per}) (:domain truck) (:objects "
               f"{' '.join(packages)} - package {' '.join(names)} - factory) (:init {init}) "
               f"(:goal (and (loaded p00) (loaded p01))))")
    task = ground(parse_domain(TRUCK_DOMAIN), parse_problem(problem))
    goals = [[f"(loaded {a})", f"(loaded {b})"] for a, b in itertools.combinations(packages, 2)]
    return task, goals


def _goal_set(task: Any, goals: list[list[str]]) -> Any:
    return goals_from_data({"goals": {f"g{i}": g for i, g in enumerate(goals)}, "true": "g0"},
                           task)


def brute_force_ambiguous(tracker: BeliefTracker, goal_set: Any, k: int, depth: int,
                          seconds: float) -> tuple[str, int, float]:
    """Every plan up to ``depth`` steps, depth-first, beliefs tracked along each; stops at
    the first k-ambiguous plan. (status, plans tried, seconds)."""
    started = time.perf_counter()
    task, true = tracker.task, goal_set.true_goal
    tried = 0
    stack = [(task.init, tracker.initial, 0)]
    while stack:
        if time.perf_counter() - started > seconds:
            return "budget_exhausted", tried, time.perf_counter() - started
        state, belief, d = stack.pop()
        tried += 1
        if true.holds(state) and len(goals_in(belief, goal_set.goals)) >= k:
            return "solved", tried, time.perf_counter() - started
        if d == depth:
            continue
        for token, edges in tracker.successors(state).items():
            nxt = tracker.update(belief, token)
            for _, s2 in edges:
                stack.append((s2, nxt, d + 1))
    return "unsolvable", tried, time.perf_counter() - started


def copp_rows(quick: bool, seconds: float) -> list[dict[str, Any]]:
    rows = []
    cases: list[tuple[str, Any, list[list[str]], Any, int, int]] = []
    for n in (3, 4) if quick else (3, 4, 5, 6):
        task, goals = grid_task(n)
        model = ObservationModel.from_function(task, lambda a, s, t=task, n=n: ("move",
                                                                            _half(t, s, n)))
        cases.append((f"grid {n}x{n}", task, goals, model, 2, 2 * (n - 1) + 2))
    for factories, per in ((2, 2), (2, 3)) if quick else ((2, 2), (2, 3), (3, 3), (3, 4)):
        task, goals = truck_task(factories, per)
        model = ObservationModel.from_function(task, lambda a, s: (a.schema,))
        cases.append((f"truck {factories}x{per}", task, goals, model, len(goals), 2))
    for label, task, goals, model, k, depth in cases:
        goal_set = _goal_set(task, goals)
        true = goal_set.true_goal
        base = None
        for delta in (1, 2, 4) if quick else (1, 2, 4, 8):
            tracker = BeliefTracker(task, model)

            def test(node: Any, true: Any = true, goal_set: Any = goal_set, k: int = k) -> bool:
                return true.holds(node.state) and \
                    len(goals_in(node.belief, goal_set.goals)) >= k

            outcome = copp_search(tracker, test, None, budget=Budget(max_seconds=seconds),
                                  delta_start=delta, max_depth=depth)
            base = base or outcome.seconds
            rows.append({"table": "copp", "problem": label, "k": k, "delta_start": delta,
                         "status": str(outcome.status), "final_delta": outcome.delta,
                         "expanded": outcome.stats.get("expanded"),
                         "seconds": round(outcome.seconds, 4),
                         "vs_delta1": round(outcome.seconds / base, 2) if base else None})
        status, tried, took = brute_force_ambiguous(BeliefTracker(task, model), goal_set, k,
                                                    depth, seconds)
        rows.append({"table": "copp", "problem": label, "k": k, "delta_start": "brute force",
                     "status": status, "final_delta": None, "expanded": tried,
                     "seconds": round(took, 4),
                     "vs_delta1": round(took / base, 2) if base else None})
    return rows


def mixed_rows(quick: bool, seconds: float) -> list[dict[str, Any]]:
    rows = []
    sizes = ((2, 2), (2, 3)) if quick else ((2, 2), (2, 3), (3, 2), (3, 3))
    horizons = (2, 3, 4) if quick else (2, 3, 4, 6, 8)
    observers = (MixedObserver("X", "adversary", lambda a, s: a.schema),
                 MixedObserver("C", "friend", lambda a, s: f"{a.schema}|{a.args[-1]}"))
    warm_task, warm_goals = truck_task(2, 2)  # load HiGHS before anything is timed
    solve_mixed(warm_task, observers, warm_goals, true_goal=0, method="ip", horizon=1)
    for factories, per in sizes:
        task, goals = truck_task(factories, per)
        base = None
        for horizon in horizons:
            ip = solve_mixed(task, observers, goals, true_goal=0, method="ip", horizon=horizon,
                             budget=Budget(max_seconds=seconds))
            base = base or ip.seconds
            search = None
            if ip.status == Status.FOUND:  # the search for the IP's own bounds
                search = solve_mixed(task, observers, goals, true_goal=0, method="search",
                                     horizon=horizon,
                                     k=len(ip.goals_in_final_belief["X"]),
                                     j=len(ip.goals_in_final_belief["C"]),
                                     budget=Budget(max_seconds=seconds))
            inputs = make_inputs(task, observers, goals, 0)
            started = time.perf_counter()
            clock = Budget(max_seconds=seconds).start()
            space = explore(inputs, clock)
            best, _, scored, done = (None, (), 0, False) if space is None else \
                enumerate_mixed(space, horizon, clock)
            brute = time.perf_counter() - started
            rows.append({
                "table": "mixed", "problem": f"truck {factories}x{per}", "goals": len(goals),
                "states": ip.stats.get("states"), "T": horizon, "ip_status": str(ip.status),
                "gd": None if ip.score is None else round(ip.score, 3),
                "ip_vars": ip.stats.get("ip_variables"),
                "ip_seconds": round(ip.seconds, 3), "vs_T2": round(ip.seconds / base, 2),
                "search_status": search and str(search.status),
                "search_nodes": search and search.stats.get("nodes"),
                "search_seconds": search and round(search.seconds, 4),
                "brute_plans": scored, "brute_seconds": round(brute, 3) if done else None,
                "brute_gd_equal": (best is not None and ip.score is not None
                                   and abs(best - ip.score) < 1e-9)
                if done and ip.status == Status.FOUND else None})
    return rows


def deception_rows(quick: bool) -> list[dict[str, Any]]:
    rows = []
    for n in (10, 20) if quick else (10, 20, 40, 80):
        lines = ["." * n for _ in range(n)]
        lines[0] = "." * (n - 1) + "G"
        lines[n // 2] = "S" + "." * (n - 1)
        lines[n - 1] = "." * (n - 1) + "A"
        result = deceptive_plan(parse_grid("\n".join(lines), f"room{n}"))
        rows.append({"table": "deception", "problem": f"room {n}x{n}",
                     "status": str(result.status), "cost": result.cost,
                     "shortest": result.stats.get("optimal_cost"),
                     "ldp_to_goal": None if result.ldp is None else
                     result.ldp_index and result.cost - result.ldp_index,
                     "deceptive_steps": round(result.score or 0, 2),
                     "seconds": round(result.seconds, 4), "verified": result.verified})
    return rows


def _print(rows: list[dict[str, Any]]) -> None:
    table = None
    for row in rows:
        if row["table"] != table:
            table = row["table"]
            print(f"\n== {table} ==")
            print("  ".join(k for k in row if k != "table"))
        print("  ".join(str(v) for k, v in row.items() if k != "table"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only (~30 s)")
    parser.add_argument("--json", action="store_true", help="rows as JSON")
    parser.add_argument("--seconds", type=float, default=20.0,
                        help="budget per run (default 20)")
    args = parser.parse_args()
    rows = copp_rows(args.quick, args.seconds) + mixed_rows(args.quick, args.seconds) + \
        deception_rows(args.quick)
    if args.json:
        print(json.dumps(rows, indent=1))
    else:
        _print(rows)
    bad = [r for r in rows if r.get("brute_gd_equal") is False
           or r.get("verified") is False or r.get("ip_status") == Status.UNSOLVABLE]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
