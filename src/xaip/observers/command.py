"""``xaip observe``: plans for observers who see only part of what the agent does.

    xaip observe DOMAIN PROBLEM --observations FILE [--goals FILE]
                 [--mode legible-goal|legible-plan|ambiguous|secure-ambiguous|diverse|
                         score|mixed|deceptive]
                 [--j J] [--k K] [--m M] [--l L] [--d D] [--distance action|causal|state|composite]
                 [--max-cost C] [--horizon T] [--seed N] [--plan FILE] [--observer NAME]
                 [--heuristic blind|hadd|hff|hmax] [--spread-guidance]
                 [--method ip|search] [--json]
    xaip observe --example port|medkit|truck [--mode ...]
    xaip observe --mode deceptive --grid FILE [--beta B]

``--example`` runs a bundled book instance in its book setting (port: 1-legible; medkit:
2-similar within 0.5 under cost 8; truck: mixed observers by the integer program); other
flags override the setting. ``--mode score`` scores the plan in ``--plan FILE``.

Exit codes: 0 a finished, verified answer; 1 no such plan within the bounds, budget
exhausted, or not verified; 2 bad input (one line).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from xaip.commandline import add_budget_args, add_json_arg, budget_from, emit
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError

MODES = ("legible-goal", "legible-plan", "ambiguous", "secure-ambiguous", "diverse", "score",
         "mixed", "deceptive")
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
                    "obfuscation, mixed observers, deceptive paths, or the score of a plan.")
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
    p.add_argument("--d", type=float, default=None,
                   help="legible-plan: plans at most D apart; diverse: at least D apart")
    p.add_argument("--distance", default="action", choices=list(TRACE_DISTANCES),
                   help="plan distance for the plan modes (default action)")
    p.add_argument("--max-cost", type=int, default=None, metavar="C",
                   help="only plans costing at most C (needed by the plan modes)")
    p.add_argument("--horizon", type=int, default=None, metavar="T",
                   help="only plans of at most T steps (mixed: the IP's horizon)")
    p.add_argument("--seed", type=int, default=0, help="secure-ambiguous: random seed")
    p.add_argument("--plan", default=None, metavar="FILE", help="score: the plan to score")
    p.add_argument("--observer", default=None, metavar="NAME",
                   help="which observer of a multi-observer file (single-observer modes)")
    p.add_argument("--heuristic", default="hadd", choices=list(GUIDANCE),
                   help="search guidance (blind: cheapest plan first)")
    p.add_argument("--spread-guidance", action="store_true",
                   help="legible-plan/diverse: add the BPS distance term of eq. 4.2/9.1 "
                        "to the heuristic")
    p.add_argument("--method", default="ip", choices=["ip", "search"],
                   help="mixed: integer program or the bounded <k, j> search")
    p.add_argument("--grid", default=None, metavar="FILE", help="deceptive: a grid file")
    p.add_argument("--beta", type=float, default=1.0, help="deceptive: recogniser's beta")
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


def _files(args: argparse.Namespace) -> tuple[Path, Path, Path, Path | None]:
    if args.example is not None:
        if args.domain or args.problem or args.observations or args.goals:
            raise InputError("--example takes no DOMAIN, PROBLEM, --observations or --goals")
        if args.example == "truck":
            from xaip.domains.observers import truck

            return truck.DOMAIN, truck.PROBLEM, truck.OBSERVERS, truck.GOALS
        from xaip.observers.problem import example_dir

        base = example_dir(args.example)
        return (base / "domain.pddl", base / "problem.pddl", base / "observer.json",
                base / "goals.json")
    if args.domain is None or args.problem is None:
        raise InputError("give DOMAIN and PROBLEM (or --example NAME)")
    if args.observations is None:
        raise InputError("give the observer's sensor model with --observations FILE")
    goals = Path(args.goals) if args.goals is not None else None
    return Path(args.domain), Path(args.problem), Path(args.observations), goals


def run_observe(args: argparse.Namespace) -> int:
    from xaip.render import render

    settings = _settings(args)
    mode = settings["mode"]
    budget = budget_from(args)
    if mode == "deceptive":
        result: Any = _deceptive(args, budget)
    else:
        from xaip.observers.problem import load_problem

        domain, problem_file, observations, goals = _files(args)
        if goals is None and mode in ("legible-goal", "ambiguous", "secure-ambiguous",
                                      "mixed"):
            raise InputError(f"--mode {mode} needs candidate goals (--goals FILE)")
        problem = load_problem(domain, problem_file, observations, goals,
                               observer=None if mode == "mixed" else args.observer,
                               budget=budget)
        result = _solve(problem, mode, settings, args, budget)
    emit(args, result.to_dict(), render(result))
    found = str(result.status) not in ("unsolvable", "no_explanation")
    return EXIT_OK if result.verified and found else EXIT_NEGATIVE


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
        return legibility.legibility_score(problem, steps, distance=args.distance)
    return _mixed(problem, s, args, budget)


def _mixed(problem: Any, s: dict[str, Any], args: argparse.Namespace, budget: Any) -> Any:
    try:
        from xaip.observers.mixed import solve_mixed
    except ImportError:
        raise InputError("--mode mixed is not available yet") from None
    return solve_mixed(problem.task, problem.observers, problem.goals, method=args.method,
                       horizon=s.get("horizon"), k=s.get("k"), j=s.get("j"), budget=budget)


def _deceptive(args: argparse.Namespace, budget: Any) -> Any:
    try:
        from xaip.observers.deception import deceptive_plan, read_grid
    except ImportError:
        raise InputError("--mode deceptive is not available yet") from None
    if args.grid is None:
        raise InputError("--mode deceptive needs a grid (--grid FILE)")
    return deceptive_plan(read_grid(args.grid), beta=args.beta, budget=budget)
