"""``xaip observe``: plans for observers who see only part of what the agent does.

    xaip observe DOMAIN PROBLEM --observations FILE [--goals FILE]
                 [--mode legible-goal|legible-plan|ambiguous|secure-ambiguous|diverse|
                         score|mixed]
                 [--j J] [--k K] [--m M] [--l L] [--d D] [--distance action|causal|state|composite]
                 [--max-cost C] [--horizon T] [--seed N] [--plan FILE] [--observer NAME]
                 [--heuristic blind|hadd|hff|hmax] [--spread-guidance]
                 [--method ip|search] [--picture PNG] [--animation GIF] [--json]
    xaip observe --example port|medkit|truck [--mode ...]
    xaip observe --mode deceptive --grid FILE [--beta B]
    xaip observe ROBOT_DOMAIN PROBLEM --mode lie --human-domain FILE --allow-untruthful
                 [--human-problem FILE] [--plan FILE] [--omission-only]

Pictures (grid domains and deceptive paths): ``--picture FILE`` writes the belief film as
one PNG, a grid of frames each captioned with its step (from 1) and the goals still
plausible, under a title and above a legend; ``--animation FILE`` one frame per step as an
animated GIF; neither ever overwrites an input.
Lies (book §9.3) refuse to run without ``--allow-untruthful`` and are labelled untruthful
in text and JSON.

``--example`` runs a bundled book instance in its book setting (port: 1-legible; medkit:
2-similar within 0.5 under cost 8, and for goal obfuscation the two-kit goals of
``kits.json``; truck: mixed observers by the integer program); other flags override the
setting. ``--mode score`` scores the plan in ``--plan FILE``.

Exit codes: 0 a finished, verified answer; 1 no such plan within the bounds, budget
exhausted, or not verified; 2 bad input (one line).
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
    check_output,
    emit,
    non_negative_float,
    write_output,
)
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError

MODES = ("legible-goal", "legible-plan", "ambiguous", "secure-ambiguous", "diverse", "score",
         "mixed", "deceptive", "lie")
#: Modes whose answer must reach the candidates' true goal (checked by a planner first).
GOAL_MODES = ("legible-goal", "ambiguous", "secure-ambiguous", "legible-plan", "diverse",
              "mixed")
EXAMPLE_NAMES = ("port", "medkit", "truck")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``observe`` on the ``xaip`` parser."""
    from xaip.explicable.distances import TRACE_DISTANCES
    from xaip.observers.guidance import GUIDANCE

    p = sub.add_parser(
        "observe", help="plans legible to friends or obfuscating to adversaries who see "
                        "only tokens",
        description="Plan for an observer with a partial sensor model (book ch. 4 and 9): "
                    "goal or plan legibility, goal or plan obfuscation, secure "
                    "obfuscation, mixed observers, deceptive paths, the score of a plan, "
                    "or (only with --allow-untruthful) lies by model reconciliation.")
    p.add_argument("domain", nargs="?", default=None)
    p.add_argument("problem", nargs="?", default=None)
    p.add_argument("--observations", default=None, metavar="FILE",
                   help="the observer's sensor model (JSON, see docs/observers.md)")
    p.add_argument("--goals", default=None, metavar="FILE",
                   help="candidate goals and the true one (JSON; plan modes default to the "
                        "problem's goal)")
    p.add_argument("--example", default=None, choices=EXAMPLE_NAMES,
                   help="a bundled book instance in its book setting")
    p.add_argument("--mode", default=None, choices=MODES,
                   help="what to plan for (default legible-goal, or the example's)")
    p.add_argument("--j", type=int, default=None, help="legible-goal/mixed: at most J goals")
    p.add_argument("--k", type=int, default=None,
                   help="ambiguous/secure-ambiguous/mixed: at least K goals")
    p.add_argument("--m", type=int, default=None, help="legible-plan: at least M plans")
    p.add_argument("--l", type=int, default=None, help="diverse: at least L plans")
    p.add_argument("--d", type=non_negative_float, default=None,
                   help="legible-plan: plans at most D apart; diverse: at least D apart")
    p.add_argument("--distance", default="action", choices=list(TRACE_DISTANCES),
                   help="plan distance for the plan modes (default action)")
    p.add_argument("--max-cost", type=int, default=None, metavar="C",
                   help="only plans costing at most C (needed by the plan modes)")
    p.add_argument("--horizon", type=int, default=None, metavar="T",
                   help="only plans of at most T steps (mixed: the IP's horizon)")
    p.add_argument("--seed", type=int, default=0, help="secure-ambiguous: random seed")
    p.add_argument("--plan", default=None, metavar="FILE",
                   help="score: the plan to score; lie: the robot's plan to explain "
                        "(default: its optimal plan)")
    p.add_argument("--observer", default=None, metavar="NAME",
                   help="which observer of a multi-observer file the single-observer modes "
                        "use (default the first); mixed: whose belief the pictures show")
    p.add_argument("--heuristic", default="hadd", choices=list(GUIDANCE),
                   help="search guidance; blind: an exact uniform-cost search whose answer "
                        "is a cheapest passing plan (and says so); the others: the greedy "
                        "Δ search, no claim on cost")
    p.add_argument("--spread-guidance", action="store_true",
                   help="legible-plan/diverse: add the BPS distance term of eq. 4.2/9.1 "
                        "to the heuristic")
    p.add_argument("--method", default="ip", choices=["ip", "search"],
                   help="mixed: integer program or the bounded <k, j> search")
    p.add_argument("--grid", default=None, metavar="FILE", help="deceptive: a grid file")
    p.add_argument("--beta", type=non_negative_float, default=1.0,
                   help="deceptive: recogniser's beta")
    p.add_argument("--picture", default=None, metavar="FILE",
                   help="grid domains and deceptive paths: the observer's belief over time "
                        "as a PNG, one captioned frame per step")
    p.add_argument("--animation", default=None, metavar="FILE",
                   help="the same frames as an animated GIF")
    p.add_argument("--position", default=None, metavar="PREDICATE",
                   help="pictures: the predicate placing the robot on a cell (default "
                        "robot-at, or the only one that fits)")
    p.add_argument("--human-domain", default=None, metavar="FILE",
                   help="lie: the person's (wrong) model of the domain")
    p.add_argument("--human-problem", default=None, metavar="FILE",
                   help="lie: the person's problem, if it differs")
    p.add_argument("--omission-only", action="store_true",
                   help="lie: only leave things out (remove features of the person's model)")
    p.add_argument("--allow-untruthful", action="store_true",
                   help="lie: required opt-in; the answer may state false things and is "
                        "labelled untruthful")
    add_budget_args(p)
    add_json_arg(p)
    p.set_defaults(handler=run_observe)


def _nonnegative(name: str, value: int | float | None) -> None:
    if value is not None and value < 0:
        raise InputError(f"--{name} must not be negative, got {value}")


def _settings(args: argparse.Namespace) -> dict[str, Any]:
    """The mode and parameters: the example's book setting, overridden by the flags."""
    from xaip.observers.problem import EXAMPLES

    base: dict[str, Any] = {}
    if args.example in EXAMPLES:
        base = dict(EXAMPLES[args.example])
    elif args.example == "truck":
        base = {"mode": "mixed"}
    for key in ("mode", "j", "k", "m", "l", "d", "max_cost", "horizon"):
        value = getattr(args, key)
        if value is not None:
            base[key] = value
    base.setdefault("mode", "legible-goal")
    for key in ("j", "k", "m", "l", "d", "max_cost", "horizon"):
        _nonnegative(key.replace("_", "-"), base.get(key))
    return base


#: Bundled goal files other than ``goals.json`` for some (example, mode) pairs: the medkit's
#: goal-obfuscation setting (book §9.1) weighs which kit the robot picks up.
EXAMPLE_GOALS = {("medkit", "ambiguous"): "kits.json",
                 ("medkit", "secure-ambiguous"): "kits.json"}


def _files(args: argparse.Namespace, mode: str = "") -> tuple[Path, Path, Path, Path | None]:
    if args.example is not None:
        if args.domain or args.problem or args.observations or args.goals:
            raise InputError("--example takes no DOMAIN, PROBLEM, --observations or --goals")
        if args.example == "truck":
            from xaip.domains.observers import truck

            return truck.DOMAIN, truck.PROBLEM, truck.OBSERVERS, truck.GOALS
        from xaip.observers.problem import example_dir

        base = example_dir(args.example)
        return (base / "domain.pddl", base / "problem.pddl", base / "observer.json",
                base / EXAMPLE_GOALS.get((args.example, mode), "goals.json"))
    if args.domain is None or args.problem is None:
        raise InputError("give DOMAIN and PROBLEM (or --example NAME)")
    if args.observations is None:
        raise InputError("give the observer's sensor model with --observations FILE")
    goals = Path(args.goals) if args.goals is not None else None
    return Path(args.domain), Path(args.problem), Path(args.observations), goals


def _outputs(args: argparse.Namespace, mode: str) -> None:
    """Refuse bad picture paths before any work (never an input file, never a folder)."""
    wanted = [p for p in (args.picture, args.animation) if p is not None]
    if not wanted:
        return
    if mode == "lie":
        raise InputError("--picture/--animation draw grid plans; a lie has no picture")
    inputs = [args.domain, args.problem, args.observations, args.goals, args.plan, args.grid,
              args.human_domain, args.human_problem]
    for path in wanted:
        check_output(path, inputs)
    if args.picture is not None and args.picture == args.animation:
        raise InputError("--picture and --animation need two different files")


def run_observe(args: argparse.Namespace) -> int:
    from xaip.render import render

    settings = _settings(args)
    mode = settings["mode"]
    if args.allow_untruthful and mode != "lie":
        raise InputError("--allow-untruthful only applies to --mode lie")
    _outputs(args, mode)
    budget = budget_from(args)
    problem: Any = None
    if mode == "deceptive":
        result: Any = _deceptive(args, budget)
    elif mode == "lie":
        result = _lie(args, budget)
    else:
        from xaip.observers.problem import load_problem

        domain, problem_file, observations, goals = _files(args, mode)
        if goals is None and mode in ("legible-goal", "ambiguous", "secure-ambiguous",
                                      "mixed"):
            raise InputError(f"--mode {mode} needs candidate goals (--goals FILE)")
        problem = load_problem(domain, problem_file, observations, goals,
                               observer=None if mode == "mixed" else args.observer,
                               budget=budget)
        if args.picture is not None or args.animation is not None:
            from xaip.observers.pictures import robot_cells

            robot_cells(problem.task, args.position)  # not a grid: say so before searching
        if mode in GOAL_MODES:
            _true_goal_reachable(problem, budget)
        result = _solve(problem, mode, settings, args, budget)
    payload = result.to_dict()
    payload.update(_pictures(args, mode, result, problem))
    emit(args, payload, render(result))
    found = str(result.status) not in ("unsolvable", "no_explanation")
    return EXIT_OK if result.verified and found else EXIT_NEGATIVE


def _true_goal_reachable(problem: Any, budget: Any) -> None:
    """Bad input, not "no plan", when no plan at all reaches the true goal (say, two
    atoms that exclude each other): a plain planner decides it before the observer search,
    which without a cost bound could not prove it. An exhausted planner decides nothing."""
    import dataclasses

    from xaip.planning import plan_task
    from xaip.runtime import Budget

    goal = problem.true_goal
    task = dataclasses.replace(problem.task, goal=goal.mask, goal_neg=0)
    limit = budget.max_seconds if budget.max_seconds is not None else 60.0
    found = plan_task(task, budget=Budget(max_nodes=budget.max_nodes, max_seconds=limit))
    if str(found.status) == "unsolvable":
        raise InputError(f"the true goal '{goal.name}' is unreachable: no plan makes "
                         f"{' '.join(goal.atoms)} hold")


def _film(args: argparse.Namespace, mode: str, result: Any, problem: Any) -> Any:
    from xaip.observers.pictures import belief_film, deception_film

    if mode == "deceptive":
        return deception_film(result)
    if mode == "mixed":
        name = args.observer or next(iter(problem.observers))
        if name not in problem.observers:
            raise InputError(f"no observer '{name}' (has {', '.join(problem.observers)})")
        model = problem.observers[name]
    else:
        model = problem.model
    return belief_film(problem.task, list(result.plan), model, problem.goals,
                       position=args.position)


def _pictures(args: argparse.Namespace, mode: str, result: Any, problem: Any
              ) -> dict[str, Any]:
    """Write the belief film the user asked for; the JSON says which files were written."""
    from xaip.render import render

    wanted = {"picture": (args.picture, "png"), "animation": (args.animation, "gif")}
    wanted = {k: v for k, v in wanted.items() if v[0] is not None}
    if not wanted:
        return {}
    if not result.plan:
        # the answer (no plan, or an exhausted budget) still stands; only the file is skipped
        print(f"xaip: no picture written: there is no plan to draw ({result.status})",
              file=sys.stderr)
        return {"pictures_skipped": f"no plan to draw ({result.status})"}
    film = _film(args, mode, result, problem)
    inputs = [args.domain, args.problem, args.observations, args.goals, args.plan, args.grid]
    for path, fmt in wanted.values():
        write_output(path, render(film, fmt), inputs)
    return {key: str(path) for key, (path, _) in wanted.items()}


def _lie(args: argparse.Namespace, budget: Any) -> Any:
    """Lies by model reconciliation: only with the explicit opt-in (book §9.3)."""
    if not args.allow_untruthful:
        raise InputError("--mode lie may state false things; add --allow-untruthful to "
                         "allow it (the answer is labelled untruthful)")
    if args.example is not None:
        raise InputError("--mode lie has no bundled example; give ROBOT_DOMAIN PROBLEM "
                         "--human-domain FILE")
    if args.domain is None or args.problem is None or args.human_domain is None:
        raise InputError("--mode lie needs ROBOT_DOMAIN PROBLEM and --human-domain FILE")
    if args.observations or args.goals:
        raise InputError("--mode lie takes no --observations or --goals (it explains "
                         "a plan to a person with another model)")
    from xaip.observers.lies import lie
    from xaip.reconcile import load_mrp

    mrp = load_mrp(args.domain, args.human_domain, args.problem, args.plan,
                   args.human_problem, budget)
    return lie(mrp, allow_untruthful=True, omission_only=args.omission_only,
               budget=budget if budget.max_nodes or budget.max_seconds else None)


def _solve(problem: Any, mode: str, s: dict[str, Any], args: argparse.Namespace,
           budget: Any) -> Any:
    from xaip.observers import legibility, obfuscation

    common = {"max_cost": s.get("max_cost"), "horizon": s.get("horizon"),
              "heuristic": args.heuristic, "budget": budget}
    if mode == "legible-goal":
        return legibility.legible_goal_plan(problem, j=s.get("j", 1), **common)
    if mode == "ambiguous":
        return obfuscation.ambiguous_plan(problem, k=s.get("k", 2), **common)
    if mode == "secure-ambiguous":
        return obfuscation.secure_ambiguous_plan(problem, k=s.get("k", 2), seed=args.seed,
                                                 **common)
    if mode == "legible-plan":
        return legibility.legible_plan(problem, m=s.get("m", 1), d=s.get("d", 1.0),
                                       distance=args.distance,
                                       spread_guidance=args.spread_guidance, **common)
    if mode == "diverse":
        return obfuscation.diverse_plan(problem, ell=s.get("l", 2), d=s.get("d", 0.0),
                                        distance=args.distance,
                                        spread_guidance=args.spread_guidance, **common)
    if mode == "score":
        if args.plan is None:
            raise InputError("--mode score needs the plan to score (--plan FILE)")
        from xaip.planning import read_plan

        steps = [" ".join((st.name, *st.args)) for st in read_plan(args.plan)]
        if not steps:
            raise InputError(f"{args.plan}: the plan is empty (nothing to score)")
        for number, step in enumerate(steps, start=1):
            if step.lower() not in problem.task.action_index:
                raise InputError(f"{args.plan}: step {number} ({step}) is not an action of "
                                 "this problem (unknown action or object, or a static "
                                 "precondition that never holds)")
        return legibility.legibility_score(problem, steps, distance=args.distance,
                                           budget=budget)
    return _mixed(problem, s, args, budget)


def _mixed(problem: Any, s: dict[str, Any], args: argparse.Namespace, budget: Any) -> Any:
    from xaip.observers.mixed import solve_mixed

    return solve_mixed(problem.task, problem.observers, problem.goals, method=args.method,
                       horizon=s.get("horizon"), k=s.get("k"), j=s.get("j"), budget=budget)


def _deceptive(args: argparse.Namespace, budget: Any) -> Any:
    from xaip.observers.deception import deceptive_plan, read_grid

    if args.grid is None:
        raise InputError("--mode deceptive needs a grid (--grid FILE)")
    return deceptive_plan(read_grid(args.grid), beta=args.beta, budget=budget)
