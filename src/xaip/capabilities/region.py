"""What the simulator can reach from the states discovery knows, and what it cannot.

Why: Def. 7 quantifies over *every* state whose abstraction meets a capability's
precondition. A prediction is false in a state from which no sequence of actions reaches
the predicted abstraction, and the traces and queries meet few such states: Link dead on
Ganon's cell (no action at all), the cheese behind holes no block has filled yet (Escape:
"walk to the cheese" claimed before a hole is filled), a Snowman piece whose every side is
blocked by other pieces, the top piece "placed" from a cell not next to the goal (placing
it ends the game, so the player cannot walk back). Discovery found the first kind only
(``probe_game_over`` looked for states without actions); the checker found the others.

What this module does, with the simulator only (no agent, no checker code): list the
states reachable from the level's start and the traces' states (breadth-first, every
depth, at most ``ROOT_VISITS`` states, under the run's budget), then the states at most
``DEPTH`` actions from the other known states (queries' constructed starts, at most
``VISITS`` more). A listed state is *closed* when every state reachable from it was
listed too (it reaches no state whose successors were cut off); for a closed state the
set of abstractions reachable from it is exact, computed once over the strongly
connected components (a bit per distinct abstraction). The guard
(:mod:`~xaip.capabilities.gameover`) then excludes from every capability's precondition
the closed states where its prediction is not in that set: the simulator proves no agent
can do it. States that are not closed give lower bounds only: the generalisation test
(:mod:`~xaip.capabilities.generalise`) asks the agent about predictions there that the
listed part does not confirm before any other.

Every closed state's abstraction goes to the guard (no cap on them): the guard must see
every reachable state where a prediction cannot come true. With a fixed listing of
20,000 states and at most 4,000 abstractions, Snowman 4x5 seed 0 (58,686 states
reachable from the known ones) was listed in part, the guard never saw the states where
"pick up the bottom piece at cell_1_0" is boxed in, and the checker refuted the model (5
of the 36 runs of the capability matrix). Now everything reachable from the start is
listed and closed on levels of up to ``ROOT_VISITS`` states (Snowman 5x5 seeds 0-2
included), so every prediction on a reachable state is tested; the run's ``max_seconds``
bounds the listing (budget_exhausted, never a silent cut). Beyond ``ROOT_VISITS`` (the
run's ``--listing-limit``) the guard covers the closed states only and the answer says so
(:attr:`Region.truncated`, reported as a :class:`Listing`).

What keeps a whole listing affordable: the listing itself is the simulator's steps only;
only closed states are abstracted (as bit sets, :mod:`~xaip.capabilities.compact`), the
sets of reachable abstractions are bitmaps shared per strongly connected component, and
the guard reads the closed states through a :class:`Closed` view whose entries become
:class:`Place` objects only where its screen (:mod:`~xaip.capabilities.screen`) cannot
clear them. Cook-Me-Pasta 8x8 seed 0 (370,317 states, each its own abstraction): the
listing took 58 s and 5.3 GB with a frozenset per state and a ``Place`` per abstraction,
16 s and 0.48 GB now.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from xaip.agents.simulator import check_deadline, successor_function
from xaip.capabilities.compact import (
    AtomTable,
    BitKeys,
    bitmap,
    both,
    compact_abstractor,
    has,
)
from xaip.capabilities.pool import CaseState, PoolState, index_state
from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.capabilities.truth import components

#: States listed breadth-first from the start and the traces' states, at every depth, by
#: default (``--listing-limit``; a memory and time bound, the run's budget bounds the
#: time too). Measured: Snowman 5x5 seed 2 has 509,061 reachable states (listed whole and
#: guarded: verified); Cook-Me-Pasta 8x8 seeds 1 and 2 more than 3,000,000 (cut here).
ROOT_VISITS = 1_000_000
#: States listed around the other known states, at most ``DEPTH`` actions from them.
VISITS = 20_000
#: How many actions away from the other known states the listing goes.
DEPTH = 8
#: At most this many live states (one per abstraction) are handed to the generalisation
#: test, nearest the start first.
MAX_STATES = 4_000
#: Listed states abstracted at a time where only some are needed (:meth:`Region.others`).
CHUNK = 256

#: ``abstract(states, table) -> the bits of their abstractions in table, in order``: how
#: the listed states are abstracted (default: here, :func:`abstract_bits`; discovery
#: hands this to its workers).
Abstract = Callable[[list[Any], AtomTable], list[int]]


def abstract_here(abstractor: Abstractor, states: list[Any]) -> list[AbstractState]:
    """The abstractions of ``states`` as atoms, computed in this process through the
    abstractor (and its cache), checking the run's deadline per state."""
    out = []
    for state in states:
        check_deadline()
        out.append(abstractor.fluent(state))
    return out


def abstract_bits(abstractor: Abstractor, states: list[Any], table: AtomTable) -> list[int]:
    """The abstractions of ``states`` as bits of ``table`` (:mod:`~xaip.capabilities.
    compact`: the same abstraction, without atoms or the abstractor's cache), checking
    the run's deadline per state."""
    compact = compact_abstractor(abstractor, table)
    out = []
    for state in states:
        check_deadline()
        out.append(compact(state))
    return out


@dataclass
class Place(PoolState):
    """One abstraction of closed states, for the guard: a representative state (the pool
    state's fields) and the abstractions reachable from *every* listed state with this
    abstraction (``reach``, a bit per abstraction id of ``view``; Def. 7 must hold in each
    of them). ``dead``: one of them has no action."""

    reach: bytes = b""
    view: Closed | None = None
    dead: bool = False

    def reaches(self, target: AbstractState) -> bool:
        """Whether some path from every state of this place reaches ``target``."""
        return self.view is not None and self.view.reaches(self.reach, target)


@dataclass(frozen=True)
class Listing:
    """What the guard's listing covered, reported with the answer: ``states`` listed (from
    the start and the traces' states, at most ``limit``, and around the other known
    states), of them ``closed`` (their whole future listed), ``guarded`` abstractions of
    closed states, and whether the listing from the start was cut at ``limit``
    (``truncated``: the level has more states, and the guard covers the closed ones
    only)."""

    states: int
    closed: int
    guarded: int
    limit: int
    truncated: bool

    def to_dict(self) -> dict[str, Any]:
        return {"states": self.states, "closed": self.closed, "guarded": self.guarded,
                "limit": self.limit, "truncated": self.truncated}

    def text(self) -> str:
        """One line for the text answer."""
        head = (f"guarded on {self.closed:,} closed states ({self.guarded:,} abstractions) "
                f"of {self.states:,} listed")
        if not self.truncated:
            return f"{head}: every state reachable from the start"
        return (f"{head}; the listing was cut at {self.limit:,} states (--listing-limit): "
                f"the level has more than {self.limit:,} states, and predictions in states "
                "not listed are sampled only (generalisation test, checker)")


@dataclass
class Closed:
    """The guard's view of a :class:`Region`: one entry ``k`` per abstraction of closed
    states, in listing order (nearest the roots first) -- its bits (``bits[k]``), what
    every one of its states reaches (``reach[k]``, bits by abstraction id, ``ids``), a
    representative state and whether one of them is a dead end. Entries become
    :class:`Place` objects only when asked (:meth:`place`): on Cook-Me-Pasta 8x8 a
    ``Place`` per abstraction (367,779 of them, their atoms indexed) took 16 s and 2.8 GB
    before a single capability was matched."""

    table: AtomTable
    bits: list[int]
    reach: list[bytes]
    ids: dict[int, int]
    nodes: list[Any]
    dead: list[bool]
    #: Whether the listing from the roots was cut (``Region.truncated``).
    truncated: bool = False
    #: States listed, and of them closed.
    listed: int = 0
    closed_states: int = 0
    #: The listing's limit on states from the roots.
    limit: int = ROOT_VISITS
    #: The cases' states made so far (:meth:`case_state`), by entry.
    made: dict[int, CaseState] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.bits)

    def listing(self) -> Listing:
        """What the listing behind this view covered."""
        return Listing(self.listed, self.closed_states, len(self.bits), self.limit,
                       self.truncated)

    def place(self, k: int) -> Place:
        """Entry ``k`` as a :class:`Place` (made afresh: the guard's scan makes one per
        entry it cannot clear, and keeping them all was gigabytes)."""
        fluent = self.table.decode(self.bits[k])
        return Place(self.nodes[k], fluent, index_state(fluent), reach=self.reach[k],
                     view=self, dead=self.dead[k])

    def case_state(self, k: int) -> CaseState:
        """Entry ``k`` as the state of a guard case: what the exclusion reads of it, its
        atoms' keys (bits, :class:`~xaip.capabilities.compact.BitKeys`) and the concrete
        state; its atoms and index are not made (one per entry, shared by its cases)."""
        found = self.made.get(k)
        if found is None:
            found = self.made[k] = CaseState(self.nodes[k], BitKeys(self.bits[k], self.table))
        return found

    def reaches(self, reach: bytes, target: AbstractState) -> bool:
        """Whether ``target`` is among the abstractions ``reach`` holds."""
        bits = self.table.encode_known(target)
        tid = None if bits is None else self.ids.get(bits)
        return tid is not None and has(reach, tid)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "made": {}}


@dataclass
class Region:
    """The listed states (see the module docstring). ``fluents[node]`` is the id of the
    node's abstraction (``abstractions[id]``, bits of ``table``), ``-1`` where it was not
    needed: every closed state is abstracted, the others only as :meth:`others` reads
    them. ``reach[node]``: the abstraction ids reachable from a closed node (exact; a
    bitmap, :func:`~xaip.capabilities.compact.has`), empty for the others (not computed:
    on a cut listing they are most states)."""

    nodes: list[Any]
    edges: list[list[int] | None]
    index: dict[Any, int]
    closed: list[bool]
    table: AtomTable
    abstractor: Abstractor
    abstract: Abstract
    fluents: list[int] = field(default_factory=list)
    abstractions: list[int] = field(default_factory=list)
    ids: dict[int, int] = field(default_factory=dict)
    reach: list[bytes] = field(default_factory=list)
    #: Whether the listing from the roots stopped at ``limit`` with states left.
    truncated: bool = False
    limit: int = ROOT_VISITS

    def abstract_nodes(self, nodes: list[int]) -> None:
        """Abstract ``nodes`` (those not yet abstracted), numbering new abstractions in
        the order met."""
        todo = [n for n in nodes if self.fluents[n] < 0]
        if not todo:
            return
        listed = self.abstract([self.nodes[n] for n in todo], self.table)
        ids, abstractions, fluents = self.ids, self.abstractions, self.fluents
        for node, bits in zip(todo, listed, strict=True):
            fid = ids.get(bits)
            if fid is None:
                fid = ids[bits] = len(abstractions)
                abstractions.append(bits)
            fluents[node] = fid

    def fluent(self, node: int) -> AbstractState:
        """The abstraction of an abstracted ``node``, as atoms."""
        return self.table.decode(self.abstractions[self.fluents[node]])

    def closed_view(self) -> Closed:
        """The abstractions of closed states for the guard (:class:`Closed`)."""
        by_id: dict[int, int] = {}
        bits: list[int] = []
        reach: list[bytes] = []
        nodes: list[Any] = []
        dead: list[bool] = []
        for node, fid in enumerate(self.fluents):
            if not self.closed[node]:
                continue
            mine = self.reach[node]
            stuck = not self.edges[node]
            k = by_id.get(fid)
            if k is None:
                by_id[fid] = len(bits)
                bits.append(self.abstractions[fid])
                reach.append(mine)
                nodes.append(self.nodes[node])
                dead.append(stuck)
            else:
                if reach[k] is not mine:  # one component's set is shared, not copied
                    reach[k] = both(reach[k], mine)
                dead[k] = dead[k] or stuck
        return Closed(self.table, bits, reach, self.ids, nodes, dead, self.truncated,
                      len(self.nodes), sum(self.closed), self.limit)

    def places(self, limit: int | None = None) -> list[Place]:
        """The abstractions of closed states as :class:`Place` objects, in listing order
        (at most ``limit``; ``None``: all of them)."""
        view = self.closed_view()
        count = len(view) if limit is None else min(limit, len(view))
        return [view.place(k) for k in range(count)]

    def others(self, limit: int) -> list[PoolState]:
        """One live state (one with an action) per abstraction, at most ``limit``, in
        listing order: real states the generalisation test may try capabilities in. The
        states not abstracted yet are abstracted a chunk at a time as the scan meets
        them."""
        out: dict[int, PoolState] = {}
        for node in range(len(self.nodes)):
            if len(out) >= limit:
                break
            if not self.edges[node]:
                continue
            if self.fluents[node] < 0:
                ahead = [n for n in range(node, min(len(self.nodes), node + CHUNK))
                         if self.edges[n]]
                self.abstract_nodes(ahead)
            fid = self.fluents[node]
            if fid in out:
                continue
            fluent = self.table.decode(self.abstractions[fid])
            out[fid] = PoolState(self.nodes[node], fluent, index_state(fluent))
        return list(out.values())


def explore(simulator: Any, roots: Iterable[Any], known: Iterable[Any],
            abstractor: Abstractor, *, root_visits: int = ROOT_VISITS,
            visits: int = VISITS, depth: int = DEPTH,
            abstract: Abstract | None = None) -> Region:
    """List the states reachable from ``roots`` (every depth, at most ``root_visits``)
    and those at most ``depth`` actions from the other ``known`` states (at most
    ``visits`` more), with their successors, closedness, and for the closed ones their
    abstractions and the abstractions reachable from them.

    ``abstract`` abstracts listed states (default :func:`abstract_bits`). Why a
    parameter: abstracting them is most of the listing's time, and states are abstracted
    independently, so :func:`xaip.capabilities.guarding.abstract_states` shares them out
    among an executor's workers in chunks. Only the closed states are abstracted here:
    the listing itself (the simulator's steps) is cheap, and on a cut listing most states
    are not closed and the guard never reads them."""
    index: dict[Any, int] = {}
    nodes: list[Any] = []
    edges: list[list[int] | None] = []

    def add(state: Any) -> int:
        node = index.get(state)
        if node is None:
            node = index[state] = len(nodes)
            nodes.append(state)
            edges.append(None)
        return node

    # a state's successors in one call where the simulator has one (``actions`` and
    # then ``step`` per action computed every move twice on the games: a third of the
    # listing's CPU on Cook-Me-Pasta 8x8, a serial part of a run on workers)
    successors = successor_function(simulator)

    def expand(node: int) -> list[int]:
        check_deadline()
        out = [add(nxt) for _, nxt in successors(nodes[node])]
        edges[node] = out
        return out

    # every depth from the roots
    roots_listed = list(roots)
    queue: deque[int] = deque(add(s) for s in roots_listed)
    expanded = 0
    while queue and expanded < root_visits:
        node = queue.popleft()
        if edges[node] is not None:
            continue
        expanded += 1
        for nxt in expand(node):
            if edges[nxt] is None:
                queue.append(nxt)
    truncated = any(edges[n] is None for n in queue)
    del queue
    # a few actions around the other known states
    frontier = [add(s) for s in known]
    spent = 0
    for level in range(depth + 1):
        following: list[int] = []
        for node in frontier:
            if edges[node] is not None or spent >= visits:
                continue
            spent += 1
            if level < depth:
                following += [n for n in expand(node) if edges[n] is None]
            elif not simulator.actions(nodes[node]):
                edges[node] = []  # a dead end at the depth limit is still closed
        frontier = following

    closed = _closed(edges)
    # cut: a state reachable from the roots was left unexpanded (the listing around the
    # other known states may have finished what the limit left)
    truncated = truncated and not all(closed[index[s]] for s in roots_listed)
    table = AtomTable()
    region = Region(nodes, edges, index, closed, table, abstractor,
                    abstract if abstract is not None else
                    lambda states, tab: abstract_bits(abstractor, states, tab),
                    fluents=[-1] * len(nodes), truncated=truncated, limit=root_visits)
    region.abstract_nodes([n for n in range(len(nodes)) if closed[n]])
    region.reach = _reach(edges, closed, region.fluents)
    return region


def _closed(edges: list[list[int] | None]) -> list[bool]:
    """A node is closed when no node it reaches was left unexpanded: everything else,
    found backwards from the unexpanded nodes."""
    back: list[list[int]] = [[] for _ in edges]
    for node, out in enumerate(edges):
        for nxt in out or ():
            back[nxt].append(node)
    closed = [True] * len(edges)
    queue = deque(node for node, out in enumerate(edges) if out is None)
    for node in queue:
        closed[node] = False
    while queue:
        node = queue.popleft()
        for prev in back[node]:
            if closed[prev]:
                closed[prev] = False
                queue.append(prev)
    return closed


def _reach(edges: list[list[int] | None], closed: list[bool],
           fluents: list[int]) -> list[bytes]:
    """Per closed node, the abstractions (bits by id) of the listed states it reaches
    (exact: everything a closed node reaches is closed) as a bitmap; empty for the
    other nodes. A strongly
    connected component's set is its members' bits and its successors' sets;
    :func:`~xaip.capabilities.truth.components` numbers components successors first, so
    one pass in that order fills them. The components are those of the closed nodes only
    (renumbered): on a cut listing the others are most of the nodes."""
    members = [n for n, c in enumerate(closed) if c]
    position = {n: k for k, n in enumerate(members)}
    out = [[position[m] for m in edges[n] or ()] for n in members]
    comp, count = components(out)
    grouped: list[list[int]] = [[] for _ in range(count)]
    for k, c in enumerate(comp):
        grouped[c].append(k)
    comp_bits = [0] * count
    for c in range(count):
        bits = _bits_of([fluents[members[k]] for k in grouped[c]])
        for k in grouped[c]:
            for nxt in out[k]:
                if comp[nxt] != c:
                    bits |= comp_bits[comp[nxt]]
        comp_bits[c] = bits
    maps = [bitmap(bits) for bits in comp_bits]
    del comp_bits
    reach = [b""] * len(edges)
    for k, node in enumerate(members):
        reach[node] = maps[comp[k]]
    return reach


def _bits_of(ids: list[int]) -> int:
    """The int with bits ``ids`` set, built once (or-ing them in one by one copies the
    growing int per id: quadratic in a component of 300,000 states)."""
    if len(ids) < 64:
        bits = 0
        for i in ids:
            bits |= 1 << i
        return bits
    buffer = bytearray(max(ids) // 8 + 1)
    for i in ids:
        buffer[i >> 3] |= 1 << (i & 7)
    return int.from_bytes(buffer, "little")
