"""Planning-core benchmark: per-call overhead, optimal search against pyperplan, read times.

Everything is measured in one run on this machine and printed as one table per part:

1. Per-call overhead of solving a 1-step task with ``xaip.planning.search.solve``
   (median of many calls; target under 1 ms) beside one Fast Downward driver call on the
   same task when FD is installed (its driver costs about 170 ms).
2. Optimal A* + LM-cut on generated blocksworld (6-10 blocks), gripper (4-8 balls) and
   logistics (2-3 cities) instances and on RADAR (``../shared/data/mrp/radar``, robot
   model, action costs): the pure-Python engine (``builtin``, stopped after
   ``--python-timeout`` seconds) beside the compiled engine (``compiled``, the C core
   ``xaip._core``): seconds and expansions per second of each, and the speed-up. Also
   pyperplan's A* + LM-cut and Fast Downward's ``astar(lmcut())`` for reference. pyperplan
   and FD are GPL programs: they run in separate processes, timed inside the process
   (interpreter start-up excluded for pyperplan, so the ratio is fair to it), and are
   reported as not installed when missing. Grounding is excluded from the engine times
   (both engines search the same grounded task).
3. Reading time of every IPPC file in ``../shared/data/ippc``.

    python benchmarks/planning.py [--quick] [--json] [--timeout SECONDS]
                                  [--python-timeout SECONDS]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xaip.domains.generators import blocksworld, gripper, logistics
from xaip.errors import XaipError
from xaip.planning.engines.compiled import CompiledEngine, core_available
from xaip.planning.engines.fast_downward import fd_available, fd_solve
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.search import solve
from xaip.runtime import Budget

ROOT = Path(__file__).resolve().parents[1]
IPPC = ROOT.parent / "shared" / "data" / "ippc"
MRP = ROOT.parent / "shared" / "data" / "mrp"
RADAR = MRP / "radar"

ONE_STEP_DOMAIN = """(define (domain one-step)
  (:requirements :strips)
  (:predicates (done))
  (:action finish :parameters () :precondition () :effect (done)))
"""
ONE_STEP_PROBLEM = """(define (problem one-step-1) (:domain one-step)
  (:init) (:goal (done)))
"""

# Runs inside a separate Python process: pyperplan is GPL and never imported by xaip.
# Its A* reports expansions only in its log, so the script reads them from there.
PYPERPLAN_SCRIPT = """
import json, logging, re, sys, time
from pyperplan.pddl.parser import Parser
from pyperplan.grounding import ground
from pyperplan.search.a_star import astar_search
from pyperplan.heuristics.lm_cut import LmCutHeuristic
expanded = []
class Count(logging.Handler):
    def emit(self, record):
        found = re.match(r"(\\d+) Nodes expanded", record.getMessage())
        if found:
            expanded.append(int(found.group(1)))
logging.getLogger().addHandler(Count())
logging.getLogger().setLevel(logging.INFO)
parser = Parser(sys.argv[1], sys.argv[2])
domain = parser.parse_domain()
problem = parser.parse_problem(domain)
start = time.perf_counter()
task = ground(problem)
grounded = time.perf_counter()
plan = astar_search(task, LmCutHeuristic(task))
end = time.perf_counter()
print(json.dumps({"seconds": end - start, "search_s": end - grounded,
                  "expanded": expanded[-1] if expanded else None,
                  "length": None if plan is None else len(plan)}))
"""


def pyperplan_available() -> bool:
    probe = subprocess.run([sys.executable, "-c", "import pyperplan"], capture_output=True)
    return probe.returncode == 0


def run_pyperplan(domain: str, problem: str, timeout: float) -> dict[str, Any] | None:
    """pyperplan's ground + A*/LM-cut time on the given texts, or None on timeout/failure."""
    with tempfile.TemporaryDirectory() as folder:
        d, p = Path(folder, "domain.pddl"), Path(folder, "problem.pddl")
        d.write_text(domain)
        p.write_text(problem)
        try:
            done = subprocess.run([sys.executable, "-c", PYPERPLAN_SCRIPT, str(d), str(p)],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"seconds": None, "length": None, "timeout": True}
        if done.returncode != 0:
            return None
        result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
        return result


def run_fd(domain: str, problem: str, timeout: float) -> dict[str, Any] | None:
    """Fast Downward's wall time (driver included), cost, expansions and search time."""
    try:
        start = time.perf_counter()
        result = fd_solve(domain, problem, search="astar(lmcut())",
                          budget=Budget(max_seconds=timeout))
    except XaipError as error:
        lines = str(error).splitlines()
        why = next((x for x in lines if "not supported" in x), lines[-1] if lines else "")
        print(f"  Fast Downward failed: {why.strip()[:100]}", file=sys.stderr)
        return None
    found = re.findall(r"Search time: ([0-9.]+)s", result.log)
    search_s = float(found[-1]) if found else None
    return {"seconds": time.perf_counter() - start, "cost": result.cost,
            "status": result.status, "expanded": result.expanded, "search_s": search_s,
            # below 10 ms FD's timer resolution makes a rate meaningless
            "exp_per_s": result.expanded / search_s if search_s and search_s >= 0.01 else None}


def overhead(calls: int) -> dict[str, Any]:
    task = ground(parse_domain(ONE_STEP_DOMAIN), parse_problem(ONE_STEP_PROBLEM))
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        result = solve(task, "astar", "lmcut")
        times.append(time.perf_counter() - start)
        assert result.cost == 1
    row: dict[str, Any] = {"calls": calls, "xaip_ms": 1000 * statistics.median(times)}
    if core_available():
        engine = CompiledEngine()
        times = []
        for _ in range(calls):
            start = time.perf_counter()
            result = engine.solve(task, optimal=True)
            times.append(time.perf_counter() - start)
            assert result.cost == 1
        row["compiled_ms"] = 1000 * statistics.median(times)
    if fd_available():
        fd = run_fd(ONE_STEP_DOMAIN, ONE_STEP_PROBLEM, 60)
        row["fd_ms"] = None if fd is None else 1000 * fd["seconds"]
    return row


def instances(quick: bool) -> list[tuple[str, str, str]]:
    out = []
    for n in ([6, 7, 8] if quick else [6, 7, 8, 9, 10]):
        out.append((f"blocksworld-{n}", *blocksworld(n, seed=n)))
    for n in ([4, 5, 6] if quick else [4, 5, 6, 7, 8]):
        out.append((f"gripper-{n}", *gripper(n)))
    settings = [(2, 2), (2, 3)] if quick else [(2, 2), (2, 3), (2, 4), (3, 3), (3, 4)]
    for cities, packages in settings:
        out.append((f"logistics-{cities}c{packages}p",
                    *logistics(cities, packages, seed=cities * 10 + packages)))
    if RADAR.is_dir():
        out.append(("radar-robot", (RADAR / "domain_robot.pddl").read_text(),
                    (RADAR / "problem.pddl").read_text()))
    if not quick:  # the hardest original-model tasks of the MRP benchmark
        for folder, prob in (("logistics", "prob4"), ("rover", "prob3")):
            domain_file, problem_file = MRP / folder / "original_domain.pddl", \
                MRP / folder / f"{prob}.pddl"
            if domain_file.is_file() and problem_file.is_file():
                out.append((f"mrp-{folder}-{prob}", domain_file.read_text(),
                            problem_file.read_text()))
    return out


#: Unit-cost STRIPS domains of the Fast Downward benchmark collection (IPC 1998-2011) that
#: every planner here reads; ``--domains`` picks others (elevators has action costs).
SUITE_DOMAINS = ("blocks", "depot", "driverlog", "gripper", "logistics00", "miconic",
                 "rovers", "satellite", "zenotravel", "storage", "tpp", "psr-small",
                 "visitall-opt11-strips", "elevators-opt08-strips")


def _natural(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", path.name)]


def _domain_file(problem: Path) -> Path | None:
    """The domain of a problem in the collection's layout (Fast Downward's rules)."""
    stem = problem.stem
    first = stem.split("-")[0]  # psr-small: p01-s2-n1-l2-f50.pddl -> p01-domain.pddl
    for name in ("domain.pddl", f"{stem}-domain.pddl", f"domain_{stem}.pddl",
                 f"domain-{stem}.pddl", f"{first}-domain.pddl"):
        if (problem.parent / name).is_file():
            return problem.parent / name
    return None


def suite_instances(suite: Path, domains: Sequence[str], per_domain: int
                    ) -> list[tuple[str, str, str]]:
    """The first ``per_domain`` problems (natural order) of each domain of a local copy of
    a public IPC suite (github.com/aibasel/downward-benchmarks; nothing is downloaded)."""
    out = []
    for domain in domains:
        folder = suite / domain
        if not folder.is_dir():
            print(f"  suite: no domain {domain} in {suite}", file=sys.stderr)
            continue
        problems = sorted((p for p in folder.glob("*.pddl") if "domain" not in p.name),
                          key=_natural)
        for problem in problems[:per_domain]:
            domain_file = _domain_file(problem)
            if domain_file is None:
                print(f"  suite: no domain file for {problem}", file=sys.stderr)
            else:
                out.append((f"{domain}/{problem.stem}", domain_file.read_text(),
                            problem.read_text()))
    return out


def search_row(name: str, domain: str, problem: str, timeout: float, with_pyperplan: bool,
               with_fd: bool, python_timeout: float) -> dict[str, Any]:
    start = time.perf_counter()
    task = ground(parse_domain(domain), parse_problem(problem))
    ground_s = time.perf_counter() - start
    row: dict[str, Any] = {"instance": name, "ground_s": ground_s}
    start = time.perf_counter()
    result = solve(task, "astar", "lmcut", budget=Budget(max_seconds=python_timeout))
    seconds = time.perf_counter() - start
    row.update({
        "cost": result.cost, "expanded": result.expanded, "python_status": str(result.status),
        "xaip_s": seconds, "exp_per_s": result.expanded / max(result.seconds, 1e-9),
    })
    if core_available():
        start = time.perf_counter()
        compiled = CompiledEngine().solve(task, optimal=True, budget=Budget(max_seconds=timeout))
        c_seconds = time.perf_counter() - start
        row.update({
            "compiled_cost": compiled.cost, "compiled_expanded": compiled.expanded,
            "compiled_status": str(compiled.status),
            "compiled_s": c_seconds,
            "compiled_exp_per_s": compiled.expanded / max(compiled.seconds, 1e-9),
            # a lower bound when the Python engine ran out of time
            "compiled_speedup": seconds / max(c_seconds, 1e-9),
        })
        if result.solved and compiled.cost != result.cost:
            raise SystemExit(f"{name}: compiled cost {compiled.cost} != Python {result.cost}")
    if with_pyperplan:
        pp = run_pyperplan(domain, problem, timeout)
        row["pyperplan_s"] = None if pp is None else pp["seconds"]
        row["pyperplan_cost"] = None if pp is None else pp["length"]
        if pp is not None and pp.get("expanded") and pp.get("search_s"):
            row["pyperplan_exp_per_s"] = pp["expanded"] / max(pp["search_s"], 1e-9)
        if row["pyperplan_s"]:
            row["speedup"] = row["pyperplan_s"] / (ground_s + seconds)
    if with_fd:
        fd = run_fd(domain, problem, timeout)
        row["fd_s"] = None if fd is None else fd["seconds"]
        row["fd_cost"] = None if fd is None else fd["cost"]
        row["fd_exp_per_s"] = None if fd is None else fd["exp_per_s"]
        if fd is not None and fd["exp_per_s"] and row.get("compiled_s", 0) >= 0.01:
            row["compiled_vs_fd"] = row["compiled_exp_per_s"] / fd["exp_per_s"]
    return row


def targets(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The issue's targets, measured: expansions per second within 3x of Fast Downward's
    (same A* + LM-cut), RADAR's optimal plan under 5 s, no instance slower than Python."""
    ratios = [r["compiled_vs_fd"] for r in rows if r.get("compiled_vs_fd")]
    radar = next((r.get("compiled_s") for r in rows if r["instance"] == "radar-robot"), None)
    slower = [r["instance"] for r in rows
              if r.get("compiled_s") is not None and r["python_status"] != "budget_exhausted"
              and r["compiled_s"] > r["xaip_s"]]
    return {"fd_compared": len(ratios), "within_3x_of_fd": sum(x >= 1 / 3 for x in ratios),
            "min_c_over_fd": min(ratios) if ratios else None,
            "median_c_over_fd": statistics.median(ratios) if ratios else None,
            "radar_s": radar, "slower_than_python": slower}


def read_times() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not IPPC.is_dir():
        return rows
    for path in sorted(IPPC.rglob("*.pddl")):
        start = time.perf_counter()
        try:
            text = path.read_text()
            if "(:domain" in text and "(define (domain" not in text.lower():
                read_problem(path)
            elif "(:domain" not in text:
                read_domain(path)
            else:
                read_domain(path)
                read_problem(path)
            ok = True
        except XaipError:
            ok = False
        rows.append({"file": str(path.relative_to(IPPC)), "read": ok,
                     "ms": 1000 * (time.perf_counter() - start)})
    return rows


def _fmt(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller instances")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds allowed per external planner run (default 300)")
    parser.add_argument("--python-timeout", type=float, default=120.0,
                        help="seconds allowed to the pure-Python engine per instance "
                             "(default 120)")
    parser.add_argument("--suite", type=Path, default=None, metavar="PATH",
                        help="a local copy of an IPC suite in the Fast Downward benchmark "
                             "layout (git clone https://github.com/aibasel/downward-benchmarks)")
    parser.add_argument("--suite-problems", type=int, default=4, metavar="N",
                        help="problems per suite domain, first in natural order (default 4)")
    parser.add_argument("--domains", nargs="+", default=list(SUITE_DOMAINS),
                        help="suite domains (default: the unit-cost STRIPS ones)")
    args = parser.parse_args(argv)
    if args.suite is not None and not args.suite.is_dir():
        print(f"no suite at {args.suite}", file=sys.stderr)
        return 2
    with_pp, with_fd = pyperplan_available(), fd_available()
    report: dict[str, Any] = {"overhead": overhead(200 if args.quick else 1000),
                              "pyperplan": with_pp, "fast_downward": with_fd,
                              "compiled": core_available(), "search": []}
    todo = instances(args.quick)
    if args.suite is not None:
        todo += suite_instances(args.suite, args.domains, args.suite_problems)
    for name, domain, problem in todo:
        try:
            row = search_row(name, domain, problem, args.timeout, with_pp, with_fd,
                             args.python_timeout)
        except XaipError as error:  # e.g. a PDDL feature xaip does not support
            print(f"  {name}: skipped ({str(error).splitlines()[0][:90]})", file=sys.stderr)
            continue
        report["search"].append(row)
        print(f"  {name}: python {row['xaip_s']:.2f} s, compiled "
              f"{_fmt(row.get('compiled_s'), '.3f')} s "
              f"({_fmt(row.get('compiled_exp_per_s'), '.0f')} exp/s), pyperplan "
              f"{_fmt(row.get('pyperplan_s'), '.2f')} s, FD {_fmt(row.get('fd_s'), '.2f')} s "
              f"({_fmt(row.get('fd_exp_per_s'), '.0f')} exp/s)", file=sys.stderr, flush=True)
    reads = read_times()
    report["read"] = {
        "files": len(reads), "read": sum(r["read"] for r in reads),
        "median_ms": statistics.median(r["ms"] for r in reads) if reads else None,
        "max_ms": max(r["ms"] for r in reads) if reads else None,
    }
    speedups = [r["speedup"] for r in report["search"] if r.get("speedup")]
    report["median_speedup"] = statistics.median(speedups) if speedups else None
    report["targets"] = targets(report["search"])
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    o = report["overhead"]
    print(f"1-step task, per call (median of {o['calls']}): pure Python {o['xaip_ms']:.3f} ms,"
          f" compiled {_fmt(o.get('compiled_ms'), '.3f')} ms,"
          f" Fast Downward driver {_fmt(o.get('fd_ms'), '.0f')} ms")
    print()
    print("A* + LM-cut, search seconds (grounding excluded); '>' = Python engine stopped at "
          f"--python-timeout {args.python_timeout:.0f} s")
    print(f"{'instance':<38}{'cost':>5}{'py exp':>9}{'py exp/s':>10}{'py s':>9}"
          f"{'C exp':>8}{'C exp/s':>10}{'C s':>8}{'x faster':>9}"
          f"{'pp s':>9}{'pp exp/s':>9}{'FD s':>8}{'FD exp/s':>10}{'C/FD':>6}")
    for r in report["search"]:
        timed_out = r["python_status"] == "budget_exhausted"
        cost = r["cost"] if r["cost"] is not None else r.get("compiled_cost")
        py_s = (">" if timed_out else "") + format(r["xaip_s"], ".3f")
        faster = (">" if timed_out else "") + _fmt(r.get("compiled_speedup"), ".0f")
        if r.get("compiled_status") == "budget_exhausted":  # stopped at --timeout
            faster = "?"
        print(f"{r['instance'][:37]:<38}{_fmt(cost, 'd'):>5}{r['expanded']:>9}"
              f"{r['exp_per_s']:>10.0f}{py_s:>9}"
              f"{_fmt(r.get('compiled_expanded'), 'd'):>8}"
              f"{_fmt(r.get('compiled_exp_per_s'), '.0f'):>10}"
              f"{_fmt(r.get('compiled_s'), '.3f'):>8}{faster:>9}"
              f"{_fmt(r.get('pyperplan_s'), '.3f'):>9}"
              f"{_fmt(r.get('pyperplan_exp_per_s'), '.0f'):>9}{_fmt(r.get('fd_s'), '.3f'):>8}"
              f"{_fmt(r.get('fd_exp_per_s'), '.0f'):>10}{_fmt(r.get('compiled_vs_fd'), '.1f'):>6}")
    print("(pp s: pyperplan's grounding + search in its own process, start-up excluded; "
          "pp exp/s: its search only; FD s: driver wall time, translator included; FD exp/s: "
          "its search time only; C/FD: ratio of expansions per second, when both searches "
          "took 10 ms or more)")
    t = report["targets"]
    print(f"targets: C/FD exp/s ratio >= 0.33 on {t['within_3x_of_fd']}/{t['fd_compared']} "
          f"instances (min {_fmt(t['min_c_over_fd'], '.2f')}, median "
          f"{_fmt(t['median_c_over_fd'], '.2f')}); RADAR optimal plan "
          f"{_fmt(t['radar_s'], '.2f')} s (target < 5 s); compiled slower than pure Python on "
          f"{len(t['slower_than_python'])} instances {t['slower_than_python'] or ''}")
    if not report["compiled"]:
        print("(compiled engine not built: reinstall with a C compiler, `pip install -e .`)")
    if not with_pp:
        print("(pyperplan not installed: `pip install pyperplan` to compare)")
    if not with_fd:
        print("(Fast Downward not installed: `pip install 'xaip[fd]'` to compare)")
    print(f"median speed-up over pyperplan: {_fmt(report['median_speedup'], '.1f')}x")
    rd = report["read"]
    print()
    print(f"IPPC files: {rd['read']}/{rd['files']} read; median {_fmt(rd['median_ms'], '.1f')} ms,"
          f" max {_fmt(rd['max_ms'], '.1f')} ms per file")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
