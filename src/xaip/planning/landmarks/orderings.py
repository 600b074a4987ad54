"""Orderings between landmarks: greedy-necessary, natural and reasonable.

All three are computed the same way for every landmark method, from the landmark set and
each landmark's first achievers, so ``rhw`` and ``zg`` graphs mean the same thing.

* greedy-necessary A → B (B not initially true): every first achiever of B requires (a fact
  of) A. Sound: the effect that first makes B true fired in a state with A.
* natural A → B (neither initially true, no shared fact): B is relaxed-unreachable when
  the facts of A are *forbidden* (never true, though operators adding them still fire for
  their other effects). Sound and strict: on a plan where A is false before t(B), the
  effects fired up to t(B) never needed A, so they reach B with A forbidden. (Blocking
  A's achievers instead would allow A and B to appear together, which is not "before".)
  Pairs already ordered greedy-necessarily are not repeated.
* reasonable A → B (Hoffmann, Porteous and Sebastia's approximation, as in RHW): B is a
  goal, or B is greedy-necessarily before some C that A is (greedy-necessarily or
  naturally) before; and A *interferes* with B: they are mutex, or every first achiever
  of A certainly deletes B, or a greedy-necessary predecessor of A is mutex with B. Then
  on every plan B must become true at or after the time A first holds, so achieving B
  first is wasted work. Not an ordering every plan obeys; only between non-initial fact
  landmarks that are not already ordered either way.

Mutexes come from h^2 reachability of fact pairs (conditional effects handled soundly by
also considering pairs of effects of one action); it is skipped for very large tasks,
which only means fewer reasonable orderings.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from xaip.planning.landmarks.achievers import Meter, Relaxation
from xaip.planning.landmarks.graph import Ordering, OrderingKind
from xaip.planning.task import Task, bits

# h^2 costs about facts x operators per sweep; above this product it is skipped.
H2_LIMIT = 4_000_000
# Actions with more conditional effects than this are treated coarsely by h^2.
H2_MAX_PAIRED_EFFECTS = 8


@dataclass(frozen=True)
class LandmarkInfo:
    """What the ordering rules need to know about one landmark."""

    mask: int
    initial: bool
    goal: bool
    disjunctive: bool
    first_achiever_ops: tuple[int, ...]


def compute_orderings(
    relax: Relaxation,
    landmarks: Sequence[LandmarkInfo],
    meter: Meter,
    *,
    reasonable: bool = True,
) -> list[Ordering]:
    """All orderings, strongest kind per pair, sorted. Raises ``_Exhausted`` via ``meter``;
    the caller keeps whatever was appended to ``out`` (see :func:`compute_orderings_into`)."""
    out: list[Ordering] = []
    compute_orderings_into(out, relax, landmarks, meter, reasonable=reasonable)
    return sorted(out, key=lambda o: (o.before, o.after))


def compute_orderings_into(
    out: list[Ordering],
    relax: Relaxation,
    landmarks: Sequence[LandmarkInfo],
    meter: Meter,
    *,
    reasonable: bool = True,
) -> None:
    """Append orderings to ``out`` as they are proven, so a budget stop keeps a sound part."""
    task = relax.task
    kind: dict[tuple[int, int], OrderingKind] = {}

    def emit(i: int, j: int, k: OrderingKind) -> None:
        kind[(i, j)] = k
        out.append(Ordering(i, j, k))

    # greedy-necessary
    for j, b in enumerate(landmarks):
        if b.initial or not b.first_achiever_ops:
            continue
        pres = [relax.ops[o].pre for o in b.first_achiever_ops]
        meter.charge(len(landmarks))
        for i, a in enumerate(landmarks):
            if i != j and all(pre & a.mask for pre in pres):
                emit(i, j, "greedy-necessary")
    # natural
    for i, a in enumerate(landmarks):
        if a.initial:
            continue
        reached = relax.explore(task.init, forbidden=a.mask, meter=meter)
        for j, b in enumerate(landmarks):
            if (
                j != i
                and not b.initial
                and not b.mask & a.mask
                and not b.mask & reached
                and (i, j) not in kind
            ):
                emit(i, j, "natural")
    if reasonable:
        _reasonable(relax, landmarks, kind, emit, meter)


def _reasonable(
    relax: Relaxation,
    landmarks: Sequence[LandmarkInfo],
    kind: dict[tuple[int, int], OrderingKind],
    emit: Callable[[int, int, OrderingKind], None],
    meter: Meter,
) -> None:
    task = relax.task
    simple = [
        i for i, lm in enumerate(landmarks) if not lm.initial and not lm.disjunctive
    ]
    if len(simple) < 2:
        return
    pairs = h2_pairs(task, meter)
    fact_of = {i: landmarks[i].mask.bit_length() - 1 for i in simple}

    def mutex(p: int, q: int) -> bool:
        return pairs is not None and not (pairs[p] >> q) & 1

    gn_parents: dict[int, list[int]] = {}
    strong_parents: dict[int, set[int]] = {}
    gn_children: dict[int, list[int]] = {}
    for (i, j), k in kind.items():
        strong_parents.setdefault(j, set()).add(i)
        if k == "greedy-necessary":
            gn_parents.setdefault(j, []).append(i)
            gn_children.setdefault(i, []).append(j)

    def interferes(a: int, b: int) -> bool:
        p, q = fact_of[a], fact_of[b]
        if mutex(p, q):
            return True
        ops = landmarks[a].first_achiever_ops
        if ops and all(
            relax.ops[o].delete >> q & 1 and not relax.ops[o].action_add >> q & 1 for o in ops
        ):
            return True
        for c in gn_parents.get(a, ()):
            lm = landmarks[c]
            if not lm.disjunctive and mutex(lm.mask.bit_length() - 1, q):
                return True
        return False

    simple_set = set(simple)
    for b in simple:
        meter.charge(len(simple))
        if landmarks[b].goal:
            candidates = set(simple)
        else:
            candidates = set()
            for c in gn_children.get(b, ()):
                candidates |= strong_parents.get(c, set()) & simple_set
        for a in sorted(candidates):
            if a == b or (a, b) in kind or (b, a) in kind:
                continue
            if interferes(a, b):
                emit(a, b, "reasonable")


def h2_pairs(task: Task, meter: Meter | None = None) -> list[int] | None:
    """h^2 reachable fact pairs: ``pairs[p]`` has bit ``q`` iff {p, q} may hold together.

    ``pairs[p]`` has bit ``p`` iff ``p`` is reachable. Pairs not reported can never be true
    together in a reachable state (over-approximation: negative conditions are ignored, and
    when an effect fires the others are assumed not to). ``None`` for tasks too large.
    """
    ops: list[tuple[int, int, int]] = []  # (pre, add, certainly-deleted-and-not-added)
    for action in task.actions:
        conds = action.conditional
        if len(conds) > H2_MAX_PAIRED_EFFECTS:
            every_add = action.add
            for effect in conds:
                every_add |= effect.add
            ops.append((action.pre, every_add, action.delete & ~every_add))
            continue
        subsets: list[tuple[int, ...]] = [()]
        subsets += [(k,) for k in range(len(conds))]
        subsets += list(combinations(range(len(conds)), 2))
        for subset in subsets:
            pre, add, delete = action.pre, action.add, action.delete
            for k in subset:
                pre |= conds[k].cond_pos
                add |= conds[k].add
                delete |= conds[k].delete
            if add:
                ops.append((pre, add, delete & ~add))
    if task.num_facts * max(1, len(ops)) > H2_LIMIT:
        return None
    pairs = [0] * task.num_facts
    reach = task.init
    for p in bits(task.init):
        pairs[p] = task.init
    changed = True
    while changed:
        changed = False
        for pre, add, delete in ops:
            if meter is not None:
                meter.charge(1)
            if pre & ~reach:
                continue
            compatible = reach
            for p in bits(pre):
                row = pairs[p]
                if pre & ~row:
                    break
                compatible &= row
            else:
                keep = compatible & ~delete
                changed |= _add_pairs(pairs, add, keep)
                reach |= add
    return pairs


def _add_pairs(pairs: list[int], add: int, keep: int) -> bool:
    """Record that every fact of ``add`` can hold with ``add`` and ``keep``."""
    changed = False
    for p in bits(add):
        row = pairs[p] | add | keep
        if row != pairs[p]:
            pairs[p] = row
            changed = True
    for q in bits(keep & ~add):
        row = pairs[q] | add
        if row != pairs[q]:
            pairs[q] = row
            changed = True
    return changed
