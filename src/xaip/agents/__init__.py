"""Black-box agents and the simulators they act in.

- :mod:`xaip.agents.simulator` — the :class:`Simulator` protocol (pure ``step``, hashable
  states) and helpers (``successors``, ``execute``, ``random_walk``).
- :mod:`xaip.agents.agents` — :class:`SearchAgent` (A*/BFS), :class:`PolicyAgent` (follows a
  fixed goal-conditioned policy, e.g. :func:`greedy_policy`), and the :class:`Attempt` they
  return for every query or task.
- :mod:`xaip.agents.gym` — :class:`GymSimulator`, an adapter for Gymnasium-style
  environments with a state setter.
- :mod:`xaip.agents.envs` — the paper's four games.
- :mod:`xaip.agents.png` — a dependency-free PNG writer for a simulator's raw frames.
- :mod:`xaip.agents.pictures` — pictures of game states people read (objects named,
  numbered rows and columns, a legend), drawn through :mod:`xaip.figures`.
"""

from __future__ import annotations

from xaip.agents.agents import (
    Agent,
    AgentTask,
    AnyOf,
    Attempt,
    SearchAgent,
    astar,
    bfs,
    representative,
)
from xaip.agents.gym import GymSimulator, GymState
from xaip.agents.policy import PolicyAgent, greedy_policy
from xaip.agents.simulator import (
    HasDistanceBound,
    HasSuccessors,
    Simulator,
    execute,
    random_walk,
    successors,
)

__all__ = [
    "Agent",
    "AgentTask",
    "AnyOf",
    "Attempt",
    "GymSimulator",
    "GymState",
    "HasDistanceBound",
    "HasSuccessors",
    "PolicyAgent",
    "SearchAgent",
    "Simulator",
    "astar",
    "bfs",
    "execute",
    "greedy_policy",
    "random_walk",
    "representative",
    "successors",
]
