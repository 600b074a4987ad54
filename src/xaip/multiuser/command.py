"""``xaip explain-users``: explain the robot's plan to several users, each with their own
model and only what a privacy map lets them hear (MA-RADAR).

    xaip explain-users ROBOT_DOMAIN ROBOT_PROBLEM --user NAME=DOMAIN[,PROBLEM] ...
                       [--privacy FILE] [--plan FILE] [--no-shared]
                       [--max-seconds S] [--max-nodes N] [--json]

Exit codes: 0 every user has an explanation and the answer is verified; 1 some user cannot
be given one under the privacy map, the budget ran out, or the answer is not verified; 2
bad input (one line).
"""

from __future__ import annotations

import argparse

from xaip.commandline import add_budget_args, add_json_arg, budget_from, emit
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``explain-users`` on the ``xaip`` parser."""
    parser = sub.add_parser(
        "explain-users",
        help="explain a plan to several users, each within a privacy map (MA-RADAR)",
        description="Each --user holds their own model of the robot. For each user: the "
                    "fewest facts about the robot's model that make its plan optimal in "
                    "theirs, using only facts the privacy map lets them hear (or, when none "
                    "do, the withheld facts that would be needed); for the group: the "
                    "smallest conformant explanation of the merged model that every user "
                    "may hear. Every answer is checked independently.")
    parser.add_argument("robot_domain", metavar="ROBOT_DOMAIN", help="the robot's PDDL domain")
    parser.add_argument("robot_problem", metavar="ROBOT_PROBLEM",
                        help="the robot's PDDL problem")
    parser.add_argument("--user", metavar="NAME=DOMAIN[,PROBLEM]", action="append",
                        default=[], required=True,
                        help="a user and their model (problem: the robot's when omitted); "
                             "repeat for each user")
    parser.add_argument("--privacy", metavar="FILE",
                        help="JSON privacy map: what each user may be told (docs/multiuser.md)")
    parser.add_argument("--plan", metavar="FILE",
                        help="the robot's plan (default: its optimal plan)")
    parser.add_argument("--no-shared", action="store_true",
                        help="skip the group's shared explanation")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run_explain_users)


def _user(text: str) -> tuple[str, str, str | None]:
    name, sep, files = text.partition("=")
    if not sep or not name or not files:
        raise InputError(f"--user '{text}': expected NAME=DOMAIN[,PROBLEM]")
    domain, _, problem = files.partition(",")
    if not domain:
        raise InputError(f"--user '{text}': the domain file is missing")
    return name, domain, problem or None


def run_explain_users(args: argparse.Namespace) -> int:
    from xaip.multiuser.explain import explain_to_users
    from xaip.planning.pddl import read_domain, read_problem
    from xaip.planning.plans import read_plan
    from xaip.render import render

    robot = (read_domain(args.robot_domain), read_problem(args.robot_problem))
    users = []
    for text in args.user:
        name, domain, problem = _user(text)
        users.append((name, read_domain(domain), read_problem(problem) if problem else None))
    plan = read_plan(args.plan) if args.plan else None
    result = explain_to_users(robot, users, plan=plan, privacy=args.privacy,
                              budget=budget_from(args), shared=not args.no_shared)
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.verified and str(result.status) == "found" else EXIT_NEGATIVE
