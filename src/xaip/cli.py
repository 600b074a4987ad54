"""The ``xaip`` command: one sub-command per job, ``--json`` on every one.

Exit codes: 0 success, 1 the answer is negative (invalid plan, unsolvable, budget
exhausted before an answer), 2 bad input (with a one-line message, never a traceback).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from xaip import __version__
from xaip.commandline import (
    add_budget_args,
    add_json_arg,
    budget_from,
    check_output,
    count,
    emit,
    non_negative_int,
    write_output,
)
from xaip.errors import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_NEGATIVE,
    EXIT_OK,
    BudgetExhausted,
    EngineUnavailable,
    InputError,
    XaipError,
)
from xaip.render import render
from xaip.runtime.progress import report as show_progress
from xaip.runtime.status import Status

Handler = Callable[[argparse.Namespace], int]


_emit = emit
_budget_args = add_budget_args
_json_arg = add_json_arg


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2), as every other bad input gets."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


#: Each family's sub-commands live in its own ``command`` module with an ``add_parser(sub)``
#: function; adding a family's command is one line here and one row in :data:`COMMANDS`. A
#: module that is not in this checkout (a family still being built) is skipped, as
#: ``xaip.contract.FAMILY_MODULES`` is (:func:`xaip.contract.import_family`).
COMMAND_MODULES = (
    "xaip.reconcile.command",
    "xaip.summaries.command",
    "xaip.capabilities.command",
    "xaip.concepts.command",
    "xaip.explicable.command",
    "xaip.balanced.command",
    "xaip.observers.command",
    "xaip.web.command",
    "xaip.examples_command",
    "xaip.gymnasium.command",
    "xaip.studies.command",
    "xaip.unsolvable.command",
    "xaip.foils.command",
    "xaip.generate.command",
    "xaip.assist.command",
    "xaip.multiuser.command",
    "xaip.abstraction.command",
    "xaip.modelfree.command",
    "xaip.localmodel.command",
)

#: Every sub-command in the order ``xaip --help`` lists it: name, the module that registers
#: it (``xaip.cli`` for the planning commands defined here) and its one-line help. Why a
#: table: printing the list must not import every family, and ``xaip plan`` must not import
#: the explainers (start-up CPU, issue 26); a command's module is imported only when that
#: command is chosen (:class:`_LazyCommands`). ``tests/test_startup.py`` checks this table
#: against what the modules register; a command missing here still runs (every module is
#: then imported to find it), it is only missing from ``xaip --help``.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("plan", __name__, "find a plan (optimal with --optimal)"),
    ("validate", __name__, "check a plan file against a model"),
    ("landmarks", __name__, "fact landmarks and their orderings"),
    ("diff", __name__, "differences between two models, as features"),
    ("explain", "xaip.reconcile.command",
     "explain a plan by model reconciliation (MCE, MME, ...)"),
    ("summarize", "xaip.summaries.command", "summarise a policy by its landmarks (TLdR)"),
    ("discover", "xaip.capabilities.command",
     "discover what a black-box agent can do in a game (KR 2022)"),
    ("learn-model", "xaip.capabilities.command",
     "learn a hidden PDDL action model by queries (AIA setting)"),
    ("why-not", "xaip.concepts.command",
     "why not my plan? explain a foil of a black-box agent in concepts"),
    ("learn-local", "xaip.localmodel.command",
     "learn the whole local STRIPS model of a black box in concepts"),
    ("distance", "xaip.explicable.command",
     "distances between two plans of a task (action, causal, state)"),
    ("explicable", "xaip.explicable.command",
     "the robot plan the person finds most explicable, then cheapest"),
    ("design", "xaip.explicable.command",
     "environment design for explicability (default: the restaurant)"),
    ("balance", "xaip.balanced.command",
     "choose a plan and its explanation together (balanced planning)"),
    ("observe", "xaip.observers.command",
     "plans legible to friends or obfuscating to adversaries who see only tokens"),
    ("serve", "xaip.web.command", "start the workbench in the browser (needs the xaip[web] extra)"),
    ("examples", "xaip.examples_command",
     "list the bundled examples, or copy one into a folder"),
    ("check-env", "xaip.gymnasium.command",
     "can xaip use this Gymnasium environment? (like check_env)"),
    ("study", "xaip.studies.command",
     "run explainers x instances x parameters from a study file"),
    ("unsolvable", "xaip.unsolvable.command",
     "why a task has no plan: unsolvable core, unreachable landmark"),
    ("foil", "xaip.foils.command", "why not my way? partial-plan and constraint foils (RADAR-X)"),
    ("generate", "xaip.generate.command",
     "random MRP instances (robot/human models + plan) or planning tasks"),
    ("assist", "xaip.assist.command",
     "decision support (RADAR): complete, suggest, check your plan"),
    ("explain-users", "xaip.multiuser.command",
     "explain a plan to several users, each within a privacy map (MA-RADAR)"),
    ("abstract-explain", "xaip.abstraction.command",
     "refute foils with the fewest fluents made concrete (HELM)"),
    ("abstract-locate", "xaip.abstraction.command",
     "locate the person's abstraction level by valid/invalid queries"),
    ("model-free", "xaip.modelfree.command",
     "cheapest messages that make a plan look explicable, learned from labelled plans"),
    ("demo", __name__, "plan, validate and explain the bundled example"),
)


class _LazyCommands(argparse._SubParsersAction):
    """Sub-commands whose parsers are built when chosen.

    Each command of :data:`COMMANDS` starts as a placeholder parser carrying only its help
    line, which is all ``xaip --help`` prints. When argparse reaches the command word, the
    module that owns the command registers its real parsers (replacing the placeholders in
    place, so the listed order never changes) and parsing goes on as usual: options,
    ``COMMAND --help`` and errors are exactly those of the eagerly built parser.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, str] = {}  # placeholder command -> module that registers it
        self.loaded: set[str] = set()  # modules whose commands are registered

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if name not in self.pending:
            return super().add_parser(name, **kwargs)
        del self.pending[name]  # the real parser replaces the placeholder, in its place
        names = list(self._name_parser_map)
        del self._name_parser_map[name]
        slot = next(i for i, action in enumerate(self._choices_actions) if action.dest == name)
        del self._choices_actions[slot]
        parser = super().add_parser(name, **kwargs)
        self._choices_actions.insert(slot, self._choices_actions.pop())
        ordered = {key: self._name_parser_map[key] for key in names}
        self._name_parser_map.clear()
        self._name_parser_map.update(ordered)
        return parser

    def load(self, name: str | None) -> None:
        """Register the real parsers of ``name``'s module; every module not registered yet
        when ``name`` is None or is in no row of :data:`COMMANDS` (a new command)."""
        if name in self.pending:
            modules = [self.pending[name]]
        elif name in self._name_parser_map:
            return
        else:
            modules = [m for m in dict.fromkeys([*(m for _, m, _ in COMMANDS), *COMMAND_MODULES])
                       if m not in self.loaded]
        for module_name in modules:
            self.loaded.add(module_name)
            _register(self, module_name)
        for command in self._name_parser_map.values():  # after the module's own options
            _add_quiet(command)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        name = values[0]
        self.load(name)
        if name in self.pending:  # its module is not in this checkout
            parser.exit(EXIT_BAD_INPUT, f"{parser.prog}: error: the {name!r} command is not "
                                        "available in this installation\n")
        super().__call__(parser, namespace, values, option_string)


def _add_quiet(command: argparse.ArgumentParser) -> None:
    """Progress on stderr, off with ``--quiet`` (or ``--json``): every command takes it."""
    if "--quiet" not in command._option_string_actions:
        command.add_argument("--quiet", action="store_true",
                             help="no progress bar or notes on stderr")


def _register(sub: _LazyCommands, module_name: str) -> None:
    """Let ``module_name`` register its sub-commands (the planning ones are here)."""
    if module_name == __name__:
        for name in [n for n, module, _ in COMMANDS if module == __name__ and n in sub.pending]:
            _PLANNING_COMMANDS[name](sub)
        return
    from xaip.contract import import_family

    module = import_family(module_name)
    if module is not None:
        module.add_parser(sub)


def build_parser(*, lazy: bool = False) -> argparse.ArgumentParser:
    """The ``xaip`` parser. With ``lazy`` (what :func:`main` uses), a command's module is
    imported only when the command line chooses it; otherwise every command is built now."""
    parser = _Parser(
        prog="xaip",
        description="Explain planning agents: plan, validate, landmarks, model differences.",
    )
    parser.add_argument("--version", action="version", version=f"xaip {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--max-memory", type=non_negative_int, default=None, metavar="MB",
                        help="memory budget in MB (default: 80%% of this machine's memory); "
                             "work that needs more ends as 'budget exhausted'")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                action=_LazyCommands)
    assert isinstance(sub, _LazyCommands)
    for name, module_name, help_line in COMMANDS:
        sub.add_parser(name, help=help_line)
        sub.pending[name] = module_name
    if not lazy:
        sub.load(None)
    return parser


def _add_plan(sub: Any) -> None:
    from xaip.planning.engines import DEFAULT_ENGINE, engine_names
    from xaip.planning.heuristics import HEURISTICS
    from xaip.planning.search import ALGORITHMS

    plan = sub.add_parser("plan", help="find a plan (optimal with --optimal)")
    plan.add_argument("domain")
    plan.add_argument("problem")
    plan.add_argument("--optimal", action="store_true",
                      help="guarantee an optimal plan (A* with an admissible heuristic)")
    plan.add_argument("--heuristic", default=None, choices=HEURISTICS,
                      help="blind, hmax, hadd, hff or lmcut "
                           "(default: lmcut if --optimal, else hff)")
    plan.add_argument("--search", default=None, choices=ALGORITHMS,
                      help="astar, ucs, gbfs, ehc or bfs (default: astar if --optimal, else gbfs)")
    plan.add_argument("--cost-bound", type=count, default=None, metavar="C",
                      help="only accept plans cheaper than C (with --optimal: prove none exists)")
    plan.add_argument("--engine", choices=engine_names(), default=DEFAULT_ENGINE,
                      help="planning engine: default (compiled when built, else builtin), "
                           "builtin (pure Python), compiled (C), fd (Fast Downward)")
    plan.add_argument("--output", "-o", default=None, metavar="FILE",
                      help="also write the plan to FILE in plan-file format")
    plan.add_argument("--no-check", dest="check", action="store_false",
                      help="skip the independent check of the answer (valid on the lifted "
                           "model; optimal or 'no plan' by uniform-cost search); the answer is "
                           "then unverified")
    _budget_args(plan)
    _json_arg(plan)
    plan.set_defaults(handler=_cmd_plan)


def _add_validate(sub: Any) -> None:
    validate = sub.add_parser("validate", help="check a plan file against a model")
    validate.add_argument("domain")
    validate.add_argument("problem")
    validate.add_argument("plan")
    _json_arg(validate)
    validate.set_defaults(handler=_cmd_validate)


def _add_landmarks(sub: Any) -> None:
    landmarks = sub.add_parser("landmarks", help="fact landmarks and their orderings")
    landmarks.add_argument("domain")
    landmarks.add_argument("problem")
    landmarks.add_argument("--method", default="rhw", help="rhw (default) or zg")
    landmarks.add_argument("--dot", default=None, metavar="FILE",
                           help="write the landmark graph as Graphviz DOT")
    _budget_args(landmarks)
    _json_arg(landmarks)
    landmarks.set_defaults(handler=_cmd_landmarks)


def _add_diff(sub: Any) -> None:
    diff = sub.add_parser("diff", help="differences between two models, as features")
    diff.add_argument("domain_a")
    diff.add_argument("domain_b")
    diff.add_argument("--problem-a", default=None, metavar="FILE")
    diff.add_argument("--problem-b", default=None, metavar="FILE",
                      help="defaults to --problem-a when only that is given")
    _json_arg(diff)
    diff.set_defaults(handler=_cmd_diff)


def _add_demo(sub: Any) -> None:
    demo = sub.add_parser("demo", help="plan, validate and explain the bundled example")
    _json_arg(demo)
    demo.set_defaults(handler=_cmd_demo)


#: The planning sub-commands this module defines, by name (see :func:`_register`).
_PLANNING_COMMANDS: dict[str, Callable[[Any], None]] = {
    "plan": _add_plan,
    "validate": _add_validate,
    "landmarks": _add_landmarks,
    "diff": _add_diff,
    "demo": _add_demo,
}


# --------------------------------------------------------------------------- commands


def _load(domain_path: str, problem_path: str) -> tuple[Any, Any]:
    from xaip.planning.pddl import check_problem, read_domain, read_problem

    domain = read_domain(domain_path)
    problem = read_problem(problem_path)
    check_problem(domain, problem)
    return domain, problem


def _cmd_plan(args: argparse.Namespace) -> int:
    from xaip.planning.planner import plan_files

    if args.output:
        check_output(args.output, (args.domain, args.problem))
    show_progress(None, "plan", 0, 2, "searching")  # the command's progress bar (stderr)
    result = plan_files(
        args.domain,
        args.problem,
        optimal=args.optimal,
        heuristic=args.heuristic,
        search=args.search,
        engine=args.engine,
        cost_bound=args.cost_bound,
        budget=budget_from(args),
    )
    if result.solved and args.output:
        write_output(args.output, render(result, "pddl"), (args.domain, args.problem))
    text = render(result)
    if result.status == Status.UNSOLVABLE and args.cost_bound is not None:
        text = text.replace("no plan exists", f"no plan exists cheaper than {args.cost_bound}")
    payload = result.to_dict()
    verified = True
    if args.check and result.status.finished:
        from xaip.planning.check import check_plan

        show_progress(None, "plan", 1, 2, "checking the answer")
        domain, problem = _load(args.domain, args.problem)
        report = check_plan(domain, problem, result, args.cost_bound, budget_from(args))
        verified = report.ok is True
        payload.update(verified=verified, check=report.details)
        said = report.details.startswith("unverified")  # "unverified: checker budget ..."
        text += ("\n; verified: " if verified else "\n; " if said else "\n; NOT verified: ") \
            + report.details
    else:
        verified = False
        payload.update(verified=False, check="not checked (--no-check)"
                       if result.status.finished else "the search did not finish")
    emit(args, payload, text)
    return EXIT_OK if result.solved and verified else EXIT_NEGATIVE


def _cmd_validate(args: argparse.Namespace) -> int:
    from xaip.planning.plans import read_plan, validate

    domain, problem = _load(args.domain, args.problem)
    steps = read_plan(args.plan)
    result = validate(domain, problem, steps)
    emit(args, result.to_dict(), render(result))
    return EXIT_OK if result.valid else EXIT_NEGATIVE


def _cmd_landmarks(args: argparse.Namespace) -> int:
    from xaip.planning.grounding import ground
    from xaip.planning.landmarks import find_landmarks

    if args.dot:
        check_output(args.dot, (args.domain, args.problem))
    clock = budget_from(args).start()  # one budget over grounding and the landmarks
    domain, problem = _load(args.domain, args.problem)
    show_progress(None, "landmarks", 0, 2, "grounding")
    task = ground(domain, problem, budget=clock)  # BudgetExhausted: exit 1 via _run
    show_progress(None, "landmarks", 1, 2, "finding landmarks and orderings")
    graph = find_landmarks(task, method=args.method, budget=clock.remaining())
    if args.dot:
        write_output(args.dot, render(graph, "dot"), (args.domain, args.problem))
    emit(args, graph.to_dict(), render(graph))
    return EXIT_OK if graph.complete else EXIT_NEGATIVE


def _cmd_diff(args: argparse.Namespace) -> int:
    from xaip.planning.features import model_diff
    from xaip.planning.pddl import check_problem, read_domain, read_problem

    domain_a = read_domain(args.domain_a)
    domain_b = read_domain(args.domain_b)
    problem_a = read_problem(args.problem_a) if args.problem_a else None
    problem_b = read_problem(args.problem_b) if args.problem_b else problem_a
    if problem_a is not None:
        check_problem(domain_a, problem_a)  # a problem for another domain is bad input
    if problem_b is not None:
        check_problem(domain_b, problem_b)
    difference = model_diff(domain_a, domain_b, problem_a, problem_b)
    difference = dataclasses.replace(
        difference, names=(Path(args.domain_a).name, Path(args.domain_b).name))
    emit(args, difference.to_dict(), render(difference))
    return EXIT_OK


def _cmd_demo(args: argparse.Namespace) -> int:
    from xaip.demo import run_demo

    payload, text = run_demo()
    _emit(args, payload, text)
    return EXIT_OK


# --------------------------------------------------------------------------- entry point


def _limit_memory(megabytes: int | None) -> int | None:
    """Cap this process's address space so that running out of memory is an answer
    ("budget exhausted"), not a kill by the operating system."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX
        return None
    if megabytes is None:
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):  # pragma: no cover
            return None
        megabytes = int(total * 0.8) // (1 << 20)
    limit = max(megabytes, 256) << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    if soft == resource.RLIM_INFINITY or soft > limit:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
        except (ValueError, OSError):  # pragma: no cover
            return None
    return limit >> 20


def _run(handler: Handler, args: argparse.Namespace) -> int:
    from xaip.runtime.budget import reading_deadline
    from xaip.runtime.progress import command_progress
    from xaip.sidefiles import recording

    # --max-seconds covers reading the inputs too (the workbench's is per request)
    seconds = None if args.command == "serve" else getattr(args, "max_seconds", None)
    quiet = bool(getattr(args, "quiet", False))
    progress: contextlib.AbstractContextManager[object] = contextlib.nullcontext()
    if args.command != "serve":  # a bar on stderr after 1 s (xaip.runtime.progress)
        progress = command_progress(f"xaip {args.command}", notices=not quiet,
                                    show=not (quiet or getattr(args, "json", False)))
    try:
        with recording(), reading_deadline(seconds), progress:  # recording: no output
            return handler(args)                                 # over an input
    except BrokenPipeError:
        # The reader went away (``xaip ... | head``): stop quietly, as Unix tools do.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_NEGATIVE
    except BudgetExhausted as stop:
        # Work that ran out of budget where no partial answer makes sense (reading,
        # grounding...): an answer, exit 1, with a status for scripts.
        emit(args, {"status": Status.BUDGET_EXHAUSTED.value, "verified": False,
                    "phase": stop.phase, "sizes": stop.sizes, "message": str(stop)},
             f"xaip: {stop}")
        return EXIT_NEGATIVE
    except (InputError, EngineUnavailable) as error:
        print(f"xaip: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except FileNotFoundError as error:
        print(f"xaip: error: no such file: {error.filename}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (IsADirectoryError, PermissionError) as error:
        what = "a directory" if isinstance(error, IsADirectoryError) else "not permitted"
        print(f"xaip: error: cannot use {error.filename}: {what}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except UnicodeDecodeError as error:
        print(f"xaip: error: input is not UTF-8 text ({error.reason} at byte {error.start})",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except MemoryError:
        print("xaip: budget exhausted: the memory budget ran out (raise --max-memory)",
              file=sys.stderr)
        return EXIT_NEGATIVE
    except RecursionError:
        print("xaip: error: the input is nested too deeply", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("xaip: interrupted", file=sys.stderr)
        return 130
    except (XaipError, Exception) as error:  # noqa: BLE001 - last line of defence for users
        if args.debug:
            raise
        print(
            f"xaip: internal error: {type(error).__name__}: {error} "
            "(run with --debug for a traceback and please report it)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(lazy=True)
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # --help, --version or a usage error (already printed)
        return stop.code if isinstance(stop.code, int) else EXIT_BAD_INPUT
    handler: Handler = args.handler
    if argv is None:  # a real command line (tests call main() in-process: no limit there)
        _limit_memory(args.max_memory)
    code = _run(handler, args)
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_NEGATIVE if code == EXIT_OK else code
    except OSError as error:
        print(f"xaip: error: cannot write output: {error.strerror}", file=sys.stderr)
        return EXIT_BAD_INPUT
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
