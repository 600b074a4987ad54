"""``xaip why-not``: why is the plan preferred over the foil, in the user's concepts?

    xaip why-not ENV [--level FILE] [--plan FILE] [--foil FILE] [--variant precondition|cost]
                 [--vocabulary FILE] [--budget N] [--seed N] [--workers N] [--picture FILE]
                 [--json]

Without ``--level`` the bundled example of ENV runs (``--level switch-2`` names another
bundled level). For ``montezuma``, ``--level`` names the screen (``1`` or ``4``) and
``--plan`` / ``--foil`` are action lists or a bundled pair's name (screen 1: ledge-left,
ledge-right, ladder-left, rope-right, skull-left; screen 4: crab-down); ``--picture``
draws the game screen where the foil fails. Exit codes: 0 an explanation was found and
confirmed by the checker; 1 no explanation (the vocabulary is incomplete, the foil is not
worse), the budget ran out, or the checker did not confirm; 2 bad input (one line).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output,
    emit,
    non_negative_int,
    positive_int,
    write_output,
)
from xaip.concepts.results import Query, WhyNot
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError
from xaip.runtime import Status

ENVS = ("sokoban-switch", "sokoban-cells", "montezuma")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``why-not`` on the ``xaip`` sub-command parser."""
    parser = sub.add_parser(
        "why-not", help="why not my plan? explain a foil of a black-box agent in concepts",
        description="Say why the agent's plan is preferred over the foil: the foil fails "
                    "(a missing precondition) or costs more (an abstract cost function), in "
                    "the user's concepts, with a confidence (ICLR'22, book ch. 8).")
    parser.add_argument("env", metavar="ENV",
                        help=f"{', '.join(ENVS)}, or a Gymnasium environment file (FILE.json, "
                             "docs/gymnasium.md)")
    parser.add_argument("--level", default=None, metavar="FILE",
                        help="level text file, or a bundled level name (default: the "
                             "bundled example)")
    parser.add_argument("--plan", default=None, metavar="FILE",
                        help="the agent's plan, one action per line")
    parser.add_argument("--foil", default=None, metavar="FILE",
                        help="the user's alternative, one action per line")
    parser.add_argument("--variant", default=None, choices=("precondition", "cost"),
                        help="sokoban-switch: pushing with the switch off fails "
                             "(precondition, default) or costs 10 (cost)")
    parser.add_argument("--vocabulary", default=None, metavar="FILE",
                        help="JSON vocabulary file (default: every bundled concept of the "
                             "environment; montezuma files may ask for learned classifiers)")
    parser.add_argument("--budget", type=positive_int, default=None, metavar="N",
                        help="sampling budget (default 500 for a failing foil, 750 for a "
                             "costlier one, as in the paper)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="random seed (default 0)")
    parser.add_argument("--workers", type=positive_int, default=1, metavar="N",
                        help="draw samples on N processes (same answer for a seed)")
    parser.add_argument("--teach", action="store_true",
                        help="when no concept explains a failing foil, teach a new one: name "
                             "it and label example states on the terminal (book 7.7)")
    parser.add_argument("--picture", default=None, metavar="FILE",
                        help="write a PNG of the state where the foil fails (or costs more)")
    parser.add_argument("--assumptions", type=positive_int, default=None, metavar="N",
                        help="instead of explaining, test the confidence's two assumptions "
                             "on N states sampled around the plan (paper appendix A.10)")
    parser.add_argument("--cost-concept", action="append", default=[], metavar="NAME",
                        help="with --assumptions: a concept the cost depends on, left out of "
                             "the cost test (repeatable)")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run)


def _montezuma(args: argparse.Namespace) -> object:
    """Montezuma: ``--level`` names the screen; ``--plan``/``--foil`` are action-list files
    or the names of bundled pairs (default: the screen's first pair); ``--vocabulary`` a
    Montezuma vocabulary file (:mod:`xaip.concepts.montezuma_vocab`)."""
    from dataclasses import replace

    from xaip.concepts.montezuma import default_pair, montezuma_query
    from xaip.concepts.montezuma_vocab import read_montezuma_vocabulary
    from xaip.concepts.simulator import run_trace

    if args.variant is not None:
        raise InputError("montezuma has no --variant")
    screen = args.level or "1"
    pair = default_pair(screen)
    query = montezuma_query(args.plan or pair, args.foil or pair, screen)
    if args.vocabulary is None:
        return query
    starts = list(run_trace(query.sim, query.plan).states)
    starts += list(run_trace(query.sim, query.foil).states)
    vocabulary = read_montezuma_vocabulary(args.vocabulary, screen, query.sim, starts,
                                           args.seed)
    return replace(query, vocabulary=vocabulary)


def query_from_args(args: argparse.Namespace) -> object:
    """The question ``args`` describe (``why-not``'s ENV, level, plan, foil, variant and
    vocabulary options), shared with ``learn-local``."""
    from xaip.concepts.bundled import LEVELS, bundled, bundled_files, load_query
    from xaip.gymnasium.command import is_env_file, why_not_query

    if is_env_file(args.env):  # a Gymnasium environment file: xaip.gymnasium
        return why_not_query(args)
    if args.env not in ENVS:
        raise InputError(f"unknown environment {args.env[:60]!r} (one of {', '.join(ENVS)}, "
                         "or a Gymnasium environment file FILE.json)")
    if args.env == "montezuma":
        return _montezuma(args)
    variant = args.variant
    if args.env == "sokoban-cells" and variant == "precondition":
        raise InputError("sokoban-cells has only the cost variant")
    level = args.level
    if level is None or (level in LEVELS[args.env] and not Path(level).exists()):
        if args.plan is None and args.foil is None:
            return bundled(args.env, level, variant, args.vocabulary)
        files = bundled_files(args.env, level, variant or "precondition")
        return load_query(args.env, files[0], args.plan or files[1], args.foil or files[2],
                          variant, args.vocabulary)
    if args.plan is None or args.foil is None:
        raise InputError("--level FILE needs --plan FILE and --foil FILE")
    return load_query(args.env, level, args.plan, args.foil, variant, args.vocabulary)


def run(args: argparse.Namespace) -> int:
    """The ``why-not`` handler."""
    from xaip.concepts.explain import why_not
    from xaip.render import render

    inputs = (args.level, args.plan, args.foil, args.vocabulary)
    if args.picture:
        check_output(args.picture, inputs)
    query = query_from_args(args)
    assert isinstance(query, Query)
    if args.assumptions is not None:
        return _assumptions(query, args)
    if args.cost_concept:
        raise InputError("--cost-concept goes with --assumptions")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, samples=args.budget,
                     budget=budget_from(args), seed=args.seed, workers=args.workers)
    if args.picture:
        if result.failing_picture:
            write_output(args.picture, render(result, "png"), inputs)
        else:
            print(f"no picture written to {args.picture}: the foil neither fails nor costs "
                  "more", file=sys.stderr)
    if args.teach and result.incomplete and result.foil_outcome == "invalid":
        teaching = _teach(query, result, args)
        emit(args, teaching.to_dict(), render(teaching))
        result = teaching.final
    else:  # the question first: both action sequences, as the answer's steps count them
        asked = (f"The agent's plan ({_steps(query.plan)}): {', '.join(query.plan)}\n"
                 f"Your alternative, the foil ({_steps(query.foil)}): "
                 f"{', '.join(query.foil) or '(no actions)'}\n")
        emit(args, {**result.to_dict(), "plan": list(query.plan), "foil": list(query.foil)},
             asked + render(result))
    return EXIT_OK if result.status == Status.FOUND and result.verified else EXIT_NEGATIVE


def _assumptions(query: Query, args: argparse.Namespace) -> int:
    """``--assumptions N``: the paper's two assumption tests around the plan's states."""
    from xaip.concepts.assumptions import assumption_tests
    from xaip.concepts.simulator import run_trace
    from xaip.render import render

    starts = tuple(run_trace(query.sim, query.plan).states)
    report = assumption_tests(query.sim, query.vocabulary, starts, samples=args.assumptions,
                              seed=args.seed, skip=args.cost_concept)
    emit(args, report.to_dict(), render(report))
    return EXIT_OK


def _steps(actions: tuple[str, ...]) -> str:
    return f"{len(actions)} step{'' if len(actions) == 1 else 's'}"


def _teach(query: object, result: object, args: argparse.Namespace) -> Any:
    from xaip.concepts.simulator import random_walks
    from xaip.concepts.teach import TerminalTeacher, positive_states, teach

    assert isinstance(query, Query) and isinstance(result, WhyNot)
    pool = positive_states(query, result, seed=args.seed)[:20]
    pool += random_walks(query.sim, [query.sim.initial()], 30, args.seed)
    teacher = TerminalTeacher(query.sim, pool, seed=args.seed)
    return teach(query, result, teacher, seed=args.seed, samples=args.budget,
                 budget=budget_from(args))
