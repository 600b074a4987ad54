"""Gymnasium environments for xaip's black-box explainers: one adapter, its conformance
check, and vocabulary files of concepts over stock environments.

- :mod:`xaip.gymnasium.adapter` -- :class:`GymAdapter` (reset, step, restore) and
  :class:`GymState`, shared by discovery (:class:`xaip.agents.gym.GymSimulator`) and
  why-not (:class:`xaip.concepts.gym.GymBlackBox`);
- :mod:`xaip.gymnasium.restore` -- the restore strategies (the environment's own clone,
  toy-text state, ALE snapshots, checked replay);
- :mod:`xaip.gymnasium.conformance` -- :func:`check_env`, can xaip use this environment?
- :mod:`xaip.gymnasium.features` and :mod:`xaip.gymnasium.vocabulary` -- environment files
  (JSON): which environment, and concepts as conditions on named features.

See ``docs/gymnasium.md``.
"""

from xaip.gymnasium.adapter import GymAdapter, GymState, Transition, state_key
from xaip.gymnasium.conformance import ConformanceReport, check_env

__all__ = ["ConformanceReport", "GymAdapter", "GymState", "Transition", "check_env",
           "state_key"]
