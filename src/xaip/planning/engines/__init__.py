"""Optional external planning engines, each run as a separate process.

Why a process boundary: the fast external planners are GPL-licensed and xaip is MIT, so
xaip never imports their code; it writes PDDL text, launches the planner's own command
and reads its output. The built-in engine (:mod:`xaip.planning.planner`) needs none of
them; these engines are for larger tasks and for cross-checking our own results.
"""

from xaip.planning.engines.fast_downward import (
    FDLandmark,
    FDLandmarks,
    FDResult,
    fd_available,
    fd_command,
    fd_landmarks,
    fd_solve,
)

__all__ = [
    "FDLandmark",
    "FDLandmarks",
    "FDResult",
    "fd_available",
    "fd_command",
    "fd_landmarks",
    "fd_solve",
]
