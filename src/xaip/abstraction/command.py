"""``xaip abstract-explain`` (U06) and ``xaip abstract-locate`` (U07).

    xaip abstract-explain DOMAIN PROBLEM --hide PRED ... [--foil FILE ...] [--plan FILE]
                          [--write-abstraction DIR] [--max-seconds S] [--max-nodes N] [--json]
    xaip abstract-locate DOMAIN PROBLEM (--hide PRED ... | --levels FILE)
                         (--simulate [PRED ...] | --interactive)
                         [--max-seconds S] [--max-nodes N] [--json]

Exit codes: 0 a verified answer (every foil refuted; the person located); 1 a foil that
cannot be refuted, answers no level agrees with, the budget ran out or the answer is not
verified; 2 bad input (one line).
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
    check_output_dir,
    emit,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError
from xaip.runtime import Status

#: The files ``--write-abstraction DIR`` writes.
ABSTRACTION_FILES = ("domain.pddl", "problem.pddl")


class _Interactive(argparse.Action):
    """``--interactive``: questions go to the terminal, so no progress bar draws there."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        namespace.interactive = True
        namespace.quiet = True


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``abstract-explain`` and ``abstract-locate`` on the ``xaip`` parser."""
    parser = sub.add_parser(
        "abstract-explain", help="refute foils with the fewest fluents made concrete (HELM)",
        description="The person's model is the robot's without the --hide predicates. Find "
                    "the fewest of them she must keep track of so that each of her foils "
                    "(plans she expects instead) fails -- a step not applicable, the goal "
                    "not reached, or not cheaper than the robot's plan -- and show where. "
                    "Checked by replaying every smaller set.")
    parser.add_argument("domain", metavar="DOMAIN", help="PDDL domain file (the robot's)")
    parser.add_argument("problem", metavar="PROBLEM", help="PDDL problem file")
    parser.add_argument("--hide", nargs="+", action="extend", required=True, metavar="PRED",
                        help="predicates the person does not know or track")
    parser.add_argument("--foil", nargs="+", action="extend", metavar="FILE",
                        help="plan files the person expects instead (one plan a file; "
                             "default: an optimal plan of her model)")
    parser.add_argument("--plan", default=None, metavar="FILE",
                        help="the robot's plan (default: an optimal plan of the task)")
    parser.add_argument("--write-abstraction", default=None, metavar="DIR",
                        help="write the person's model after the explanation (the still "
                             "hidden predicates dropped) as domain.pddl and problem.pddl "
                             "into DIR, for her to re-check her plans in")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run_explain)

    locate = sub.add_parser(
        "abstract-locate", help="locate the person's abstraction level by valid/invalid queries",
        description="Find which predicates the person ignores by showing her plans and "
                    "asking whether each is valid: the lattice is every subset of the --hide "
                    "predicates (or the levels of --levels FILE, one a line); each query "
                    "splits the levels left as evenly as possible. Answer at the terminal "
                    "(--interactive) or let a simulated person at a level answer.")
    locate.add_argument("domain", metavar="DOMAIN", help="PDDL domain file (the robot's)")
    locate.add_argument("problem", metavar="PROBLEM", help="PDDL problem file")
    lattice = locate.add_mutually_exclusive_group(required=True)
    lattice.add_argument("--hide", nargs="+", action="extend", metavar="PRED",
                         help="hideable predicates: the lattice is every subset")
    lattice.add_argument("--levels", metavar="FILE",
                         help="the levels, one a line: the predicates each hides ('-': none)")
    who = locate.add_mutually_exclusive_group(required=True)
    who.add_argument("--simulate", nargs="*", metavar="PRED",
                     help="a simulated person who hides these predicates answers")
    who.add_argument("--interactive", nargs=0, action=_Interactive, default=False,
                     help="you answer each question at the terminal (y/n)")
    add_budget_args(locate)
    add_json_arg(locate)
    locate.set_defaults(handler=run_locate)


def run_explain(args: argparse.Namespace) -> int:
    from xaip.abstraction.explain import explain_by_abstraction
    from xaip.planning.pddl import check_problem, read_domain, read_problem
    from xaip.planning.plans import read_plan
    from xaip.render import render

    outputs = []
    if args.write_abstraction:
        inputs = [args.domain, args.problem, args.plan, *(args.foil or ())]
        outputs = check_output_dir(args.write_abstraction, ABSTRACTION_FILES, inputs)
    domain, problem = read_domain(args.domain), read_problem(args.problem)
    check_problem(domain, problem)
    given = args.foil or []
    if len(set(given)) < len(given):
        raise InputError("the same foil file twice")
    short = [Path(path).name for path in given]
    names = short if len(set(short)) == len(short) else list(given)
    foils = {name: read_plan(path) for name, path in zip(names, given, strict=True)} or None
    plan = read_plan(args.plan) if args.plan else None
    result = explain_by_abstraction(domain, problem, [p.lower() for p in args.hide], foils,
                                    plan=plan, budget=budget_from(args))
    payload, text = result.to_dict(), render(result)
    if outputs:
        from xaip.abstraction.projection import project
        from xaip.planning.pddl import write_domain, write_problem

        Path(args.write_abstraction).mkdir(parents=True, exist_ok=True)
        model = project(domain, problem, result.still_hidden)
        for path, content in zip(outputs, (write_domain(model[0]), write_problem(model[1])),
                                 strict=True):
            write_output(path, content)
        payload["written"] = [str(p) for p in outputs]
        text += f"\nYour model now: {outputs[0]} and {outputs[1]}."
    emit(args, payload, text)
    return EXIT_OK if result.verified and result.status == Status.FOUND else EXIT_NEGATIVE


def run_locate(args: argparse.Namespace) -> int:
    from xaip.abstraction.lattice import parse_levels
    from xaip.abstraction.localise import localise, simulated_person, terminal_person
    from xaip.planning.pddl import check_problem, read_domain, read_problem
    from xaip.planning.pddl.limits import read_input
    from xaip.render import render

    domain, problem = read_domain(args.domain), read_problem(args.problem)
    check_problem(domain, problem)
    levels = None
    hideable: tuple[str, ...] = tuple(p.lower() for p in args.hide or ())
    if args.levels:
        hideable, levels = parse_levels(read_input(args.levels, "levels file"), args.levels)
    truth = None
    if args.simulate is not None:
        words = [p.lower() for p in args.simulate if p != "-"]
        truth = frozenset(words)
        person = simulated_person(domain, problem, truth) if _known(domain, words) else None
    else:
        person = terminal_person(sys.stdin, sys.stderr)
    if person is None:
        raise InputError("--simulate names a predicate the domain does not declare")
    result = localise(domain, problem, person, hideable=hideable, levels=levels, truth=truth,
                      budget=budget_from(args))
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.verified and result.status == Status.FOUND else EXIT_NEGATIVE


def _known(domain: Any, names: list[str]) -> bool:
    declared = {p.name for p in domain.predicates}
    return all(n in declared for n in names)
