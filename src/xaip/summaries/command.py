"""``xaip summarize``: summarise a policy of a PPDDL task by its landmarks (TLdR).

    xaip summarize [DOMAIN PROBLEM] [--policy FILE | --solver lao|vi] [--drill A B]
                   [--dot FILE] [--json] ...

Without DOMAIN and PROBLEM the bundled travel-to-the-airport example is summarised.
Exit codes: 0 summary produced (and verified, unless --no-check); 1 budget exhausted (one
budget covers solving, the policy graph and its dead ends, compilations and landmarks; the
checker gets the same limits afresh), "unverified: checker budget", the independent check
failed, or the task is unsolvable (no policy reaches the goal; status ``unsolvable``); 2
bad input (unreadable or unsupported PPDDL, a policy file that does not fit the problem or
never reaches the goal, bad numbers).
Every ``--json`` output has ``status`` and ``verified``.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from xaip.commandline import (
    OutputError,
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output,
    check_outputs,
    emit,
    write_output,
)
from xaip.errors import (
    EXIT_NEGATIVE,
    EXIT_OK,
    EngineUnavailable,
    InputError,
)
from xaip.planning.mdp import (
    COST_MODELS,
    DEFAULT_DEAD_END_COST,
    Policy,
    ProbabilisticTask,
    ground_probabilistic,
)
from xaip.render import render
from xaip.render.dot import dot_available, write_svg
from xaip.runtime.budget import BudgetClock
from xaip.runtime.status import Status
from xaip.summaries.disjunctive import DEFAULT_SIZE, SIZES
from xaip.summaries.drill import GOAL_NAMES, INIT_NAMES, DrillDown, drill_down, resolve_fact
from xaip.summaries.summary import COMPILATIONS, summarize
from xaip.summaries.text import Phrases, load_phrases


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``summarize`` on the ``xaip`` sub-command parser."""
    parser = sub.add_parser(
        "summarize",
        help="summarise a policy by its landmarks (TLdR)",
        description="Summarise a policy of a PPDDL task as ordered subgoals (policy "
        "landmarks), compare them with the task's own landmarks, and check them. Without "
        "DOMAIN and PROBLEM, the bundled travel-to-the-airport example is used.",
    )
    parser.add_argument("domain", nargs="?", default=None)
    parser.add_argument("problem", nargs="?", default=None)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--policy", default=None, metavar="FILE",
                        help="summarise this policy (JSON written by --save-policy)")
    source.add_argument("--solver", choices=("lao", "vi"), default="lao",
                        help="compute an optimal policy with ILAO* (default) or value iteration")
    parser.add_argument("--save-policy", default=None, metavar="FILE",
                        help="write the policy that was summarised as JSON")
    parser.add_argument("--drill", nargs=2, default=None, metavar=("A", "B"),
                        help="landmarks between subgoals A and B, e.g. '(at station1)' "
                             "'(at the-airport)' ('init' and 'goal' are allowed)")
    parser.add_argument("--max-completions", type=int, default=20, metavar="N",
                        help="with --drill: examine at most N completions of A (default 20)")
    parser.add_argument("--dot", default=None, metavar="FILE",
                        help="write the landmark graph as Graphviz DOT, and FILE.svg (by "
                             "Graphviz when installed, else xaip's own layout)")
    parser.add_argument("--compilation", choices=COMPILATIONS, default="concise",
                        help="landmarks the summary is built from: concise D(M) as in the "
                             "paper (default) or complete D(M)^c (exact)")
    parser.add_argument("--disjunctive-size", type=int, choices=SIZES, default=DEFAULT_SIZE,
                        metavar="N", help="disjunctive landmarks ('either A or B happens on "
                        "every run') of up to N facts: 2 (default), 3, or 0 for none")
    parser.add_argument("--phrases", default=None, metavar="FILE",
                        help="JSON object: predicate -> English template, e.g. "
                             '{"at": "get to {0}"}')
    parser.add_argument("--cost", choices=COST_MODELS, default="unit",
                        help="step costs: unit (default) or from (decrease (reward) k)")
    parser.add_argument("--dead-end-cost", type=float, default=DEFAULT_DEAD_END_COST,
                        metavar="D", help="price of stopping in a dead end, a number >= 0 "
                        "(default 1e6)")
    parser.add_argument("--strict", action="store_true",
                        help="require a proper policy: fail (listing dead ends) if none exists")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the independent check of the landmarks on the policy graph")
    add_budget_args(parser)  # one budget for the whole run: solving, policy graph and dead
    add_json_arg(parser)     # ends, compilations, landmarks, check
    parser.set_defaults(handler=run)


def _load(args: argparse.Namespace,
          clock: BudgetClock) -> tuple[ProbabilisticTask, Phrases | None, str]:
    from xaip.planning.pddl import check_problem, read_domain, read_problem

    phrases: Phrases | None = None
    if args.domain is None and args.problem is None:
        from xaip.domains.airport import PHRASES, airport_paths

        domain_path, problem_path = airport_paths()
        phrases = PHRASES
        label = "bundled example: travel to the airport"
    elif args.domain is None or args.problem is None:
        raise InputError("give both DOMAIN and PROBLEM, or neither for the bundled example")
    else:
        domain_path, problem_path = Path(args.domain), Path(args.problem)
        label = f"{domain_path} {problem_path}"
    domain = read_domain(domain_path)
    problem = read_problem(problem_path)
    check_problem(domain, problem)
    ptask = ground_probabilistic(domain, problem, cost=args.cost, budget=clock)
    if args.phrases:
        phrases = load_phrases(args.phrases)
    return ptask, phrases, label


def _check_numbers(args: argparse.Namespace) -> None:
    """Reject numbers that make no sense before any work starts."""
    if args.max_completions < 1:
        raise InputError("--max-completions must be at least 1")
    cost = args.dead_end_cost
    if not math.isfinite(cost) or cost < 0:
        raise InputError(f"--dead-end-cost must be a finite number >= 0, not {cost}")


def _check_outputs(args: argparse.Namespace) -> None:
    """Outputs never overwrite an input file, and each output has its own path: the SVG is
    written next to the DOT file, so a DOT file named ``*.svg`` would be overwritten."""
    inputs = (args.domain, args.problem, args.policy, args.phrases)
    if args.dot and Path(args.dot).suffix.lower() == ".svg":
        raise OutputError(f"--dot {args.dot}: the SVG is written next to the DOT file, as "
                          f"{Path(args.dot).with_suffix('.svg')}; give the DOT file a name "
                          "ending in .dot")
    svg = Path(args.dot).with_suffix(".svg") if args.dot else None
    check_outputs((args.save_policy, args.dot, svg), inputs)


def run(args: argparse.Namespace) -> int:
    """Handle ``xaip summarize`` (see the module docstring for exit codes)."""
    _check_numbers(args)
    _check_outputs(args)
    clock = budget_from(args).start()  # reading counts too
    ptask, phrases, label = _load(args, clock)  # grounding is under the budget too
    dead_end_cost = None if args.strict else args.dead_end_cost
    ends: tuple[int | None, int | None] | None = None
    if args.drill:
        ends = (resolve_fact(ptask, args.drill[0], INIT_NAMES),
                resolve_fact(ptask, args.drill[1], GOAL_NAMES))
    policy = Policy.load(args.policy, ptask) if args.policy else None
    summary = summarize(
        ptask, policy, solver=args.solver, compilation=args.compilation,
        check=not args.no_check, dead_end_cost=dead_end_cost, phrases=phrases, budget=clock,
        policy_source=f"file {args.policy}" if args.policy else None,
        disjunctive_size=args.disjunctive_size,
    )
    if args.save_policy and summary.stopped_in != "solving":
        summary.policy.save(args.save_policy)
    drill: DrillDown | None = None
    if ends is not None and summary.status.finished:
        drill = drill_down(ptask, summary.policy, ends[0], ends[1], summary.graph,
                           args.max_completions, clock, check=not args.no_check)
    dot_note = _write_dot(args.dot, render(summary, "dot")) if args.dot else None
    finished = summary.status.finished and (drill is None or drill.status.finished)
    verified = summary.verified and (drill is None or drill.verified)
    from xaip.render.summaries import narration

    if args.json:
        payload = summary.to_dict()
        payload.update(
            status=str(summary.status if finished else Status.BUDGET_EXHAUSTED),
            verified=verified, input=label, summary=narration(summary),
            drill=None if drill is None else drill.to_dict(), dot=dot_note,
            seconds=round(clock.elapsed(), 6))
        emit(args, payload, "")
    else:
        parts = [str(render(summary, "text"))]
        if drill is not None:
            parts.append(str(render(drill, "text")))
        if dot_note:
            parts.append(dot_note)
        print("\n".join(parts))
    if summary.status == Status.UNSOLVABLE:
        return EXIT_NEGATIVE  # a negative answer, like an unsolvable planning task
    return EXIT_OK if finished and (verified or args.no_check) else EXIT_NEGATIVE


def _write_dot(path: str, dot_text: str) -> str:
    """Write the DOT file and its SVG; say what was written."""
    svg_path = Path(path).with_suffix(".svg")
    check_output(svg_path)  # not a file read since the start (checked then too)
    write_output(path, dot_text)
    try:
        write_svg(dot_text, svg_path)
    except EngineUnavailable as error:
        return f"wrote {path}; no SVG: {error}"
    except OSError as error:
        raise InputError(f"cannot write {error.filename or path}: "
                         f"{error.strerror or error}") from None
    how = "" if dot_available() else " (xaip's own layout: Graphviz is not installed)"
    return f"wrote {path} and {svg_path}{how}"


def main(argv: list[str] | None = None) -> int:
    """Run ``summarize`` on its own (``python -m xaip.summaries.command ...``), with the
    exit codes and one-line errors of the ``xaip`` command."""
    import sys

    from xaip.cli import main as xaip_main

    return xaip_main(["summarize", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
