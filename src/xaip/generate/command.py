"""``xaip generate``: random MRP instances and random planning tasks, written as files.

    xaip generate mrp DOMAIN PROBLEM --k K --seed S --out DIR [--count N] [--mode MODE]
                      [--kinds KIND,...] [--need-explanation] [--max-tries T] [--json]
    xaip generate task NAME --size N --out DIR [--seed S] [--cities C] [--json]

``mrp`` writes one folder per instance (seeds S, S+1, ..., S+N-1) with the files
``xaip explain`` reads and a manifest; ``task`` writes a blocksworld, gripper or logistics
task from :mod:`xaip.domains.generators`. Outputs are never written over an input file.

Exit codes: 0 every instance written and its plans' claims verified by the checker
(:mod:`xaip.generate.check`); 1 the budget ran out or a claim is unverified (the files are
still written, the manifest says ``"verified": false``); 2 bad input (one line).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output_dir,
    emit,
    non_negative_int,
    positive_int,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError

TASKS = ("blocksworld", "gripper", "logistics")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``generate`` (``mrp`` and ``task``) on the ``xaip`` parser."""
    parser = sub.add_parser(
        "generate", help="random MRP instances (robot/human models + plan) or planning tasks",
        description="Generate benchmark instances: 'mrp' perturbs a robot model into a "
                    "human model (book ch. 5), 'task' writes a random planning task.")
    actions = parser.add_subparsers(dest="generate_action", metavar="WHAT", required=True)
    mrp = actions.add_parser(
        "mrp", help="random model-reconciliation problems from one robot model",
        description="Remove K of the robot model's features (or add K spurious ones, or a "
                    "mix) to make the human model; write both models, the problem(s), the "
                    "robot's optimal plan and a manifest per instance.")
    mrp.add_argument("domain", metavar="DOMAIN", help="the robot's PDDL domain")
    mrp.add_argument("problem", metavar="PROBLEM", help="the PDDL problem")
    mrp.add_argument("--k", type=non_negative_int, required=True,
                     help="features to perturb per instance")
    mrp.add_argument("--seed", type=non_negative_int, default=0,
                     help="seed of the first instance (default 0)")
    mrp.add_argument("--count", type=positive_int, default=1,
                     help="instances, with seeds SEED..SEED+COUNT-1 (default 1)")
    mrp.add_argument("--mode", choices=("remove", "add", "mix"), default="remove",
                     help="remove robot features, add spurious ones, or both (default remove)")
    mrp.add_argument("--kinds", default=None, metavar="KIND,...",
                     help="feature kinds to perturb (default precondition,add-effect,"
                          "delete-effect,init,goal)")
    mrp.add_argument("--need-explanation", action="store_true",
                     help="keep only instances where the plan is not optimal in the human "
                          "model (redraw up to --max-tries times)")
    mrp.add_argument("--max-tries", type=positive_int, default=None,
                     help="edit sets drawn per instance with --need-explanation (default 50)")
    mrp.add_argument("--out", required=True, metavar="DIR", help="folder to write into")
    add_budget_args(mrp)
    add_json_arg(mrp)
    mrp.set_defaults(handler=run_mrp)
    task = actions.add_parser(
        "task", help="a random blocksworld, gripper or logistics task",
        description="Write DIR/domain.pddl and DIR/problem.pddl of a generated task.")
    task.add_argument("name", choices=TASKS, metavar="NAME", help=", ".join(TASKS))
    task.add_argument("--size", type=positive_int, required=True,
                      help="blocks (blocksworld), balls (gripper) or packages (logistics)")
    task.add_argument("--seed", type=non_negative_int, default=0, help="seed (default 0)")
    task.add_argument("--cities", type=positive_int, default=2,
                      help="logistics: cities (default 2)")
    task.add_argument("--out", required=True, metavar="DIR", help="folder to write into")
    add_json_arg(task)
    for child in (mrp, task):  # every command takes --quiet (xaip.cli adds it to the parent)
        child.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS,
                           help="no progress bar or notes on stderr")
    task.set_defaults(handler=run_task)


def run_mrp(args: argparse.Namespace) -> int:
    from xaip.generate.candidates import DEFAULT_KINDS, parse_kinds
    from xaip.generate.files import MRP_FILES, instance_name, write_mrp
    from xaip.generate.mrp import DEFAULT_MAX_TRIES, random_mrp, robot_plan
    from xaip.planning.pddl import check_problem, read_domain, read_problem
    from xaip.runtime import report

    if args.max_tries is not None and not args.need_explanation:
        raise InputError("--max-tries only applies with --need-explanation")
    kinds = parse_kinds(args.kinds.split(",")) if args.kinds is not None else DEFAULT_KINDS
    inputs = (args.domain, args.problem)
    out = Path(args.out)
    seeds = range(args.seed, args.seed + args.count)
    for seed in seeds:  # refuse every output before any work
        check_output_dir(out / f"mrp-k{args.k}-s{seed}", MRP_FILES, inputs)
    domain, problem = read_domain(args.domain), read_problem(args.problem)
    check_problem(domain, problem)
    clock = budget_from(args).start()
    plan = robot_plan(domain, problem, clock)  # one clock: nodes and seconds of every call
    source = {"domain": str(args.domain), "problem": str(args.problem)}
    manifests: list[dict[str, Any]] = []
    for done, seed in enumerate(seeds):
        report(None, "generating", done, args.count, f"seed {seed}")
        instance = random_mrp(domain, problem, args.k, seed, mode=args.mode, kinds=kinds,
                              need_explanation=args.need_explanation,
                              max_tries=args.max_tries or DEFAULT_MAX_TRIES,
                              budget=clock, plan=plan)
        manifests.append(write_mrp(instance, out / instance_name(instance), source, inputs))
    report(None, "generating", args.count, args.count)
    verified = all(m["verified"] for m in manifests)
    payload = manifests[0] if args.count == 1 else {"instances": manifests,
                                                    "verified": verified}
    lines = [_mrp_line(m) for m in manifests]
    if not verified:
        lines += [f"{m['instance']}: unverified: {m['check']}" for m in manifests
                  if not m["verified"]]
    emit(args, payload, "\n".join(lines))
    return EXIT_OK if verified else EXIT_NEGATIVE


def _mrp_line(info: dict[str, Any]) -> str:
    edits = "; ".join(edit["text"] for edit in info["edits"]) or "no edits"
    tries = f", {info['tries']} tries" if info["tries"] > 1 else ""
    human = ("invalid for the human" if not info["human_plan_valid"]
             else f"costs {info['human_plan_cost']} for the human")
    if info["human_optimal_cost"] is not None:
        human += f", whose optimum is {info['human_optimal_cost']}"
    return (f"{info['instance']}: plan of cost {info['plan_cost']} ({human}{tries}); "
            f"edits: {edits}")


def run_task(args: argparse.Namespace) -> int:
    from xaip.domains import generators

    out = Path(args.out)
    paths = check_output_dir(out, ("domain.pddl", "problem.pddl"))
    try:
        if args.name == "blocksworld":
            domain, problem = generators.blocksworld(args.size, seed=args.seed)
        elif args.name == "gripper":
            domain, problem = generators.gripper(args.size)
        else:
            domain, problem = generators.logistics(args.cities, args.size, seed=args.seed)
    except ValueError as error:
        raise InputError(str(error)) from None
    out.mkdir(parents=True, exist_ok=True)
    for path, text in zip(paths, (domain, problem), strict=True):
        write_output(path, text)
    payload = {"task": args.name, "size": args.size, "seed": args.seed,
               **({"cities": args.cities} if args.name == "logistics" else {}),
               "domain": str(paths[0]), "problem": str(paths[1])}
    emit(args, payload, f"wrote {paths[0]} and {paths[1]}")
    return EXIT_OK
