"""``xaip unsolvable``: why a task has no plan (book ch. 10, D3WA+).

    xaip unsolvable DOMAIN PROBLEM [--trace PLAN] [--repair N]
                    [--max-seconds S] [--max-nodes N] [--json]

Exit codes: 0 a verified answer (a plan, or an explanation of why there is none); 1 the
budget ran out or the answer is not verified; 2 bad input (one line).
"""

from __future__ import annotations

import argparse

from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    emit,
    non_negative_int,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``unsolvable`` on the ``xaip`` parser."""
    parser = sub.add_parser(
        "unsolvable", help="why a task has no plan: unsolvable core, unreachable landmark",
        description="Decide whether the task has a plan; when it has none, name the fewest "
                    "goal facts that are already impossible (first in goal order), the "
                    "landmark nothing reachable achieves and, with --trace, where your "
                    "attempted plan fails. Every claim is checked by a separate search.")
    parser.add_argument("domain", metavar="DOMAIN", help="PDDL domain file")
    parser.add_argument("problem", metavar="PROBLEM", help="PDDL problem file")
    parser.add_argument("--trace", default=None, metavar="PLAN",
                        help="a plan you expected to work: say where it fails")
    parser.add_argument("--repair", type=non_negative_int, default=0, metavar="N",
                        help="also find the fewest initial facts (at most N) whose addition "
                             "would give the task a plan (a search per candidate set; "
                             "default 0: off)")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run_unsolvable)


def run_unsolvable(args: argparse.Namespace) -> int:
    from xaip.planning.pddl import read_domain, read_problem
    from xaip.planning.plans import read_plan
    from xaip.render import render
    from xaip.unsolvable.explain import explain_unsolvable

    domain, problem = read_domain(args.domain), read_problem(args.problem)
    trace = read_plan(args.trace) if args.trace else None
    result = explain_unsolvable(domain, problem, trace, budget=budget_from(args),
                                repair=args.repair)
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.verified and result.status.finished else EXIT_NEGATIVE
