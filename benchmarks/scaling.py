"""Discovery's speedup curve: ``discover GAME --executor processes --workers N``.

Why: capability discovery spends its time in two kinds of work. The agent's answers to
reachability queries (and its runs on the random tasks) are independent of one another
and go to the executor's workers, a pass's queries as one batch; generating the queries,
refining abstract goals into states and updating the model (PAL, game-over guards) depend
on the answers and run in the main process. The speedup N workers can give is bounded by
that split (Amdahl), so this prints, per worker count, the wall time, the CPU of the main
process and of the workers, the speedup over the serial run and the share of the serial
run's time spent answering queries (the part that parallelises). On a machine busy with
other work, wall times (and so the wall speedup) depend on how the scheduler shares the
cores; the "CPU speedup" column, serial CPU over the main process's CPU (the critical
path while the workers keep up), is the steadier estimate of what an idle machine gives.

Worker counts: 1 (the serial executor, the reference), then 2, 4, 8, ... up to
``os.cpu_count()`` (or the ``--workers`` list). Every run must learn the same model with
the same queries as the serial one (the executor changes where answers are computed, not
what they are); a run that differs is reported and the script exits 1.

    python benchmarks/scaling.py [--game cookmepasta] [--grid 8x8 --grid 12x12]
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
    return {
        "workers": workers,
        "executor": executor,
        "wall_seconds": round(wall, 3),
        "main_cpu_seconds": round(main_cpu, 3),
        "worker_cpu_seconds": round(worker_cpu, 3),
        "queries": stats.get("queries"),
        "query_seconds": round(float(stats.get("query_seconds") or 0.0), 3),
        "status": payload.get("status"),
        "model": json.dumps(payload.get("capabilities"), sort_keys=True),
    }


def _grid(text: str) -> tuple[int, int]:
    rows, sep, cols = text.lower().partition("x")
    if not sep or not rows.isdigit() or not cols.isdigit():
        raise argparse.ArgumentTypeError(f"expected RxC, not {text!r}")
    return int(rows), int(cols)


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
            run["speedup"] = round(serial["wall_seconds"] / max(run["wall_seconds"], 1e-9), 2)
            run["cpu_speedup"] = round(serial["main_cpu_seconds"]
                                       / max(run["main_cpu_seconds"], 1e-9), 2)
            run["same_as_serial"] = (run["model"] == serial["model"]
                                     and run["queries"] == serial["queries"])
            differs |= not run["same_as_serial"]
        share = serial["query_seconds"] / max(serial["wall_seconds"], 1e-9)
        report.append({"game": args.game, "grid": f"{rows}x{cols}", "seed": args.seed,
                       "serial_query_share": round(share, 3),
                       "amdahl_bound": round(1 / max(1 - share, 1e-9), 2),
                       "runs": [{k: v for k, v in run.items() if k != "model"}
                                for run in runs]})

    if args.json:
        print(json.dumps({"cpu_count": os.cpu_count(), "grids": report}, indent=2))
    else:
        print(f"{args.game}, seed {args.seed}, this machine: {os.cpu_count()} CPUs")
        for entry in report:
            print(f"\n{entry['grid']}: the serial run spends {entry['serial_query_share']:.0%} "
                  f"of its time answering queries (Amdahl bound {entry['amdahl_bound']}x)")
            print(f"{'workers':>7} {'wall s':>8} {'speedup':>8} {'main CPU':>9} "
                  f"{'CPU speedup':>12} {'workers CPU':>12} {'queries':>8}  same model")
            for run in entry["runs"]:
                print(f"{run['workers']:>7} {run['wall_seconds']:>8.2f} {run['speedup']:>7.2f}x "
                      f"{run['main_cpu_seconds']:>9.2f} {run['cpu_speedup']:>11.2f}x "
                      f"{run['worker_cpu_seconds']:>12.2f} "
                      f"{run['queries']!s:>8}  {'yes' if run['same_as_serial'] else 'NO'}")
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
