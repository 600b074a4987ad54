"""Algorithm 1 end to end: traces → abstraction → candidates → lifting → queries → model.

Entry points: :func:`discover` for any simulator, agent and vocabulary (plus, ideally, a
refinement function from abstract to concrete states), and :func:`discover_game` for the
four bundled games.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.agents.agents import Agent, AnyOf, PolicyAgent, SearchAgent, greedy_policy
from xaip.capabilities.candidates import ABSENT, POS, ground_candidates
from xaip.capabilities.cards import card_text
from xaip.capabilities.lifting import default_lifted_types, merge
from xaip.capabilities.model import (
    Capability,
    CapabilityModel,
    DiscoveryStats,
    Literal,
    OpenTuple,
    QueryRecord,
)
from xaip.capabilities.queries import (
    AnswerStore,
    CapState,
    EngineConfig,
    MemoryStore,
    ProgressFn,
    QueryEngine,
    Refine,
    StatePool,
    StoredTrace,
    build_capability,
    default_eff,
    default_pre,
    ground_pattern,
    query_key,
)
from xaip.capabilities.traces import (
    Abstractor,
    AbstractTrace,
    Trace,
    abstract_trace,
    random_states,
    random_tasks,
    replay,
    run_task,
)
from xaip.errors import InputError
from xaip.runtime.budget import Budget
from xaip.vocab.core import Vocabulary


@dataclass(frozen=True)
class DiscoveryConfig:
    """Settings of one discovery run.

    ``tasks`` random tasks give the traces; ``random_states`` random-walk states join the
    trace states as possible starts of queries (default: ``states_per_object`` = 4 per
    object, at most 150; on the benchmark rows 8 per object found nothing more and every
    scan of the pool took longer).
    ``lifted_types`` are the types whose objects become parameters (default: types with
    more than four objects). ``recheck`` earlier queries are asked again at the end to
    detect non-determinism. ``budget``
    bounds the query phase (``max_seconds``, and ``max_nodes`` as a number of queries);
    when it runs out the model is built from what was learned, and ``stats.exhausted``
    says so.
    """

    tasks: int = 12
    walk_length: int = 12
    random_states: int | None = None
    states_per_object: int = 4
    state_walk: int = 20
    seed: int = 0
    lifted_types: tuple[str, ...] | None = None
    trace_budget: Budget = field(default_factory=lambda: Budget(max_nodes=500_000))
    engine: EngineConfig = field(default_factory=EngineConfig)
    recheck: int = 0
    budget: Budget | None = None


@dataclass(frozen=True)
class DiscoveryResult:
    """A capability model with the evidence and costs behind it."""

    model: CapabilityModel
    stats: DiscoveryStats
    traces: tuple[Trace, ...] = field(compare=False, repr=False)
    abstract_traces: tuple[AbstractTrace, ...] = field(compare=False, repr=False)
    queries: tuple[QueryRecord, ...] = field(compare=False, repr=False)
    start: Any = field(default=None, compare=False, repr=False)

    def to_dict(self, *, with_queries: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.model.name,
            "capabilities": [c.to_dict() for c in self.model.capabilities],
            "queries": self.stats.queries,
            "seconds": self.stats.seconds,
            "seconds_per_query": self.stats.seconds_per_query,
            "stats": self.stats.to_dict(),
            "model": {
                "predicates": self.model.to_dict()["predicates"],
                "types": list(self.model.types),
                "constants": self.model.to_dict()["constants"],
            },
        }
        if with_queries:
            out["query_log"] = [q.to_dict() for q in self.queries]
        return out


def _collect_traces(simulator: Any, agent: Agent[Any], start: Any, config: DiscoveryConfig,
                    store: AnswerStore) -> list[Trace]:
    tasks = random_tasks(simulator, start, config.tasks, config.seed,
                         walk_length=config.walk_length)
    traces = []
    for task in tasks:
        key = "task:" + query_key(task.start, task.goal)
        stored = store.get_trace(key)
        if stored is not None:
            traces.append(replay(simulator, task, stored.actions, stored.status, stored.reason))
            continue
        trace = run_task(agent, task, config.trace_budget)
        store.put_trace(key, StoredTrace(trace.actions, trace.status, trace.reason))
        traces.append(trace)
    return traces


def discover(
    simulator: Any,
    agent: Agent[Any],
    vocabulary: Vocabulary,
    *,
    refine: Refine | None = None,
    start: Any = None,
    config: DiscoveryConfig | None = None,
    store: AnswerStore | None = None,
    progress: ProgressFn | None = None,
    name: str = "capabilities",
) -> DiscoveryResult:
    """Discover the capabilities of ``agent`` acting in ``simulator``, described in
    ``vocabulary`` (Algorithm 1).

    ``refine(full_abstract_state, like)`` returns a concrete state with that abstraction
    (or ``None``); without it, query goals are abstract states tested by abstraction,
    which only search agents can pursue. ``start`` defaults to the simulator's current
    state. Answers go to ``store`` (see :class:`xaip.capabilities.store.SQLiteStore`), so a
    run with the same store resumes without asking again.
    """
    cfg = config or DiscoveryConfig()
    answers: AnswerStore = store if store is not None else MemoryStore()
    began = time.perf_counter()
    first = simulator.get_state() if start is None else start
    abstractor = Abstractor(vocabulary)
    abstractor.full(first)

    def report(event: str, info: Mapping[str, Any]) -> None:
        if progress is not None:
            progress(event, info)

    traces = _collect_traces(simulator, agent, first, cfg, answers)
    trace_seconds = time.perf_counter() - began
    abstract_traces = [abstract_trace(t, abstractor) for t in traces]
    transitions = sum(len(t.states) - 1 for t in abstract_traces)
    report("traces", {"traces": len(traces), "transitions": transitions})

    pool = StatePool(abstractor)
    for trace in traces:
        for state in trace.states:
            pool.add(state)
    roots = [first, *(t.states[-1] for t in traces)]
    count = cfg.random_states if cfg.random_states is not None else \
        min(150, cfg.states_per_object * len(abstractor.objects))
    for state in random_states(simulator, roots, count, cfg.seed, cfg.state_walk):
        pool.add(state)

    objects = dict(abstractor.objects)
    lifted = frozenset(cfg.lifted_types) if cfg.lifted_types is not None \
        else default_lifted_types(objects)
    unknown = lifted - set(objects.values())
    if unknown and cfg.lifted_types is not None and not set(cfg.lifted_types) & set(
            objects.values()):
        raise InputError(f"lifted types {', '.join(sorted(unknown))} are not types of the "
                         "vocabulary's objects")
    constants = {o: t for o, t in objects.items() if t not in lifted}
    candidates = ground_candidates(abstract_traces)
    lifted_candidates = merge(candidates, objects, lifted)
    predicates = [(p.name, p.parameters) for p in vocabulary.predicates]
    possible: set[tuple[Any, ...]] = set()
    for ps in pool.states:
        for atom in ps.fluent:
            possible.add(ground_pattern(atom, objects, lifted))
    caps = [build_capability(f"c{i + 1}", lc, predicates, constants, possible)
            for i, lc in enumerate(lifted_candidates)]
    pal = sum(2 * len(c.atoms) for c in caps)
    settled_traces = sum(_settled(c) for c in caps)
    report("candidates", {"ground": len(candidates), "capabilities": len(caps),
                          "pal_tuples": pal})

    engine = QueryEngine(agent, abstractor, refine, caps, pool, answers, cfg.engine, progress)
    finished = engine.complete(cfg.budget)
    mismatches = engine.recheck(cfg.recheck)

    model = build_model(name, vocabulary, caps, constants, lifted, lifted_candidates)
    records = tuple(engine.records)
    failed = sum(1 for r in records if r.reached is False)
    errors = sum(1 for r in records if r.reached is None)
    seconds = time.perf_counter() - began
    stats = DiscoveryStats(
        traces=len(traces),
        transitions=transitions,
        ground_candidates=len(candidates),
        capabilities=len(caps),
        pal_tuples=pal,
        settled_by_traces=settled_traces,
        settled_by_queries=sum(_settled(c) for c in caps) - settled_traces,
        open_tuples=sum(len(c.open_tuples()) for c in caps),
        queries=len(records),
        asked=sum(1 for r in records if not r.cached),
        cached=sum(1 for r in records if r.cached),
        failed=failed,
        errors=errors,
        plans=engine.plans,
        seconds=seconds,
        query_seconds=engine.query_seconds,
        trace_seconds=trace_seconds,
        nondeterministic=mismatches,
        exhausted=not finished,
    )
    report("done", stats.to_dict())
    return DiscoveryResult(model, stats, tuple(traces), tuple(abstract_traces), records, first)


def _settled(cap: CapState) -> int:
    return sum(1 for a in cap.atoms for t in (cap.pre, cap.eff) if len(t[a]) == 1)


def build_model(name: str, vocabulary: Vocabulary, caps: list[CapState],
                constants: Mapping[str, str], lifted: frozenset[str],
                lifted_candidates: Any = None) -> CapabilityModel:
    """Freeze the learner's tables into a :class:`CapabilityModel` (the chosen mode of an
    open tuple: see :func:`xaip.capabilities.queries.default_pre`)."""
    capabilities = []
    for index, cap in enumerate(caps):
        pre: list[Literal] = []
        eff: list[Literal] = []
        open_tuples: list[OpenTuple] = []
        for atom in cap.atoms:
            p = default_pre(cap, atom)
            e = default_eff(cap, atom)
            if p != ABSENT:
                pre.append(Literal(atom, p == POS))
            if e != ABSENT and e != p:
                eff.append(Literal(atom, e == POS))
            for loc, modes, chosen in (("pre", cap.pre[atom], p), ("eff", cap.eff[atom], e)):
                if len(modes) > 1:
                    reason = "ambiguous" if (loc, atom) in cap.queried else "unobservable"
                    open_tuples.append(OpenTuple(loc, atom, tuple(sorted(modes)), chosen,
                                                 reason))
        pre.sort(key=lambda lit: (str(lit.atom), lit.positive))
        eff.sort(key=lambda lit: (not lit.positive, str(lit.atom)))
        example = None
        if lifted_candidates is not None:
            grounding = lifted_candidates[index].groundings[0]
            example = (grounding.candidate.example, grounding.candidate.example_after)
        draft = Capability(cap.name, cap.params, tuple(pre), tuple(eff), "", cap.instances,
                           tuple(open_tuples), cap.reliable, tuple(cap.notes), example)
        capabilities.append(Capability(
            draft.name, draft.parameters, draft.preconditions, draft.effects,
            card_text(draft, vocabulary), draft.instances, draft.open, draft.reliable,
            draft.notes, example))
    types = tuple(t.name for t in vocabulary.types)
    return CapabilityModel(
        name,
        tuple((p.name, p.parameters) for p in vocabulary.predicates),
        types,
        tuple(sorted(constants.items())),
        tuple(capabilities),
    )


# --------------------------------------------------------------------------- bundled games

AGENTS = ("search", "policy")
#: How far the bundled policy agent looks for a way out of a local minimum.
POLICY_ESCAPE = 6


def game_refine(game: str) -> Refine:
    """The bundled game's refinement: the first concrete state from
    :func:`xaip.vocab.concretize` (hidden parts such as facing copied from ``like``)."""
    from xaip.vocab.games import concretize, hidden_facing

    # Where the vocabulary cannot see the player's facing (every bundled game but Escape and
    # Cook-Me-Pasta, which have none), a waypoint is the place with *any* facing: asking
    # for ``like``'s facing would turn a turn the agent cannot make in place into a false
    # "cannot". ``like``'s facing comes first, as the representative.
    any_facing = hidden_facing(game)
    # The only part of ``like`` a bundled game copies is the facing, so results are shared
    # between templates with the same facing (discovery refines the same waypoints from
    # many start states).
    cache: dict[tuple[frozenset[Any], Any], Any] = {}

    def refine(atoms: frozenset[Any], like: Any) -> Any:
        key = (atoms, getattr(like, "facing", None))
        if key in cache:
            return cache[key]
        states = concretize(game, atoms, like, limit=None if any_facing else 1)
        if len(cache) > 100_000:
            cache.clear()
        if not states:
            found = None
        elif any_facing and len(states) > 1:
            found = AnyOf(tuple(states))
        else:
            found = states[0]
        cache[key] = found
        return found

    return refine


def make_agent(simulator: Any, kind: str, budget: Budget | None = None) -> Agent[Any]:
    """A search (A*) or policy (greedy, goal-directed) agent for a simulator."""
    if kind == "search":
        return SearchAgent(simulator, budget=budget or Budget(max_nodes=500_000))
    if kind == "policy":
        # a hand-coded, myopic policy: greedy toward the target, out of dips of up to six
        # actions (more capabilities seen than with pure greedy, still no planning)
        progress = getattr(simulator, "progress_estimate", None)
        return PolicyAgent(simulator, greedy_policy(simulator, progress,
                                                    escape=POLICY_ESCAPE))
    raise InputError(f"unknown agent '{kind}'; use search or policy")


def discover_game(
    game: str,
    rows: int,
    cols: int,
    *,
    agent: str = "search",
    seed: int = 0,
    store: AnswerStore | None = None,
    config: DiscoveryConfig | None = None,
    progress: ProgressFn | None = None,
    agent_factory: Callable[[Any], Agent[Any]] | None = None,
) -> tuple[DiscoveryResult, Any]:
    """Discover the capabilities of an agent in a bundled game's random level.

    Returns the result and the simulator (for pictures and checks)."""
    from xaip.agents.envs import make_game
    from xaip.vocab.games import game_vocabulary

    simulator = make_game(game, rows, cols, seed=seed)
    vocabulary = game_vocabulary(game)
    the_agent = agent_factory(simulator) if agent_factory is not None \
        else make_agent(simulator, agent)
    cfg = config or DiscoveryConfig(seed=seed, lifted_types=("cell",))
    if cfg.lifted_types is None:
        cfg = DiscoveryConfig(**{**cfg.__dict__, "lifted_types": ("cell",)})
    key = simulator.name
    result = discover(simulator, the_agent, vocabulary, refine=game_refine(key),
                      start=simulator.reset(), config=cfg, store=store, progress=progress,
                      name=f"{key}-{rows}x{cols}-{agent}")
    return result, simulator


__all__ = [
    "AGENTS",
    "DiscoveryConfig",
    "DiscoveryResult",
    "build_model",
    "discover",
    "discover_game",
    "game_refine",
    "make_agent",
]
