"""Fast Downward as an optional external engine, always run in its own process.

Why a subprocess: Fast Downward is GPL-3 and xaip is MIT, so we never import its Python
code (not even the translator); we launch its driver script, which runs the translator
and the search binary itself. That costs about 150-200 ms per call (measured in
``research/deps.md`` section 6), which is acceptable for the tasks where Fast Downward is
worth using: ones too large for the built-in engine, and cross-checks of our results.

Where Fast Downward comes from (:func:`fd_command`, first match wins):

1. the environment variable ``XAIP_FAST_DOWNWARD``: a command line (split like a shell
   would) whose first word is a driver script or executable; a ``.py`` script is run
   with the current Python;
2. the driver bundled in the ``up-fast-downward`` wheel (``pip install 'xaip[fd]'``),
   located with :func:`importlib.util.find_spec` *without importing* the package (its
   ``__init__`` needs unified-planning, which we do not want either);
3. ``fast-downward.py`` or ``fast-downward`` on ``PATH``.

A bare ``downward`` on ``PATH`` is deliberately not used: that is Fast Downward's search
component, which reads a translated SAS+ file, not PDDL.

Exit codes of the driver (Fast Downward's documented codes) and what we make of them:

====================  =====================================================  ==============
code                  meaning                                                status
====================  =====================================================  ==============
0                     plan found                                             solved
1, 2, 3               plan found, then out of memory/time (anytime search)   solved
10                    translator proved the task unsolvable [**]             unsolvable
11                    search proved the task unsolvable                      unsolvable
12                    search ended without a plan but was incomplete         unsolvable [*]
13                    no plan within the given cost ``bound``                unsolvable
20-24                 translator or search out of memory or time             budget_exhausted
232, 247              a component got SIGXCPU/SIGKILL (FD's CPU limit)       budget_exhausted
our wall-clock kill   ``budget.max_seconds`` passed                          budget_exhausted
31, 33, 36            input error (PDDL, search string, options)             InputError
34                    configuration does not support the task's features     UnsupportedFeature
30, 32, 35, 37, else  critical error                                         XaipError
====================  =====================================================  ==============

[*] Code 12 is not a proof; it only happens with incomplete search configurations
(never with the ``astar``/``lazy_greedy`` configurations the planner facade uses), and
``FDRun.exit_code`` keeps it visible. [**] Fast Downward 26.6's translator rather
emits a trivially unsolvable task when the goal is statically false; the search then
exits with 11.

Budgets: ``budget.max_seconds`` is enforced twice, as Fast Downward's own
``--overall-time-limit`` (whole CPU seconds: rounded up plus one, a backstop) and as a
wall-clock timeout on the process group, after which every process of the call is
killed; the wall-clock timeout is the one that normally fires.
``budget.max_nodes`` cannot be passed to Fast Downward (it has no expansion limit); it is
not enforced, and ``FDRun.expanded`` reports the true count.
"""

from __future__ import annotations

import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from xaip.errors import EngineUnavailable, InputError, UnsupportedFeature, XaipError
from xaip.planning.plans import PlanStep, parse_plan
from xaip.runtime import Budget

ENV_VAR = "XAIP_FAST_DOWNWARD"

INSTALL_HINT = (
    "Fast Downward is not installed. Install it with: pip install 'xaip[fd]' "
    "(which installs up-fast-downward==1.0.0), or set XAIP_FAST_DOWNWARD to the command "
    "of a Fast Downward driver (e.g. /path/to/fast-downward.py). "
    "The builtin engine (engine='builtin', the default) works without it."
)

SOLVED_CODES = frozenset({0, 1, 2, 3})
UNSOLVABLE_CODES = frozenset({10, 11, 12, 13})
#: The driver exits with ``256 - signal`` when a component died of a signal: SIGXCPU and
#: SIGKILL are how the kernel enforces Fast Downward's CPU limit.
SIGNAL_RESOURCE_CODES = frozenset(
    256 - int(getattr(signal, name)) for name in ("SIGXCPU", "SIGKILL") if hasattr(signal, name)
)
RESOURCE_CODES = frozenset({20, 21, 22, 23, 24}) | SIGNAL_RESOURCE_CODES
INPUT_ERROR_CODES = frozenset({31, 33, 36})
UNSUPPORTED_CODE = 34

_EXPANDED = re.compile(r"Expanded (\d+) state\(s\)\.")
_PLAN_COST = re.compile(r"Plan cost: (\d+)")
_PLAN_FILE_COST = re.compile(r"^;\s*cost\s*=\s*(\d+)", re.MULTILINE)
_NODE = re.compile(r'^\s*lm(\d+) \[label="(.*)"(.*)\];\s*$')
_EDGE = re.compile(r'^\s*lm(\d+) -> lm(\d+) \[label="([^"]*)"[^\]]*\];\s*$')
_TRANSLATOR_UNSOLVABLE = "Generating unsolvable task"
_FD_ATOM = re.compile(r"^(Atom|NegatedAtom) ([^()]+)\((.*)\)$")


# --------------------------------------------------------------------------- discovery


def _resolve_executable(word: str) -> str | None:
    path = Path(word).expanduser()
    if path.is_file():
        return str(path.resolve())
    return shutil.which(word)


def _bundled_driver() -> Path | None:
    """The driver inside the ``up-fast-downward`` wheel, found without importing it."""
    spec = find_spec("up_fast_downward")  # top-level name: finds, does not execute
    if spec is None or not spec.submodule_search_locations:
        return None
    translator = find_spec("fast_downward")  # namespace package of the translator wheel
    if translator is None or not translator.submodule_search_locations:
        return None
    if not any((Path(p) / "translate").is_dir() for p in translator.submodule_search_locations):
        return None
    for location in spec.submodule_search_locations:
        root = Path(location) / "downward"
        driver = root / "fast-downward.py"
        if driver.is_file() and (root / "builds" / "release" / "bin" / "downward").is_file():
            return driver
    return None


def fd_command() -> list[str] | None:
    """The command that launches Fast Downward's driver, or ``None`` when there is none.

    The driver takes the usual Fast Downward command line
    (``[options] domain problem --search CONFIG``). See the module docstring for the
    order in which places are searched.
    """
    configured = os.environ.get(ENV_VAR, "").strip()
    if configured:
        words = shlex.split(configured)
        executable = _resolve_executable(words[0])
        if executable is None:
            return None
        if executable.endswith(".py"):
            return [sys.executable, executable, *words[1:]]
        return [executable, *words[1:]]
    driver = _bundled_driver()
    if driver is not None:
        # The driver starts the translator as ``sys.executable -m fast_downward.translate``,
        # so it must run under a Python that has the translator wheel: this one.
        return [sys.executable, str(driver)]
    for name in ("fast-downward.py", "fast-downward"):
        found = shutil.which(name)
        if found is not None:
            return [found]
    return None


def fd_available() -> bool:
    """Whether :func:`fd_solve` can run (some Fast Downward driver was found)."""
    return fd_command() is not None


def _require_command() -> list[str]:
    command = fd_command()
    if command is None:
        configured = os.environ.get(ENV_VAR, "").strip()
        if configured:
            raise EngineUnavailable(
                f"{ENV_VAR}={configured!r} does not name an existing driver. " + INSTALL_HINT
            )
        raise EngineUnavailable(INSTALL_HINT)
    return command


# --------------------------------------------------------------------------- running


@dataclass(frozen=True)
class _Run:
    exit_code: int | None  # None: killed by us when the wall-clock budget ran out
    log: str
    seconds: float
    folder_files: dict[str, str]


def _run_driver(
    domain_text: str,
    problem_text: str,
    search: str,
    budget: Budget,
    read_files: tuple[str, ...] = (),
) -> _Run:
    """Run the driver on the two texts in a fresh temporary directory.

    The process gets its own session so that on timeout the translator or search binary
    (grandchildren) are killed too; killing only the driver would leave them running and
    keep our pipes open.
    """
    command = _require_command()
    limit = budget.max_seconds
    options: list[str] = []
    if limit is not None:
        # Fast Downward's limit is in whole CPU seconds and the driver hands the translator
        # what is left after its own start-up, rounded down: ``ceil(limit)`` alone would
        # give a 0 s translator limit for budgets under a second. So FD's own limit is one
        # second longer and serves as a backstop; the wall-clock kill below is the precise
        # enforcement (CPU time never exceeds wall time for these single-threaded steps).
        options += ["--overall-time-limit", f"{math.ceil(limit) + 1}s"]
    with tempfile.TemporaryDirectory(prefix="xaip-fd-") as folder:
        Path(folder, "domain.pddl").write_text(domain_text)
        Path(folder, "problem.pddl").write_text(problem_text)
        argv = [
            *command,
            *options,
            "--plan-file",
            "plan",
            "domain.pddl",
            "problem.pddl",
            "--search",
            search,
        ]
        started = time.perf_counter()
        try:
            process = subprocess.Popen(
                argv,
                cwd=folder,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,
            )
        except OSError as error:
            raise EngineUnavailable(
                f"cannot start Fast Downward ({shlex.join(command)}): {error}. " + INSTALL_HINT
            ) from None
        exit_code: int | None
        try:
            log, _ = process.communicate(timeout=limit)
            exit_code = process.returncode
        except subprocess.TimeoutExpired:
            _kill_group(process)
            log, _ = process.communicate()
            exit_code = None
        seconds = time.perf_counter() - started
        files = {}
        for name in os.listdir(folder):
            if any(name == wanted or name.startswith(wanted + ".") for wanted in read_files):
                files[name] = Path(folder, name).read_text()
    return _Run(exit_code, log or "", seconds, files)


def _kill_group(process: subprocess.Popen[str]) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:  # pragma: no cover - Windows has no process groups of this kind
            process.kill()
    except ProcessLookupError:  # pragma: no cover - it ended just now
        pass


def _tail(log: str, lines: int = 15) -> str:
    return "\n".join(log.strip().splitlines()[-lines:])


def _raise_for(exit_code: int, log: str, what: str) -> None:
    """Turn an error exit code into the matching xaip error (does nothing otherwise)."""
    if exit_code in SOLVED_CODES or exit_code in UNSOLVABLE_CODES or exit_code in RESOURCE_CODES:
        return
    detail = f"Fast Downward {what} failed with exit code {exit_code}:\n{_tail(log)}"
    if exit_code in INPUT_ERROR_CODES:
        raise InputError(detail)
    if exit_code == UNSUPPORTED_CODE:
        raise UnsupportedFeature(detail)
    raise XaipError(detail)


def _last_int(pattern: re.Pattern[str], text: str) -> int | None:
    found = pattern.findall(text)
    return int(found[-1]) if found else None


def _best_plan_file(files: dict[str, str]) -> str | None:
    """The plan file's text; of ``plan.1, plan.2, ...`` (anytime search) the last, best one."""
    if "plan" in files:
        return files["plan"]
    numbered = [
        (int(name.split(".", 1)[1]), text)
        for name, text in files.items()
        if name.split(".", 1)[1].isdigit()
    ]
    return max(numbered)[1] if numbered else None


# --------------------------------------------------------------------------- solving


@dataclass(frozen=True)
class FDRun:
    """What Fast Downward answered. ``status``: solved, unsolvable or budget_exhausted.

    ``exit_code`` is the driver's exit code (``None`` when we stopped it at the
    wall-clock budget); ``log`` is its combined output, kept for diagnosis.
    """

    status: str
    plan: tuple[PlanStep, ...]
    cost: int | None
    expanded: int
    seconds: float
    search: str = ""
    exit_code: int | None = None
    log: str = field(default="", repr=False, compare=False)

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "plan": [str(step) for step in self.plan],
            "cost": self.cost,
            "expanded": self.expanded,
            "seconds": round(self.seconds, 6),
            "search": self.search,
            "exit_code": self.exit_code,
        }


def fd_solve(
    domain_text: str,
    problem_text: str,
    search: str = "astar(lmcut())",
    budget: Budget | None = None,
) -> FDRun:
    """Plan with Fast Downward's ``--search`` configuration ``search`` on PDDL texts.

    Raises :class:`~xaip.errors.EngineUnavailable` when Fast Downward is not installed,
    :class:`~xaip.errors.InputError` when it rejects the input or the configuration.
    ``expanded`` is Fast Downward's last "Expanded N state(s)" count (0 when the
    translator alone decided, or the run was cut off before the statistics).
    """
    budget = budget or Budget()
    run = _run_driver(domain_text, problem_text, search, budget, read_files=("plan",))
    expanded = _last_int(_EXPANDED, run.log) or 0
    if run.exit_code is None:
        return FDRun("budget_exhausted", (), None, expanded, run.seconds, search, None, run.log)
    _raise_for(run.exit_code, run.log, "search")
    if run.exit_code in SOLVED_CODES:
        text = _best_plan_file(run.folder_files)
        if text is None:
            raise XaipError(
                f"Fast Downward reported a plan (exit code {run.exit_code}) but wrote no "
                f"plan file:\n{_tail(run.log)}"
            )
        plan = parse_plan(text, "<fast downward plan>")
        cost = _last_int(_PLAN_FILE_COST, text)
        if cost is None:
            cost = _last_int(_PLAN_COST, run.log)
        return FDRun("solved", plan, cost, expanded, run.seconds, search, run.exit_code, run.log)
    status = "unsolvable" if run.exit_code in UNSOLVABLE_CODES else "budget_exhausted"
    return FDRun(status, (), None, expanded, run.seconds, search, run.exit_code, run.log)


# --------------------------------------------------------------------------- landmarks


@dataclass(frozen=True)
class FDLandmark:
    """One landmark of Fast Downward's graph; ``facts`` in PDDL spelling, ``(on a b)``.

    A disjunctive landmark needs one of its facts, a conjunctive one all of them;
    negated facts are written ``(not (p ...))``. ``goal``/``initial``: it holds in the
    goal / the initial state.
    """

    id: int
    facts: tuple[str, ...]
    disjunctive: bool = False
    conjunctive: bool = False
    goal: bool = False
    initial: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "facts": list(self.facts),
            "disjunctive": self.disjunctive,
            "conjunctive": self.conjunctive,
            "goal": self.goal,
            "initial": self.initial,
        }


@dataclass(frozen=True)
class FDLandmarks:
    """Fast Downward's landmark graph for the initial state.

    ``orderings`` are ``(before_id, after_id, kind)`` with Fast Downward's kinds: ``gn``
    greedy-necessary, ``n`` natural, ``r`` reasonable (and ``nec`` necessary, when the
    factory finds them). ``status`` is ``ok``, ``unsolvable`` (no graph: the translator
    proved the task unsolvable) or ``budget_exhausted``.
    """

    status: str
    landmarks: tuple[FDLandmark, ...]
    orderings: tuple[tuple[int, int, str], ...]
    factory: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "landmarks": [lm.to_dict() for lm in self.landmarks],
            "orderings": [list(o) for o in self.orderings],
            "factory": self.factory,
            "seconds": round(self.seconds, 6),
        }


def _pddl_fact(label: str) -> str:
    """``Atom on(b1, b2)`` -> ``(on b1 b2)``; ``NegatedAtom p()`` -> ``(not (p))``."""
    match = _FD_ATOM.match(label.strip())
    if match is None:
        return label.strip()
    args = [a.strip() for a in match.group(3).split(",") if a.strip()]
    atom = "(" + " ".join((match.group(2).strip(), *args)) + ")"
    return atom if match.group(1) == "Atom" else f"(not {atom})"


def _debug_factory(factory: str) -> str:
    """``lm_rhw()`` -> ``lm_rhw(verbosity=debug)``: the graph is dumped only in debug mode."""
    factory = factory.strip()
    if not re.fullmatch(r"[a-z_0-9]+\(.*\)", factory, flags=re.DOTALL):
        raise InputError(f"not a landmark factory call: {factory!r} (e.g. 'lm_rhw()')")
    inner = factory[factory.index("(") + 1 : -1].strip()
    name = factory[: factory.index("(")]
    return f"{name}({inner + ', ' if inner else ''}verbosity=debug)"


def parse_landmark_dump(
    log: str,
) -> tuple[tuple[FDLandmark, ...], tuple[tuple[int, int, str], ...]]:
    """The landmarks and orderings of the ``digraph G { ... }`` dump in a search log."""
    landmarks: list[FDLandmark] = []
    orderings: list[tuple[int, int, str]] = []
    inside = False
    for line in log.splitlines():
        # Lines may carry a "[t=..., N KB] " prefix; the dump itself does not.
        if not inside:
            inside = line.strip() == "digraph G {"
            continue
        if line.strip() == "}":
            break
        if node := _NODE.match(line):
            label, style = node.group(2), node.group(3)
            conjunctive = " & " in label
            disjunctive = " | " in label
            parts = label.split(" & ") if conjunctive else label.split(" | ")
            landmarks.append(
                FDLandmark(
                    id=int(node.group(1)),
                    facts=tuple(_pddl_fact(part) for part in parts),
                    disjunctive=disjunctive,
                    conjunctive=conjunctive,
                    goal="filled" in style,
                    initial="bold" in style,
                )
            )
        elif edge := _EDGE.match(line):
            orderings.append((int(edge.group(1)), int(edge.group(2)), edge.group(3)))
    return tuple(sorted(landmarks, key=lambda lm: lm.id)), tuple(orderings)


def fd_landmarks(
    domain_text: str,
    problem_text: str,
    factory: str = "lm_rhw()",
    budget: Budget | None = None,
) -> FDLandmarks:
    """Fast Downward's landmark graph (facts and orderings) for the initial state.

    Why through a search: Fast Downward has no "print landmarks" command, but a landmark
    factory in debug mode dumps its graph when a heuristic using it is initialised. We run
    greedy search with ``landmark_sum(factory)`` and ``bound=0`` (no action fits the
    bound, so the search stops at once) and parse the dump. ``factory`` is any Fast
    Downward landmark factory call: ``lm_rhw()``, ``lm_zg()``, ``lm_hm(m=2)``,
    ``lm_reasonable_orders_hps(lm_rhw())`` ...
    """
    budget = budget or Budget()
    search = f"eager_greedy([landmark_sum({_debug_factory(factory)})], bound=0)"
    run = _run_driver(domain_text, problem_text, search, budget)
    if run.exit_code is None or run.exit_code in RESOURCE_CODES:
        return FDLandmarks("budget_exhausted", (), (), factory, run.seconds)
    # Modern translators do not exit with 10 when the goal is statically false; they emit
    # a trivially unsolvable task instead, whose "landmarks" are about a dummy variable.
    if run.exit_code == 10 or _TRANSLATOR_UNSOLVABLE in run.log:
        return FDLandmarks("unsolvable", (), (), factory, run.seconds)
    _raise_for(run.exit_code, run.log, "landmark generation")
    if "digraph G {" not in run.log:
        raise XaipError(f"Fast Downward printed no landmark graph:\n{_tail(run.log)}")
    landmarks, orderings = parse_landmark_dump(run.log)
    return FDLandmarks("ok", landmarks, orderings, factory, run.seconds)
