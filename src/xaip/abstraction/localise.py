"""U07: locate the person's abstraction level by asking whether plans are valid.

The person holds the projection of the robot's model at some unknown level of the lattice
(:mod:`.lattice`). Each query shows her a plan; she answers *valid* or *invalid* in her
understanding; every level whose projection answers otherwise is dropped. The query asked is
the one that splits the remaining levels most evenly (the fewest levels left in the worse
case), so with good queries about ``log2(levels)`` answers suffice.

Where the queries come from: for pairs of remaining levels, a short plan valid in one
and not in the other (:meth:`~.distinguish.Abstractions.distinguishing_plan`); first the
lattice's edges (a level and the one that also hides ``p``: the plan that works only if
``p`` is ignored splits the subset lattice in halves), then any pair, at most
``2 * hideable + 4`` searches per query. When none of those splits the remaining levels,
each of them is compared with the first: if no plan tells any of them apart from it, they
are one model for every plan, the localisation is *exact*, and no query could do better.

The person is a function from a plan (action names) to ``True`` (valid): a simulated person
at a level (:func:`simulated_person`, the lifted validator on her projection), the terminal
(:func:`terminal_person`), or any callable of yours.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO

from xaip.abstraction.distinguish import Abstractions
from xaip.abstraction.lattice import MAX_LEVELS, Level, subset_lattice
from xaip.abstraction.projection import check_hideable, project
from xaip.abstraction.results import LocalisationResult, Query, level_text
from xaip.contract import run_checker, with_check
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import parse_plan, validate
from xaip.runtime import Budget, Status
from xaip.runtime.progress import Progress, report

Person = Callable[[tuple[str, ...]], bool]


def simulated_person(domain: Domain, problem: Problem, level: Level) -> Person:
    """A person whose model is the projection at ``level``: she calls a plan valid exactly
    when the lifted validator accepts it there."""
    model = project(domain, problem, sorted(level))

    def answer(plan: tuple[str, ...]) -> bool:
        return validate(*model, parse_plan("".join(f"({n})\n" for n in plan))).valid

    return answer


def terminal_person(read: TextIO, write: TextIO) -> Person:
    """A person at the terminal: each plan is printed and she types ``y`` (valid) or ``n``."""

    def answer(plan: tuple[str, ...]) -> bool:
        write.write("\nIs this a valid plan (does it reach the goal), as you understand "
                    "the task?\n")
        for number, name in enumerate(plan, 1):
            write.write(f"  {number}. ({name})\n")
        if not plan:
            write.write("  (the empty plan: do nothing)\n")
        while True:
            write.write("valid? [y/n] ")
            write.flush()
            line = read.readline()
            if not line:
                raise InputError("the answers ended before your level was found")
            word = line.strip().lower()
            if word in ("y", "yes", "valid"):
                return True
            if word in ("n", "no", "invalid"):
                return False
            write.write("please answer y or n\n")

    return answer


def localise(domain: Domain, problem: Problem, person: Person, *,
             hideable: Sequence[str] = (), levels: Sequence[Level] | None = None,
             truth: Level | None = None, budget: Budget | None = None,
             progress: Progress | None = None, check: bool = True) -> LocalisationResult:
    """Locate ``person`` among ``levels`` (default: every subset of ``hideable``; with
    ``levels``, ``hideable`` only orders the predicates they mention).

    ``truth`` is the level of a simulated person (recorded and checked, never used to
    choose queries). ``check`` runs :func:`xaip.abstraction.check_localise.check_localisation`
    under a fresh copy of ``budget``. Raises :class:`~xaip.errors.InputError` on bad input.
    """
    budget = budget or Budget()
    started = time.perf_counter()
    if levels is None:
        names = check_hideable(domain, problem, hideable)
        lattice = subset_lattice(names)
    else:
        names = check_hideable(domain, problem,
                               [*hideable, *(p for lv in levels for p in sorted(lv))])
        lattice = tuple(frozenset(lv) for lv in levels)
        if len(set(lattice)) < len(lattice) or not lattice:
            raise InputError("the levels must be distinct, and at least one")
        if len(lattice) > MAX_LEVELS:
            raise InputError(f"{len(lattice)} levels; at most {MAX_LEVELS}")
    if truth is not None and truth not in lattice:
        raise InputError(f"the simulated person's level ({level_text(truth)}) is not a "
                         "level of the lattice")
    clock = budget.start()
    search = _Localiser(Abstractions(domain, problem, clock), names, lattice, progress)
    status = Status.FOUND
    try:
        search.run(person)
    except BudgetExhausted:
        status = Status.BUDGET_EXHAUSTED
    if status == Status.FOUND and not search.candidates:
        status = Status.NO_EXPLANATION
    exact = status != Status.BUDGET_EXHAUSTED and (search.exact or len(search.candidates) <= 1)
    result = LocalisationResult(
        status, names, lattice, tuple(search.queries), tuple(search.candidates), exact,
        truth=truth, seconds=time.perf_counter() - started,
        stats={"plan_searches": search.searches, "pool": len(search.pool),
               "groundings": len(search.models._tasks)})
    if not check:
        return result
    from xaip.abstraction.check_localise import check_localisation

    report(progress, "check", 0)
    report_ = run_checker(lambda: check_localisation(domain, problem, result, budget))
    return with_check(dataclasses.replace(result, check=report_), report_)


class _Localiser:
    def __init__(self, models: Abstractions, hideable: tuple[str, ...],
                 lattice: tuple[Level, ...], progress: Progress | None) -> None:
        self.models, self.hideable, self.progress = models, hideable, progress
        self.candidates: list[Level] = list(lattice)
        self.queries: list[Query] = []
        self.pool: list[tuple[str, ...]] = []
        self.pairs: dict[tuple[Level, Level], tuple[str, ...] | None] = {}
        self.exact = False
        self.searches = 0
        self.per_query = 2 * len(hideable) + 4

    def run(self, person: Person) -> None:
        while len(self.candidates) > 1:
            report(self.progress, "queries", len(self.queries),
                   message=f"{len(self.candidates)} levels left")
            plan = self._best()
            if plan is None:
                self.exact = True
                return
            answer = bool(person(plan))
            accepting = [lv for lv in self.candidates if self.models.accepts(lv, plan)]
            kept = accepting if answer else [lv for lv in self.candidates
                                             if lv not in set(accepting)]
            self.queries.append(Query(tuple(f"({n})" for n in plan), answer,
                                      len(self.candidates), len(kept), len(accepting)))
            self.candidates = kept

    def _score(self, plan: tuple[str, ...]) -> int | None:
        """The levels left in the worse case after asking ``plan`` (``None``: no split)."""
        yes = sum(self.models.accepts(lv, plan) for lv in self.candidates)
        if yes in (0, len(self.candidates)):
            return None
        return max(yes, len(self.candidates) - yes)

    def _search(self, a: Level, b: Level) -> tuple[str, ...] | None:
        if (a, b) not in self.pairs:
            self.searches += 1
            found = self.models.distinguishing_plan(a, b)
            self.pairs[a, b] = found
            if found is not None and found not in self.pool:
                self.pool.append(found)
        return self.pairs[a, b]

    def _best(self) -> tuple[str, ...] | None:
        ideal = (len(self.candidates) + 1) // 2
        best: tuple[int, int, tuple[str, ...]] | None = None

        def consider(plan: tuple[str, ...] | None) -> None:
            nonlocal best
            score = None if plan is None else self._score(plan)
            if plan is not None and score is not None and (
                    best is None or (score, len(plan)) < best[:2]):
                best = (score, len(plan), plan)

        for plan in self.pool:
            consider(plan)
        budget = self.per_query
        for a, b in self._pairs():
            if budget <= 0 or (best is not None and best[0] <= ideal):
                break
            if (a, b) in self.pairs:
                continue
            budget -= 1
            consider(self._search(a, b))
        if best is not None:
            return best[2]
        first = self.candidates[0]
        for other in self.candidates[1:]:
            for a, b in ((other, first), (first, other)):
                consider(self._search(a, b))
            if best is not None:
                return best[2]
        return None

    def _pairs(self) -> Iterator[tuple[Level, Level]]:
        """Pairs to search, lattice edges first: (level + p, level)."""
        left = set(self.candidates)
        for lv in self.candidates:
            for p in self.hideable:
                if p not in lv and lv | {p} in left:
                    yield lv | {p}, lv
        for a in self.candidates:
            for b in self.candidates:
                if a != b and not (b < a and len(a - b) == 1):
                    yield a, b
