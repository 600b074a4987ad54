"""``xaip balance``: choose a plan and its explanation together (book ch. 7).

    xaip balance [ROBOT HUMAN PROBLEM] [--human-problem FILE]
                 [--objective balanced|explicable|explicable-optimal]
                 [--alpha A --beta B --gamma G] [--explanation-cost FILE]
                 [--communication-cost C] [--penalty exp|exp-1|linear]
                 [--observable P,Q] [--infer-conditions] [--learn-from-watching]
                 [--method model-space|compile] [--exact | --approximate]
                 [--write-compiled DIR] [--json]

Without files it runs the bundled USAR instance of the book (50 per explanation item
unless ``--communication-cost`` says otherwise). Exit codes: 0 a verified answer; 1 no
answer, budget exhausted or not verified; 2 bad input (one line).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from typing import TYPE_CHECKING

from xaip.commandline import add_budget_args, add_json_arg, budget_from, emit
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError

if TYPE_CHECKING:
    from xaip.balanced.objectives import BalancedProblem


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, not {text[:40]!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, not {text[:40]!r}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``balance`` on the ``xaip`` parser."""
    from xaip.balanced.objectives import PENALTIES, Objective
    from xaip.balanced.solve import METHODS

    parser = sub.add_parser(
        "balance", help="choose a plan and its explanation together (balanced planning)",
        description="The plan and explanation minimising alpha * plan cost + beta * "
                    "communication cost + gamma * inexplicability penalty in the person's "
                    "updated model, or the perfectly explicable (optimal) plan with the "
                    "cheapest explanation (book ch. 7). Without files: the bundled USAR "
                    "instance.")
    parser.add_argument("files", nargs="*", metavar="ROBOT HUMAN PROBLEM",
                        help="robot domain, human domain and problem (none: bundled USAR)")
    parser.add_argument("--human-problem", default=None, metavar="FILE",
                        help="the problem as the person sees it (default: PROBLEM)")
    parser.add_argument("--objective", default="balanced",
                        choices=[o.value for o in Objective])
    for name in ("alpha", "beta", "gamma"):
        parser.add_argument(f"--{name}", type=_number, default=1.0,
                            help=f"weight {name} (default 1)")
    parser.add_argument("--explanation-cost", default=None, metavar="FILE",
                        help="JSON object: feature name (or sentence) -> cost of telling it")
    parser.add_argument("--communication-cost", type=_number, default=None, metavar="C",
                        help="cost of every other explanation item (default 1; 50 for the "
                             "bundled USAR instance)")
    parser.add_argument("--penalty", default="exp", choices=list(PENALTIES),
                        help="penalty of the cost difference in the person's model")
    parser.add_argument("--observable", default="", metavar="P,Q",
                        help="predicates the person sees while watching execution "
                             "(epistemic side effects)")
    parser.add_argument("--infer-conditions", action="store_true",
                        help="a watched conditional effect lets the person infer its "
                             "condition")
    parser.add_argument("--learn-from-watching", action="store_true",
                        help="a watched effect her model lacks (or has wrong) updates her "
                             "model of the action, needing no explanation")
    parser.add_argument("--method", default="model-space", choices=list(METHODS),
                        help="model-space search or the MEGA* compilation")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--exact", dest="exact", action="store_true", default=True,
                      help="exact model-space search (default)")
    mode.add_argument("--approximate", dest="exact", action="store_false",
                      help="the original work's approximate model-space search")
    parser.add_argument("--write-compiled", default=None, metavar="DIR",
                        help="also write the MEGA* compilation as PDDL into DIR")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run_balance)


def problem_from(args: argparse.Namespace) -> BalancedProblem:
    """The :class:`BalancedProblem` the arguments describe."""
    from xaip.balanced.instances import USAR_COMMUNICATION_COST, usar_files
    from xaip.balanced.objectives import Weights, balanced_problem, read_explanation_costs
    from xaip.planning.pddl import read_domain, read_problem

    if len(args.files) not in (0, 3):
        raise InputError(f"give ROBOT HUMAN PROBLEM (three files) or none for the bundled "
                         f"USAR instance, not {len(args.files)}")
    if args.files:
        robot, human, task = args.files
        human_task = args.human_problem
        default = 1.0
    else:
        if args.human_problem:
            raise InputError("--human-problem goes with ROBOT HUMAN PROBLEM")
        files = usar_files()
        robot, human, task = files["robot"], files["human"], files["problem"]
        human_task = files["human_problem"]
        default = USAR_COMMUNICATION_COST
    cost = default if args.communication_cost is None else args.communication_cost
    observable = frozenset(p.strip().lower() for p in args.observable.split(",") if p.strip())
    for flag, given in (("--infer-conditions", args.infer_conditions),
                        ("--learn-from-watching", args.learn_from_watching)):
        if given and not observable:
            raise InputError(f"{flag} needs --observable (what the person sees)")
    return balanced_problem(
        read_domain(robot), read_problem(task), read_domain(human),
        read_problem(human_task) if human_task else None,
        objective=args.objective, weights=Weights(args.alpha, args.beta, args.gamma),
        explanation_costs=read_explanation_costs(args.explanation_cost)
        if args.explanation_cost else None,
        default_cost=cost, penalty=args.penalty, observable=observable,
        infer_conditions=args.infer_conditions,
        learn_from_watching=args.learn_from_watching)


def _inputs(args: argparse.Namespace) -> list[str]:
    """Every file the command reads (none may be written over): the bundled USAR files
    when no models are given."""
    from xaip.balanced.instances import usar_files

    models = args.files or [str(path) for path in usar_files().values()]
    named = [*models, args.human_problem, args.explanation_cost]
    return [str(path) for path in named if path]


def _compiled_outputs(args: argparse.Namespace) -> list[Path]:
    """The files ``--write-compiled DIR`` would write, each checked against every input
    before any work (``--write-compiled .`` beside the models must not replace them)."""
    from xaip.balanced.compile_pddl import COMPILED_FILES
    from xaip.commandline import check_output

    folder = Path(args.write_compiled)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--write-compiled {args.write_compiled}: not a directory")
    return [check_output(folder / name, _inputs(args)) for name in COMPILED_FILES]


def run_balance(args: argparse.Namespace) -> int:
    from xaip.balanced.solve import balance
    from xaip.commandline import write_output
    from xaip.render import render

    if args.method == "compile" and not args.exact:
        raise InputError("--approximate is a mode of --method model-space")
    if args.write_compiled:
        _compiled_outputs(args)
    problem = problem_from(args)
    written: list[str] = []
    if args.write_compiled:
        try:
            from xaip.balanced.compile import write_compiled
        except ImportError:
            raise InputError("--write-compiled needs the MEGA* compilation, which this copy "
                             "of xaip lacks") from None
        inputs = _inputs(args)
        written = [str(p) for p in write_compiled(
            problem, args.write_compiled,
            write=lambda path, text: write_output(path, text, inputs))]
    result = balance(problem, method=args.method, exact=args.exact, budget=budget_from(args))
    payload = result.to_dict()
    text = render(result)
    if written:
        payload["compiled"] = written
        text += "\nCompiled task written to " + " and ".join(written) + "."
    emit(args, payload, text)
    return EXIT_OK if result.status.finished and result.verified and result.has_plan \
        else EXIT_NEGATIVE
