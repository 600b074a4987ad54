"""``xaip explain``: explain a plan by model reconciliation (MCE, MME, ..., conformant).

    xaip explain ROBOT_DOMAIN HUMAN_DOMAIN PROBLEM [--type T] [--plan FILE] [--foil F]
                 [--annotations FILE] [--veto N] [--write-domain FILE] [--json] ...

Exit codes: 0 a finished explanation; 1 the budget ran out (at any phase: the robot's own
optimal plan, the search, a goal test) or the independent check did not confirm the
answer; 2 bad input (one line naming the file, action or option).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output,
    emit,
    non_negative_float,
    non_negative_int,
    unit_float,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError
from xaip.planning.engines import DEFAULT_ENGINE, engine_names
from xaip.reconcile.explain import ALL_TYPES, UNCERTAIN_TYPES
from xaip.runtime import Status


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``explain`` on the ``xaip`` sub-command parser."""
    parser = sub.add_parser(
        "explain", help="explain a plan by model reconciliation (MCE, MME, ...)",
        description="Find the model updates that make the robot's plan optimal in the "
                    "human's model (book ch. 5).")
    parser.add_argument("robot_domain")
    parser.add_argument("human_domain",
                        help="the human's domain, or 'empty' for a person who knows nothing")
    parser.add_argument("problem")
    parser.add_argument("--plan", default=None, metavar="FILE",
                        help="the robot's plan (default: an optimal plan in the robot model)")
    parser.add_argument("--type", default="mce", dest="kind", choices=list(ALL_TYPES),
                        help="explanation type (default: mce); conformant, conditional and "
                             "anytime need --annotations")
    parser.add_argument("--engine", default=DEFAULT_ENGINE, choices=list(engine_names()),
                        help="optimal planner for the goal tests: built-in A* + LM-cut, or "
                             "Fast Downward in a subprocess (for large models); the checker "
                             "then also uses it")
    parser.add_argument("--annotations", default=None, metavar="FILE",
                        help="possible features of the human model, one per line: "
                             "'PROBABILITY KIND [ACTION] (ATOM)' (book ch. 6)")
    parser.add_argument("--alpha", type=unit_float, default=1.0,
                        help="conditional: weight of the costlier branch, 0 to 1 (default 1)")
    parser.add_argument("--question-cost", type=non_negative_float, default=0.1,
                        help="conditional: cost of asking one question (default 0.1)")
    parser.add_argument("--annotation-cost", type=non_negative_float, default=1.0,
                        help="cost of telling a possible feature (default 1)")
    parser.add_argument("--max-completions", type=non_negative_int, default=4096,
                        metavar="N",
                        help="conformant: robustness exact up to N completions, a sampled "
                             "estimate beyond (default 4096; 0 always samples)")
    parser.add_argument("--robustness-precision", type=_precision, default=0.05,
                        metavar="EPS",
                        help="conformant: half-width of a sampled robustness interval, "
                             "sets the number of samples (Hoeffding; default 0.05)")
    parser.add_argument("--robustness-confidence", type=_precision, default=0.95,
                        metavar="C", help="conformant: confidence of that interval "
                                          "(default 0.95)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="conformant: seed of the robustness sampler (default 0)")
    parser.add_argument("--foil", action="append", default=[], metavar="FILE_OR_CONSTRAINT",
                        help="for --type contrastive: a plan file the person expected, or "
                             "'avoid:ACTION' / 'use:ACTION' (repeatable)")
    parser.add_argument("--human-problem", default=None, metavar="FILE",
                        help="the problem as the human sees it (default: PROBLEM)")
    parser.add_argument("--grounded", action="store_true",
                        help="edits on ground actions ('move loc1 loc2 requires ...')")
    parser.add_argument("--veto", action="append", type=int, default=[], metavar="N",
                        help="reject edit N (1-based) of the current explanation: the robot "
                             "corrects its model, replans and explains again (repeatable)")
    parser.add_argument("--write-domain", default=None, metavar="FILE",
                        help="write the updated human domain as PDDL (never over an input)")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run)


def _precision(text: str) -> float:
    """A number strictly between 0 and 1 (a precision or a confidence)."""
    value = unit_float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1, "
                                         f"got {text!r}")
    return value


def _inputs(args: argparse.Namespace) -> tuple[Any, ...]:
    return (args.robot_domain, None if args.human_domain == "empty" else args.human_domain,
            args.problem, args.plan, args.human_problem, args.annotations, *args.foil)


def _read_foil(text: str) -> Any:
    from xaip.reconcile.goals import parse_foil

    if text.startswith(("avoid:", "use:")):
        return parse_foil(text)
    from xaip.sidefiles import read_text

    return parse_foil(read_text(text, "foil"), text)  # limits, devices, FIFOs, UTF-8


def _unfinished(args: argparse.Namespace, phase: str) -> int:
    """The budget ran out before there was anything to explain with: say so, exit 1."""
    payload = {"type": args.kind, "status": str(Status.BUDGET_EXHAUSTED), "verified": False,
               "phase": phase}
    emit(args, payload, f"Budget exhausted while {phase}: no explanation; raise "
                        "--max-nodes/--max-seconds.")
    return EXIT_NEGATIVE


def run(args: argparse.Namespace) -> int:
    """The ``explain`` handler: exit 0 for a finished, verified answer, else 1."""
    from xaip.errors import BudgetExhausted
    from xaip.reconcile.problem import load_mrp
    from xaip.render import render

    if args.foil and args.kind != "contrastive":
        raise InputError("--foil needs --type contrastive")
    uncertain = args.kind in UNCERTAIN_TYPES
    if uncertain != (args.annotations is not None):
        raise InputError("--annotations goes with --type conformant, conditional or anytime"
                         if args.annotations else f"--type {args.kind} needs --annotations")
    if args.veto and (args.grounded or args.foil or uncertain):
        raise InputError("--veto works with lifted explanations of a known human model "
                         "(not --grounded, --foil or annotations)")
    if args.write_domain:
        check_output(args.write_domain, _inputs(args))
    budget = budget_from(args)
    foils = [_read_foil(f) for f in args.foil]
    try:
        mrp = load_mrp(args.robot_domain, args.human_domain, args.problem, args.plan,
                       args.human_problem, budget=budget, engine=args.engine)
    except BudgetExhausted as error:
        return _unfinished(args, error.phase)
    result: Any
    if args.veto:
        from xaip.reconcile.dialogue import decision_support

        result = decision_support(mrp, [n - 1 for n in args.veto], args.kind, budget,
                                  args.engine)
    elif uncertain:
        result = _explain_uncertain(args, mrp, budget)
    else:
        from xaip.reconcile.explain import explain

        result = explain(mrp, args.kind, budget=budget, engine=args.engine, foils=foils,
                         grounded=args.grounded)
    explanation = getattr(result, "current", result)  # a dialogue's last explanation
    if args.write_domain and result.status.finished \
            and getattr(explanation, "updated_domain", None) is not None:
        write_output(args.write_domain, render(explanation, "pddl"), _inputs(args))
    emit(args, result.to_dict(), render(result))
    # a veto that leaves the robot without a plan is a (checked) negative answer: exit 1
    answered = result.status.finished and result.status != Status.UNSOLVABLE
    return EXIT_OK if answered and result.verified else EXIT_NEGATIVE


def _explain_uncertain(args: argparse.Namespace, mrp: Any, budget: Any) -> Any:
    from xaip.reconcile.annotated import AnnotatedMRP, read_annotations
    from xaip.reconcile.explain import explain

    amrp = AnnotatedMRP(mrp, read_annotations(args.annotations, mrp.human_domain))
    answers = _ask if args.kind == "anytime" else None
    from xaip.reconcile.robustness import RobustnessOptions

    options = RobustnessOptions(args.max_completions, args.robustness_precision,
                                args.robustness_confidence, seed=args.seed)
    return explain(amrp, args.kind, budget=budget, answers=answers, alpha=args.alpha,
                   question_cost=args.question_cost, annotation_cost=args.annotation_cost,
                   engine=args.engine, robustness=options)


def _ask(feature: Any) -> bool:
    """Ask the person on the terminal (or read a piped answer) about a possible feature."""
    from xaip.planning.features.sentences import sentence

    print(f"Do you think that: {sentence(feature)} [y/n]? ", end="", file=sys.stderr,
          flush=True)
    line = sys.stdin.readline()
    if not line:
        raise InputError("anytime explanations ask questions: no answer on standard input")
    if not sys.stdin.isatty():
        print(line.strip(), file=sys.stderr)  # a piped answer is not echoed: show it
    return line.strip().lower() in ("y", "yes", "true", "1")
