"""Capability discovery for black-box agents (Verma, Marpally & Srivastava, KR 2022) and
query-based action-model learning (the AIA setting, AAAI 2021).

- :func:`discover` — Algorithm 1 for any simulator, agent and vocabulary;
  :func:`discover_game` for the four bundled games. Returns a :class:`DiscoveryResult`
  holding a :class:`CapabilityModel` and the run's statistics.
- :mod:`~xaip.capabilities.traces` (line 1), :mod:`~xaip.capabilities.candidates`
  (line 2), :mod:`~xaip.capabilities.lifting` (lines 3-4), :mod:`~xaip.capabilities.queries`
  (lines 5-15) — the steps of Algorithm 1.
- :mod:`~xaip.capabilities.checks` — independent checks: consistency with every trace
  (Def. 5) and realisability by simulator search (Def. 7).
- :mod:`~xaip.capabilities.cards` — English capability cards, PDDL, pictures.
- :mod:`~xaip.capabilities.store` — the SQLite store that makes runs resumable.
- :mod:`~xaip.capabilities.symbolic` — :class:`SymbolicAgent` hiding a PDDL model and
  :func:`learn_model`, which learns it from plan-outcome queries.

Example::

    from xaip.capabilities import discover_game
    from xaip.capabilities.cards import model_text

    result, game = discover_game("zelda", 4, 5, seed=0)
    print(model_text(result.model))
    print(result.stats.queries, result.stats.seconds_per_query)
"""

from xaip.capabilities.checks import (
    ConsistencyReport,
    RealisabilityReport,
    check_consistency,
    check_realisability,
    fresh_states,
)
from xaip.capabilities.discovery import (
    DiscoveryConfig,
    DiscoveryResult,
    discover,
    discover_game,
    game_refine,
    make_agent,
)
from xaip.capabilities.model import (
    Capability,
    CapabilityModel,
    DiscoveryStats,
    Literal,
    OpenTuple,
    QueryRecord,
)
from xaip.capabilities.queries import EngineConfig
from xaip.capabilities.store import SQLiteStore
from xaip.capabilities.symbolic import (
    LearnedModel,
    SymbolicAgent,
    compare_models,
    learn_model,
)

__all__ = [
    "Capability",
    "CapabilityModel",
    "ConsistencyReport",
    "DiscoveryConfig",
    "DiscoveryResult",
    "DiscoveryStats",
    "EngineConfig",
    "LearnedModel",
    "Literal",
    "OpenTuple",
    "QueryRecord",
    "RealisabilityReport",
    "SQLiteStore",
    "SymbolicAgent",
    "check_consistency",
    "check_realisability",
    "compare_models",
    "discover",
    "discover_game",
    "fresh_states",
    "game_refine",
    "learn_model",
    "make_agent",
]
