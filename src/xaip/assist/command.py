"""``xaip assist``: decision support -- the person plans, xaip completes, suggests and checks.

    xaip assist DOMAIN PROBLEM {complete,suggest,check} [--prefix PLAN] [--plan PLAN]
                [--veto ACTION ...] [--max-seconds S] [--max-nodes N] [--json]

Exit codes: 0 a verified completion / suggestion / valid plan; 1 the prefix does not apply,
no completion avoids the vetoes, the checked plan fails (a repair is shown), the budget ran
out or the answer is not verified; 2 bad input (one line).
"""

from __future__ import annotations

import argparse

from xaip.commandline import add_budget_args, add_json_arg, budget_from, emit
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``assist`` on the ``xaip`` parser."""
    parser = sub.add_parser(
        "assist", help="decision support (RADAR): complete, suggest, check your plan",
        description="complete: the cheapest completion of your partial plan (--prefix) and "
                    "its cost gap to the robot's optimal plan; suggest: the next action and "
                    "why; check: validate your whole plan (--plan), say what breaks and "
                    "repair it. --veto forbids an action or a schema. Every answer is "
                    "checked by a separate search.")
    parser.add_argument("domain", metavar="DOMAIN", help="PDDL domain file")
    parser.add_argument("problem", metavar="PROBLEM", help="PDDL problem file")
    parser.add_argument("mode", choices=("complete", "suggest", "check"),
                        help="what to do (default: complete)", nargs="?", default="complete")
    parser.add_argument("--prefix", metavar="PLAN_FILE",
                        help="your partial plan (complete, suggest), or your whole plan "
                             "(check); default: empty")
    parser.add_argument("--plan", metavar="PLAN_FILE", help="same as --prefix (for check)")
    parser.add_argument("--veto", metavar="ACTION", action="append", default=[],
                        help="forbid a schema ('put-down') or a ground action "
                             "('(put-down b2)'); repeatable")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run_assist)


def run_assist(args: argparse.Namespace) -> int:
    from xaip.assist.assistant import Assistant
    from xaip.planning.pddl import read_domain, read_problem
    from xaip.planning.plans import read_plan
    from xaip.render import render

    if args.prefix and args.plan:
        raise InputError("give the plan once: --prefix or --plan")
    source = args.prefix or args.plan
    if args.mode == "check" and source is None:
        raise InputError("check needs your plan: --plan PLAN_FILE")
    domain, problem = read_domain(args.domain), read_problem(args.problem)
    steps = read_plan(source) if source else ()
    budget = budget_from(args)
    if args.mode == "check":
        helper = Assistant(domain, problem, vetoes=args.veto)
        result = helper.check(steps, budget)
        good = str(result.status) == "valid"
    else:
        helper = Assistant(domain, problem, prefix=steps, vetoes=args.veto)
        result = helper.complete(budget) if args.mode == "complete" else helper.suggest(budget)
        good = str(result.status) == "solved"
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.verified and good else EXIT_NEGATIVE
