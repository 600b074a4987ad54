"""``xaip summarize``: summarise a policy of a PPDDL task by its landmarks (TLdR).

    xaip summarize [DOMAIN PROBLEM] [--policy FILE | --solver lao|vi] [--drill A B]
                   [--dot FILE] [--json] ...

Without DOMAIN and PROBLEM the bundled travel-to-the-airport example is summarised.
Exit codes: 0 summary produced; 1 produced but not trustworthy (solver or landmark budget
ran out, or an independent check failed); 2 bad input (unreadable or unsupported PPDDL,
a policy file that does not fit the problem, no policy that reaches the goal).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from xaip.errors import EngineUnavailable, InputError
from xaip.planning.mdp import (
    COST_MODELS,
    DEFAULT_DEAD_END_COST,
    Policy,
    ProbabilisticTask,
    ground_probabilistic,
)
from xaip.runtime.budget import Budget
from xaip.summaries.dot import dot_available, landmark_dot, render_svg, transitive_reduction
from xaip.summaries.drill import GOAL_NAMES, INIT_NAMES, DrillDown, drill_down, resolve_fact
from xaip.summaries.summary import (
    COMPILATIONS,
    PolicySummary,
    solve_policy,
    summarise_policy,
)
from xaip.summaries.text import Phrases, load_phrases

EXIT_OK, EXIT_NEGATIVE = 0, 1


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
                        help="write the landmark graph as Graphviz DOT (and FILE.svg when "
                             "Graphviz is installed)")
    parser.add_argument("--compilation", choices=COMPILATIONS, default="concise",
                        help="landmarks the summary is built from: concise D(M) as in the "
                             "paper (default) or complete D(M)^c (exact)")
    parser.add_argument("--phrases", default=None, metavar="FILE",
                        help="JSON object: predicate -> English template, e.g. "
                             '{"at": "get to {0}"}')
    parser.add_argument("--cost", choices=COST_MODELS, default="unit",
                        help="step costs: unit (default) or from (decrease (reward) k)")
    parser.add_argument("--dead-end-cost", type=float, default=DEFAULT_DEAD_END_COST,
                        metavar="D", help="price of stopping in a dead end (default 1e6)")
    parser.add_argument("--strict", action="store_true",
                        help="require a proper policy: fail (listing dead ends) if none exists")
    parser.add_argument("--no-check", action="store_true",
                        help="skip the independent check of the landmarks on the policy graph")
    parser.add_argument("--max-nodes", type=int, default=None, metavar="N",
                        help="budget for solving and for each landmark computation")
    parser.add_argument("--max-seconds", type=float, default=None, metavar="S",
                        help="time budget for solving and for each landmark computation")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")
    parser.set_defaults(handler=run)


def _load(args: argparse.Namespace) -> tuple[ProbabilisticTask, Phrases | None, str]:
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
    ptask = ground_probabilistic(domain, problem, cost=args.cost)
    if args.phrases:
        phrases = load_phrases(args.phrases)
    return ptask, phrases, label


def run(args: argparse.Namespace) -> int:
    """Handle ``xaip summarize`` (see the module docstring for exit codes)."""
    started = time.perf_counter()
    if args.max_completions < 1:
        raise InputError("--max-completions must be at least 1")
    ptask, phrases, label = _load(args)
    budget = Budget(args.max_nodes, args.max_seconds)
    dead_end_cost = None if args.strict else args.dead_end_cost
    solver_info: dict[str, Any] | None = None
    solver_note: str | None = None
    trustworthy = True
    if args.policy:
        policy = Policy.load(args.policy, ptask)
        source = f"file {args.policy}"
        solve_seconds = 0.0
    else:
        solution, solver_note = solve_policy(ptask, args.solver, budget, dead_end_cost)
        policy = solution.policy
        source = f"{args.solver} (optimal, dead ends priced at {dead_end_cost})"
        solve_seconds = solution.seconds
        solver_info = {k: v for k, v in solution.to_dict().items()
                       if k not in ("policy", "values")}
        solver_info["note"] = solver_note
        trustworthy &= solution.status == "solved"
    if args.save_policy:
        policy.save(args.save_policy)
    summary = summarise_policy(
        ptask, policy, compilation=args.compilation, check=not args.no_check,
        dead_end_cost=dead_end_cost, phrases=phrases, budget=budget, policy_source=source,
    )
    trustworthy &= summary.checked_ok and summary.value.equal
    trustworthy &= all(s.complete for s in (summary.concise, summary.complete, summary.model)
                       if s is not None)
    drill: DrillDown | None = None
    if args.drill:
        a = resolve_fact(ptask, args.drill[0], INIT_NAMES)
        b = resolve_fact(ptask, args.drill[1], GOAL_NAMES)
        drill = drill_down(ptask, policy, a, b, summary.graph, args.max_completions, budget)
    dot_note: str | None = None
    if args.dot:
        dot_text = landmark_dot(summary.policy_landmarks, ptask.facts, summary.model,
                                f"policy landmarks {ptask.name}")
        Path(args.dot).write_text(dot_text, encoding="utf-8")
        svg_path = Path(args.dot).with_suffix(".svg")
        if dot_available():
            try:
                render_svg(dot_text, svg_path)
                dot_note = f"wrote {args.dot} and {svg_path}"
            except EngineUnavailable as error:
                dot_note = f"wrote {args.dot}; no SVG: {error}"
        else:
            dot_note = (f"wrote {args.dot}; no SVG: Graphviz 'dot' is not installed "
                        f"(render elsewhere with: dot -Tsvg {args.dot} -o {svg_path})")
    payload = summary.to_dict()
    payload["input"] = label
    payload["solver"] = solver_info
    payload["drill"] = None if drill is None else drill.to_dict(ptask)
    payload["dot"] = dot_note
    total = time.perf_counter() - started
    payload["seconds"] = round(total, 6)
    payload["timings"] = {"solve": round(solve_seconds, 6), **payload["timings"]}
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        text = describe(summary, drill, dot_note, solve_seconds, total)
        print(text if solver_note is None else f"Note: {solver_note}.\n{text}")
    return EXIT_OK if trustworthy else EXIT_NEGATIVE


def describe(
    summary: PolicySummary,
    drill: DrillDown | None,
    dot_note: str | None,
    solve_seconds: float,
    total: float,
) -> str:
    """The text report: the English summary, then the landmark sets, orderings, hierarchy
    and checks."""
    task = summary.task
    facts = task.facts

    def names(items: tuple[int, ...] | list[int]) -> str:
        return ", ".join(str(facts[f]) for f in items) or "none"

    lines = [summary.text, ""]
    chosen = summary.policy_landmarks
    lines.append(f"Policy: {summary.policy_source}; {summary.reachable_states} reachable "
                 f"states, {len(summary.graph.dead_ends)} dead ends, "
                 f"{len(summary.graph.unhandled)} unhandled")
    for s in (summary.concise, summary.complete, summary.model):
        if s is None:
            continue
        note = "" if s.complete else " (budget ran out: may be incomplete)"
        lines.append(f"{_LABEL[s.source]} {s.count}: {names(s.subgoals)}{note}")
    shown = [f for f in chosen.facts if f not in chosen.initial]
    kinds = {(o.before, o.after): o.kind for o in chosen.orderings}
    reduced = sorted(transitive_reduction(shown, set(kinds)),
                     key=lambda e: (shown.index(e[0]), shown.index(e[1])))
    lines.append(f"Orderings ({summary.compilation}, {len(chosen.orderings)} in all, "
                 "implied ones omitted):")
    lines += [f"  {facts[a]} -> {facts[b]} ({kinds[(a, b)]})" for a, b in reduced] or ["  none"]
    hierarchy = summary.hierarchy
    lines.append(f"Hierarchy: chain {names(list(hierarchy.chain))}; dropped "
                 f"{names(list(hierarchy.dropped))}")
    value = summary.value
    lines.append(
        f"Proposition 3: hierarchical value {value.hierarchical:.6g} vs policy value "
        f"{value.policy:.6g}: {'equal' if value.equal else 'DIFFERENT'}"
    )
    for check in summary.checks:
        verdict = "exact" if check.exact else ("sound" if check.sound else "UNSOUND")
        extra = ""
        if check.missing_landmarks and check.sound:
            extra = f", misses {len(check.missing_landmarks)} of {check.exact_landmarks}"
        lines.append(f"Check against the policy graph ({check.source}): {verdict}{extra}")
    if drill is not None:
        lines.append("")
        lines.append(describe_drill(task, drill))
    if dot_note:
        lines.append(dot_note)
    lines.append(f"Time: solve {solve_seconds:.3f} s, summarise "
                 f"{sum(summary.seconds.values()):.3f} s, total {total:.3f} s")
    return "\n".join(lines)


_LABEL = {
    "concise": "Policy landmarks, D(M):",
    "complete": "Policy landmarks, D(M)^c:",
    "model": "Model landmarks:",
}


def describe_drill(task: ProbabilisticTask, drill: DrillDown) -> str:
    facts = task.facts
    source = "the start" if drill.source is None else str(facts[drill.source])
    target = "the goal" if drill.target is None else str(facts[drill.target])
    count = len(drill.legs) + drill.omitted
    lines = [f"Drill-down from {source} to {target}: {count} completion(s) of the source"
             + (f", first {len(drill.legs)} examined" if drill.omitted else "")]
    common = ", ".join(str(facts[f]) for f in drill.common) or "none"
    lines.append(f"  landmarks on every leg: {common}")
    for i, leg in enumerate(drill.legs, 1):
        subgoals = ", ".join(str(facts[f]) for f in leg.complete.subgoals) or "none"
        reach = "" if leg.reaches_target else " (never reaches the target)"
        lines.append(f"  leg {i} from [{' '.join(task.state_key(leg.start))}]: "
                     f"{leg.reachable_states} states{reach}; landmarks: {subgoals}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run ``summarize`` on its own (``python -m xaip.summaries.command ...``), with the
    exit codes and one-line errors of the ``xaip`` command."""
    import sys

    parser = argparse.ArgumentParser(prog="xaip")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_parser(sub)
    args = parser.parse_args(["summarize", *(sys.argv[1:] if argv is None else argv)])
    try:
        code: int = args.handler(args)
        return code
    except (InputError, EngineUnavailable) as error:
        print(f"xaip: error: {error}", file=sys.stderr)
        return 2
    except (FileNotFoundError, IsADirectoryError, PermissionError) as error:
        print(f"xaip: error: cannot read {error.filename}: {error.strerror}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
