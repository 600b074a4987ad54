"""The paper's Fig. 3: queries and time per query as the grid grows, search vs policy agent.

Verma, Marpally & Srivastava (KR 2022), Fig. 3, plots for Zelda, Cook-Me-Pasta, Escape and
Snowman the number of queries and the time per query of Algorithm 1 against the number of
cells, for a search agent (A*) and a policy agent (hand-coded policy), and states three
trends (Sec. 4.2): (1) for both agents the number of queries increases with the grid
size; (2) the policy agent needs more queries than the search agent in almost all cases
(its answers fail where the waypoints do not fit its policy); (3) the time per query is
lower for the policy agent (it follows its policy; the search agent searches).

This sweep runs discovery on seeded random levels of growing size with both bundled
agents, prints a table of queries, failed queries, total seconds and agent milliseconds
per query, tests the three trends (Spearman's rank correlation of queries with cells;
counts of grids where the policy agent asks more / answers faster) and draws the figure.

    python benchmarks/capabilities_fig3.py                       # Zelda and Escape, ~2 min
    python benchmarks/capabilities_fig3.py --plot docs/images/capabilities-fig3.png
    python benchmarks/capabilities_fig3.py --games zelda --grids 3x4,4x5,5x6 --seeds 0,1,2
    python benchmarks/capabilities_fig3.py --json

The default is the reference's grounded model (cells as constants), like the paper's runs;
``--lifted`` sweeps our default lifted model instead. The paper's plots carry no numbers in
its text; the reference code's result files (``capabilities_reference.REFERENCE_RUNS``,
the search agent's runs) give its curve of queries per grid, drawn beside ours.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from capabilities_reference import REFERENCE_RUNS, parse_grids  # noqa: E402

from xaip.errors import InputError  # noqa: E402

#: Grids swept by default: each run of the sweep stays within a few seconds on a busy
#: 2-core machine (bigger grids: ``--grids``; see docs/capabilities.md for timings).
DEFAULT_GRIDS: dict[str, tuple[tuple[int, int], ...]] = {
    "zelda": ((3, 4), (4, 5), (5, 6), (6, 7), (8, 8)),
    "escape": ((3, 3), (4, 4), (4, 5), (5, 5), (6, 6)),
    "cookmepasta": ((4, 4), (4, 5), (5, 5)),
    "snowman": ((3, 4), (4, 4), (4, 5)),
}
AGENTS = ("search", "policy")


def run_one(game: str, rows: int, cols: int, agent: str, seed: int, grounded: bool,
            max_seconds: float | None) -> dict[str, Any]:
    """One discovery run and what Fig. 3 plots of it."""
    from xaip.capabilities.discovery import DiscoveryConfig, discover_game
    from xaip.runtime.budget import Budget

    config = DiscoveryConfig(seed=seed, lifted_types=() if grounded else ("cell",),
                             budget=Budget(max_seconds=max_seconds) if max_seconds else None)
    began = time.perf_counter()
    result, _ = discover_game(game, rows, cols, agent=agent, seed=seed, config=config)
    seconds = time.perf_counter() - began
    stats = result.stats
    return {
        "game": game, "grid": f"{rows}x{cols}", "cells": rows * cols, "agent": agent,
        "seed": seed, "status": str(result.status), "queries": stats.asked,
        "failed": stats.failed, "capabilities": stats.capabilities, "seconds": seconds,
        "agent_seconds": stats.query_seconds,
        "ms_per_query": 1000 * stats.query_seconds / stats.asked if stats.asked else 0.0,
    }


def sweep(games: Sequence[str], grids: Mapping[str, Sequence[tuple[int, int]]],
          agents: Sequence[str], seeds: Sequence[int], grounded: bool,
          max_seconds: float | None, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every (game, grid, agent, seed) once, with a progress line per run."""
    plan = [(g, r, c, a, s) for g in games for r, c in grids[g] for a in agents for s in seeds]
    out = []
    for i, (game, rows, cols, agent, seed) in enumerate(plan, 1):
        row = run_one(game, rows, cols, agent, seed, grounded, max_seconds)
        say(f"[{i}/{len(plan)}] {game} {rows}x{cols} {agent} seed {seed}: "
            f"{row['queries']} queries, {row['seconds']:.1f} s")
        out.append(row)
    return out


def aggregate(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Means over seeds per (game, grid, agent), in first-seen order; ``complete`` only
    when every seed's run completed."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for run in runs:
        groups.setdefault((run["game"], run["grid"], run["agent"]), []).append(run)
    out = []
    for (game, grid, agent), members in groups.items():
        asked = sum(m["queries"] for m in members)
        out.append({
            "game": game, "grid": grid, "cells": members[0]["cells"], "agent": agent,
            "seeds": len(members),
            "status": "complete" if all(m["status"] == "complete" for m in members)
            else "budget_exhausted",
            "queries": statistics.mean(m["queries"] for m in members),
            "failed": statistics.mean(m["failed"] for m in members),
            "seconds": statistics.mean(m["seconds"] for m in members),
            "ms_per_query": 1000 * sum(m["agent_seconds"] for m in members) / asked
            if asked else 0.0,
        })
    return out


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Spearman's rank correlation (ties get their mean rank); ``None`` when it is
    undefined (fewer than two points, or one side constant)."""
    if len(xs) != len(ys):
        raise ValueError("spearman needs two sequences of the same length")
    if len(xs) < 2:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = statistics.mean(rx), statistics.mean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry, strict=True))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return float(sxy / (sxx * syy) ** 0.5)


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def reference_series(game: str) -> list[tuple[int, int, float]]:
    """The reference's runs of ``game`` by cells: (cells, queries, ms per query), from its
    result files (its clock covers its whole interrogation, not only the agent)."""
    out = [(r * c, run.queries, 1000 * run.seconds / run.queries)
           for (g, r, c), run in REFERENCE_RUNS.items() if g == game]
    return sorted(out)


def trends(rows: Sequence[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The paper's three claims tested per game on aggregated rows: the rank correlation
    of queries with cells per agent (ours, and the reference's search runs), and on how
    many grids the policy agent asked more queries / answered faster per query."""
    out: dict[str, dict[str, Any]] = {}
    for game in dict.fromkeys(r["game"] for r in rows):
        mine = [r for r in rows if r["game"] == game]
        entry: dict[str, Any] = {}
        for agent in AGENTS:
            series = [r for r in mine if r["agent"] == agent]
            if series:
                entry[f"rho_queries_{agent}"] = spearman([r["cells"] for r in series],
                                                         [r["queries"] for r in series])
        ref = reference_series(game)
        entry["rho_queries_reference"] = spearman([c for c, _, _ in ref], [q for _, q, _ in ref])
        by_grid: dict[str, dict[str, dict[str, Any]]] = {}
        for r in mine:
            by_grid.setdefault(r["grid"], {})[r["agent"]] = r
        pairs = [g for g in by_grid.values() if "search" in g and "policy" in g]
        entry["grids_compared"] = len(pairs)
        entry["policy_more_queries"] = sum(
            1 for g in pairs if g["policy"]["queries"] > g["search"]["queries"])
        entry["policy_equal_queries"] = sum(
            1 for g in pairs if g["policy"]["queries"] == g["search"]["queries"])
        entry["policy_faster_per_query"] = sum(
            1 for g in pairs if g["policy"]["ms_per_query"] < g["search"]["ms_per_query"])
        out[game] = entry
    return out


def plot(rows: Sequence[dict[str, Any]], path: str, grounded: bool,
         seeds: Sequence[int] = (0,)) -> None:
    """Fig. 3's two panels per game: queries and ms per query (the agent's answers, and
    the whole run per query, dotted) against cells, both agents, with the reference's
    (search) runs beside them."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    games = list(dict.fromkeys(r["game"] for r in rows))
    fig, axes = plt.subplots(2, len(games), figsize=(4.2 * len(games), 6.4), squeeze=False)
    styles = {"search": ("tab:blue", "o"), "policy": ("tab:orange", "s")}
    for col, game in enumerate(games):
        top, bottom = axes[0][col], axes[1][col]
        for agent, (colour, marker) in styles.items():
            series = sorted((r for r in rows if r["game"] == game and r["agent"] == agent),
                            key=lambda r: r["cells"])
            if not series:
                continue
            cells = [r["cells"] for r in series]
            top.plot(cells, [r["queries"] for r in series], marker=marker, color=colour,
                     label=f"xaip, {agent} agent")
            bottom.plot(cells, [r["ms_per_query"] for r in series], marker=marker,
                        color=colour, label=f"xaip, {agent} agent's answers")
            bottom.plot(cells, [1000 * r["seconds"] / max(1.0, r["queries"]) for r in series],
                        linestyle=":", color=colour, label=f"xaip, {agent}: whole run / query")
        ref = reference_series(game)
        if ref:
            top.plot([c for c, _, _ in ref], [q for _, q, _ in ref], linestyle="--",
                     marker="^", color="tab:gray", label="reference (iCaML files)")
            bottom.plot([c for c, _, _ in ref], [m for _, _, m in ref], linestyle="--",
                        marker="^", color="tab:gray", label="reference, whole run / query")
        top.set_yscale("log")
        bottom.set_yscale("log")
        top.set_title(game)
        top.set_ylabel("queries")
        bottom.set_ylabel("ms per query")
        bottom.set_xlabel("cells in the grid")
        top.grid(alpha=0.3)
        bottom.grid(alpha=0.3)
    axes[0][0].legend(fontsize=8)
    axes[1][-1].legend(fontsize=7, loc="center right")  # the band between the curves
    mode = "grounded" if grounded else "lifted"
    levels = f"seed {seeds[0]}" if len(seeds) == 1 else f"means over {len(seeds)} seeds"
    fig.suptitle(f"Capability discovery as the grid grows ({mode} model, {levels}; "
                 "cf. KR'22 Fig. 3)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    from xaip.vocab.registry import check_grid, get_game

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="zelda,escape",
                        help="comma-separated games (default zelda,escape)")
    parser.add_argument("--grids", default=None,
                        help="comma-separated RxC grids for every game (default: per game, "
                             "see DEFAULT_GRIDS)")
    parser.add_argument("--agents", default="search,policy")
    parser.add_argument("--seeds", default="0", help="comma-separated level seeds; rows are "
                        "means over them (default 0)")
    parser.add_argument("--lifted", action="store_true",
                        help="our default lifted model instead of the reference's grounded one")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="budget of each run (a cut run makes the exit code 1)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--plot", metavar="FILE", default=None,
                        help="draw the figure into FILE (PNG, SVG or PDF)")
    args = parser.parse_args(argv)
    try:
        games = [get_game(g.strip()).name for g in args.games.split(",")]
        agents = [a.strip() for a in args.agents.split(",")]
        for agent in agents:
            if agent not in AGENTS:
                raise InputError(f"unknown agent '{agent}'; use search or policy")
        try:
            seeds = [int(s) for s in args.seeds.split(",")]
        except ValueError:
            raise InputError(f"bad --seeds '{args.seeds}': use integers like 0,1,2") from None
        grids = {g: parse_grids(args.grids) if args.grids else DEFAULT_GRIDS.get(g, ())
                 for g in games}
        for game, sizes in grids.items():
            if not sizes:
                raise InputError(f"no default grids for {game}: give --grids")
            for height, width in sizes:
                check_grid(height, width)
        if args.max_seconds is not None and args.max_seconds <= 0:
            raise InputError("--max-seconds must be positive")
        if args.plot and Path(args.plot).suffix.lower() not in (".png", ".svg", ".pdf"):
            raise InputError(f"--plot {args.plot}: the file must end in .png, .svg or .pdf")
        if args.plot and not Path(args.plot).resolve().parent.is_dir():
            raise InputError(f"--plot {args.plot}: no such directory")
    except InputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    def say(text: str) -> None:
        if not args.json:
            print(text, file=sys.stderr, flush=True)

    runs = sweep(games, grids, agents, seeds, not args.lifted, args.max_seconds, say)
    rows = aggregate(runs)
    found = trends(rows)
    if args.plot:
        plot(rows, args.plot, not args.lifted, seeds)
    if args.json:
        print(json.dumps({"mode": "lifted" if args.lifted else "grounded", "seeds": seeds,
                          "runs": runs, "rows": rows, "trends": found}, indent=2))
    else:
        print(table(rows))
        print()
        print(trend_text(found))
    return 0 if all(r["status"] == "complete" for r in rows) else 1


def table(rows: Sequence[dict[str, Any]]) -> str:
    """The sweep's rows beside the reference's queries where it ran that grid. ``ms/query``
    is the agent's answering time per query, ``run ms/q`` our whole run per query and
    ``ref ms/q`` the reference's whole interrogation per query (all its files give)."""
    lines = [f"{'game':<12}{'grid':>5}{'cells':>6} {'agent':<7}{'queries':>8}{'failed':>7}"
             f"{'seconds':>9}{'ms/query':>9}{'run ms/q':>9}{'ref q':>7}{'ref ms/q':>9}"]
    for r in rows:
        rows_, cols_ = (int(x) for x in r["grid"].split("x"))
        ref = REFERENCE_RUNS.get((r["game"], rows_, cols_))
        lines.append(f"{r['game']:<12}{r['grid']:>5}{r['cells']:>6} {r['agent']:<7}"
                     f"{r['queries']:>8.0f}{r['failed']:>7.0f}{r['seconds']:>9.2f}"
                     f"{r['ms_per_query']:>9.2f}"
                     f"{1000 * r['seconds'] / r['queries'] if r['queries'] else 0.0:>9.1f}"
                     f"{'-' if ref is None else ref.queries:>7}"
                     f"{'-' if ref is None else format(1000 * ref.seconds / ref.queries, '.1f'):>9}"
                     + ("" if r["status"] == "complete" else f"  {r['status']}"))
    return "\n".join(lines)


def trend_text(found: dict[str, dict[str, Any]]) -> str:
    """The three claims of the paper, per game, as measured."""
    def rho(value: float | None) -> str:
        return "n/a" if value is None else f"{value:+.2f}"

    out = ["Spearman rho of queries with cells (paper: increasing for both agents):"]
    for game, e in found.items():
        out.append(f"  {game:<12} search {rho(e.get('rho_queries_search'))}, policy "
                   f"{rho(e.get('rho_queries_policy'))}, reference files "
                   f"{rho(e['rho_queries_reference'])}")
    out.append("Grids where the policy agent asked more queries (paper: almost all) / "
               "answered faster per query (paper: yes):")
    for game, e in found.items():
        n = e["grids_compared"]
        out.append(f"  {game:<12} more {e['policy_more_queries']}/{n} (equal "
                   f"{e['policy_equal_queries']}), faster {e['policy_faster_per_query']}/{n}")
    return "\n".join(out)


if __name__ == "__main__":
    raise SystemExit(main())
