"""Gymnasium environment files on the command line: ``xaip discover FILE.json``,
``xaip why-not FILE.json`` and ``xaip check-env FILE.json|ENV_ID``.

Why here and not in each family's command: the two explainers' commands only notice that
their first argument is an environment file (:func:`is_env_file`) and hand over; loading
the file, checking the environment and building each explainer's view of it happens once,
in :mod:`xaip.gymnasium.vocabulary`. Exit codes are the families': 0 a finished answer the
checker verified, 1 unverified or budget exhausted, 2 bad input.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import deque
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from xaip.commandline import add_json_arg, emit, non_negative_int, positive_int
from xaip.errors import EXIT_NEGATIVE, EXIT_OK, InputError

#: The largest state space discovery's refinement lists (breadth first from the start).
MAX_REFINE_STATES = 50_000


def is_env_file(name: str) -> bool:
    """Whether a command's first argument names an environment file (``*.json``)."""
    return name.lower().endswith(".json")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register ``check-env``."""
    parser = sub.add_parser(
        "check-env", help="can xaip use this Gymnasium environment? (like check_env)",
        description="Make the environment (a registered id, or the 'env' of an environment "
                    "file), then check that its actions are discrete and that restoring a "
                    "saved state is exact and deterministic; say how states are restored.")
    parser.add_argument("env", help="a Gymnasium id (FrozenLake-v1) or an environment file")
    parser.add_argument("--make", action="append", default=[], metavar="KEY=VALUE",
                        help="a gymnasium.make option (JSON value), e.g. is_slippery=false")
    parser.add_argument("--steps", type=positive_int, default=60, metavar="N",
                        help="length of the random walk whose states are tested (default 60)")
    parser.add_argument("--seed", type=non_negative_int, default=0,
                        help="reset and walk seed (default 0)")
    add_json_arg(parser)
    parser.set_defaults(handler=run_check_env)


def _make_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise InputError(f"--make takes KEY=VALUE, got {pair!r}"[:200])
        try:
            options[key] = json.loads(text)
        except json.JSONDecodeError:
            options[key] = text  # a bare word is a string
    return options


def run_check_env(args: argparse.Namespace) -> int:
    from xaip.gymnasium.adapter import GymAdapter
    from xaip.gymnasium.conformance import check_env
    from xaip.gymnasium.vocabulary import load_env_file, make_env

    if is_env_file(args.env):
        adapter = load_env_file(args.env, check=False).adapter
    else:
        adapter = GymAdapter(make_env(args.env, _make_options(args.make), "check-env"),
                             seed=args.seed)
    report = check_env(adapter, steps=args.steps, seed=args.seed)
    emit(args, report.to_dict(), report.text())
    return EXIT_OK


# ------------------------------------------------------------------------------ discovery


def enumerate_refine(sim: Any, vocabulary: Any, start: Hashable,
                     limit: int = MAX_REFINE_STATES) -> Any:
    """A refinement function by enumeration: every state reachable from ``start`` (at most
    ``limit``, else bad input), indexed by its full abstraction; an abstract state names
    the first state with it, or all of them (:class:`~xaip.agents.agents.AnyOf`) when the
    vocabulary cannot tell several apart."""
    from xaip.agents.agents import AnyOf
    from xaip.agents.simulator import check_deadline
    from xaip.runtime.progress import report

    seen = {start: None}
    frontier = deque([start])
    while frontier:
        check_deadline()
        if len(seen) % 1000 == 0:
            report(None, "listing states", len(seen), None, "for the refinement")
        state = frontier.popleft()
        for action in sim.actions(state):
            after = sim.step(state, action)
            if after not in seen:
                seen[after] = None
                if len(seen) > limit:
                    raise InputError(f"more than {limit} states are reachable: too many to "
                                     "list for discovery's refinement")
                frontier.append(after)
    index: dict[frozenset[Any], list[Any]] = {}
    for state in seen:
        index.setdefault(frozenset(vocabulary.abstract(state)), []).append(state)

    def refine(atoms: frozenset[Any], like: Any) -> Any:
        states = index.get(frozenset(atoms))
        if not states:
            return None
        return states[0] if len(states) == 1 else AnyOf(tuple(states))

    return refine


def run_discover(args: argparse.Namespace) -> int:
    """``xaip discover FILE.json``: the search agent's capabilities in the environment."""
    from xaip.agents.simulator import OutOfTime, deadline
    from xaip.capabilities.checks import DiscoveryInputs, run_checks
    from xaip.capabilities.discovery import DiscoveryConfig, discover, make_agent
    from xaip.capabilities.store import SQLiteStore
    from xaip.contract import checker_budget_report, with_check
    from xaip.errors import BudgetExhausted
    from xaip.gymnasium.vocabulary import discovery_vocabulary, load_env_file, simulator
    from xaip.render import render
    from xaip.runtime import Budget, StderrProgress

    if args.grid != "4x5" or args.agent != "search" or args.pictures or args.grounded:
        raise InputError("an environment file takes no --grid, --agent policy, --grounded or "
                         "--pictures (its states and concepts are fixed by the file)")
    if args.executor != "serial" or args.workers is not None:
        raise InputError("an environment file runs with the serial executor (its "
                         "environment lives in this process)")
    spec = load_env_file(args.game)
    sim = simulator(spec)
    vocabulary = discovery_vocabulary(spec)
    budget = None if args.max_seconds is None and args.max_queries is None else \
        Budget(args.max_queries, args.max_seconds)
    clock = budget.start() if budget is not None else None
    config = DiscoveryConfig(seed=args.seed, tasks=args.tasks, lifted_types=(),
                             random_states=40, recheck=args.recheck, budget=budget)
    start = sim.reset()
    store = None
    if args.store:
        # keyed by the file's content: an edited file (other concepts, another map) must
        # not reuse answers given for the old one
        digest = hashlib.sha256(Path(args.game).read_bytes()).hexdigest()[:16]
        store = SQLiteStore(args.store, {"env-file": digest, "seed": args.seed,
                                         "tasks": args.tasks})
    progress = None if args.quiet else StderrProgress()
    name = f"{spec.env_id}-search"
    try:
        with deadline(clock):
            refine = enumerate_refine(sim, vocabulary, start)
        result = discover(sim, make_agent(sim, "search"), vocabulary, refine=refine,
                          start=start, config=config, store=store, progress=progress,
                          name=name, budget=budget)
    except OutOfTime:
        from xaip.capabilities.discovery import _unfinished

        result, refine = _unfinished(name, vocabulary, 0.0), None
    finally:
        if store is not None:
            store.close()
    report = checks = None
    if not args.no_check and result.status.finished:
        inputs = DiscoveryInputs(sim, vocabulary, refine)
        try:  # under the run's budget, started afresh
            checks = run_checks(inputs, result, budget=budget)
        except BudgetExhausted as stop:
            report = checker_budget_report(str(stop))
        else:
            report = checks.report()
        result = with_check(result, report)
    payload = result.to_dict()
    payload.update({"env": spec.env_id, "env_file": spec.source, "agent": "search",
                    "restore": spec.adapter.restore_kind, "pddl": render(result, "pddl"),
                    "check": None if report is None else report.to_dict()})
    text = f"{spec.env_id} (states restored by {spec.adapter.restore_kind})\n" + render(result)
    if checks is not None:
        payload["checks"] = checks.to_dict()
    if report is None:
        text += "\nunverified: the checks were skipped (--no-check)" if args.no_check else ""
    else:
        text += ("\nverified: " if result.verified else "\nnot verified: ") + report.details
    if args.pddl:
        from xaip.commandline import check_output, write_output

        check_output(args.pddl, (args.game, args.store))
        write_output(args.pddl, payload["pddl"], (args.game, args.store))
    print(json.dumps(payload, indent=2) if args.json else text)
    return EXIT_OK if result.status.finished and result.verified else EXIT_NEGATIVE


# ------------------------------------------------------------------------------- why-not


def why_not_query(args: argparse.Namespace) -> Any:
    """The :class:`~xaip.concepts.results.Query` of ``xaip why-not FILE.json``: plan and
    foil from ``--plan``/``--foil`` files (one action per line) or the file's own."""
    from xaip.concepts.results import Query
    from xaip.gymnasium.vocabulary import black_box, load_env_file, why_not_vocabulary

    if args.level is not None or args.variant is not None or args.vocabulary is not None:
        raise InputError("an environment file takes no --level, --variant or --vocabulary "
                         "(the file holds the environment and its concepts)")
    if args.workers > 1:
        raise InputError("an environment file runs on one process (--workers 1): its "
                         "environment and concepts live in this process")
    if args.picture:
        raise InputError("--picture draws Sokoban and Montezuma states; a Gymnasium "
                         "environment file has no picture (use --json for the states)")
    if args.teach:
        raise InputError("--teach learns concepts from Sokoban grids; for a Gymnasium "
                         "environment file, add the concept to the file instead")
    spec = load_env_file(args.env)
    box = black_box(spec)
    plan = _read_actions(args.plan, box) if args.plan else spec.plan
    foil = _read_actions(args.foil, box) if args.foil else spec.foil
    if plan is None or foil is None:
        raise InputError(f"{spec.source} has no 'plan'/'foil'; pass --plan FILE and "
                         "--foil FILE")
    return Query(box, plan, foil, why_not_vocabulary(spec))


def _read_actions(path: str, box: Any) -> tuple[str, ...]:
    """One action name per line (blank lines and ``;`` comments skipped); an unknown name
    is bad input naming file and line."""
    from xaip import sidefiles

    actions: list[str] = []
    for number, raw in enumerate(sidefiles.read_text(path, "actions").splitlines(), 1):
        line = raw.split(";", 1)[0].strip().strip("()").strip()
        if not line:
            continue
        if line not in box.actions:
            raise InputError(f"{path}:{number}: unknown action {line[:40]!r} (one of "
                             f"{', '.join(box.actions)})")
        actions.append(line)
    return tuple(actions)
