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
bounds the listing (budget_exhausted, never a silent cut). Beyond ``ROOT_VISITS`` the
guard covers the closed states only and the listing says so (:attr:`Region.truncated`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from xaip.agents.simulator import check_deadline
from xaip.capabilities.pool import PoolState, index_state
from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.capabilities.truth import components

#: States listed breadth-first from the start and the traces' states, at every depth (a
#: memory bound; the run's budget bounds the time).
ROOT_VISITS = 1_000_000
#: States listed around the other known states, at most ``DEPTH`` actions from them.
VISITS = 20_000
#: How many actions away from the other known states the listing goes.
DEPTH = 8
#: At most this many live states (one per abstraction) are handed to the generalisation
#: test, nearest the start first.
MAX_STATES = 4_000


@dataclass
class Place(PoolState):
    """One abstraction of closed states, for the guard: a representative state (the pool
    state's fields) and the abstractions reachable from *every* listed state with this
    abstraction (``reach``, a bit per ``ids`` entry, the dictionary the region's places
    share; Def. 7 must hold in each of them). ``dead``: one of them has no action."""

    reach: int = 0
    ids: dict[AbstractState, int] = field(default_factory=dict)
    dead: bool = False

    def reaches(self, target: AbstractState) -> bool:
        """Whether some path from every state of this place reaches ``target``."""
        tid = self.ids.get(target)
        return tid is not None and bool(self.reach >> tid & 1)


@dataclass
class Region:
    """The listed states (see the module docstring)."""

    nodes: list[Any]
    fluents: list[int]
    abstractions: list[AbstractState]
    ids: dict[AbstractState, int]
    edges: list[list[int] | None]
    index: dict[Any, int]
    closed: list[bool] = field(default_factory=list)
    reach: list[int] = field(default_factory=list)
    #: Whether the listing from the roots stopped at ``root_visits`` with states left.
    truncated: bool = False

    def _reachable(self, reach: int, target: AbstractState) -> bool:
        tid = self.ids.get(target)
        return tid is not None and bool(reach >> tid & 1)

    def places(self, limit: int | None = None) -> list[Place]:
        """The abstractions of closed states, in listing order (nearest the roots first),
        each with what every one of its states reaches (at most ``limit``; ``None``: all
        of them, what the guard needs)."""
        by_id: dict[int, Place] = {}
        for node, fid in enumerate(self.fluents):
            if not self.closed[node]:
                continue
            bits = self.reach[node]
            dead = not self.edges[node]
            place = by_id.get(fid)
            if place is None:
                if limit is not None and len(by_id) >= limit:
                    continue
                fluent = self.abstractions[fid]
                by_id[fid] = Place(self.nodes[node], fluent, index_state(fluent),
                                   reach=bits, ids=self.ids, dead=dead)
            else:
                place.reach &= bits
                place.dead = place.dead or dead
        return list(by_id.values())

    def others(self, limit: int) -> list[PoolState]:
        """One live state (one with an action) per abstraction, at most ``limit``: real
        states the generalisation test may try capabilities in."""
        out: dict[int, PoolState] = {}
        for node, fid in enumerate(self.fluents):
            if len(out) >= limit:
                break
            if fid in out or not self.edges[node]:
                continue
            fluent = self.abstractions[fid]
            out[fid] = PoolState(self.nodes[node], fluent, index_state(fluent))
        return list(out.values())

    def confirmed(self, concrete: Any, target: AbstractState) -> bool:
        """Whether a listed path from ``concrete`` reaches ``target`` (``False`` also when
        ``concrete`` was not listed: nothing is known)."""
        node = self.index.get(concrete)
        return node is not None and self._reachable(self.reach[node], target)


#: ``abstract(states) -> their abstractions, in order``: how the listed states are
#: abstracted (default: one after another here; discovery hands this to its workers).
Abstract = Callable[[list[Any]], list[AbstractState]]


def abstract_here(abstractor: Abstractor, states: list[Any]) -> list[AbstractState]:
    """The abstractions of ``states`` computed in this process, checking the run's
    deadline per state."""
    out = []
    for state in states:
        check_deadline()
        out.append(abstractor.fluent(state))
    return out


def explore(simulator: Any, roots: Iterable[Any], known: Iterable[Any],
            abstractor: Abstractor, *, root_visits: int = ROOT_VISITS,
            visits: int = VISITS, depth: int = DEPTH,
            abstract: Abstract | None = None) -> Region:
    """List the states reachable from ``roots`` (every depth, at most ``root_visits``)
    and those at most ``depth`` actions from the other ``known`` states (at most
    ``visits`` more), with their successors, closedness and reachable abstractions.

    ``abstract`` abstracts the listed states (default :func:`abstract_here`). Why a
    parameter: abstracting them is most of the listing's time (32% of a serial
    cookmepasta 8x8 run, where the simulator's steps took a twentieth of that), and
    states are abstracted independently, so :func:`xaip.capabilities.rounds.
    abstract_states` shares them out among an executor's workers in chunks."""
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

    def expand(node: int) -> list[int]:
        check_deadline()
        state = nodes[node]
        out = []
        for action in simulator.actions(state):
            out.append(add(simulator.step(state, action)))
        edges[node] = out
        return out

    # every depth from the roots
    queue: deque[int] = deque(add(s) for s in roots)
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

    ids: dict[AbstractState, int] = {}
    abstractions: list[AbstractState] = []
    fluents: list[int] = []
    listed = abstract(nodes) if abstract is not None else abstract_here(abstractor, nodes)
    for fluent in listed:
        fid = ids.get(fluent)
        if fid is None:
            fid = ids[fluent] = len(abstractions)
            abstractions.append(fluent)
        fluents.append(fid)
    region = Region(nodes, fluents, abstractions, ids, edges, index, truncated=truncated)
    region.closed = _closed(edges)
    region.reach = _reach(edges, fluents)
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


def _reach(edges: list[list[int] | None], fluents: list[int]) -> list[int]:
    """Per node, the abstractions (bits by id) of the listed states it reaches: exact for
    closed nodes, a lower bound for the others. A strongly connected component's set is
    its members' bits and its successors' sets; :func:`~xaip.capabilities.truth.components`
    numbers components successors first, so one pass in that order fills them."""
    out = [e or [] for e in edges]
    comp, count = components(out)
    members: list[list[int]] = [[] for _ in range(count)]
    for node, c in enumerate(comp):
        members[c].append(node)
    comp_bits = [0] * count
    for c in range(count):
        bits = 0
        for member in members[c]:
            bits |= 1 << fluents[member]
            for nxt in out[member]:
                if comp[nxt] != c:
                    bits |= comp_bits[comp[nxt]]
        comp_bits[c] = bits
    return [comp_bits[c] for c in comp]
