"""Re-learning refuted lifted capabilities grounded.

Why: a lifted capability claims every binding whose precondition holds (Def. 7), and the
games' vocabularies cannot say which cells are adjacent or connected, nor that Link is
dead on some cell the capability does not name. When discovery's own evidence refutes a
lifted capability -- an unseen binding the agent could not apply
(:mod:`~xaip.capabilities.generalise`), a game-over state its precondition admits
(:mod:`~xaip.capabilities.gameover`), executions or failures the description cannot
explain -- keeping it makes the whole model unrealisable. Its grounded form (cells as
constants, one capability per distinct concrete transition, as the reference code) claims
only the cells it was seen with, which the vocabulary *can* say.

:func:`reground` takes the refuted capabilities' observed groundings (the trace
transitions they were lifted from), merges identical ones, builds their PAL tables with
every object a constant, and completes them with the same query engine, asker (and answer
store) and state pool; the game-over guard then runs on them as on any capability. The
replacements are named after the capability they replace (``c2`` becomes ``c2g1``,
``c2g2``...). Capabilities that were reliable stay lifted: the model is lifted where the
evidence allows and grounded where it does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xaip.capabilities.lifting import LiftedCandidate, merge
from xaip.capabilities.pal import CapState, build_capability, ground_pattern
from xaip.capabilities.pool import StatePool


def refuted(caps: Sequence[CapState]) -> list[CapState]:
    """The lifted capabilities discovery's own evidence marked unreliable."""
    return [cap for cap in caps if cap.params and not cap.reliable]


def grounded_caps(
    caps: Sequence[CapState],
    sources: Mapping[str, LiftedCandidate],
    objects: Mapping[str, str],
    predicates: list[tuple[str, tuple[str, ...]]],
    pool: StatePool,
) -> list[CapState]:
    """Grounded capabilities (PAL tables built from the trace transitions only) for the
    lifted ``caps``; ``sources`` maps a capability's name (or its parent's) to the lifted
    candidate it was built from."""
    possible = ground_patterns(pool, objects)
    return [build_grounded(item, predicates, objects, possible)
            for item in regrounding(caps, sources, objects)]


#: One grounded capability to build: its name, grounded candidate and note.
Regrounding = tuple[str, LiftedCandidate, str]


def ground_patterns(pool: StatePool, objects: Mapping[str, str]) -> set[tuple[Any, ...]]:
    """The patterns of the atoms seen true in the pool, every object a constant."""
    possible: set[tuple[Any, ...]] = set()
    for ps in pool.states:
        for atom in ps.fluent:
            possible.add(ground_pattern(atom, objects, frozenset()))
    return possible


def regrounding(caps: Sequence[CapState], sources: Mapping[str, LiftedCandidate],
                objects: Mapping[str, str]) -> list[Regrounding]:
    """What :func:`grounded_caps` builds, in order: each grounded capability's name,
    grounded candidate and note (each is built on its own: :func:`build_grounded`, so
    discovery's executor can build them side by side)."""
    out: list[Regrounding] = []
    done: set[str] = set()
    for cap in caps:
        origin = cap.parent or cap.name
        if origin in done:
            continue  # the parts of a capability split earlier share its transitions
        done.add(origin)
        candidates = [g.candidate for g in sources[origin].groundings]
        why = "; ".join(dict.fromkeys(n for c in caps if (c.parent or c.name) == origin
                                      for n in c.notes))
        for k, grounded in enumerate(merge(candidates, objects, frozenset()), 1):
            out.append((f"{origin}g{k}", grounded,
                        f"re-learned grounded: the lifted {origin} was refuted ({why})"))
    return out


def build_grounded(item: Regrounding, predicates: list[tuple[str, tuple[str, ...]]],
                   objects: Mapping[str, str], possible: set[tuple[Any, ...]]) -> CapState:
    """One grounded capability of :func:`regrounding`, its PAL tables built."""
    name, grounded, note = item
    new = build_capability(name, grounded, predicates, dict(objects), possible)
    new.notes.append(note)
    return new


def replace(caps: Sequence[CapState], old: Sequence[CapState],
            new: Sequence[CapState]) -> list[CapState]:
    """``caps`` with every capability in ``old`` (and its split parts) replaced by ``new``,
    each replacement placed where the first capability it replaces stood."""
    origins = {c.parent or c.name for c in old}
    by_origin: dict[str, list[CapState]] = {}
    for cap in new:
        by_origin.setdefault(cap.name.rsplit("g", 1)[0], []).append(cap)
    out: list[CapState] = []
    for cap in caps:
        origin = cap.parent or cap.name
        if origin in origins:
            out.extend(by_origin.pop(origin, []))
        else:
            out.append(cap)
    return out


def unfinished(caps: Sequence[CapState]) -> None:
    """Mark re-grounded capabilities whose completion the budget cut short: they were
    neither completed by queries nor guarded (:mod:`~xaip.capabilities.gameover`), so a
    budget-exhausted model must not present them as sound."""
    for cap in caps:
        cap.mark("re-learned grounded, but the budget ran out before its queries and the "
                 "guard against states where it cannot come true were done")
