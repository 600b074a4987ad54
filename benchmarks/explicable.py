"""Explicable planning benchmark: reconciliation search vs brute-force enumeration, and
design search with and without relevance pruning.

Per MRP of ``../shared/data/mrp`` (robot = original domain, person = domain N) and the
bundled restaurant tasks: the product-model planner (cost distance), then for a trace
distance the anytime reconciliation search and enumeration of every robot plan within the
bound (the robot's optimum + ``--slack``), each under ``--seconds``: status, IE, robot
cost, plans considered, nodes, seconds, and whether the two agree. Then design search on
the restaurant settings and random small grids, pruned and unpruned: configurations
evaluated, seconds, objectives equal.

    python benchmarks/explicable.py [--quick] [--json] [--seconds S] [--distance D]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from xaip.errors import XaipError  # noqa: E402
from xaip.explicable import design_search, explicable_plan, load_design, load_problem  # noqa: E402
from xaip.explicable.design import restaurant_spec  # noqa: E402
from xaip.explicable.search import reconciliation_search  # noqa: E402
from xaip.planning.engines import get_engine  # noqa: E402
from xaip.runtime import Budget  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "mrp"
RESTAURANT = restaurant_spec().parent


def problems(quick: bool) -> list[tuple[str, Path, Path, Path, Path | None]]:
    out: list[tuple[str, Path, Path, Path, Path | None]] = [
        (f"restaurant {t}", RESTAURANT / "domain.pddl", RESTAURANT / "domain.pddl",
         RESTAURANT / f"{t}.pddl", RESTAURANT / f"{t}-human.pddl") for t in ("b1", "b2")]
    for name in ("blocksworld", "logistics", "rover"):
        for human in (1,) if quick else (1, 2, 3):
            folder = DATA / name
            out.append((f"{name} d{human} p1", folder / "original_domain.pddl",
                        folder / f"domain{human}.pddl", folder / "prob1.pddl", None))
    return out


def _row(label: str, result: Any) -> dict[str, Any]:
    return {"run": label, "status": str(result.status), "ie": result.inexplicability,
            "robot_cost": result.robot_cost, "plans": result.candidates,
            "nodes": result.stats.get("expanded"), "seconds": round(result.seconds, 3),
            "verified": result.verified}


def plan_rows(quick: bool, seconds: float, distance: str, slack: int) -> list[dict[str, Any]]:
    rows = []
    for name, robot, human, problem, human_problem in problems(quick):
        try:
            task = load_problem(robot, human, problem, human_problem)
        except XaipError as error:
            rows.append({"problem": name, "error": str(error)[:100]})
            continue
        optimum = get_engine("builtin").solve(task.robot_task, optimal=True,
                                              budget=Budget(max_seconds=seconds))
        if optimum.cost is None:
            rows.append({"problem": name, "error": "no robot optimum within the time"})
            continue
        bound = optimum.cost + slack
        budget = Budget(max_seconds=seconds)
        product = explicable_plan(task, "cost", budget=budget)
        search = reconciliation_search(task, distance, bound, budget=budget)
        brute = explicable_plan(task, distance, bound, "enumerate", budget=budget)
        agree = None
        if search.status.finished and brute.status.finished:
            agree = (search.inexplicability, search.robot_cost) == \
                (brute.inexplicability, brute.robot_cost)
        rows.append({"problem": name, "bound": bound, "product": _row("product", product),
                     "search": _row("search", search), "enumerate": _row("enumerate", brute),
                     "agree": agree})
    return rows


def design_rows(quick: bool) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "tests"))
    from explicable.grids import random_design  # type: ignore[import-not-found]

    specs = [(f"restaurant {s}", load_design(restaurant_spec(), s)) for s in "abc"]
    with tempfile.TemporaryDirectory() as folder:
        for seed in range(2 if quick else 6):
            path = Path(folder) / str(seed)
            path.mkdir()
            specs.append((f"random grid {seed}", load_design(random_design(path, seed))))
        rows = []
        for name, spec in specs:
            start = time.perf_counter()
            pruned = design_search(spec, check=False)
            middle = time.perf_counter()
            full = design_search(spec, prune=False, check=False)
            end = time.perf_counter()
            rows.append({"problem": name, "modifications": len(spec.modifications),
                         "design": list(pruned.design), "objective": pruned.objective,
                         "baseline": pruned.baseline_objective,
                         "pruned_configurations": pruned.configurations,
                         "pruned_seconds": round(middle - start, 3),
                         "full_configurations": full.configurations,
                         "full_seconds": round(end - middle, 3),
                         "equal": pruned.objective == full.objective})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--distance", default="composite")
    parser.add_argument("--slack", type=int, default=2)
    args = parser.parse_args()
    plans = plan_rows(args.quick, args.seconds, args.distance, args.slack)
    designs = design_rows(args.quick)
    if args.json:
        print(json.dumps({"plans": plans, "designs": designs}, indent=2))
        return 0
    print(f"Explicable planning ({args.distance} distance; bound = robot optimum + "
          f"{args.slack}; {args.seconds:g} s per run)")
    for row in plans:
        if "error" in row:
            print(f"  {row['problem']}: {row['error']}")
            continue
        print(f"  {row['problem']} (bound {row['bound']}): agree={row['agree']}")
        for key in ("product", "search", "enumerate"):
            r = row[key]
            print(f"    {key:9} {r['status']:16} IE {r['ie']!s:>20} cost {r['robot_cost']!s:>4}"
                  f" plans {r['plans']:>6} nodes {r['nodes']!s:>7} {r['seconds']:>7} s"
                  f" verified={r['verified']}")
    print("Design search, pruned vs unpruned")
    for row in designs:
        print(f"  {row['problem']}: {len(row['design'])} change(s), objective "
              f"{row['objective']} (baseline {row['baseline']}); configurations "
              f"{row['pruned_configurations']} vs {row['full_configurations']}, "
              f"{row['pruned_seconds']} s vs {row['full_seconds']} s, equal={row['equal']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
