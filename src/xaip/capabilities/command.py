"""The ``xaip discover`` and ``xaip learn-model`` sub-commands.

``add_parser`` adds both; ``run`` dispatches on ``args.command``. Progress goes to stderr
(:class:`xaip.runtime.StderrProgress`) so that ``--json`` output on stdout stays clean.
Exit 0 only for a finished run whose answer the independent checker verified; 1 when the
budget ran out, the checker refuted the model or could not finish (its own budget), or the
check was skipped (``--no-check``: the answer is then unverified); 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from xaip.commandline import (
    check_output,
    non_negative_float,
    non_negative_int,
    positive_int,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``discover`` and ``learn-model`` to the ``xaip`` command."""
    from xaip.vocab.registry import game_names

    discover = sub.add_parser(
        "discover", help="discover what a black-box agent can do in a game (KR 2022)",
        description="Run an agent in one of the bundled games, collect its traces, and "
                    "complete a capability model in the game's vocabulary by asking the "
                    "agent state-reachability queries.")
    discover.add_argument("game", help="a registered game: " + ", ".join(game_names()) +
                          "; or a Gymnasium environment file (FILE.json, docs/gymnasium.md)")
    discover.add_argument("--grid", default="4x5", metavar="RxC",
                          help="grid size, rows x columns (default 4x5)")
    discover.add_argument("--agent", choices=("search", "policy"), default="search",
                          help="A* search agent or greedy policy agent (default search)")
    discover.add_argument("--seed", type=non_negative_int, default=0, help="random level and tasks")
    discover.add_argument("--tasks", type=positive_int, default=12, metavar="N",
                          help="random tasks for the traces (default 12)")
    discover.add_argument("--store", default=None, metavar="FILE",
                          help="SQLite file for queries and answers; re-running resumes")
    discover.add_argument("--grounded", action="store_true",
                          help="keep cells as constants (grounded capabilities, as the "
                               "reference code) instead of parameters")
    discover.add_argument("--no-split", action="store_true",
                          help="keep lifted capabilities that discovery's own evidence "
                               "refuted (marked unreliable) instead of re-learning them "
                               "grounded (the default)")
    discover.add_argument("--check", action="store_true",
                          help="run the independent checks (the default; kept for old "
                               "scripts): trace consistency, realisability by simulator "
                               "search and, for small games, precision and recall against "
                               "the true transition relation")
    discover.add_argument("--no-check", action="store_true",
                          help="skip the checks (the answer is then unverified: exit 1)")
    discover.add_argument("--focus", default=None, metavar="NAME[,NAME]",
                          help="ask only about these capabilities (c3) or predicates "
                               "(has_key) and those needed to reach them; the others are "
                               "reported as not examined")
    discover.add_argument("--against-truth", action="store_true",
                          help="score the learned preconditions and effects literal by "
                               "literal against the simulator's true transition relation "
                               "(precision, recall, open tuples listed; levels of at most "
                               "4,000 reachable states; under the budget, afresh)")
    discover.add_argument("--pddl", default=None, metavar="FILE",
                          help="write the capability model as a PDDL domain")
    discover.add_argument("--pictures", default=None, metavar="DIR",
                          help="write PNGs of an example transition per capability "
                               "(NAME-before.png, NAME-after.png)")
    discover.add_argument("--listing-limit", type=positive_int, default=None, metavar="N",
                          help="states the guard lists from the start (default "
                          "1,000,000); a level with more is guarded on the closed "
                          "states listed, and the answer says the listing was cut")
    discover.add_argument("--max-seconds", type=non_negative_float, default=None,
                          metavar="S", help="stop asking queries after S seconds (the model "
                                            "is built from what was learned)")
    discover.add_argument("--max-queries", type=non_negative_int, default=None, metavar="N",
                          help="stop after N queries")
    discover.add_argument("--recheck", type=non_negative_int, default=0, metavar="N",
                          help="ask N earlier queries again at the end; a different answer "
                               "marks the capability unreliable (non-determinism)")
    discover.add_argument("--executor", choices=("serial", "processes", "ray"),
                          default="serial",
                          help="where the agent answers queries (default serial; the result "
                               "is the same with every executor)")
    discover.add_argument("--workers", type=positive_int, default=None, metavar="N",
                          help="worker processes for --executor processes|ray (giving N "
                               "alone means processes)")
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
    learn.add_argument("--max-seconds", type=non_negative_float, default=None, metavar="S",
                       help="stop learning after S seconds")
    learn.add_argument("--max-queries", type=non_negative_int, default=None, metavar="N",
                       help="stop learning after N queries")
    learn.add_argument("--json", action="store_true", help="print machine-readable JSON")
    learn.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run ``discover`` or ``learn-model``."""
    if getattr(args, "command", None) == "learn-model" or hasattr(args, "domain"):
        return _learn_model(args)
    from xaip.gymnasium.command import is_env_file, run_discover

    if is_env_file(args.game):  # a Gymnasium environment file: xaip.gymnasium
        return run_discover(args)
    return _discover(args)


def parse_grid(text: str) -> tuple[int, int]:
    """``"4x5"`` -> ``(4, 5)`` (within the bounds of :func:`xaip.vocab.registry.check_grid`)."""
    from xaip.vocab.registry import check_grid

    parts = text.lower().replace("*", "x").split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() and len(p.strip()) <= 9 for p in parts):
        raise InputError(f"--grid must look like 4x5 (rows x columns), got '{text[:40]}'")
    rows, cols = int(parts[0]), int(parts[1])
    check_grid(rows, cols)
    return rows, cols


def _budget(args: argparse.Namespace) -> Any:
    from xaip.runtime import Budget

    if args.max_seconds is None and args.max_queries is None:
        return None
    return Budget(args.max_queries, args.max_seconds)


def _discover(args: argparse.Namespace) -> int:
    from xaip.capabilities.checks import DiscoveryInputs, run_checks
    from xaip.capabilities.discovery import DiscoveryConfig, discover_game, game_refine
    from xaip.capabilities.focus import parse_focus
    from xaip.capabilities.region import ROOT_VISITS
    from xaip.capabilities.store import SQLiteStore
    from xaip.contract import checker_budget_report, with_check
    from xaip.errors import BudgetExhausted
    from xaip.render import render
    from xaip.render.capabilities import write_pictures
    from xaip.runtime import StderrProgress
    from xaip.vocab.registry import get_game

    rows, cols = parse_grid(args.grid)
    spec = get_game(args.game)
    if args.tasks < 1:
        raise InputError(f"--tasks must be at least 1, got {args.tasks}")
    executor = args.executor
    if args.workers is not None:
        if args.workers < 1:
            raise InputError(f"--workers must be at least 1, got {args.workers}")
        if executor == "serial":
            executor = "processes"
    if args.pictures and Path(args.pictures).exists() and not Path(args.pictures).is_dir():
        raise InputError(f"--pictures {args.pictures}: exists and is not a directory "
                         "(pictures go into a directory)")
    # Outputs never land on an input: the answer store is the command's input (and output)
    # whose loss costs every answer (issue 22: --store s.db --pddl s.db replaced it).
    if args.pddl:
        check_output(args.pddl, (args.store,))
    game = spec.name
    lifted: tuple[str, ...] = () if args.grounded else ("cell",)
    focus = parse_focus(args.focus, spec.vocabulary())
    config = DiscoveryConfig(seed=args.seed, tasks=args.tasks, lifted_types=lifted,
                             recheck=args.recheck, budget=_budget(args),
                             split=not args.no_split, focus=focus,
                             listing_limit=args.listing_limit or ROOT_VISITS)
    store = None
    if args.store:
        store = SQLiteStore(args.store, {
            "game": game, "grid": f"{rows}x{cols}", "agent": args.agent, "seed": args.seed,
            "tasks": args.tasks, "grounded": bool(args.grounded)})
    progress = None if args.quiet else StderrProgress()
    try:
        result, simulator = discover_game(game, rows, cols, agent=args.agent, seed=args.seed,
                                          store=store, config=config, progress=progress,
                                          executor=executor, workers=args.workers)
    finally:
        if store is not None:
            store.close()
    checks = None
    report = None
    if not args.no_check and simulator is not None and result.status.finished:
        inputs = DiscoveryInputs(simulator, spec.vocabulary(), game_refine(game))
        try:  # under the run's budget, started afresh
            checks = run_checks(inputs, result, budget=_budget(args))
        except BudgetExhausted as stop:
            report = checker_budget_report(str(stop))
        else:
            report = checks.report()
        result = with_check(result, report)
    literals = None
    if args.against_truth and simulator is not None and result.model.capabilities:
        literals = _against_truth(args, spec, game, simulator, result)
    payload = result.to_dict()
    payload["check"] = None if report is None else report.to_dict()
    if args.against_truth:
        payload["against_truth"] = literals
    payload["game"] = game
    payload["focus"] = list(focus)
    payload["not_examined"] = [c.name for c in result.model.capabilities if not c.examined]
    payload["grid"] = f"{rows}x{cols}"
    payload["agent"] = args.agent
    payload["pddl"] = render(result, "pddl")
    text = render(result)
    if checks is not None:
        payload["checks"] = checks.to_dict()
        text += ("\nchecks: consistent with every trace: "
                 f"{'yes' if checks.consistency.consistent else 'NO'}; realisable in "
                 f"{checks.realisability.realised}/{checks.realisability.tested} "
                 "sampled cases")
        truth = checks.truth
        if truth is not None and truth.enumerated:
            text += (f"; on all {truth.states} reachable states {truth.realised}/"
                     f"{truth.predictions} predictions realised, {truth.explained}/"
                     f"{truth.transitions} abstract transitions explained")
    if focus:
        skipped = payload["not_examined"]
        text += (f"\nfocus {','.join(focus)}: {len(skipped)} capabilities not examined"
                 + (f" ({', '.join(skipped)})" if skipped else ""))
    if args.against_truth:
        text += "\nliterals " + (literals or {}).get("summary", "not scored (no model)")
    if report is None:
        text += ("\nunverified: the checks were skipped (--no-check)"
                 if args.no_check else "")
    elif result.verified:
        text += "\nverified: " + report.details
    else:
        text += "\nnot verified: " + report.details
    if args.pddl:
        write_output(args.pddl, payload["pddl"], (args.store,))
    if args.pictures and simulator is not None:
        write_pictures(simulator, result.model, args.pictures, spec.vocabulary())
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print(text)
    return EXIT_OK if result.status.finished and result.verified else EXIT_NEGATIVE


def _against_truth(args: argparse.Namespace, spec: Any, game: str, simulator: Any,
                   result: Any) -> dict[str, Any]:
    """``--against-truth``: :func:`xaip.capabilities.literals.score_literals` under the
    run's budget started afresh, as a JSON-ready dict with a ``summary`` line."""
    from xaip.capabilities.checks import DiscoveryInputs, state_test
    from xaip.capabilities.discovery import game_refine
    from xaip.capabilities.literals import score_literals
    from xaip.errors import BudgetExhausted

    inputs = DiscoveryInputs(simulator, spec.vocabulary(), game_refine(game))
    budget = _budget(args)
    try:
        scored = score_literals(result.model, simulator, inputs.vocabulary, result.start,
                                is_state=state_test(inputs),
                                clock=None if budget is None else budget.start())
    except BudgetExhausted as stop:
        return {"enumerated": False, "summary": f"not scored: {stop}"}
    return {**scored.to_dict(), "summary": scored.summary()}


def _learn_model(args: argparse.Namespace) -> int:
    from xaip.capabilities.checks import LearningInputs, check, compare_models
    from xaip.capabilities.symbolic import SymbolicAgent, learn_model
    from xaip.contract import with_check
    from xaip.planning.pddl import check_problem, read_domain, read_problem
    from xaip.render import render

    domain = read_domain(args.domain)
    problem = read_problem(args.problem)
    check_problem(domain, problem)
    if args.output:
        check_output(args.output, (args.domain, args.problem))
    agent = SymbolicAgent(domain, problem)
    learned = learn_model(agent, budget=_budget(args))
    report = check(LearningInputs(domain, problem), learned)
    learned = with_check(learned, report)
    comparison = compare_models(domain, learned.domain)
    payload = learned.to_dict()
    payload["equal_to_hidden"] = comparison.equal
    payload["differences"] = comparison.differences
    payload["scores"] = comparison.to_dict()
    payload["check"] = report.to_dict()
    if args.output:
        write_output(args.output, learned.pddl, (args.domain, args.problem))
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print(render(learned))
        verdict = "equals the hidden model" if comparison.equal else \
            f"differs from the hidden model in {len(comparison.differences)} places"
        print(f"; the learned model {verdict} (up to what no query can observe)")
        print(("; verified: " if learned.verified else "; not verified: ") + report.details)
    return EXIT_OK if learned.status.finished and learned.verified else EXIT_NEGATIVE
