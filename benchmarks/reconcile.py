"""Model reconciliation benchmark: xaip's in-process MEGA vs process-per-node planning.

Prints, per MRP of ``../shared/data/mrp`` (and the bundled Fetch example): MCE size,
seconds, model-space nodes, planner calls and cache hits. The baseline does what the
reference implementation (TathagataChakraborti/mmp) does: for every model-space node,
write the updated model to PDDL files and run one external optimal-planner process
(Fast Downward ``astar(lmcut())`` when installed, else ``xaip plan --optimal`` in a new
Python process); it runs on the first MRPs (``--baseline N``) and the speed-up ratio is
printed. Then a scaling curve: MCE time for k = 1..20 features removed from the logistics
and rover robot models (instances drawn by ``xaip.generate.random_mrp``).

``--checker`` measures the independent checker against the search instead: per instance
(bundled Fetch, the shared MRPs, ``--random N`` MRPs of the differential generator
``tests/differential/reconcile.py``) the search's seconds (the whole ``explain`` call but
its check), the checker's seconds and their ratio, then the median and max ratio per
explanation type (target: median at most ~3x), with the states the checker's optimality
proofs expanded and the LM-cut certificates they rejected. ``--check-heuristic hmax``
runs the checker's proofs with h^max instead of the certified LM-cut (the comparison).
``--repeat K`` times each explanation K times and keeps the fastest search and check (the
random instances' sub-millisecond times vary by up to 2x between runs on a busy machine);
``--no-shared`` leaves out the shared MRPs.

    python benchmarks/reconcile.py [--quick] [--json] [--baseline N] [--scaling-only]
    python benchmarks/reconcile.py --checker [--random N] [--types mce,mme,contrastive]
                                   [--check-heuristic lmcut-certified|hmax]
                                   [--repeat K] [--no-shared]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import xaip.planning.proofs as proof_choice
from xaip.errors import InputError
from xaip.generate import random_mrp, robot_plan
from xaip.generate.mrp import edit_pool
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, search_counts
from xaip.planning.engines.fast_downward import fd_available, fd_solve
from xaip.planning.features import FeatureKind
from xaip.planning.pddl import read_domain, read_problem, write_domain, write_problem
from xaip.planning.plans import validate
from xaip.reconcile import BudgetExhausted, explain, load_mrp, make_mrp, parse_foil
from xaip.reconcile.goals import Verdict
from xaip.reconcile.search import mce_search
from xaip.reconcile.space import ModelSpace
from xaip.runtime import Budget

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "mrp"
FETCH = ROOT / "src" / "xaip" / "domains" / "fetch"


def mrp_files() -> list[tuple[str, Path, Path, Path]]:
    out = [("fetch (book)", FETCH / "robot.pddl", FETCH / "human.pddl", FETCH / "problem.pddl")]
    for name in ("blocksworld", "logistics", "rover"):
        for human in (1, 2, 3):
            for problem in (1, 2, 3, 4):
                folder = DATA / name
                out.append((f"{name} d{human} p{problem}", folder / "original_domain.pddl",
                            folder / f"domain{human}.pddl", folder / f"prob{problem}.pddl"))
    out.append(("radar", DATA / "radar" / "domain_robot.pddl",
                DATA / "radar" / "domain_human.pddl", DATA / "radar" / "problem.pddl"))
    return out


class ProcessPerNodeTest:
    """The reference implementation's goal test: PDDL files + one planner process per node."""

    name = "process-per-node"

    def __init__(self, space: ModelSpace, mrp: Any, use_fd: bool) -> None:
        self.space, self.mrp, self.use_fd = space, mrp, use_fd
        self.calls = 0

    def __call__(self, subset: tuple[int, ...]) -> Verdict:
        domain, problem = self.space.model(subset)
        result = validate(domain, problem, self.mrp.plan)  # the reference ran VAL here
        if not result.valid:
            return Verdict(False, False, None)
        self.calls += 1
        cost = self._optimal_cost(write_domain(domain), write_problem(problem))
        explained = cost is not None and cost >= int(result.cost or 0)
        return Verdict(explained, True, int(result.cost or 0))

    def _optimal_cost(self, domain_text: str, problem_text: str) -> int | None:
        if self.use_fd:
            answer = fd_solve(domain_text, problem_text, search="astar(lmcut())",
                              budget=Budget(max_seconds=120))
            return None if answer.cost is None else int(answer.cost)
        with tempfile.TemporaryDirectory() as folder:
            d, p = Path(folder) / "domain.pddl", Path(folder) / "problem.pddl"
            d.write_text(domain_text)
            p.write_text(problem_text)
            out = subprocess.run(
                [sys.executable, "-m", "xaip.cli", "plan", str(d), str(p), "--optimal",
                 "--json"], capture_output=True, text=True, check=False)
            if out.returncode != 0:
                return None
            return int(json.loads(out.stdout)["cost"])


def run_mrp(label: str, robot: Path, human: Path, problem: Path,
            seconds: float = 300.0) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        engine = DEFAULT_ENGINE  # the compiled core when it was built (the user's default)
        mrp = load_mrp(robot, human, problem, budget=Budget(max_seconds=seconds), engine=engine)
        explanation = explain(mrp, "mce", budget=Budget(max_seconds=seconds), engine=engine)
    except (InputError, BudgetExhausted) as error:  # e.g. no optimal robot plan within the budget
        print(f"  {label}: not explained within {seconds:.0f} s ({error})", file=sys.stderr,
              flush=True)
        return {"mrp": label, "differences": None, "size": None,
                "seconds": time.perf_counter() - start, "total_seconds": None, "nodes": None,
                "planner_calls": None, "cache_hits": None, "verified": False,
                "error": str(error)}
    stats = explanation.stats
    check_seconds = float(stats.get("check_seconds", 0.0))
    print(f"  {label}: size {explanation.size}, {explanation.seconds - check_seconds:.3f} s "
          f"(+ {check_seconds:.3f} s check)", file=sys.stderr, flush=True)
    return {
        "mrp": label, "differences": explanation.difference_size, "size": explanation.size,
        "seconds": explanation.seconds - check_seconds, "check_seconds": check_seconds,
        "total_seconds": time.perf_counter() - start,
        "nodes": stats["nodes"], "planner_calls": stats["planner_calls"],
        "cache_hits": stats["cache_hits"], "verified": explanation.verified,
    }


def run_baseline(robot: Path, human: Path, problem: Path, use_fd: bool) -> dict[str, Any]:
    mrp = load_mrp(robot, human, problem)
    space = ModelSpace(mrp.robot_domain, mrp.robot_problem, mrp.human_domain,
                       mrp.human_problem)
    test = ProcessPerNodeTest(space, mrp, use_fd)
    start = time.perf_counter()
    outcome = mce_search(space, test, mrp.plan_names, Budget(max_seconds=600), relevance=False)
    return {"seconds": time.perf_counter() - start, "size": len(outcome.subset),
            "nodes": outcome.nodes, "processes": test.calls}


def scaling(name: str, ks: Sequence[int], seeds: int) -> list[dict[str, Any]]:
    robot = read_domain(DATA / name / "original_domain.pddl")
    problem = read_problem(DATA / name / "prob1.pddl")
    # the domain's own features (the human lacks k of them), drawn by xaip.generate
    kinds = (FeatureKind.PRECONDITION, FeatureKind.NEGATIVE_PRECONDITION,
             FeatureKind.ADD_EFFECT, FeatureKind.DELETE_EFFECT)
    available = len(edit_pool(robot, problem, "remove", kinds))
    plan = robot_plan(robot, problem, check=False)  # the benchmark times explanations
    rows = []
    for k in ks:
        times, sizes, nodes = [], [], []
        for seed in range(seeds):
            instance = random_mrp(robot, problem, min(k, available), 1000 * k + seed,
                                  kinds=kinds, plan=plan, check=False)
            mrp = make_mrp(robot, problem, instance.human_domain, instance.human_problem,
                           plan=instance.plan)
            start = time.perf_counter()
            # Search time only: no time is left for the independent check here (the main
            # table measures the checker).
            explanation = explain(mrp, "mce", budget=Budget(max_seconds=120),
                                  check_budget=Budget(max_seconds=0))
            times.append(time.perf_counter() - start)
            sizes.append(explanation.size)
            nodes.append(explanation.stats["nodes"])
        print(f"  scaling {name} k={k}: median {statistics.median(times):.3f} s", file=sys.stderr,
              flush=True)
        rows.append({"domain": name, "k": k, "median_seconds": statistics.median(times),
                     "max_seconds": max(times), "mean_size": statistics.mean(sizes),
                     "mean_nodes": statistics.mean(nodes)})
    return rows


def timed(mrp: Any, kind: str, seconds: float, *, repeat: int = 1, **options: Any
          ) -> dict[str, Any]:
    """One explanation: the search's and the checker's seconds and their ratio, and the
    states expanded by the checker's proofs (its A* runs with
    :data:`xaip.planning.proofs.CHECK_HEURISTIC`; the explainers never use that heuristic).
    With ``repeat`` > 1 the explanation is made that many times and each time (search,
    model-space search alone, check) is the fastest of the runs: on a busy machine one
    run's sub-millisecond times vary by up to 2x (the proof counts are the first run's).
    Garbage is collected before each run, so that no instance pays for the collection of
    the ones before it (a full collection costs milliseconds once the shared MRPs are
    loaded, which used to land on the same few sub-millisecond checks in every run)."""
    searches, alones, checks = [], [], []
    proofs = search_counts(proof_choice.CHECK_HEURISTIC)
    for run in range(max(1, repeat)):
        gc.collect()
        began = time.perf_counter()
        explanation = explain(mrp, kind, budget=Budget(max_seconds=seconds), **options)
        total = time.perf_counter() - began
        if run == 0:
            after = search_counts(proof_choice.CHECK_HEURISTIC)
            first = explanation
        check = float(explanation.stats.get("check_seconds", 0.0))
        checks.append(check)
        searches.append(total - check)
        # the model-space search alone (without the session's set-up: compiling the model
        # space, the human's optimum before): the stricter ratio
        alones.append(max(explanation.seconds - check, 1e-6))
    explanation = first
    search, alone, check = min(searches), min(alones), min(checks)
    return {"type": kind + (" grounded" if options.get("grounded") else ""),
            "search_seconds": search, "check_seconds": check,
            "ratio": check / max(search, 1e-6), "strict_ratio": check / alone,
            "verified": explanation.verified,
            "size": explanation.size,
            "proof_states": after["expanded"] - proofs["expanded"],
            "proofs": after["searches"] - proofs["searches"],
            "rejected": after["rejected"] - proofs["rejected"]}


def checker_rows(random_count: int, kinds: Sequence[str], seconds: float,
                 quick: bool, repeat: int = 1, shared: bool = True
                 ) -> list[dict[str, Any]]:
    """Search vs checker time on Fetch, the shared MRPs (unless not ``shared``) and
    ``random_count`` random MRPs (each timed as the fastest of ``repeat`` runs)."""
    rows = []
    files = mrp_files()
    if quick:
        files = files[:1] + files[1::6]
    if not shared:
        files = files[:1]
    # warm up (the checker's modules are imported lazily, at the first check)
    warm = load_mrp(*files[0][1:])
    for kind in kinds:
        warming: dict[str, Any] = {"foils": [parse_foil(
            "avoid:" + warm.plan_names[0].split()[0])]} if kind == "contrastive" else {}
        timed(warm, kind, seconds, **warming)
    for label, robot, human, problem in files:
        mrp = load_mrp(robot, human, problem, budget=Budget(max_seconds=seconds))
        for kind in kinds:
            if kind == "mme" and label != "fetch (book)":
                continue  # MME checks every superset: only the small Fetch MRP
            options: dict[str, Any] = {"foils": [parse_foil(
                "avoid:" + mrp.plan_names[0].split()[0])]} if kind == "contrastive" else {}
            row = {"mrp": label, "source": "shared" if label != "fetch (book)" else "fetch",
                   **timed(mrp, kind, seconds, repeat=repeat, **options)}
            rows.append(row)
            print(f"  {label} {kind}: search {row['search_seconds']:.3f} s, check "
                  f"{row['check_seconds']:.3f} s ({row['ratio']:.1f}x)", file=sys.stderr,
                  flush=True)
    sys.path.insert(0, str(ROOT))
    from tests.differential.reconcile import instance

    for seed in range(random_count):
        case = instance(seed)
        if case.mrp is None or not case.differences:
            continue
        for kind in kinds:
            options = {}
            if kind == "contrastive":
                options = {"foils": [parse_foil(f"{case.foil[0]}:{case.foil[1]}")]}
            try:
                row = {"mrp": f"random {seed}", "source": "random",
                       **timed(case.mrp, kind, seconds, repeat=repeat,
                             **options)}
            except InputError:
                continue  # e.g. no explanation exists for this type
            rows.append(row)
    return rows


def print_checker(rows: Sequence[dict[str, Any]], show: bool = True) -> dict[str, Any]:
    """Median and max ratio (checker / search) per source and type."""
    summary: dict[str, Any] = {}
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["source"], row["type"]), []).append(row)
        groups.setdefault(("all", row["type"]), []).append(row)
    out = sys.stdout if show else sys.stderr
    print(f"{'source':<8}{'type':<13}{'n':>5}{'search s':>10}{'check s':>10}"
          f"{'median x':>10}{'max x':>9}{'strict median/max x':>22}{'verified':>10}"
          f"{'proofs':>8}{'states':>11}{'rejected':>9}", file=out)
    for (source, kind), group in sorted(groups.items()):
        ratios = [r["ratio"] for r in group]
        strict = [r["strict_ratio"] for r in group]
        entry = {"instances": len(group), "median_ratio": statistics.median(ratios),
                 "max_ratio": max(ratios), "strict_median_ratio": statistics.median(strict),
                 "strict_max_ratio": max(strict),
                 "search_seconds": sum(r["search_seconds"] for r in group),
                 "check_seconds": sum(r["check_seconds"] for r in group),
                 "verified": sum(1 for r in group if r["verified"]),
                 "proofs": sum(r["proofs"] for r in group),
                 "proof_states": sum(r["proof_states"] for r in group),
                 "rejected": sum(r["rejected"] for r in group)}
        summary[f"{source} {kind}"] = entry
        print(f"{source:<8}{kind:<13}{len(group):>5}{entry['search_seconds']:>10.2f}"
              f"{entry['check_seconds']:>10.2f}{entry['median_ratio']:>10.1f}"
              f"{entry['max_ratio']:>9.1f}{entry['strict_median_ratio']:>12.1f}/"
              f"{entry['strict_max_ratio']:<9.1f}{entry['verified']:>6}/{len(group):<4}"
              f"{entry['proofs']:>8}{entry['proof_states']:>11}{entry['rejected']:>9}",
              file=out)
    return summary


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer MRPs, k and seeds")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--baseline", type=int, default=None, metavar="N",
                        help="run the process-per-node baseline on the first N MRPs")
    parser.add_argument("--seconds", type=float, default=120.0,
                        help="budget per MRP (default 120)")
    parser.add_argument("--scaling-only", action="store_true",
                        help="only the scaling series (k = 1..20 removed features)")
    parser.add_argument("--checker", action="store_true",
                        help="checker vs search seconds per instance (median/max ratio)")
    parser.add_argument("--random", type=int, default=100, metavar="N",
                        help="with --checker: random MRPs of the differential generator")
    parser.add_argument("--types", default="mce",
                        help="with --checker: explanation types, comma-separated")
    parser.add_argument("--repeat", type=int, default=1, metavar="K",
                        help="with --checker: time each explanation K times, keep the "
                             "fastest search and the fastest check (default 1)")
    parser.add_argument("--no-shared", action="store_true",
                        help="with --checker: only Fetch and the random MRPs")
    parser.add_argument("--check-heuristic", default=proof_choice.CHECK_HEURISTIC,
                        choices=(CERTIFIED_LMCUT, "hmax"),
                        help="with --checker: the heuristic of the checker's proofs")
    args = parser.parse_args(argv)
    proof_choice.CHECK_HEURISTIC = args.check_heuristic
    if not DATA.is_dir():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2
    if args.checker:
        kinds = [k for k in args.types.split(",") if k]
        if args.repeat < 1:
            print("--repeat must be at least 1", file=sys.stderr)
            return 2
        rows = checker_rows(args.random, kinds, args.seconds, args.quick, args.repeat,
                            not args.no_shared)
        if args.json:
            print(json.dumps({"rows": rows, "summary": print_checker(rows, False)}, indent=2))
        else:
            print_checker(rows)
        return 0
    if args.scaling_only:
        ks = [1, 2, 4, 8] if args.quick else list(range(1, 21))
        seeds = 2 if args.quick else 3
        print_scaling(scaling("logistics", ks, seeds) + scaling("rover", ks, seeds))
        return 0
    files = mrp_files()
    if args.quick:
        files = files[:1] + files[1::6]
    parser_seconds = args.seconds
    rows = [run_mrp(*item, seconds=parser_seconds) for item in files]
    use_fd = fd_available()
    baseline_n = args.baseline if args.baseline is not None else (2 if args.quick else 6)
    baseline = []
    for item, row in zip(files[:baseline_n], rows, strict=False):
        base = run_baseline(*item[1:], use_fd=use_fd)
        base["mrp"] = item[0]
        base["speedup"] = base["seconds"] / max(row["seconds"], 1e-9)
        baseline.append(base)
    ks = [1, 2, 4, 8] if args.quick else list(range(1, 21))
    seeds = 2 if args.quick else 3
    curve = scaling("logistics", ks, seeds) + scaling("rover", ks, seeds)
    report = {"mrps": rows, "baseline_engine": "fast-downward" if use_fd else "xaip process",
              "baseline": baseline, "scaling": curve,
              "median_seconds": statistics.median(r["seconds"] for r in rows)}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{'MRP':<22}{'diff':>5}{'size':>5}{'seconds':>9}{'nodes':>7}{'calls':>7}"
          f"{'hits':>6}{'check s':>9}  verified")
    for r in rows:
        if r["size"] is None:
            print(f"{r['mrp']:<22} not explained in {r['seconds']:.0f} s: {r['error']}")
            continue
        print(f"{r['mrp']:<22}{r['differences']:>5}{r['size']:>5}{r['seconds']:>9.3f}"
              f"{r['nodes']:>7}{r['planner_calls']:>7}{r['cache_hits']:>6}"
              f"{r['check_seconds']:>9.2f}  {r['verified']}")
    print(f"median MCE seconds: {report['median_seconds']:.3f} over {len(rows)} MRPs "
          f"(target < 1 s)")
    print(f"\nbaseline: one {report['baseline_engine']} process per model-space node "
          "(no relevance pruning, as the reference)")
    print(f"{'MRP':<22}{'seconds':>9}{'nodes':>7}{'procs':>7}{'xaip s':>9}{'speed-up':>10}")
    for b, r in zip(baseline, rows, strict=False):
        print(f"{b['mrp']:<22}{b['seconds']:>9.2f}{b['nodes']:>7}{b['processes']:>7}"
              f"{r['seconds']:>9.3f}{b['speedup']:>9.0f}x")
    print_scaling(curve)
    return 0


def print_scaling(curve: Sequence[dict[str, Any]]) -> None:
    print("\nscaling: k features removed from the robot model (human = robot - k); MCE "
          "search seconds per instance, budget 120 s")
    print(f"{'domain':<11}{'k':>3}{'median s':>10}{'max s':>8}{'size':>6}{'nodes':>8}")
    for c in curve:
        print(f"{c['domain']:<11}{c['k']:>3}{c['median_seconds']:>10.3f}{c['max_seconds']:>8.3f}"
              f"{c['mean_size']:>6.1f}{c['mean_nodes']:>8.1f}")


if __name__ == "__main__":
    sys.exit(main())
