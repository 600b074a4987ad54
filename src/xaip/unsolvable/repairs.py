"""Which initial facts, added, would give the task a plan (the D3WA+ "missing fact" hint).

Why bounded: a modeller who forgot a road or a key usually forgot one fact, and each
candidate costs a fresh grounding and an exhaustive search. So the candidates are the ground
atoms of the domain's predicates over the problem's objects (respecting types) that are not
initially true and name no object twice (``(on b1 b1)`` rarely means anything a modeller
forgot), in predicate and object order, at most ``max_candidates`` of them, and the
sets tried have at most ``max_facts`` facts (smallest first, the first that works wins:
fewest added facts, then first in candidate order).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field

from xaip.errors import BudgetExhausted
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Atom, Domain, Problem, either_members
from xaip.planning.semantics import fact_text
from xaip.runtime.budget import BudgetClock
from xaip.runtime.progress import Progress, report
from xaip.unsolvable.goals import GoalMasks, goal_literals
from xaip.unsolvable.search import explore

#: The default bound on candidate atoms (a fresh search each).
MAX_CANDIDATES = 400


@dataclass(frozen=True)
class Repair:
    """``facts`` (PDDL text) added to the initial state give the plan ``plan``; ``None``
    facts when no set within the bounds does. ``complete``: every set within the bounds
    was tried (or a repair was found); ``candidates`` were considered, ``tried`` searched."""

    facts: tuple[str, ...] | None
    plan: tuple[str, ...]
    max_facts: int
    candidates: int
    capped: bool
    tried: int
    complete: bool
    atoms: tuple[Atom, ...] = field(default=(), compare=False, repr=False)

    def to_dict(self) -> dict[str, object]:
        return {"facts": None if self.facts is None else list(self.facts),
                "plan": list(self.plan), "max_facts": self.max_facts,
                "candidates": self.candidates, "candidates_capped": self.capped,
                "tried": self.tried, "complete": self.complete}


def candidates(domain: Domain, problem: Problem, limit: int) -> tuple[list[Atom], bool]:
    """Ground atoms not initially true that name no object twice, in order, at most
    ``limit`` (and whether capped)."""
    below = domain.subtypes_closure()
    objects = [(t.name, t.type) for t in (*domain.constants, *problem.objects)]
    init = {Atom(a.predicate, a.args) for a in problem.init}

    def of(type_name: str) -> list[str]:
        kinds = either_members(type_name) or (type_name,)
        group = set().union(*(below.get(k, frozenset()) for k in kinds))
        return [name for name, kind in objects if kind in group]

    def atoms() -> Iterator[Atom]:
        for predicate in domain.predicates:
            pools = [of(p.type) for p in predicate.parameters]
            for args in itertools.product(*pools):
                atom = Atom(predicate.name, tuple(args))
                if atom not in init and len(set(args)) == len(args):
                    yield atom

    found = list(itertools.islice(atoms(), limit + 1))
    return found[:limit], len(found) > limit


def with_init(problem: Problem, added: tuple[Atom, ...]) -> Problem:
    """``problem`` with ``added`` also true initially."""
    return dataclasses.replace(problem, init=(*problem.init, *added))


def find_repair(domain: Domain, problem: Problem, clock: BudgetClock, max_facts: int = 1,
                max_candidates: int = MAX_CANDIDATES, progress: Progress | None = None
                ) -> Repair:
    """The fewest candidate facts whose addition gives the task a plan (see the module
    docstring); stops early, ``complete=False``, when ``clock`` runs out."""
    pool, capped = candidates(domain, problem, max_candidates)
    literals = goal_literals(problem)
    full = (1 << len(literals)) - 1
    tried = 0
    for size in range(1, max_facts + 1):
        for added in itertools.combinations(pool, size):
            if clock.exhausted or clock.out_of_time():
                return Repair(None, (), max_facts, len(pool), capped, tried, False)
            tried += 1
            report(progress, "repair", tried, message=", ".join(map(str, added)))
            changed = with_init(problem, added)
            try:
                task = ground(domain, changed, budget=clock)
            except BudgetExhausted:
                return Repair(None, (), max_facts, len(pool), capped, tried, False)
            seen = explore(task, GoalMasks(task, literals), full, clock)
            if seen.plan is not None:
                return Repair(tuple(fact_text(a.predicate, a.args) for a in added),
                              tuple(str(a) for a in seen.plan), max_facts, len(pool),
                              capped, tried, True, added)
            if not seen.complete:
                return Repair(None, (), max_facts, len(pool), capped, tried, False)
    return Repair(None, (), max_facts, len(pool), capped, tried, True)
