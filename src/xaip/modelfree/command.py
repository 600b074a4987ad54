"""``xaip model-free``: the cheapest messages that make a plan look explicable, learned from
labelled plans (book §6.3).

    xaip model-free [--labels F --messages F] [--plan F] [--held-out 0.25] [--seed N]
                    [--threshold 0.5] [--max-subsets N] [--max-seconds S] [--max-nodes N]
                    [--json]
    xaip model-free --generate DIR [--seed N]

Without files, the bundled synthetic Fetch data. Exit codes: 0 a verified message set; 1
no message set, the budget ran out, or the check did not confirm the answer; 2 bad input.
"""

from __future__ import annotations

import argparse

from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output_dir,
    emit,
    non_negative_int,
    positive_int,
    unit_float,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError


def _open_unit(text: str) -> float:
    value = unit_float(text)
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, not {text!r}")
    return value


def _held_out(text: str) -> float:
    value = unit_float(text)
    if value >= 1.0:
        raise argparse.ArgumentTypeError(f"must be from 0 to below 1, not {text!r}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``model-free`` on the ``xaip`` parser."""
    parser = sub.add_parser(
        "model-free", help="cheapest messages that make a plan look explicable, learned "
                           "from labelled plans",
        description="Learn which plan steps people find explicable after which explanation "
                    "messages (logistic regression on labelled plans), then find the "
                    "cheapest set of messages after which every step of the robot's plan "
                    "is labelled explicable (book ch. 6.3). Exact for up to 16 messages, "
                    "greedy with a proven lower bound beyond. Without files: the bundled "
                    "synthetic Fetch data.")
    parser.add_argument("--labels", default=None, metavar="FILE",
                        help="labelled plans, JSON Lines: {\"plan\": [...], \"messages\": "
                             "[...], \"labels\": [true, false, ...]}")
    parser.add_argument("--messages", default=None, metavar="FILE",
                        help="the messages, one a line: ID COST TEXT")
    parser.add_argument("--plan", default=None, metavar="FILE",
                        help="the robot's plan to explain (default: the bundled one)")
    parser.add_argument("--held-out", type=_held_out, default=0.25, metavar="SHARE",
                        help="share of labelled plans kept out of training to measure the "
                             "labeller (default 0.25)")
    parser.add_argument("--threshold", type=_open_unit, default=0.5, metavar="P",
                        help="a step looks explicable when P(explicable) >= P (default 0.5)")
    parser.add_argument("--max-subsets", type=positive_int, default=65_536, metavar="N",
                        help="message sets examined exactly before the greedy pass "
                             "(default 65536: every set of 16 messages)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="seed of the held-out split and of --generate (default 0)")
    parser.add_argument("--generate", default=None, metavar="DIR",
                        help="write a synthetic data set (messages.txt, labels.jsonl, "
                             "plan.txt, problem.pddl) for --seed into DIR and stop")
    add_budget_args(parser)
    add_json_arg(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from xaip.modelfree import bundled, explain_model_free
    from xaip.modelfree.data import read_messages, read_records, read_robot_plan
    from xaip.render import render

    if args.generate is not None:
        return _generate(args)
    if (args.labels is None) != (args.messages is None):
        raise InputError("--labels and --messages go together (the labels name the "
                         "messages' ids)")
    example = bundled() if args.labels is None or args.plan is None else None
    if args.labels is None:
        assert example is not None
        messages, records = example.messages, example.records
    else:
        messages = read_messages(args.messages)
        records = read_records(args.labels, messages)
    if args.plan is None:
        assert example is not None
        plan = example.plan
    else:
        plan = read_robot_plan(args.plan)
    result = explain_model_free(records, messages, plan, held_out=args.held_out,
                                seed=args.seed, threshold=args.threshold,
                                max_subsets=args.max_subsets, budget=budget_from(args))
    emit(args, result.to_dict(), render(result))
    found = result.status == "found"
    return EXIT_OK if found and result.verified else EXIT_NEGATIVE


def _generate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from xaip.modelfree.bundled import example_files

    if args.labels or args.messages or args.plan:
        raise InputError("--generate writes a data set; it takes no --labels, --messages "
                         "or --plan")
    files = example_files(args.seed)
    folder = Path(args.generate)
    check_output_dir(folder, files)
    existing = [name for name in files if (folder / name).exists()]
    if existing:
        raise InputError(f"{folder / existing[0]} exists; --generate never overwrites a file")
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        write_output(folder / name, text)
    payload = {"status": "complete", "seed": args.seed, "folder": str(folder),
               "files": sorted(files)}
    emit(args, payload, f"Wrote {', '.join(sorted(files))} (synthetic Fetch person, seed "
                        f"{args.seed}) into {folder}.")
    return EXIT_OK
