"""The compiled engine: the built-in algorithms (A*, UCS, GBFS with blind, h_max, h_add,
h_FF, LM-cut) run by the C core ``xaip._core``.

Why a second implementation of the same searches: the pure-Python engine expands a few
hundred to a few thousand nodes per second, too slow for the explainers that call the
planner many times. The C core mirrors the Python reference (same priority and tie-breaking,
same heuristic definitions and supporter ties), so both give the same costs, heuristic values
and budget verdicts, and the Python engine stays the readable reference that the differential
tests compare against (tests/planning/test_compiled_engine.py).

Derived predicates (axioms) and conditional effects are evaluated in the core, as the Python
reference does: every state it generates is closed under the axioms stratum by stratum
(:class:`~xaip.planning.axioms.AxiomEvaluator`), a conditional effect fires on the state the
action is applied in (:meth:`~xaip.planning.task.GroundAction.apply`), the relaxation
heuristics treat axioms as zero-cost operators and each conditional effect as an operator of
its own, h_FF charges an action once, and LM-cut becomes h_max on a task with conditional
effects (:class:`~xaip.planning.heuristics.lmcut.LMCut`). With either, ``prune`` only drops
duplicate actions without conditional effects. What it does not do itself: the searches
``ehc`` and ``bfs``, handed to
:class:`~xaip.planning.engines.builtin.BuiltinEngine` (its result then says
``engine="builtin"``). The extension is optional: when it was not built (no C compiler
at install time), :meth:`CompiledEngine.available` is ``False``.

A grounded task is converted once (each action's masks written with ``int.to_bytes``, up to
their highest bit, so the copy stays as small as the task) and the compiled copy is cached
per task object, so repeated calls on one task pay nothing.
"""

from __future__ import annotations

import importlib
import math
import struct
import threading
import weakref
from collections.abc import Iterable
from types import ModuleType
from typing import TYPE_CHECKING

from xaip.errors import InputError
from xaip.planning.engines.base import Engine, ground_and_solve
from xaip.planning.engines.builtin import BuiltinEngine, choose
from xaip.planning.engines.complement import complement_negative_conditions
from xaip.planning.heuristics import ADMISSIBLE, HEURISTICS
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.search.preferred import use_preferred
from xaip.planning.search.result import PlanResult
from xaip.planning.task import Task
from xaip.runtime import Budget, Status
from xaip.runtime.progress import notice

if TYPE_CHECKING:
    from xaip import _core as _core_module

_CORE: ModuleType | None
try:  # the extension is optional (setup.py builds it with optional=True)
    _CORE = importlib.import_module("xaip._core")
except ImportError:  # pragma: no cover - depends on the installation
    _CORE = None

#: searches the C core runs; the others are handed to the builtin engine
COMPILED_SEARCHES = frozenset({"astar", "ucs", "gbfs"})

#: default cap on the memory of the search's state table and open list
DEFAULT_MAX_MEMORY_MB = 2048

#: LM-cut as an untrusted oracle (``src/xaip/_native/certify.c``): each state's cuts are
#: checked by the core's own code (each a landmark of the delete relaxation, the charges a
#: cost partition) before their sum counts, and a state whose certificate fails gets h^max.
#: Admissible whatever LM-cut computes; only the compiled engine has it (elsewhere h^max,
#: the value a failed certificate falls back to). The reconciliation checker's heuristic.
CERTIFIED_LMCUT = "lmcut-certified"

#: per heuristic: searches run by the core in this process, states expanded, and (certified
#: LM-cut) certificates accepted and rejected; see :func:`search_counts`
_counts: dict[str, dict[str, int]] = {}

_CACHE_SIZE = 16
_cache: dict[tuple[int, bool, bool], tuple[weakref.ref[Task], _core_module.Task]] = {}
_cache_lock = threading.Lock()


def core_available() -> bool:
    """Was the C extension built and can it be imported here?"""
    return _CORE is not None


def _words(mask: int, nbytes: int) -> bytes:
    return mask.to_bytes(nbytes, "little")


def compile_task(task: Task, prune: bool = True, complement: bool = False
                 ) -> _core_module.Task:
    """The ``xaip._core.Task`` for ``task``, built once per task object (cached).

    ``prune`` drops actions that cannot matter for the goal (backward relevance) and
    duplicate actions: optimal costs and verdicts are unchanged, search is faster, but the
    expansion order is no longer the Python reference's (``prune=False`` keeps it).
    ``complement`` adds a complement fact for each negatively required fact
    (:mod:`~xaip.planning.engines.complement`): the same task, better-informed heuristics;
    the core's states then have more facts than ``task``'s, so only :meth:`CompiledEngine.
    solve` (which starts from the core's own initial state) uses it, never
    :func:`evaluate` on a caller's state.
    Raises :class:`RuntimeError` when the extension is missing.
    """
    if _CORE is None:
        raise RuntimeError("the compiled core xaip._core is not built")
    key = (id(task), prune, complement)
    hit = _cache.get(key)
    if hit is not None and hit[0]() is task:
        return hit[1]
    reformulated = complement_negative_conditions(task) if complement else None
    if reformulated is None:
        num_facts, init, goal, goal_neg = task.num_facts, task.init, task.goal, task.goal_neg
        masks: Iterable[tuple[int, int, int, int]] = (
            (a.pre, a.add, a.delete, a.neg_pre) for a in task.actions)
    else:
        num_facts, init, goal, goal_neg = (reformulated.num_facts, reformulated.init,
                                           reformulated.goal, reformulated.goal_neg)
        masks = reformulated.actions
    nbytes = 8 * (num_facts // 64 + 1)
    # sparse: each mask only up to its highest bit (full width would be actions x facts)
    parts = [m.to_bytes((m.bit_length() + 7) // 8, "little")
             for four in masks for m in four]
    lengths = struct.pack(f"<{len(parts)}i", *map(len, parts))
    costs = struct.pack(f"<{len(task.actions)}q", *(a.cost for a in task.actions))
    core = _CORE.Task(num_facts, len(task.actions), b"".join(parts), lengths, costs,
                      _words(init, nbytes), _words(goal, nbytes), _words(goal_neg, nbytes),
                      prune, **_axiom_args(task, nbytes), **_effect_args(task))
    with _cache_lock:  # the workbench plans from several worker threads
        while len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)), None)
        # the entry goes when the task does (its id may then be reused by another task)
        _cache[key] = (weakref.ref(task, lambda _: _cache.pop(key, None)), core)
    return core


def _axiom_args(task: Task, nbytes: int) -> dict[str, bytes]:
    """The core's keyword arguments for ``task``'s axioms (none without derived predicates):
    each axiom's positive and negative body as sparse masks, its head and its stratum, in
    ascending stratum order (the core evaluates strata in that order)."""
    if not task.axioms and not task.derived:
        return {}
    axioms = sorted(task.axioms, key=lambda axiom: axiom.stratum)
    parts = [m.to_bytes((m.bit_length() + 7) // 8, "little")
             for axiom in axioms for m in (axiom.pos, axiom.neg)]
    return {
        "axiom_masks": b"".join(parts),
        "axiom_lengths": struct.pack(f"<{len(parts)}i", *map(len, parts)),
        "axiom_heads": struct.pack(f"<{len(axioms)}i", *(a.head for a in axioms)),
        "axiom_strata": struct.pack(f"<{len(axioms)}i", *(a.stratum for a in axioms)),
        "derived": _words(task.derived, nbytes),
    }


def _effect_args(task: Task) -> dict[str, bytes]:
    """The core's keyword arguments for ``task``'s conditional effects (none without them):
    each effect's action, condition and effects as sparse masks, by ascending action."""
    effects = [(index, effect) for index, action in enumerate(task.actions)
               for effect in action.conditional]
    if not effects:
        return {}
    parts = [m.to_bytes((m.bit_length() + 7) // 8, "little")
             for _, effect in effects
             for m in (effect.cond_pos, effect.cond_neg, effect.add, effect.delete)]
    return {
        "effect_actions": struct.pack(f"<{len(effects)}i", *(index for index, _ in effects)),
        "effect_masks": b"".join(parts),
        "effect_lengths": struct.pack(f"<{len(parts)}i", *map(len, parts)),
    }


def preferred_actions(task: Task, state: int, prune: bool = True) -> list[int]:
    """The actions of h_FF's relaxed plan from ``state`` (ascending), as the compiled search
    prefers them; for differential tests against :meth:`HFF.relaxed_plan`."""
    nbytes = 8 * (task.num_facts // 64 + 1)
    return compile_task(task, prune).preferred(_words(state, nbytes))


def search_counts(heuristic: str = CERTIFIED_LMCUT) -> dict[str, int]:
    """Totals over this process's compiled searches with ``heuristic``: ``searches``,
    states ``expanded`` and, for :data:`CERTIFIED_LMCUT`, certificates ``certified`` and
    ``rejected`` (a rejected one is a fault in LM-cut: that state got h^max instead).
    Benchmarks read it before and after a run (the checker's proofs: ``benchmarks/
    reconcile.py``)."""
    with _cache_lock:
        return dict(_counts.get(heuristic, dict.fromkeys(
            ("searches", "expanded", "certified", "rejected"), 0)))


def _count(heuristic: str, stats: dict[str, int]) -> None:
    with _cache_lock:
        counts = _counts.setdefault(heuristic, dict.fromkeys(
            ("searches", "expanded", "certified", "rejected"), 0))
        first = not counts["rejected"]
        counts["searches"] += 1
        for key in ("expanded", "certified", "rejected"):
            counts[key] += int(stats.get(key, 0))
    if first and stats.get("rejected"):  # once per process
        notice(f"LM-cut's certificate failed on {stats['rejected']} state(s) (h^max was "
               "used there, so answers stay right); this is a bug in xaip's LM-cut, please "
               "report it")


def lmcut_cuts(task: Task, state: int, prune: bool = True
               ) -> tuple[float, list[tuple[tuple[int, ...], int]]]:
    """The compiled LM-cut's value on ``state`` (``math.inf``: dead end) and its cuts, each
    ``(action indices, charge)``: the untrusted certificate :func:`certify` checks."""
    nbytes = 8 * (task.num_facts // 64 + 1)
    value, cuts = compile_task(task, prune).cuts(_words(state, nbytes))
    return (math.inf if value is None else int(value)), cuts


def certify(task: Task, state: int, cuts: Iterable[tuple[Iterable[int], int]],
            dead_end: bool = False, prune: bool = True) -> tuple[str, int | None]:
    """The core's certificate check (``certify.c``) of ``cuts`` on ``state``:
    ``("ok", h)`` (``h`` None for a certified dead end) or ``(why, cut or action index)``
    with ``why`` one of ``"not a landmark"``, ``"over-charged"``, ``"bad cut"``,
    ``"unsupported"`` (conditional effects)."""
    nbytes = 8 * (task.num_facts // 64 + 1)
    return compile_task(task, prune).certify(
        _words(state, nbytes), [(tuple(actions), charge) for actions, charge in cuts],
        dead_end)


def evaluate(task: Task, heuristic: str, state: int, prune: bool = True) -> float:
    """The compiled ``heuristic`` on ``state`` (``math.inf`` for a proven dead end).

    For differential tests against :func:`xaip.planning.heuristics.make_heuristic`; the
    values do not depend on ``prune`` (pruned actions never help reach the goal).
    """
    nbytes = 8 * (task.num_facts // 64 + 1)
    value = compile_task(task, prune).evaluate(heuristic, _words(state, nbytes))
    return math.inf if value is None else int(value)


#: action costs above this could overflow the core's 64-bit sums (g + h, h_add)
MAX_COST = 1 << 40

#: the core's node counts and cost bounds are C ``long long``/``int64_t``
C_INT_MAX = 2**63 - 1


def _c_bound(cost_bound: int | None) -> int:
    """``cost_bound`` for the core: -1 for none. A bound the core's costs cannot reach
    (plans cost at most ``MAX_COST`` per step, summed in 64 bits) is no bound, so values
    past its ``int64_t`` are passed as none instead of overflowing."""
    if cost_bound is None or cost_bound >= C_INT_MAX:
        return -1
    return max(0, cost_bound)


def _unsupported(task: Task) -> str | None:
    if any(action.cost > MAX_COST for action in task.actions):
        return f"the compiled core needs action costs up to {MAX_COST}"
    return None


class CompiledEngine:
    """A*/UCS/GBFS with blind, h_max, h_add, h_FF or LM-cut, in C (``xaip._core``).

    Configured like :class:`~xaip.planning.engines.builtin.BuiltinEngine` (``search`` and
    ``heuristic`` of ``None`` pick A* + LM-cut when ``optimal``, GBFS + h_FF otherwise).
    ``max_memory_mb`` caps the state table and open list: past it the search answers
    ``budget_exhausted`` instead of exhausting the machine. ``prune`` (default on) skips
    irrelevant and duplicate actions and makes negative conditions positive for the
    heuristics (see :func:`compile_task`); ``prune=False`` makes the search expand exactly
    the states the pure-Python engine expands, in the same order.
    ``preferred``: h_FF's preferred operators in GBFS, as the builtin engine's.
    """

    name = "compiled"

    def __init__(self, search: str | None = None, heuristic: str | None = None,
                 max_memory_mb: float = DEFAULT_MAX_MEMORY_MB, prune: bool = True,
                 preferred: bool | None = None) -> None:
        self.search = search
        self.prune = prune
        self.preferred = preferred
        self.heuristic = heuristic
        if not max_memory_mb > 0:
            raise InputError(f"max_memory_mb must be positive, not {max_memory_mb}")
        self.max_memory_mb = max_memory_mb

    def available(self) -> bool:
        return core_available()

    def unsupported(self, task: Task) -> str | None:
        """Why the C core cannot run ``task`` (``solve`` then uses the builtin engine)."""
        return _unsupported(task)

    def solve(self, task: Task, *, optimal: bool = False, cost_bound: int | None = None,
              budget: Budget | None = None) -> PlanResult:
        certified = self.heuristic == CERTIFIED_LMCUT  # admissible, as LM-cut
        search, heuristic = choose(optimal, self.search,
                                   "lmcut" if certified else self.heuristic)
        heuristic = CERTIFIED_LMCUT if certified else heuristic
        if heuristic not in HEURISTICS and heuristic != CERTIFIED_LMCUT:
            raise InputError(f"unknown heuristic '{heuristic}' (one of {', '.join(HEURISTICS)})")
        if (search not in COMPILED_SEARCHES or _unsupported(task) is not None
                or not core_available()):
            if heuristic == CERTIFIED_LMCUT:
                heuristic = "hmax"
            return BuiltinEngine(search, heuristic, self.preferred).solve(
                task, optimal=optimal, cost_bound=cost_bound, budget=budget)
        negative = next((a for a in task.actions if a.cost < 0), None)
        if negative is not None:
            raise InputError(f"action {negative} has negative cost {negative.cost}")
        budget = budget or Budget()
        clock = budget.start()
        core = compile_task(task, self.prune, complement=self.prune)
        left = clock.remaining()
        admissible = heuristic in ADMISSIBLE or heuristic == CERTIFIED_LMCUT
        status, indices, stats = core.solve(
            search, heuristic, admissible,
            _c_bound(cost_bound),
            -1 if left.max_nodes is None else min(left.max_nodes, C_INT_MAX),
            -1.0 if left.max_seconds is None else left.max_seconds,
            int(self.max_memory_mb * 1024 * 1024),
            use_preferred(self.preferred, search, heuristic),
        )
        _count(heuristic, stats)
        solved = status == "solved"
        plan = tuple(task.actions[i] for i in indices)
        optimal_search = search == "ucs" or (search == "astar" and admissible)
        return PlanResult(
            status=Status(status),
            plan=plan,
            cost=sum(a.cost for a in plan) if solved else None,
            optimal=optimal_search and solved,
            expanded=stats["expanded"],
            generated=stats["generated"],
            seconds=clock.elapsed(),
            engine="compiled",
            search=search,
            heuristic=heuristic,
            has_costs=task.has_costs,
            costs_ignored=task.costs_ignored,
            task=task,
        )

    def solve_model(self, domain: Domain, problem: Problem, *, optimal: bool = False,
                    cost_bound: int | None = None, budget: Budget | None = None
                    ) -> PlanResult:
        return ground_and_solve(self, domain, problem, optimal=optimal,
                                cost_bound=cost_bound, budget=budget)


_warned = False


def preferred_engine(search: str | None = None, heuristic: str | None = None) -> Engine:
    """The compiled engine when ``xaip._core`` is built, else the builtin engine.

    Why here: callers that want "the fastest engine available" should not repeat the check.
    The fallback is announced once per process (:func:`xaip.runtime.progress.notice`: one
    ``xaip: note:`` line under the CLI, a :class:`RuntimeWarning` in the library), so a user
    whose install could not compile the extension learns why planning is slow without being
    told on every call.
    """
    global _warned
    if core_available():
        return CompiledEngine(search, heuristic)
    if not _warned:
        _warned = True
        notice("the compiled search core is not built (no C compiler when xaip was "
               "installed?), so planning uses the slower pure-Python engine; install a C "
               "compiler and reinstall xaip to get it")
    return BuiltinEngine(search, heuristic)
