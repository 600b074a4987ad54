"""``xaip distance``, ``xaip explicable`` and ``xaip design``: explicable behaviour.

    xaip distance DOMAIN PROBLEM PLAN_A PLAN_B [--weights A,C,S] [--json]
    xaip explicable ROBOT_DOMAIN HUMAN_DOMAIN PROBLEM [--human-problem FILE]
                    [--distance cost|action|causal|state|composite|learned] [--max-cost C]
                    [--method auto|product|enumerate|search] [--png FILE] [--json]
    xaip design [SPEC] [--setting a|b|c] [--no-pruning] [--png FILE] [--json]

Exit codes: 0 a finished (for ``explicable`` and ``design``: verified) answer; 1 no plan
within the bound, budget exhausted or not verified; 2 bad input (one line).
"""

from __future__ import annotations

import argparse

from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output,
    emit,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError


def _weights(text: str) -> dict[str, float]:
    parts = text.split(",")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected three numbers A,C,S, not {text[:40]!r}"
                                         ) from None
    if len(values) != 3:
        raise argparse.ArgumentTypeError(f"expected three numbers A,C,S, not {text[:40]!r}")
    return dict(zip(("action", "causal", "state"), values, strict=True))


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``distance``, ``explicable`` and ``design`` on the ``xaip`` parser."""
    from xaip.explicable.measures import ALL_DISTANCES, MAPPINGS
    from xaip.explicable.planner import METHODS

    distance = sub.add_parser(
        "distance", help="distances between two plans of a task (action, causal, state)",
        description="Action, causal-link, state-sequence and composite distance between two "
                    "plans executable in one task, each in [0, 1] (book ch. 3).")
    distance.add_argument("domain")
    distance.add_argument("problem")
    distance.add_argument("plan_a")
    distance.add_argument("plan_b")
    distance.add_argument("--weights", type=_weights, default=None, metavar="A,C,S",
                          help="composite weights of the action, causal and state "
                               "distances (default 1,1,1)")
    add_json_arg(distance)
    distance.set_defaults(handler=run_distance)

    plan = sub.add_parser(
        "explicable", help="the robot plan the person finds most explicable, then cheapest",
        description="Among the robot's plans within the cost bound, the one whose distance "
                    "to the person's expected (optimal) plans is smallest, then the "
                    "cheapest (book ch. 3).")
    plan.add_argument("robot_domain")
    plan.add_argument("human_domain")
    plan.add_argument("problem")
    plan.add_argument("--human-problem", default=None, metavar="FILE",
                      help="the problem as the person sees it (default: PROBLEM)")
    plan.add_argument("--distance", default="cost", choices=list(ALL_DISTANCES),
                      help="plan distance (default: cost, the extra cost in the person's "
                           "model); learned needs --model")
    plan.add_argument("--model", default=None, metavar="FILE",
                      help="a learned distance (JSON weights, see docs/explicable.md)")
    plan.add_argument("--mapping", default="identity", choices=list(MAPPINGS),
                      help="increasing map from distance to inexplicability")
    plan.add_argument("--weights", type=_weights, default=None, metavar="A,C,S",
                      help="composite distance weights (default 1,1,1)")
    plan.add_argument("--max-cost", type=int, default=None, metavar="C",
                      help="consider robot plans of cost <= C (default: none for the cost "
                           "distance, twice the robot's optimum otherwise)")
    plan.add_argument("--method", default="auto", choices=list(METHODS),
                      help="product: search in both models (cost distance); enumerate: "
                           "score every robot plan within the bound; search: anytime "
                           "reconciliation search")
    plan.add_argument("--labels", default=None, metavar="FILE",
                      help="annotated plans (JSON Lines: plan, labels per step): build the "
                           "plan with the labelling model instead (book ch. 3)")
    plan.add_argument("--labeller", default="auto", choices=["auto", "crf", "majority"],
                      help="with --labels: a CRF sequence labeller or the per-action "
                           "majority vote (auto: the CRF from 5 annotated plans on)")
    plan.add_argument("--png", default=None, metavar="FILE",
                      help="grid domains: draw the plan beside the expected one as PNG")
    add_budget_args(plan)
    add_json_arg(plan)
    plan.set_defaults(handler=run_explicable)

    design = sub.add_parser(
        "design", help="environment design for explicability (default: the restaurant)",
        description="The cheapest set of environment changes that makes the robot's "
                    "behaviour explicable, weighed against its cost over a horizon "
                    "(book ch. 3). Without SPEC: the bundled restaurant robot.")
    design.add_argument("spec", nargs="?", default=None,
                        help="a JSON design problem (see docs/explicable.md)")
    design.add_argument("--setting", default=None,
                        help="a named setting of the spec (restaurant: a, b or c; default c)")
    design.add_argument("--no-pruning", action="store_true",
                        help="search every design subset (no relevance pruning)")
    design.add_argument("--png", default=None, metavar="FILE",
                        help="grid domains: draw each task's plan with the design as PNG")
    add_budget_args(design)
    add_json_arg(design)
    design.set_defaults(handler=run_design)


def run_distance(args: argparse.Namespace) -> int:
    from xaip.explicable.measures import compare_plans
    from xaip.explicable.problem import ground_model, read_steps
    from xaip.planning.pddl import read_domain, read_problem
    from xaip.render import render

    task = ground_model(read_domain(args.domain), read_problem(args.problem))
    result = compare_plans(task, read_steps(args.plan_a), read_steps(args.plan_b),
                           args.weights)
    emit(args, result.to_dict(), render(result))
    return EXIT_OK


def run_explicable(args: argparse.Namespace) -> int:
    from xaip.explicable.planner import explicable_plan
    from xaip.explicable.problem import load_problem
    from xaip.render import render

    if args.max_cost is not None and args.max_cost < 0:
        raise InputError(f"--max-cost must not be negative, not {args.max_cost}")
    params = args.weights
    if (args.distance == "learned") != (args.model is not None):
        raise InputError("--distance learned goes with --model FILE")
    if args.model is not None:
        from xaip.explicable.learned import LearnedDistance

        params = LearnedDistance.load(args.model)
    inputs = (args.robot_domain, args.human_domain, args.problem, args.human_problem,
              args.model, args.labels)
    if args.labels is not None:
        return _run_labels(args)
    if args.labeller != "auto":
        raise InputError("--labeller goes with --labels FILE")
    if args.png:
        check_output(args.png, inputs)
    problem = load_problem(args.robot_domain, args.human_domain, args.problem,
                           args.human_problem)
    result = explicable_plan(problem, args.distance, args.max_cost, args.method,
                             args.mapping, params, budget=budget_from(args))
    if args.png and result.has_plan:
        write_output(args.png, render(result, "png"), inputs)
    emit(args, result.to_dict(), render(result))
    found = result.has_plan and result.status.finished and result.verified
    return EXIT_OK if found else EXIT_NEGATIVE


def run_design(args: argparse.Namespace) -> int:
    from xaip.explicable.design import design_search, load_design, restaurant_spec
    from xaip.render import render

    if args.png:
        check_output(args.png, (args.spec,))
    spec = load_design(args.spec if args.spec else restaurant_spec(), args.setting)
    if args.png:  # before the search: never over the spec or any file it names
        check_output(args.png, spec.files)
    result = design_search(spec, prune=not args.no_pruning, budget=budget_from(args))
    if args.png and result.tasks:
        write_output(args.png, render(result, "png"), spec.files)
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.status.finished and result.verified else EXIT_NEGATIVE


def _run_labels(args: argparse.Namespace) -> int:
    """``--labels FILE``: a labeller (CRF or majority vote) trained on the annotated plans,
    then plan synthesis (EHC + completion) in the robot's model."""
    from xaip.explicable.crf import MIN_PLANS, CRFLabeller, object_types
    from xaip.explicable.labels import Labeller, MajorityLabeller, read_annotations, synthesize
    from xaip.explicable.problem import load_problem
    from xaip.render import render

    if args.distance != "cost" or args.model is not None or args.png:
        raise InputError("--labels goes without --distance, --model and --png")
    examples = read_annotations(args.labels)
    problem = load_problem(args.robot_domain, args.human_domain, args.problem,
                           args.human_problem)
    kind = args.labeller
    if kind == "auto":
        kind = "crf" if len(examples) >= MIN_PLANS else "majority"
    labeller: Labeller = (CRFLabeller(object_types(problem.robot_problem.objects))
                          .fit(examples) if kind == "crf" else MajorityLabeller().fit(examples))
    result = synthesize(problem, labeller, budget=budget_from(args))
    emit(args, {**result.to_dict(), "labeller": kind}, render(result))
    found = result.cost is not None and result.status.finished and result.verified
    return EXIT_OK if found else EXIT_NEGATIVE
