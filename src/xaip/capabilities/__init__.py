"""Capability discovery for black-box agents (Verma, Marpally & Srivastava, KR 2022) and
query-based action-model learning (the AIA setting, AAAI 2021).

- :func:`discover` — Algorithm 1 for any simulator, agent and vocabulary;
  :func:`discover_game` for the four bundled games. Returns a :class:`DiscoveryResult`
  holding a :class:`CapabilityModel` and the run's statistics.
- :mod:`~xaip.capabilities.traces` (line 1), :mod:`~xaip.capabilities.candidates`
  (line 2), :mod:`~xaip.capabilities.lifting` (lines 3-4), and for lines 5-15
  :mod:`~xaip.capabilities.pal` (the PAL table and how evidence prunes it),
  :mod:`~xaip.capabilities.pool` (known states), :mod:`~xaip.capabilities.matching`
  (bindings in states), :mod:`~xaip.capabilities.means_ends` (query planning),
  :mod:`~xaip.capabilities.answers` (asking the agent, answer records),
  :mod:`~xaip.capabilities.waypoints` (a query as data) and
  :mod:`~xaip.capabilities.queries` (the query engine) — the steps of Algorithm 1.
- :mod:`~xaip.capabilities.checks` — independent checks: consistency with every trace
  (Def. 5) and realisability by simulator search (Def. 7), combined in :func:`check`.
- :mod:`xaip.render.capabilities` — English capability cards, PDDL, pictures.
- :mod:`~xaip.capabilities.store` — the SQLite store that makes runs resumable.
- :mod:`~xaip.capabilities.symbolic` — :class:`SymbolicAgent` hiding a PDDL model and
  :func:`learn_model`, which learns it from plan-outcome queries.

Example::

    from xaip.capabilities import discover_game
    from xaip.render import render

    result, game = discover_game("zelda", 4, 5, seed=0)
    print(render(result))
    print(result.status, result.stats.queries, result.stats.seconds_per_query)
"""

from xaip.capabilities.answers import Answer, AnswerStore, MemoryStore, StoredTrace
from xaip.capabilities.checks import (
    ConsistencyReport,
    DiscoveryInputs,
    LearningInputs,
    RealisabilityReport,
    check,
    check_consistency,
    check_realisability,
    compare_models,
    fresh_states,
)
from xaip.capabilities.discovery import (
    DiscoveryConfig,
    DiscoveryResult,
    discover,
    discover_game,
    game_refine,
    make_agent,
    query_log,
)
from xaip.capabilities.model import (
    Capability,
    CapabilityModel,
    DiscoveryStats,
    Literal,
    OpenTuple,
    QueryRecord,
)
from xaip.capabilities.queries import EngineConfig, QueryEngine
from xaip.capabilities.store import SQLiteStore
from xaip.capabilities.symbolic import LearnedModel, SymbolicAgent, learn_model

__all__ = [
    "Answer",
    "AnswerStore",
    "Capability",
    "CapabilityModel",
    "ConsistencyReport",
    "DiscoveryInputs",
    "DiscoveryConfig",
    "DiscoveryResult",
    "DiscoveryStats",
    "EngineConfig",
    "LearnedModel",
    "LearningInputs",
    "Literal",
    "MemoryStore",
    "OpenTuple",
    "QueryEngine",
    "QueryRecord",
    "RealisabilityReport",
    "SQLiteStore",
    "StoredTrace",
    "SymbolicAgent",
    "check",
    "check_consistency",
    "check_realisability",
    "compare_models",
    "discover",
    "discover_game",
    "fresh_states",
    "game_refine",
    "learn_model",
    "make_agent",
    "query_log",
]
