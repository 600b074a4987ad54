"""The ``xaip discover`` and ``xaip learn-model`` sub-commands.

``add_parser`` adds both; ``run`` dispatches on ``args.command``. Progress goes to stderr
(one updating line on a terminal, a line every 100 queries otherwise) so that ``--json``
output on stdout stays clean.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from xaip.errors import InputError

EXIT_OK, EXIT_NEGATIVE, EXIT_BAD_INPUT = 0, 1, 2


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``discover`` and ``learn-model`` to the ``xaip`` command."""
    discover = sub.add_parser(
        "discover", help="discover what a black-box agent can do in a game (KR 2022)",
        description="Run an agent in one of the bundled games, collect its traces, and "
                    "complete a capability model in the game's vocabulary by asking the "
                    "agent state-reachability queries.")
    discover.add_argument("game", help="zelda, cookmepasta, escape or snowman")
    discover.add_argument("--grid", default="4x5", metavar="RxC",
                          help="grid size, rows x columns (default 4x5)")
    discover.add_argument("--agent", choices=("search", "policy"), default="search",
                          help="A* search agent or greedy policy agent (default search)")
    discover.add_argument("--seed", type=int, default=0, help="random level and tasks")
    discover.add_argument("--tasks", type=int, default=12, metavar="N",
                          help="random tasks for the traces (default 12)")
    discover.add_argument("--store", default=None, metavar="FILE",
                          help="SQLite file for queries and answers; re-running resumes")
    discover.add_argument("--grounded", action="store_true",
                          help="keep cells as constants (grounded capabilities, as the "
                               "reference code) instead of parameters")
    discover.add_argument("--check", action="store_true",
                          help="run the independent checks (trace consistency, "
                               "realisability by simulator search)")
    discover.add_argument("--pddl", default=None, metavar="FILE",
                          help="write the capability model as a PDDL domain")
    discover.add_argument("--pictures", default=None, metavar="DIR",
                          help="write PNGs of an example transition per capability "
                               "(NAME-before.png, NAME-after.png)")
    discover.add_argument("--max-seconds", type=float, default=None, metavar="S",
                          help="stop asking queries after S seconds (the model is built "
                               "from what was learned)")
    discover.add_argument("--max-queries", type=int, default=None, metavar="N",
                          help="stop after N queries")
    discover.add_argument("--recheck", type=int, default=0, metavar="N",
                          help="ask N earlier queries again at the end; a different answer "
                               "marks the capability unreliable (non-determinism)")
    discover.add_argument("--quiet", action="store_true", help="no progress on stderr")
    discover.add_argument("--json", action="store_true", help="print machine-readable JSON")
    discover.set_defaults(handler=run)

    learn = sub.add_parser(
        "learn-model", help="learn a hidden PDDL action model by queries (AIA setting)",
        description="Build a symbolic agent that hides DOMAIN (acting in PROBLEM's "
                    "objects) and learn its action model from plan-outcome queries.")
    learn.add_argument("domain")
    learn.add_argument("problem")
    learn.add_argument("--output", "-o", default=None, metavar="FILE",
                       help="also write the learned domain to FILE")
    learn.add_argument("--json", action="store_true", help="print machine-readable JSON")
    learn.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``discover`` or ``learn-model``."""
    if getattr(args, "command", None) == "learn-model" or hasattr(args, "domain"):
        return _learn_model(args)
    return _discover(args)


def parse_grid(text: str) -> tuple[int, int]:
    """``"4x5"`` -> ``(4, 5)``."""
    parts = text.lower().replace("*", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise InputError(f"--grid must look like 4x5 (rows x columns), got '{text}'")
    rows, cols = int(parts[0]), int(parts[1])
    if rows < 2 or cols < 2:
        raise InputError(f"the grid must be at least 2x2, got {rows}x{cols}")
    return rows, cols


class Progress:
    """Queries asked, capabilities settled and time per query, on stderr."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.began = time.perf_counter()
        self.last = 0

    def __call__(self, event: str, info: Mapping[str, Any]) -> None:
        out = self.stream
        if event == "traces":
            out.write(f"traces: {info['traces']}, {info['transitions']} abstract transitions\n")
        elif event == "candidates":
            out.write(f"candidates: {info['ground']} grounded -> {info['capabilities']} "
                      f"capabilities, {info['pal_tuples']} PAL tuples\n")
        elif event == "query":
            n = int(info["queries"])
            line = (f"queries {n} | settled {info['settled']}/{info['capabilities']} "
                    f"capabilities | {1000 * float(info['seconds_per_query']):.1f} ms/query")
            if self.tty:
                out.write("\r" + line)
            elif n - self.last >= 100:
                out.write(line + "\n")
                self.last = n
        elif event == "done":
            if self.tty:
                out.write("\n")
            out.write(f"done: {info['queries']} queries ({info['asked']} asked, "
                      f"{info['cached']} from the store) in {info['seconds']:.2f} s\n")
        out.flush()


def _discover(args: argparse.Namespace) -> int:
    from xaip.capabilities.cards import model_text, to_pddl, write_pictures
    from xaip.capabilities.discovery import DiscoveryConfig, discover_game
    from xaip.capabilities.store import SQLiteStore
    from xaip.runtime import Budget

    rows, cols = parse_grid(args.grid)
    if args.tasks < 1:
        raise InputError(f"--tasks must be at least 1, got {args.tasks}")
    game = args.game.lower().replace("-", "").replace("_", "")
    lifted: tuple[str, ...] = () if args.grounded else ("cell",)
    budget = None
    if args.max_seconds is not None or args.max_queries is not None:
        budget = Budget(args.max_queries, args.max_seconds)
    config = DiscoveryConfig(seed=args.seed, tasks=args.tasks, lifted_types=lifted,
                             recheck=args.recheck, budget=budget)
    store = None
    if args.store:
        store = SQLiteStore(args.store, {
            "game": game, "grid": f"{rows}x{cols}", "agent": args.agent, "seed": args.seed,
            "tasks": args.tasks, "grounded": bool(args.grounded)})
    progress = None if args.quiet else Progress()
    try:
        result, simulator = discover_game(game, rows, cols, agent=args.agent, seed=args.seed,
                                          store=store, config=config, progress=progress)
    finally:
        if store is not None:
            store.close()
    payload = result.to_dict()
    payload["game"] = game
    payload["grid"] = f"{rows}x{cols}"
    payload["agent"] = args.agent
    payload["pddl"] = to_pddl(result.model)
    text = model_text(result.model)
    if args.check:
        checks = run_checks(result, simulator, game)
        payload["checks"] = checks
        text += ("\n\nchecks: consistent with every trace: "
                 f"{'yes' if checks['consistency']['consistent'] else 'NO'}; realisable in "
                 f"{checks['realisability']['realised']}/{checks['realisability']['tested']} "
                 "sampled cases")
    if args.pddl:
        Path(args.pddl).write_text(payload["pddl"])
    if args.pictures:
        write_pictures(simulator, result.model, args.pictures)
    st = result.stats
    if st.exhausted:
        text += "\n\nthe query budget ran out: some tuples were not tried"
    text += (f"\n\n{st.capabilities} capabilities, {st.queries} queries "
             f"({st.asked} asked, {st.cached} from the store), {st.seconds:.2f} s, "
             f"{1000 * st.seconds_per_query:.2f} ms/query")
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print(text)
    return EXIT_OK


def run_checks(result: Any, simulator: Any, game: str) -> dict[str, Any]:
    """The independent checks of a bundled-game result (consistency, realisability)."""
    from xaip.agents.simulator import execute
    from xaip.capabilities.checks import check_consistency, check_realisability, fresh_states
    from xaip.vocab.games import concretize, game_vocabulary

    vocab = game_vocabulary(game)
    types = {t.name for t in vocab.types}

    def is_state(target: frozenset[Any], like: Any) -> bool:
        full = target | {a for a in vocab.abstract(like) if a.predicate in types}
        return bool(concretize(game, full, like))

    consistency = check_consistency(result.model, vocab, [t.states for t in result.traces])
    start = result.start
    plan = simulator.solve(start) if hasattr(simulator, "solve") else None
    roots = execute(simulator, start, list(plan or ()))
    states: list[Any] = []
    for i, root in enumerate(roots[:: max(1, len(roots) // 8)]):
        states += fresh_states(simulator, root, 6, seed=1000 + i)
    live = [s for s in dict.fromkeys(states) if not simulator.is_goal(s) and
            simulator.actions(s)]
    realisability = check_realisability(result.model, simulator, vocab, live,
                                        is_state=is_state, per_capability=4)
    return {"consistency": consistency.to_dict(), "realisability": realisability.to_dict()}


def _learn_model(args: argparse.Namespace) -> int:
    from xaip.capabilities.symbolic import SymbolicAgent, compare_models, learn_model
    from xaip.planning.pddl import check_problem, read_domain, read_problem

    domain = read_domain(args.domain)
    problem = read_problem(args.problem)
    check_problem(domain, problem)
    agent = SymbolicAgent(domain, problem)
    learned = learn_model(agent)
    comparison = compare_models(domain, learned.domain)
    payload = learned.to_dict()
    payload["equal_to_hidden"] = comparison.equal
    payload["differences"] = comparison.differences
    if args.output:
        Path(args.output).write_text(learned.pddl)
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print(learned.pddl.rstrip())
        verdict = "equals the hidden model" if comparison.equal else \
            f"differs from the hidden model in {len(comparison.differences)} places"
        print(f"; {learned.queries} queries, {learned.seconds:.3f} s; the learned model "
              f"{verdict} (up to what no query can observe)")
    return EXIT_OK
