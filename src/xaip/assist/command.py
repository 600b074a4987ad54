"""``xaip assist``: decision support -- the person plans, xaip completes, suggests and checks.

    xaip assist DOMAIN PROBLEM {complete,suggest,check} [--prefix PLAN] [--plan PLAN]
                [--veto ACTION ...] [--human-domain FILE [--human-problem FILE]]
                [--explicable [--slack N] [--distance D]]
                [--max-seconds S] [--max-nodes N] [--json]

With the person's model (``--human-domain``, humans as actors): ``suggest --explicable``
picks the completion closest to what she would do within ``--slack`` of the cheapest, and
``check`` explains a plan that fails in the true model towards her model.

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
    parser.add_argument("--human-domain", metavar="FILE",
                        help="your model of the task (humans as actors): check then explains "
                             "what it is missing, suggest --explicable plans for it")
    parser.add_argument("--human-problem", metavar="FILE",
                        help="the problem as you see it (default: PROBLEM)")
    parser.add_argument("--explicable", action="store_true",
                        help="suggest: the completion closest to what you would do (needs "
                             "--human-domain)")
    parser.add_argument("--intended", metavar="PLAN_FILE",
                        help="--explicable: the whole plan you mean to carry out (starting "
                             "with --prefix); default: your optimal plans in your model")
    parser.add_argument("--slack", type=_count, default=0, metavar="N",
                        help="--explicable: how much dearer than the cheapest completion the "
                             "suggestion may be (default 0)")
    parser.add_argument("--distance", default="cost", metavar="D",
                        help="--explicable: the plan distance to yours: cost (default), "
                             "action, causal, state or composite")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run_assist)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative, not {value}")
    return value


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
    if args.human_problem and not args.human_domain:
        raise InputError("--human-problem goes with --human-domain")
    if args.explicable and args.mode != "suggest":
        raise InputError("--explicable goes with suggest")
    if (args.slack or args.distance != "cost" or args.intended) and not args.explicable:
        raise InputError("--slack, --distance and --intended go with --explicable")
    domain, problem = read_domain(args.domain), read_problem(args.problem)
    human = None
    if args.human_domain:
        human = (read_domain(args.human_domain),
                 read_problem(args.human_problem) if args.human_problem else None)
    steps = read_plan(source) if source else ()
    budget = budget_from(args)
    if args.mode == "check":
        helper = Assistant(domain, problem, vetoes=args.veto, human=human)
        result = helper.check(steps, budget)
        good = str(result.status) == "valid"
    else:
        helper = Assistant(domain, problem, prefix=steps, vetoes=args.veto, human=human)
        result = helper.complete(budget) if args.mode == "complete" else helper.suggest(
            budget, explicable=args.explicable, slack=args.slack, distance=args.distance,
            intended=read_plan(args.intended) if args.intended else None)
        good = str(result.status) == "solved"
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.verified and good else EXIT_NEGATIVE
