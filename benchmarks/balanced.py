"""Balanced planning benchmark: MEGA* (the compilation) vs model-space search.

The original work (Sreedharan et al., AAAI'20) reports the compilation faster than
model-space search; this measures whether xaip's is. Per problem and objective it runs
``xaip.balanced.megastar.solve`` and ``model_space_search`` (exact mode) under the same
budget, unchecked (the independent checker is the same for both and is not what is
compared), and prints absolute seconds, the ratio model-space / MEGA* (> 1: MEGA* is
faster) and whether the two optimal values agree. Problems: the bundled USAR and Fetch
examples, the shared MRPs (``../shared/data/mrp``: blocksworld, logistics, rover; robot =
``original_domain``, person = ``domainN``), and the scaling series of the MCE benchmark
(``benchmarks/reconcile.py``): k = 1, 2, ... features removed from the logistics and rover
robot models, with the ``explicable-optimal`` objective (a robot-optimal plan and its
cheapest MCE, the balanced counterpart of an MCE).

``--check`` measures the independent checker instead (issue 21): per problem and
objective, the search's seconds and status, then the checker's seconds and verdict under
the same budget started afresh, and the ratio checker / search (target: at most ~3).

    python benchmarks/balanced.py [--quick] [--json] [--seconds S] [--objectives a,b]
    python benchmarks/balanced.py --check [--method compile|model-space] [--domains a,b]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xaip.balanced import BalancedProblem, BalancedResult, balanced_problem
from xaip.balanced.instances import usar_problem
from xaip.balanced.megastar import solve as megastar
from xaip.balanced.model_space import model_space_search
from xaip.balanced.objectives import Objective
from xaip.errors import InputError
from xaip.planning.features import Edit, FeatureKind, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.pddl import read_domain, read_problem
from xaip.runtime import Budget, Status

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "mrp"
FETCH = ROOT / "src" / "xaip" / "domains" / "fetch"
METHODS = ("compile", "model-space")


def problems(quick: bool) -> list[tuple[str, Any]]:
    """(label, builder(objective) -> BalancedProblem) for every benchmark problem."""
    out: list[tuple[str, Any]] = [
        ("usar (book)", lambda objective: usar_problem(objective)),
        ("fetch (book)", lambda objective: balanced_problem(
            read_domain(FETCH / "robot.pddl"), read_problem(FETCH / "problem.pddl"),
            read_domain(FETCH / "human.pddl"), objective=objective)),
    ]
    humans, tasks = ((1,), (1, 2)) if quick else ((1, 2, 3), (1, 2, 3, 4))
    for name in ("blocksworld", "logistics", "rover"):
        folder = DATA / name
        for human in humans:
            for task in tasks:
                out.append((f"{name} d{human} p{task}", _files(folder, human, task)))
    return out


def _files(folder: Path, human: int, task: int) -> Any:
    def build(objective: str) -> BalancedProblem:
        return balanced_problem(read_domain(folder / "original_domain.pddl"),
                                read_problem(folder / f"prob{task}.pddl"),
                                read_domain(folder / f"domain{human}.pddl"),
                                objective=objective)
    return build


def value(result: BalancedResult) -> float | None:
    """What the objective minimised (``None``: no finished answer)."""
    if result.status != Status.FOUND:
        return None
    if result.objective is Objective.BALANCED:
        return result.total
    if result.objective is Objective.EXPLICABLE:
        w = result.weights
        return w.alpha * (result.plan_cost or 0) + w.beta * result.explanation_cost
    return result.explanation_cost


def run_one(problem: BalancedProblem, method: str, seconds: float) -> dict[str, Any]:
    budget = Budget(max_seconds=seconds)
    start = time.perf_counter()
    if method == "compile":
        result = megastar(problem, budget=budget)
    else:
        result = model_space_search(problem, budget=budget)
    elapsed = time.perf_counter() - start
    return {"status": str(result.status), "seconds": elapsed, "value": value(result),
            "items": len(result.explanation), "plan_cost": result.plan_cost,
            "stats": dict(result.stats)}


def compare(label: str, problem: BalancedProblem, seconds: float) -> dict[str, Any]:
    row: dict[str, Any] = {"problem": label, "objective": str(problem.objective),
                           "differences": len(problem.differences)}
    for method in METHODS:
        row[method] = run_one(problem, method, seconds)
    a, b = row["compile"], row["model-space"]
    row["ratio"] = b["seconds"] / max(a["seconds"], 1e-9)
    row["agree"] = None if a["value"] is None or b["value"] is None else \
        math.isclose(a["value"], b["value"], rel_tol=1e-9, abs_tol=1e-9)
    print(f"  {label} [{row['objective']}]: compile {a['status']} {a['seconds']:.3f} s, "
          f"model-space {b['status']} {b['seconds']:.3f} s", file=sys.stderr, flush=True)
    return row


def scaling(name: str, ks: Sequence[int], seeds: int, seconds: float) -> list[dict[str, Any]]:
    """Median seconds of both methods for ``k`` robot features unknown to the person."""
    robot = read_domain(DATA / name / "original_domain.pddl")
    task = read_problem(DATA / name / "prob1.pddl")
    features = sorted(f for f in model_features(robot) if f.kind is not FeatureKind.COST)
    rows = []
    for k in ks:
        times: dict[str, list[float]] = {m: [] for m in METHODS}
        unfinished = {m: 0 for m in METHODS}
        disagreements = 0
        for seed in range(seeds):
            rng = random.Random(1000 * k + seed)  # the MCE benchmark's perturbations
            removed = rng.sample(features, min(k, len(features)))
            human, _ = apply_edits(robot, None, [Edit(f, "remove") for f in removed])
            try:
                problem = balanced_problem(robot, task, human,
                                           objective="explicable-optimal")
            except InputError:
                continue
            answers = {m: run_one(problem, m, seconds) for m in METHODS}
            for m in METHODS:
                times[m].append(answers[m]["seconds"])
                unfinished[m] += answers[m]["value"] is None
            values = [answers[m]["value"] for m in METHODS]
            if None not in values and not math.isclose(values[0], values[1]):
                disagreements += 1
        if not times["compile"]:
            continue
        median = {m: statistics.median(times[m]) for m in METHODS}
        print(f"  scaling {name} k={k}: compile {median['compile']:.3f} s, model-space "
              f"{median['model-space']:.3f} s", file=sys.stderr, flush=True)
        rows.append({"domain": name, "k": k, "runs": len(times["compile"]),
                     "compile_median": median["compile"],
                     "model_space_median": median["model-space"],
                     "ratio": median["model-space"] / max(median["compile"], 1e-9),
                     "unfinished": unfinished, "disagreements": disagreements})
    return rows


def check_one(label: str, problem: BalancedProblem, method: str,
              seconds: float) -> dict[str, Any]:
    """The search, then its checker under the same budget (started afresh)."""
    from xaip.balanced.check import check

    solve = megastar if method == "compile" else model_space_search
    start = time.perf_counter()
    result = solve(problem, budget=Budget(max_seconds=seconds))
    searched = time.perf_counter() - start
    start = time.perf_counter()
    report = check(problem, result, Budget(max_seconds=seconds))
    checked = time.perf_counter() - start
    row: dict[str, Any] = {
        "problem": label, "objective": str(problem.objective),
        "differences": len(problem.differences), "method": method,
        "search_status": str(result.status), "search_seconds": searched,
        "value": value(result), "check_seconds": checked, "verified": report.ok,
        "details": report.details, "ratio": checked / max(searched, 1e-9)}
    print(f"  {label} [{row['objective']}]: search {result.status} {searched:.2f} s, "
          f"check {report.ok} {checked:.2f} s", file=sys.stderr, flush=True)
    return row


def check_summary(rows: list[dict[str, Any]], seconds: float) -> dict[str, Any]:
    """Verified/total, and the checker/search ratio over the searches that finished."""
    finished = [r for r in rows if r["search_status"] != "budget_exhausted"]
    within = [r for r in finished if r["search_seconds"] <= 10.0]
    return {
        "budget_seconds": seconds, "runs": len(rows), "search_finished": len(finished),
        "verified": sum(r["verified"] is True for r in rows),
        "refuted": sum(r["verified"] is False for r in rows),
        "search_within_10s": len(within),
        "verified_within_10s": sum(r["verified"] is True for r in within),
        "median_ratio": statistics.median(r["ratio"] for r in finished) if finished else None,
        "max_ratio": max((r["ratio"] for r in finished), default=None),
    }


def print_checks(rows: list[dict[str, Any]]) -> None:
    print(f"{'problem':<22}{'objective':<20}{'diff':>5}{'search':>18}{'s':>8}"
          f"{'check s':>9}{'ratio':>7}  verdict")
    for r in rows:
        verdict = {True: "verified", False: "REFUTED", None: "unverified"}[r["verified"]]
        print(f"{r['problem']:<22}{r['objective']:<20}{r['differences']:>5}"
              f"{r['search_status']:>18}{r['search_seconds']:>8.2f}{r['check_seconds']:>9.2f}"
              f"{r['ratio']:>7.2f}  {verdict}")


def _seconds(run: dict[str, Any], budget: float) -> str:
    if run["status"] == "budget_exhausted":
        return f">{budget:.0f}"
    return f"{run['seconds']:.3f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer problems, k and seeds")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seconds", type=float, default=None,
                        help="budget per run (default 60, quick 20)")
    parser.add_argument("--objectives", default=None,
                        help="comma-separated objectives (default all three; quick: "
                             "balanced,explicable-optimal)")
    parser.add_argument("--check", action="store_true",
                        help="time the independent checker against the search")
    parser.add_argument("--method", default="compile", choices=METHODS,
                        help="the search whose answers --check checks (default compile)")
    parser.add_argument("--domains", default=None,
                        help="--check: comma-separated problem labels to keep (prefixes, "
                             "e.g. logistics,rover)")
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2
    seconds = args.seconds or (20.0 if args.quick else 60.0)
    default = "balanced,explicable-optimal" if args.quick else \
        ",".join(o.value for o in Objective)
    objectives = [o.strip() for o in (args.objectives or default).split(",") if o.strip()]
    for objective in objectives:
        if objective not in {o.value for o in Objective}:
            print(f"unknown objective {objective!r}", file=sys.stderr)
            return 2
    if args.check:
        keep = [d.strip() for d in (args.domains or "").split(",") if d.strip()]
        checked = [check_one(label, build(objective), args.method, seconds)
                   for label, build in problems(args.quick)
                   if not keep or any(label.startswith(k) for k in keep)
                   for objective in objectives]
        summary = check_summary(checked, seconds)
        if args.json:
            print(json.dumps({"rows": checked, "summary": summary}, indent=2))
        else:
            print_checks(checked)
            print(f"\nsummary: {json.dumps(summary)}")
        return 0
    rows = [compare(label, build(objective), seconds)
            for label, build in problems(args.quick) for objective in objectives]
    ks = [1, 2, 4, 6] if args.quick else [1, 2, 3, 4, 5, 6, 8, 10]
    seeds = 2 if args.quick else 3
    curve = scaling("logistics", ks, seeds, seconds) + scaling("rover", ks, seeds, seconds)
    both = [r for r in rows if r["compile"]["value"] is not None
            and r["model-space"]["value"] is not None]
    summary = {
        "runs": len(rows),
        "compile_finished": sum(r["compile"]["value"] is not None for r in rows),
        "model_space_finished": sum(r["model-space"]["value"] is not None for r in rows),
        "disagreements": sum(r["agree"] is False for r in rows),
        "median_ratio_both_finished": statistics.median(r["ratio"] for r in both)
        if both else None,
        "compile_faster": sum(r["ratio"] > 1 for r in both),
    }
    report = {"budget_seconds": seconds, "rows": rows, "scaling": curve, "summary": summary}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'problem':<22}{'objective':<20}{'diff':>5}{'compile s':>11}{'model s':>10}"
          f"{'ratio':>8}{'items':>7}  agree")
    for r in rows:
        a, b = r["compile"], r["model-space"]
        print(f"{r['problem']:<22}{r['objective']:<20}{r['differences']:>5}"
              f"{_seconds(a, seconds):>11}{_seconds(b, seconds):>10}{r['ratio']:>8.2f}"
              f"{a['items']:>7}  {r['agree']}")
    print(f"\nscaling (explicable-optimal, median of {seeds} seeds, budget {seconds:.0f} s)")
    print(f"{'domain':<11}{'k':>3}{'compile s':>11}{'model s':>10}{'ratio':>8}  unfinished")
    for r in curve:
        print(f"{r['domain']:<11}{r['k']:>3}{r['compile_median']:>11.3f}"
              f"{r['model_space_median']:>10.3f}{r['ratio']:>8.2f}  {r['unfinished']}")
    print(f"\nsummary: {json.dumps(summary)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
