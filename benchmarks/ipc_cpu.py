"""Whole-command CPU time of ``xaip plan`` beside Fast Downward's, on public IPC tasks.

What a user pays is the whole command, not the search: interpreter start-up, reading,
grounding, search and (for xaip) the independent check. This benchmark runs both as
separate processes on the same task, one after the other in the same run, and measures
each one's CPU time (user + system of the child and its children, from
``resource.getrusage(RUSAGE_CHILDREN)`` deltas), so machine load hits both alike.

- xaip: ``xaip plan DOMAIN PROBLEM --optimal --json --quiet`` (A* + LM-cut on the compiled
  core, the default) and, with ``--no-check``, the same without the independent check.
- Fast Downward: its driver with ``astar(lmcut())`` (translator + search), found as
  :func:`xaip.planning.engines.fast_downward.fd_command` finds it (``pip install
  'xaip[fd]'`` or ``XAIP_FAST_DOWNWARD``). FD is GPL and runs only as a separate process.

Instances come from a local copy of a public suite (github.com/aibasel/downward-benchmarks;
nothing is downloaded): the first ``--problems`` problems of each of ``--domains``. The
defaults are the domains where the ratio was largest (issue 26: psr-large, optical
telegraphs, quantum layout, freecell, citycar).

    python benchmarks/ipc_cpu.py --suite PATH [--domains D ...] [--problems N]
                                 [--timeout S] [--json]

Fast Downward's LM-cut refuses derived predicates, so on a domain with ``:derived`` both
planners use A* + h_max instead (FD's ``astar(hmax())``, xaip's ``--heuristic hmax``).

Prints per instance: both CPU times, their ratio, both costs (a differing optimal cost
stops the run), and the median ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from xaip.planning.engines.fast_downward import fd_command

sys.path.insert(0, str(Path(__file__).resolve().parent))
from planning import suite_instances  # noqa: E402  (the suite layout rules live there)

OUTLIERS = ("psr-large", "optical-telegraphs", "quantum-layout-opt23-strips", "freecell",
            "citycar-opt14-adl")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(command: list[str], timeout: float, cwd: Path) -> tuple[float, str, int | None]:
    """CPU seconds, stdout and exit code (None: timed out) of one command."""
    before = _children_cpu()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              cwd=cwd)
        return _children_cpu() - before, done.stdout, done.returncode
    except subprocess.TimeoutExpired:
        return _children_cpu() - before, "", None


def xaip_row(domain: Path, problem: Path, timeout: float, check: bool, heuristic: str,
             work: Path) -> dict[str, Any]:
    command = [str(Path(sys.executable).with_name("xaip")), "plan", str(domain), str(problem),
               "--optimal", "--json", "--quiet", "--max-seconds", str(timeout), "--heuristic",
               heuristic]
    if not check:
        command.append("--no-check")
    cpu, out, code = _run(command, timeout * 2 + 30, work)
    cost = None
    if code is not None and out.strip():
        try:
            cost = json.loads(out).get("cost")
        except json.JSONDecodeError:
            cost = None
    return {"cpu": cpu, "cost": cost, "exit": code}


def fd_row(domain: Path, problem: Path, timeout: float, heuristic: str,
           work: Path) -> dict[str, Any] | None:
    driver = fd_command()
    if driver is None:
        return None
    plan = work / "sas_plan"
    plan.unlink(missing_ok=True)
    command = [*driver, "--overall-time-limit", f"{int(timeout)}s", str(domain), str(problem),
               "--search", f"astar({heuristic}())"]
    cpu, out, code = _run(command, timeout + 30, work)
    cost = None
    for line in out.splitlines():
        if "Plan cost:" in line:
            cost = int(line.rsplit(":", 1)[1])
    for leftover in ("sas_plan", "output.sas"):
        (work / leftover).unlink(missing_ok=True)
    return {"cpu": cpu, "cost": cost, "exit": code}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", type=Path, required=True, metavar="PATH",
                        help="a local copy of github.com/aibasel/downward-benchmarks")
    parser.add_argument("--domains", nargs="+", default=list(OUTLIERS))
    parser.add_argument("--problems", type=int, default=2, metavar="N",
                        help="first N problems of each domain (default 2)")
    parser.add_argument("--timeout", type=float, default=120.0, metavar="S")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.suite.is_dir():
        parser.error(f"no suite at {args.suite}")
    work = Path(os.environ.get("TMPDIR", "/tmp")) / f"xaip-ipc-cpu-{os.getpid()}"
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, domain_text, problem_text in suite_instances(args.suite, args.domains,
                                                           args.problems):
        domain, problem = work / "domain.pddl", work / "problem.pddl"
        domain.write_text(domain_text)
        problem.write_text(problem_text)
        heuristic = "hmax" if ":derived" in domain_text.lower() else "lmcut"
        row: dict[str, Any] = {"instance": name, "heuristic": heuristic}
        row["xaip"] = xaip_row(domain, problem, args.timeout, True, heuristic, work)
        row["xaip_no_check"] = xaip_row(domain, problem, args.timeout, False, heuristic, work)
        row["fd"] = fd_row(domain, problem, args.timeout, heuristic, work)
        fd, ours = row["fd"], row["xaip"]
        if fd and fd["cost"] is not None and ours["cost"] is not None:
            if fd["cost"] != ours["cost"]:
                raise SystemExit(f"{name}: xaip cost {ours['cost']} != FD {fd['cost']}")
            row["ratio"] = ours["cpu"] / max(fd["cpu"], 1e-3)
            row["ratio_no_check"] = row["xaip_no_check"]["cpu"] / max(fd["cpu"], 1e-3)
        rows.append(row)
        if not args.json:
            fd_text = "-" if not fd else f"{fd['cpu']:7.2f} s (cost {fd['cost']})"
            ratio = f"{row['ratio']:.1f}x" if "ratio" in row else "-"
            print(f"{name:40s} {heuristic:5s} xaip {ours['cpu']:7.2f} s (cost {ours['cost']}, "
                  f"no check {row['xaip_no_check']['cpu']:.2f} s)  FD {fd_text}  "
                  f"xaip/FD {ratio}", flush=True)
    ratios = [r["ratio"] for r in rows if "ratio" in r]
    summary = {"instances": len(rows), "compared": len(ratios),
               "median_ratio": statistics.median(ratios) if ratios else None,
               "max_ratio": max(ratios) if ratios else None}
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary}, indent=2))
    else:
        print(f"median xaip/FD CPU {summary['median_ratio']}, max {summary['max_ratio']} "
              f"over {len(ratios)} instances")
    return 0


if __name__ == "__main__":
    sys.exit(main())
