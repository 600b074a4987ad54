"""``xaip learn-local``: learn the whole local symbolic model of a black box.

    xaip learn-local ENV [--level FILE] [--plan FILE] [--foil FILE] [--variant V]
                     [--vocabulary FILE] [--samples N|all] [--radius R] [--seed N]
                     [--write-pddl DIR] [--json]

ENV, ``--level``, ``--plan``, ``--foil``, ``--variant`` and ``--vocabulary`` are read
exactly as ``xaip why-not`` reads them (its loader is reused): the region grows from the
states of the plan and of the foil (up to where it fails). ``--samples all`` (the default
for Sokoban) learns from every state within ``--radius`` (default 15) steps; a number
draws that many states by random walks (or uniformly within ``--radius``). Exit codes: 0
the model was learned and the checker confirmed it; 1 the budget ran out or the checker
found violations (or ran out of budget); 2 bad input (one line).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output_dir,
    emit,
    non_negative_int,
    positive_int,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError

#: Samples when ``--samples`` is not given: every state for Sokoban, else this many.
DEFAULT_SAMPLES = 500


def _samples(text: str) -> int | str:
    return "all" if text == "all" else positive_int(text)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``learn-local`` on the ``xaip`` sub-command parser."""
    parser = sub.add_parser(
        "learn-local", help="learn the whole local STRIPS model of a black box in concepts",
        description="Learn every action's precondition, effects and cost over the user's "
                    "concepts from samples around the plan and the foil, say which "
                    "assumptions failed, and check the model on the region (book 7.1-7.3).")
    parser.add_argument("env", metavar="ENV",
                        help="sokoban-switch, sokoban-cells, montezuma, or a Gymnasium "
                             "environment file (as xaip why-not)")
    parser.add_argument("--level", default=None, metavar="FILE",
                        help="level file or bundled level name (as xaip why-not)")
    parser.add_argument("--plan", default=None, metavar="FILE", help="the agent's plan")
    parser.add_argument("--foil", default=None, metavar="FILE", help="the user's foil")
    parser.add_argument("--variant", default=None, choices=("precondition", "cost"),
                        help="sokoban-switch: pushes fail or cost 10 with the switch off")
    parser.add_argument("--vocabulary", default=None, metavar="FILE",
                        help="JSON vocabulary file (default: every bundled concept)")
    parser.add_argument("--samples", type=_samples, default=None, metavar="N|all",
                        help="states to sample, or 'all' within --radius (default: all for "
                             f"Sokoban, {DEFAULT_SAMPLES} otherwise)")
    parser.add_argument("--radius", type=non_negative_int, default=None, metavar="R",
                        help="the region: states within R steps (default: random walks of "
                             "up to 15 steps)")
    parser.add_argument("--seed", type=non_negative_int, default=0, help="random seed")
    parser.add_argument("--write-pddl", default=None, metavar="DIR",
                        help="write the learned domain.pddl and problem.pddl into DIR")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """The ``learn-local`` handler."""
    from xaip.concepts.command import query_from_args
    from xaip.concepts.results import Query
    from xaip.concepts.simulator import run_trace
    from xaip.localmodel import learn_and_check
    from xaip.render import render

    inputs = (args.level, args.plan, args.foil, args.vocabulary)
    if args.write_pddl:
        check_output_dir(args.write_pddl, ("domain.pddl", "problem.pddl"), inputs)
    for name, value in (("workers", 1), ("picture", None), ("teach", False)):
        setattr(args, name, getattr(args, name, value))  # what why-not's loader reads
    query = query_from_args(args)
    if not isinstance(query, Query):
        raise InputError("learn-local could not load this environment")
    samples = args.samples
    if samples is None:  # the default: every state where that is cheap (Sokoban)
        samples = "all" if query.sim.name.startswith("sokoban") else DEFAULT_SAMPLES
    samples = None if samples == "all" else samples
    starts = list(run_trace(query.sim, query.plan).states)
    starts += list(run_trace(query.sim, query.foil).states)
    result = learn_and_check(query.sim, query.vocabulary, tuple(dict.fromkeys(starts)),
                             samples=samples, radius=args.radius, seed=args.seed,
                             budget=budget_from(args))
    if args.write_pddl:
        folder = Path(args.write_pddl)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise InputError(f"cannot create {folder}: {error.strerror}") from None
        write_output(folder / "domain.pddl", result.domain_pddl, inputs)
        write_output(folder / "problem.pddl", result.problem_pddl, inputs)
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.verified else EXIT_NEGATIVE
