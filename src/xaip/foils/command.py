"""``xaip foil``: the plan that does what you asked instead, or why none can (RADAR-X).

    xaip foil DOMAIN PROBLEM FOILS [--max-seconds S] [--max-nodes N] [--json]

FOILS is a foil file, one constraint a line (see ``docs/foils.md``). Exit codes: 0 a
verified witness plan; 1 the foil is unrealisable (explained by its conflicts), the budget ran
out or the answer is not verified; 2 bad input (one line).
"""

from __future__ import annotations

import argparse

from xaip.commandline import add_budget_args, add_json_arg, budget_from, emit
from xaip.errors import EXIT_NEGATIVE, EXIT_OK


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``foil`` on the ``xaip`` parser."""
    parser = sub.add_parser(
        "foil", help="why not my way? partial-plan and constraint foils (RADAR-X)",
        description="Plan optimally under your constraints (use A, A then B, never C after "
                    "D, avoid A, sequence A B C; one a line in FOILS) and compare with the "
                    "robot's optimal plan; when no plan meets them all, list the minimal "
                    "conflicts and the largest sets that can be met. Every claim is checked "
                    "by a separate search.")
    parser.add_argument("domain", metavar="DOMAIN", help="PDDL domain file")
    parser.add_argument("problem", metavar="PROBLEM", help="PDDL problem file")
    parser.add_argument("foils", metavar="FOILS", help="foil file: one constraint a line")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run_foil)


def run_foil(args: argparse.Namespace) -> int:
    from xaip.foils.explain import explain_foils
    from xaip.planning.pddl import read_domain, read_problem
    from xaip.planning.pddl.limits import read_input
    from xaip.render import render

    domain, problem = read_domain(args.domain), read_problem(args.problem)
    text = read_input(args.foils, "foil file")
    result = explain_foils(domain, problem, text, file=args.foils, budget=budget_from(args))
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.verified and result.realisable is True else EXIT_NEGATIVE
