"""Discovery's speedup curve: ``discover GAME --executor processes --workers N``.

Why: capability discovery's work is split into units an executor's workers share (the
agent's runs on the random tasks; every query pass, cut by estimated cost into units of a
few open tuples of one capability; the abstraction of the listed states in chunks; the
game-over guard's cases per capability and chunk of states, then its exclusions per
capability; the re-grounded capabilities' tables; the generalisation test's questions,
answered in waves: :mod:`xaip.capabilities.rounds`, :mod:`~xaip.capabilities.schedule`,
:mod:`~xaip.capabilities.guarding`, :mod:`~xaip.capabilities.regrounding`,
:mod:`~xaip.capabilities.generalise`) and what stays in the main process (the state pool,
candidates, listing the simulator's states, merging the units' results, asking the
generalisation test's questions in order). The speedup N workers can give is bounded by
that split (Amdahl: 1 / ((1 - p) + p / N), p the parallel fraction), so this prints, per
grid, the serial run's p and, from the CPU seconds of each of its units
(``DiscoveryResult.unit_batches``), a "scheduled" bound for 2, 4, 8, 16 and 32 workers
(the speedup curve the split allows; 16 and 32 in the summary table): every
batch of units that can run side by side (a pass, the listing, a round of the guard)
placed longest first on N workers, the rest serial -- a pass of 6 units keeps at most 6
workers busy, and a pass whose longest unit is a third of it gains at most 3x. Per worker
count it prints the wall time, the speedup over the serial run beside the scheduled bound
for that many workers, and the CPU of the main process and of the workers.

p is measured in CPU seconds (the units' over the serial run's whole CPU), as is the
scheduled bound: on a machine busy with other work, wall times are mostly waiting for a
core, so wall-clock ratios (``p wall``, from ``DiscoveryResult.parallel_seconds``) swing
with the load. On a many-core machine the wall speedups of the 4, 8, 16 ... worker runs
are the measurement; the bounds say what to expect of them.

Worker counts: 1 (the serial executor, the reference), then 2, 4, 8, ... up to
``os.cpu_count()`` (or the ``--workers`` list). Every run must learn the same model with
the same queries (capability, start, goal, status, answer, reason) as the serial one (the
executor changes where the work runs, not what it finds); a run that differs is reported
and the script exits 1.

    python benchmarks/scaling.py [--game cookmepasta] [--grid 8x8 --grid 16x16]
                                 [--workers 1,2] [--seed 0] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from xaip.capabilities.discovery import discover_game  # noqa: E402


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(game: str, rows: int, cols: int, workers: int, seed: int) -> dict[str, Any]:
    """One discovery run; ``workers == 1`` is the serial executor."""
    executor = "serial" if workers == 1 else "processes"
    wall, cpu, children = time.perf_counter(), time.process_time(), _children_cpu()
    result, _ = discover_game(game, rows, cols, seed=seed, executor=executor,
                              workers=None if workers == 1 else workers)
    wall = time.perf_counter() - wall
    main_cpu = time.process_time() - cpu
    worker_cpu = _children_cpu() - children  # the pool's workers are joined by then
    payload = result.to_dict()
    stats = payload.get("stats", {})
    queries = [(q.capability, q.start, q.goal, q.status, q.reached, q.cached, q.reason)
               for q in result.queries]
    return {
        "workers": workers,
        "executor": executor,
        "wall_seconds": round(wall, 3),
        "main_cpu_seconds": round(main_cpu, 3),
        "worker_cpu_seconds": round(worker_cpu, 3),
        "queries": stats.get("queries"),
        "query_seconds": round(float(stats.get("query_seconds") or 0.0), 3),
        "status": payload.get("status"),
        "seconds": round(result.seconds, 3),
        "parallel_seconds": round(result.parallel_seconds, 3),
        "unit_cpu_seconds": round(sum(map(sum, result.unit_batches)), 3),
        "units": sum(map(len, result.unit_batches)),
        "scheduled_16": round(scheduled(result.unit_batches, 16, main_cpu), 2),
        "scheduled_32": round(scheduled(result.unit_batches, 32, main_cpu), 2),
        "scheduled_curve": {n: round(scheduled(result.unit_batches, n, main_cpu), 2)
                            for n in CURVE},
        "longest_units": _longest(result),
        "model": json.dumps([payload.get("capabilities"), queries], sort_keys=True),
        "batches": result.unit_batches,
    }


#: Worker counts the scheduled bound is printed for (the speedup curve it allows).
CURVE = (2, 4, 8, 16, 32)


def _grid(text: str) -> tuple[int, int]:
    rows, sep, cols = text.lower().partition("x")
    if not sep or not rows.isdigit() or not cols.isdigit():
        raise argparse.ArgumentTypeError(f"expected RxC, not {text!r}")
    return int(rows), int(cols)


def amdahl(p: float, workers: int) -> float:
    """The speedup ``workers`` give a run whose parallel fraction is ``p``."""
    return 1 / ((1 - p) + p / workers)


def scheduled(batches: Any, workers: int, cpu: float) -> float:
    """The speedup ``workers`` give a serial run of ``cpu`` CPU seconds when each batch
    of its units (a pass, the listing, a round of the guard) is shared by longest-unit-
    first scheduling and the rest stays serial: Amdahl with the batches' sizes (a pass of 6
    units keeps at most 6 workers busy)."""
    units = sum(map(sum, batches))
    total = max(0.0, cpu - units)
    for batch in batches:
        loads = [0.0] * workers
        for seconds in sorted(batch, reverse=True):
            loads[loads.index(min(loads))] += seconds
        total += max(loads, default=0.0)
    return cpu / max(total, 1e-9)


def scheduled_from(serial: dict[str, Any], workers: int) -> float:
    """The serial run's scheduled bound for ``workers``."""
    return scheduled(serial["batches"], workers, serial["main_cpu_seconds"])


def _longest(result: Any) -> list[dict[str, Any]]:
    """The batches whose longest unit bounds the speedup most: units, CPU seconds in all,
    the longest unit's (a batch gains at most sum/longest from any number of workers)."""
    rows = [{"units": len(b), "seconds": round(sum(b), 2), "longest": round(max(b), 2)}
            for b in result.unit_batches if b]
    return sorted(rows, key=lambda r: -r["longest"])[:5]


def _worker_counts(text: str | None) -> list[int]:
    if text:
        counts = sorted({int(part) for part in text.split(",") if part.strip()})
        if not counts or counts[0] < 1:
            raise SystemExit("scaling: --workers takes whole numbers >= 1")
        return counts if counts[0] == 1 else [1, *counts]
    top, counts, n = os.cpu_count() or 1, [1], 2
    while n < top:
        counts.append(n)
        n *= 2
    if top > 1:
        counts.append(top)
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="cookmepasta")
    parser.add_argument("--grid", type=_grid, action="append", default=None,
                        help="RxC, repeatable (default 8x8)")
    parser.add_argument("--workers", default=None,
                        help="comma-separated worker counts (default 1, 2, 4, ... cpu_count)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    grids = args.grid or [(8, 8)]
    counts = _worker_counts(args.workers)

    report: list[dict[str, Any]] = []
    differs = False
    for rows, cols in grids:
        runs = [run_once(args.game, rows, cols, n, args.seed) for n in counts]
        serial = runs[0]
        for run in runs:
            run["bound"] = round(scheduled_from(serial, run["workers"]), 2)
            run["speedup"] = round(serial["wall_seconds"] / max(run["wall_seconds"], 1e-9), 2)
            run["cpu_speedup"] = round(serial["main_cpu_seconds"]
                                       / max(run["main_cpu_seconds"], 1e-9), 2)
            run["same_as_serial"] = (run["model"] == serial["model"]
                                     and run["queries"] == serial["queries"])
            differs |= not run["same_as_serial"]
        p = min(1.0, serial["unit_cpu_seconds"] / max(serial["main_cpu_seconds"], 1e-9))
        p_wall = serial["parallel_seconds"] / max(serial["seconds"], 1e-9)
        share = serial["query_seconds"] / max(serial["wall_seconds"], 1e-9)
        two = next((run for run in runs if run["workers"] == 2), None)
        report.append({"game": args.game, "grid": f"{rows}x{cols}", "seed": args.seed,
                       "serial_seconds": serial["wall_seconds"],
                       "two_worker_seconds": two["wall_seconds"] if two else None,
                       "two_worker_speedup": two["speedup"] if two else None,
                       "serial_cpu_seconds": serial["main_cpu_seconds"],
                       "units": serial["units"],
                       "parallel_fraction": round(p, 3),
                       "parallel_fraction_wall": round(p_wall, 3),
                       "longest_units": serial["longest_units"],
                       "amdahl_16": round(amdahl(p, 16), 2),
                       "amdahl_32": round(amdahl(p, 32), 2),
                       "scheduled_16": serial["scheduled_16"],
                       "scheduled_32": serial["scheduled_32"],
                       "scheduled_curve": serial["scheduled_curve"],
                       "serial_query_share": round(share, 3),
                       "runs": [{k: v for k, v in run.items()
                                 if k not in ("model", "batches")} for run in runs]})

    if args.json:
        print(json.dumps({"cpu_count": os.cpu_count(), "grids": report}, indent=2))
    else:
        print(f"{args.game}, seed {args.seed}, this machine: {os.cpu_count()} CPUs")
        print(f"\n{'grid':>6} {'serial s':>9} {'CPU s':>7} {'units':>6} {'2 workers s':>12} "
              f"{'speedup':>8} {'p':>6} {'p wall':>7} {'Amdahl 16':>10} {'Amdahl 32':>10} "
              f"{'sched. 16':>10} {'sched. 32':>10}")
        for entry in report:
            two_s = entry["two_worker_seconds"]
            two = "-" if two_s is None else f"{two_s:.2f}"
            sp = "-" if entry["two_worker_speedup"] is None else \
                f"{entry['two_worker_speedup']:.2f}x"
            print(f"{entry['grid']:>6} {entry['serial_seconds']:>9.2f} "
                  f"{entry['serial_cpu_seconds']:>7.2f} {entry['units']:>6} {two:>12} {sp:>8} "
                  f"{entry['parallel_fraction']:>6.3f} {entry['parallel_fraction_wall']:>7.3f} "
                  f"{entry['amdahl_16']:>9.2f}x {entry['amdahl_32']:>9.2f}x "
                  f"{entry['scheduled_16']:>9.2f}x {entry['scheduled_32']:>9.2f}x")
        for entry in report:
            print(f"\n{entry['grid']}: parallel fraction p = {entry['parallel_fraction']:.1%} "
                  f"of the serial run's CPU (answering queries alone: "
                  f"{entry['serial_query_share']:.0%} of its wall time)")
            longest = ", ".join(f"{r['longest']:.2f} s of {r['seconds']:.2f} s ({r['units']} units)"
                                for r in entry["longest_units"])
            print(f"longest units (CPU): {longest}")
            curve = "  ".join(f"{n}: {bound:.2f}x" for n, bound in
                              entry["scheduled_curve"].items())
            print(f"scheduled bound by workers (the speedup curve the split allows): {curve}")
            print(f"{'workers':>7} {'wall s':>8} {'speedup':>8} {'bound':>7} {'main CPU':>9} "
                  f"{'CPU speedup':>12} {'workers CPU':>12} {'queries':>8}  same model")
            for run in entry["runs"]:
                print(f"{run['workers']:>7} {run['wall_seconds']:>8.2f} {run['speedup']:>7.2f}x "
                      f"{run['bound']:>6.2f}x "
                      f"{run['main_cpu_seconds']:>9.2f} {run['cpu_speedup']:>11.2f}x "
                      f"{run['worker_cpu_seconds']:>12.2f} "
                      f"{run['queries']!s:>8}  {'yes' if run['same_as_serial'] else 'NO'}")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
