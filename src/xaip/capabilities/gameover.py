"""Capabilities are never claimed where no action can make them come true (game over, blocked).

Why: Def. 7 (realisability) quantifies over *every* state whose abstraction meets a
capability's precondition, game-over states included: Link dead on Ganon's cell, the pasta
ruined, the level won. There no agent can do anything, so a capability whose precondition
holds there with an effect that changes the state claims what no agent can do. Discovery
never sees such states in its traces (the agent does not die on purpose), and an atom that
never held in a known state is left out of the PAL tables (``never_true``), so nothing in
the learned precondition excluded them: ``discover zelda --grid 3x4 --seed 0 --grounded``
claimed "pick up the key" with Link dead next to it (68/69 predictions realised).

What this module does, with the simulator only (no checker code, no agent): list what the
simulator reaches from the known states (:mod:`~xaip.capabilities.region`: every state
reachable from the start and the traces' states as far as the listing goes, and a few
actions around the other known states) and keep the *closed* listed states -- those whose
whole future was listed -- with the abstractions reachable from each
(:func:`probe_game_over`). Game-over states are among them (they reach nothing), and so are
states where the game goes on but a prediction cannot come true (the cheese behind holes no
block has filled; a Snowman piece boxed in by the others). Then, for every capability and
every such state where its best-guess precondition holds under some binding, its
prediction describes a state and is *not* among the reachable abstractions (:func:`guard`),
require one more literal that every execution seen meets and that is false there -- an
open ``-/0`` precondition tuple, or an atom never seen true at all (both are consistent
with every execution, so Def. 5 still holds). The literal excluding most offending cases is
chosen first, until none is left; where no literal can, the capability is split on an atom
(:func:`_split`). When neither can (the vocabulary cannot tell the state from a live one,
or only by an atom over objects the capability does not name), the capability is marked
unreliable with the reason, never silently kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from typing import Any

from xaip.agents.simulator import check_deadline
from xaip.capabilities.candidates import ABSENT, NEG, POS
from xaip.capabilities.compact import BitKeys
from xaip.capabilities.matching import Matcher, Requirement, compile_requirements
from xaip.capabilities.pal import CapState, apply_capability, default_pre
from xaip.capabilities.pool import CaseState, Key, PoolState, gkey
from xaip.capabilities.region import (
    DEPTH,
    MAX_STATES,
    ROOT_VISITS,
    VISITS,
    Abstract,
    Closed,
    Place,
    explore,
)
from xaip.capabilities.screen import LISTED, Screen
from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.planning.pddl.model import Atom

#: At most this many states are listed around the known states that are not roots.
MAX_VISITS = VISITS
#: Splitting stops at names this long (each split adds a letter: "c2g10" splits 7 times).
MAX_NAME = 12
#: At most this many literals are added to one capability.
MAX_LITERALS = 12
#: Bindings of one state the guard looks at (all of them on the bundled games' grids).
ALL_BINDINGS = 100_000
#: Literals are chosen by how many of at most this many offending cases (spread over all
#: of them) they exclude; each chosen literal then filters every case.
SAMPLE = 256


def probe_game_over(simulator: Any, known: Iterable[Any], abstractor: Abstractor,
                    depth: int = DEPTH, limit: int = MAX_STATES,
                    visits: int = MAX_VISITS,
                    live: list[PoolState] | None = None,
                    roots: Iterable[Any] | None = None,
                    abstract: Abstract | None = None,
                    root_visits: int = ROOT_VISITS) -> Closed:
    """The states the guard excludes predictions in: one entry per abstraction of the
    *closed* listed states (:func:`~xaip.capabilities.region.explore`: every state
    reachable from ``roots`` -- default ``known`` -- up to ``root_visits`` states, and
    those at most ``depth`` actions from the other ``known`` states), each with the
    abstractions reachable from it, as a :class:`~xaip.capabilities.region.Closed` view
    (its entries become :class:`~xaip.capabilities.region.Place` objects only where the
    guard needs one); game-over states (no action) are among them, reaching nothing else
    (all of them: the guard must see every one). The view says whether the listing was
    cut (``truncated``). ``live``, when given, receives one state per abstraction with an
    action (at most ``limit``): real states the generalisation test may try capabilities
    in. ``abstract`` abstracts the listed states (see
    :func:`~xaip.capabilities.region.explore`)."""
    known = list(known)
    region = explore(simulator, known if roots is None else roots, known, abstractor,
                     visits=visits, depth=depth, abstract=abstract, root_visits=root_visits)
    if live is not None:
        live.extend(region.others(limit))
    return region.closed_view()


def precondition(cap: CapState) -> list[Requirement]:
    """The best-guess precondition of ``cap`` (what the model will write down)."""
    out: list[Requirement] = []
    for atom in cap.atoms:
        mode = default_pre(cap, atom)
        if mode != ABSENT:
            out.append((atom, mode == POS))
    return out


def _offending(cap: CapState, states: list[PoolState], matcher: Matcher,
               describes: Callable[[AbstractState, Any], bool],
               index: dict[Key, list[int]] | None = None
               ) -> list[Case]:
    """The (state, binding) cases where ``cap``'s precondition holds and its prediction
    describes a state no action reaches. ``index`` (a ground atom's key -> positions in
    ``states`` where it holds) narrows the scan to the states holding the rarest atom a
    precondition requires true (a grounded capability's are all ground)."""
    compiled = compile_requirements(precondition(cap))
    candidates: Iterable[PoolState] = states
    if index is not None:
        required = [index.get(key, []) for key, value in compiled.ground_keys if value]
        if required:
            candidates = [states[i] for i in min(required, key=len)]
    out: list[Case] = []
    for ps in candidates:
        for binding in matcher.match(cap, compiled, ps, {}):
            target = apply_capability(cap, binding, ps.fluent)
            if target == ps.fluent or isinstance(ps, Place) and ps.reaches(target):
                continue
            if describes(target, ps.concrete):
                out.append((ps, dict(binding)))
    return out


def _holds(atom: Atom, binding: dict[str, str], keys: AbstractSet[Any]) -> bool:
    return gkey(atom, binding) in keys


def _with(cases: list[Case], atom: Atom, value: bool) -> list[Case]:
    """The ``cases`` where ``atom`` under the case's binding has ``value`` (``_holds``),
    in order. Why not ``_holds`` per case: the guard's exclusion filters hundreds of
    thousands of cases per literal (Cook-Me-Pasta 8x8's lifted move: 400,550 cases, four
    filters, most of its exclusion), and on the listing's bit sets the test is a look-up
    in the numbering and a bit test, done here without a call per case."""
    predicate, args = atom.predicate, atom.args
    out: list[Case] = []
    append = out.append
    for case in cases:
        ps, binding = case
        keys = ps.keys
        key = (predicate, tuple(map(binding.get, args, args)))
        if type(keys) is BitKeys:
            found = keys.table.ids.get(key)
            held = found is not None and bool(keys.bits >> found & 1)
        else:
            held = key in keys
        if held == value:
            append(case)
    return out


def _requirable(cap: CapState) -> list[Atom]:
    """Atoms a precondition may still require false: not already required either way."""
    return [a for a in cap.atoms if default_pre(cap, a) == ABSENT] + list(cap.never_true)


def _exclusions(cap: CapState, offending: list[Case],
                executions: list[tuple[dict[str, str], frozenset[Any]]],
                uniform: dict[Atom, bool | None] | None = None
                ) -> dict[tuple[Atom, bool], int]:
    """Literals that every execution seen meets (``(atom, value)``: the atom must have
    that value), with how many offending cases each excludes. ``uniform`` keeps, per
    atom, the value every execution gives it (``None``: they differ) for the next call
    with the same executions. Why: a literal leaves the executions as they are, and a
    re-grounded capability has hundreds of atoms and executions, tested again per literal
    (Cook-Me-Pasta 16x16: one exclusion unit of 26.6 s)."""
    known = uniform if uniform is not None else {}
    counts: dict[tuple[Atom, bool], int] = {}
    for atom in _requirable(cap):
        if atom in known:
            value = known[atom]
        else:
            values = {_holds(atom, b, keys) for b, keys in executions}
            value = known[atom] = values.pop() if len(values) == 1 else None
        if value is None:
            continue
        n = len(offending) - len(_with(offending, atom, value))
        if n:
            counts[(atom, value)] = n
    return counts


def _require(cap: CapState, atom: Atom, value: bool) -> None:
    if atom in cap.never_true:
        cap.never_true.remove(atom)
        cap.atoms.append(atom)
        cap.eff[atom] = {ABSENT}
        cap.obs_eff[atom] = {ABSENT}
    cap.pre[atom] = {POS if value else NEG}
    cap.obs_pre[atom] = set(cap.pre[atom])
    cap.revision += 1
    cap.effect_cache = None


def _part(cap: CapState, suffix: str, atom: Atom, value: bool) -> CapState:
    from xaip.capabilities.rounds import _fresh  # rounds imports this module

    part = _fresh(cap)  # a deep copy sharing the immutable parts (atoms, states)
    part.name, part.parent = f"{cap.name}{suffix}", cap.parent or cap.name
    _require(part, atom, value)
    part.executions = [e for e in cap.executions if _holds(atom, e[0], _keys(e[1])) == value]
    part.instances = len(part.executions)
    return part


def _split(cap: CapState, offending: list[Case],
           executions: list[tuple[dict[str, str], frozenset[Any]]]
           ) -> tuple[tuple[CapState, Requirement], tuple[CapState, Requirement]] | None:
    """Split ``cap`` on an atom ``a`` whose value in the first offending case some
    executions share and some do not: a copy that requires the value the offending case
    has (still to be guarded, with fewer executions to admit) and a copy that requires the
    other value (which excludes the case). Every execution meets one copy's precondition,
    so both stay consistent with the traces (Def. 5); together they claim no more than
    ``cap``. The atom splitting the executions most evenly is chosen."""
    ps, binding = offending[0]
    best: tuple[int, str, Atom, bool] | None = None
    for atom in _requirable(cap):
        value = _holds(atom, binding, ps.keys)
        same = sum(1 for b, keys in executions if _holds(atom, b, keys) == value)
        if 0 < same < len(executions):
            score = (-abs(2 * same - len(executions)), str(atom))
            if best is None or score > best[:2]:
                best = (*score, atom, value)
    if best is None:
        return None
    _, _, atom, value = best
    return ((_part(cap, "a", atom, value), (atom, value)),
            (_part(cap, "b", atom, not value), (atom, not value)))


def _keys(state: AbstractState) -> frozenset[Any]:
    return frozenset((x.predicate, x.args) for x in state)


def guard(caps: list[CapState], states: list[PoolState] | Closed, matcher: Matcher,
          describes: Callable[[AbstractState, Any], bool]) -> tuple[list[CapState], int]:
    """Exclude from every capability's precondition the ``states`` where its prediction
    cannot come true (module docstring: a :class:`~xaip.capabilities.region.Closed` view
    or :class:`~xaip.capabilities.region.Place` entries know what they reach; a plain
    pool state is taken as a game-over state, reaching nothing), splitting a capability
    in two where no single literal can. Returns the capabilities (split ones replaced by
    their parts, in place) and how many had to be marked unreliable.

    Every binding of a state counts, not the first ``matcher.max_bindings`` the query
    engine looks at (a state can hold more: a move between two free cells on a 5x5 grid),
    up to ``ALL_BINDINGS``."""
    if not states:
        return caps, 0
    every = Matcher(matcher.object_type, max(matcher.max_bindings, ALL_BINDINGS))
    if isinstance(states, Closed):
        view = states
        return exclude(caps, lambda cap: offending_in(cap, view, range(len(view)), every,
                                                      describes), GUARD_WHERE)
    index = _index(states)
    return exclude(caps, lambda cap: _offending(cap, states, every, describes, index),
                   GUARD_WHERE)


def offending_in(cap: CapState, view: Closed, positions: Iterable[int], matcher: Matcher,
                 describes: Callable[[AbstractState, Any], bool],
                 screen: Screen | None = None) -> list[Case]:
    """:func:`_offending` over the entries ``positions`` of ``view``, in order (the
    cases of :func:`offending_at`, each with its entry's state as the exclusion reads it:
    :meth:`~xaip.capabilities.region.Closed.case_state`)."""
    return [(view.case_state(k), binding)
            for k, binding in offending_at(cap, view, positions, matcher, describes, screen)]


def offending_at(cap: CapState, view: Closed, positions: Iterable[int], matcher: Matcher,
                 describes: Callable[[AbstractState, Any], bool],
                 screen: Screen | None = None) -> list[tuple[int, dict[str, str]]]:
    """The cases of :func:`_offending` over the entries ``positions`` of ``view``, in
    order, by entry: the entries :class:`~xaip.capabilities.screen.Screen` clears hold
    no case (it is sound); in the others the matcher's bindings are taken in its order,
    as :func:`_offending` takes them, and each prediction is tested on bits
    (:meth:`~xaip.capabilities.screen.Screen.offends`, the same test) before the
    refinement test. So the cases and their order are those of :func:`_offending` over
    every entry as a :class:`~xaip.capabilities.region.Place`, with one difference by
    design: a prediction whose exact abstraction some listed state has describes a state
    (that state is the witness), so the refinement test is not asked about it. Asking it
    was a third of the guard's time on Cook-Me-Pasta 8x8, and it answered yes to every
    such prediction on the levels measured; a refinement function that said no there
    would have let a real case go unguarded."""
    screen = screen if screen is not None else Screen(cap, view, matcher)
    compiled = compile_requirements(precondition(cap))
    out: list[tuple[int, dict[str, str]]] = []
    for count, k in enumerate(positions):
        if count & 255 == 0:
            check_deadline()
        if not screen.suspect(k):
            continue
        ps = view.place(k)
        for binding in matcher.match(cap, compiled, ps, {}):
            verdict = screen.offends(k, binding)
            if verdict == LISTED or verdict and describes(
                    apply_capability(cap, binding, ps.fluent), ps.concrete):
                out.append((k, dict(binding)))
    return out


#: Where the guard's unreliable capabilities claimed their prediction (in their note).
GUARD_WHERE = "where no actions reach its prediction (the game is over or blocked)"

Case = tuple[PoolState | CaseState, dict[str, str]]

#: The last states indexed and their index: the guard may be called once per capability
#: with the same list (:mod:`~xaip.capabilities.rounds` guards each in a unit of work).
_INDEXED: list[Any] = [None, -1, None]


def _index(states: list[PoolState]) -> dict[Key, list[int]]:
    """A ground atom's key -> the positions in ``states`` where it holds."""
    if _INDEXED[0] is states and _INDEXED[1] == len(states):
        found: dict[Key, list[int]] = _INDEXED[2]
        return found
    index: dict[Key, list[int]] = {}
    for i, ps in enumerate(states):
        for key in ps.keys:
            index.setdefault(key, []).append(i)
    _INDEXED[:] = [states, len(states), index]
    return index


def exclude(caps: list[CapState], offending_of: Callable[[CapState], list[Case]],
            where: str) -> tuple[list[CapState], int]:
    """Make every capability's precondition false in the cases ``offending_of`` finds
    (a known state and a binding under which the capability's prediction fails): one
    literal at a time that every execution seen meets, else a split (:func:`_split`; also
    when ``MAX_LITERALS`` literals left cases), else the capability is marked unreliable
    with ``where`` in the reason. Returns the
    capabilities (split ones replaced by their parts) and how many were marked.

    ``offending_of`` runs once per capability: a literal or a split only makes the
    precondition stricter and leaves the prediction where it still holds unchanged, so
    the cases left are the earlier ones where the stricter precondition still holds
    (:func:`holds_in`; on the guard's thousands of listed states, calling it again after
    every literal was most of a run's time)."""
    marked = 0
    out: list[CapState] = []
    # a part of a split inherits its parent's cases, which all meet the parent's
    # precondition; the part's is that plus one literal (``_part``), so only that literal
    # is tested (re-testing the whole precondition on every case was most of the guard's
    # time on Cook-Me-Pasta 5x5 seed 0: 103 million literal tests)
    work: list[tuple[CapState, list[Case] | None, Requirement | None]] = [
        (cap, None, None) for cap in reversed(caps)]
    while work:
        cap, known, literal = work.pop()
        if known is None:
            offending = offending_of(cap)
        elif literal is None:
            offending = still_holding(cap, known)
        else:
            offending = _with(known, *literal)
        # a literal leaves the executions as they are (only a split filters them, and
        # its parts are new work): their keys are computed once per capability
        executions = [(b, _keys(before)) for b, before in cap.executions]
        uniform: dict[Atom, bool | None] = {}
        for _ in range(MAX_LITERALS + 1):
            check_deadline()
            if not offending:
                out.append(cap)
                break
            step = max(1, len(offending) // SAMPLE)
            counts = _exclusions(cap, offending[::step], executions, uniform)
            if counts:
                atom, value = max(sorted(counts, key=str), key=lambda k: counts[k])
                _require(cap, atom, value)
                offending = _with(offending, atom, value)
                continue
            parts = None if len(cap.name) > MAX_NAME else _split(cap, offending, executions)
            if parts is not None:
                work.extend((part, offending, lit) for part, lit in reversed(parts))
                break
            _, binding = offending[0]
            cap.mark(f"claimed {where}: {len(offending)} case(s) meet its precondition "
                     f"(e.g. with {_binding_text(binding)}) and no literal over its "
                     "parameters and constants tells them from the executions seen")
            marked += 1
            out.append(cap)
            break
        else:
            # MAX_LITERALS literals left cases: split (each part starts afresh with the
            # cases left) before giving up -- Snowman 5x5 seed 0's "pick up the bottom
            # piece" had 2,088 boxed-in cases no dozen literals could exclude
            parts = None if len(cap.name) > MAX_NAME else _split(cap, offending, executions)
            if parts is not None:
                work.extend((part, offending, lit) for part, lit in reversed(parts))
                continue
            cap.mark(f"claimed {where} (too many cases to exclude)")
            marked += 1
            out.append(cap)
    return out, marked


def holds_in(cap: CapState, case: Case) -> bool:
    """Whether ``cap``'s best-guess precondition holds in the case's state and binding."""
    return bool(still_holding(cap, [case]))


def still_holding(cap: CapState, cases: list[Case]) -> list[Case]:
    """The ``cases`` where ``cap``'s best-guess precondition holds (computed once)."""
    required = precondition(cap)
    return [(ps, binding) for ps, binding in cases
            if all((gkey(atom, binding) in ps.keys) == value for atom, value in required)]


def _binding_text(binding: dict[str, str]) -> str:
    return ", ".join(f"{v[1:]}={o}" for v, o in sorted(binding.items())) or "no parameters"
