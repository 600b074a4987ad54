"""Capability discovery against the reference code's runs (anchors.md §1.1).

For every game and grid size of the reference (AAIR-lab/iCaML result files) this runs
Algorithm 1 with a search agent and a policy agent on our own random level of that size
(seed 0), and prints queries, total seconds and seconds per query beside the reference's
numbers, with the ratios. Targets: no more queries than the reference, at least 10x less
time. Every row runs five times (``--repeat``), in five rounds over all rows so that a slow
phase of the machine cannot cover all runs of a row; the best time counts (as with
``timeit``) and the median is shown beside it; the runs must ask the same queries. One
untimed run of the first row comes before all of them.

    python benchmarks/capabilities.py            # every row, both agents
    python benchmarks/capabilities.py --quick    # the smallest grid of each game
    python benchmarks/capabilities.py --json     # machine-readable

It also learns the hidden models of blocksworld, gripper and logistics in the AIA setting
and prints the query counts beside AIA's (48, 17, 68).

The reference numbers come from its own levels and its grounded capability model, so the
comparison is of scale, not of identical runs. Times include everything: traces, random
states, lifting and queries. ``benchmarks/capabilities_reference.py`` compares like for
like (our grounded mode, to the same resolved-tuple count, optionally with the reference
code run here) and ``benchmarks/capabilities_fig3.py`` redoes the paper's Fig. 3.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from xaip.capabilities.discovery import DiscoveryConfig, discover_game  # noqa: E402
from xaip.vocab.registry import game_names, get_game  # noqa: E402

#: (game, rows, cols) -> (queries, seconds, PAL tuples, capabilities) of the reference.
REFERENCE: dict[tuple[str, int, int], tuple[int, float, int, int]] = {
    ("zelda", 3, 4): (235, 1.6, 288, 6),
    ("zelda", 4, 5): (512, 7.2, 612, 9),
    ("zelda", 5, 6): (696, 16.9, 792, 9),
    ("zelda", 6, 7): (1891, 115.6, 2160, 18),
    ("zelda", 8, 8): (2423, 329.1, 2688, 16),
    ("escape", 3, 3): (114, 13.5, 136, 4),
    ("escape", 4, 5): (740, 106.5, 936, 12),
    ("escape", 6, 7): (3602, 220.3, 4464, 31),
    ("cookmepasta", 4, 4): (1180, 22.7, 1628, 22),
    ("cookmepasta", 6, 6): (7403, 400.4, 10112, 64),
    ("cookmepasta", 8, 8): (11115, 1029.1, 14732, 58),
    ("snowman", 4, 5): (3953, 201.9, 5358, 57),
    ("snowman", 6, 7): (9228, 673.8, 11840, 74),
    ("snowman", 8, 8): (8401, 1069.7, 9996, 51),
}


def run_once(game: str, rows: int, cols: int, agent: str, seed: int) -> tuple[float, Any]:
    """One timed discovery run: seconds and the run's statistics."""
    config = DiscoveryConfig(seed=seed, lifted_types=("cell",))
    began = time.perf_counter()
    result, _ = discover_game(game, rows, cols, agent=agent, seed=seed, config=config)
    return time.perf_counter() - began, result.stats


def summarise_row(game: str, rows: int, cols: int, agent: str, times: list[float],
                  runs: list[Any]) -> dict[str, Any]:
    """A row from its runs (the same queries each time); the best time is the row's time,
    as ``timeit`` reports, and the median is printed beside it.

    Why: the small rows take a tenth of a second, and on a shared virtual machine the
    same run takes 1.6x longer for seconds at a time (measured: 0.105 s and 0.175 s for
    Zelda 3x4 within one process). A slow phase only adds time, so the fastest run is the
    best estimate of the work; the runs of a row are spread over the whole benchmark
    (rounds over all rows) so that one slow phase cannot cover all of them."""
    outcomes = {(s.queries, s.capabilities, s.open_tuples) for s in runs}
    if len(outcomes) != 1:
        raise RuntimeError(f"{game} {rows}x{cols} {agent}: runs differ: {sorted(outcomes)}")
    stats = runs[0]
    seconds = min(times)
    ref_q, ref_s, ref_pal, ref_caps = REFERENCE[(game, rows, cols)]
    return {
        "game": game,
        "grid": f"{rows}x{cols}",
        "agent": agent,
        "queries": stats.queries,
        "seconds": seconds,
        "runs": len(times),
        "seconds_median": statistics.median(times),
        "seconds_per_query": seconds / stats.queries if stats.queries else 0.0,
        "capabilities": stats.capabilities,
        "pal_tuples": stats.pal_tuples,
        "open_tuples": stats.open_tuples,
        "failed_queries": stats.failed,
        "reference_queries": ref_q,
        "reference_seconds": ref_s,
        "reference_seconds_per_query": ref_s / ref_q,
        "reference_pal_tuples": ref_pal,
        "reference_capabilities": ref_caps,
        "query_ratio": stats.queries / ref_q,
        "speedup": ref_s / seconds if seconds > 0 else float("inf"),
        "meets_targets": stats.queries <= ref_q and ref_s / max(seconds, 1e-9) >= 10.0,
    }


#: AIA's published query counts (anchors.md §1.2) for learning the whole model.
AIA_REFERENCE = {"blocksworld": 48, "gripper": 17, "logistics": 68}


def aia_rows() -> list[dict[str, Any]]:
    """The AIA setting: learn the hidden model of a symbolic agent, count queries."""
    from xaip.capabilities.checks import compare_models
    from xaip.capabilities.symbolic import SymbolicAgent, learn_model
    from xaip.domains import generators
    from xaip.planning.pddl import parse_domain, parse_problem

    problems = {
        "blocksworld": generators.blocksworld(5, 0),
        "gripper": generators.gripper(4),
        "logistics": generators.logistics(2, 3, 0),
    }
    rows = []
    for name, (domain_text, problem_text) in problems.items():
        domain = parse_domain(domain_text)
        agent = SymbolicAgent(domain, parse_problem(problem_text))
        began = time.perf_counter()
        learned = learn_model(agent)
        seconds = time.perf_counter() - began
        rows.append({
            "domain": name,
            "queries": learned.queries,
            "reference_queries": AIA_REFERENCE[name],
            "seconds": seconds,
            "seconds_per_query": seconds / max(1, learned.queries),
            "equal_to_hidden": compare_models(domain, learned.domain).equal,
        })
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="only the smallest grid of each game")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--agents", default="search,policy",
                        help="comma-separated agents (default search,policy)")
    parser.add_argument("--games", default=",".join(game_names()),
                        help="comma-separated registered games (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5,
                        help="runs per row; the best time counts, the median is shown "
                             "(default 5)")
    args = parser.parse_args(argv)
    games = [get_game(g).name for g in args.games.split(",")]
    keys = [k for k in REFERENCE if k[0] in games]
    if args.quick:
        smallest: dict[str, tuple[str, int, int]] = {}
        for key in keys:
            if key[0] not in smallest or key[1] * key[2] < smallest[key[0]][1] * \
                    smallest[key[0]][2]:
                smallest[key[0]] = key
        keys = list(smallest.values())
    agents = args.agents.split(",")
    plan = [(game, r, c, agent) for game, r, c in keys for agent in agents]
    if plan:  # one untimed run first: imports and first-call costs are not the row's
        run_once(*plan[0], args.seed)
    times: dict[tuple[str, int, int, str], list[float]] = {row: [] for row in plan}
    runs: dict[tuple[str, int, int, str], list[Any]] = {row: [] for row in plan}
    rounds = max(1, args.repeat)
    for round_number in range(rounds):
        for row_key in plan:
            seconds, stats = run_once(*row_key, args.seed)
            times[row_key].append(seconds)
            runs[row_key].append(stats)
        if not args.json:
            print(f"round {round_number + 1}/{rounds} done", file=sys.stderr, flush=True)
    rows = []
    for row_key in plan:
        row = summarise_row(*row_key, times[row_key], runs[row_key])
        rows.append(row)
        if not args.json:
            print(_line(row), flush=True)
    aia = aia_rows()
    if args.json:
        print(json.dumps({"rows": rows, "aia": aia}, indent=2))
    else:
        met = sum(1 for r in rows if r["meets_targets"])
        print(f"\n{met}/{len(rows)} rows meet both targets "
              "(queries <= reference, >= 10x faster)")
        print(f"\n{'AIA setting':<14}{'queries':>8}{'AIA':>6}{'seconds':>10}{'equal':>7}")
        for row in aia:
            print(f"{row['domain']:<14}{row['queries']:>8}{row['reference_queries']:>6}"
                  f"{row['seconds']:>10.4f}{'yes' if row['equal_to_hidden'] else 'NO':>7}")
    return 0


HEADER = (f"{'game':<12}{'grid':>6} {'agent':<7}{'queries':>8}{'ref':>7}{'ratio':>7}"
          f"{'seconds':>9}{'median':>8}{'ref s':>8}{'speedup':>9}{'ms/query':>10}"
          f"{'ref ms/q':>10}{'caps':>6}{'ref':>5}")


def _line(row: dict[str, Any]) -> str:
    if not getattr(_line, "printed", False):
        print(HEADER)
        _line.printed = True  # type: ignore[attr-defined]
    return (f"{row['game']:<12}{row['grid']:>6} {row['agent']:<7}{row['queries']:>8}"
            f"{row['reference_queries']:>7}{row['query_ratio']:>7.2f}"
            f"{row['seconds']:>9.2f}{row['seconds_median']:>8.2f}"
            f"{row['reference_seconds']:>8.1f}{row['speedup']:>8.0f}x"
            f"{1000 * row['seconds_per_query']:>10.2f}"
            f"{1000 * row['reference_seconds_per_query']:>10.2f}"
            f"{row['capabilities']:>6}{row['reference_capabilities']:>5}")


if __name__ == "__main__":
    raise SystemExit(main())
