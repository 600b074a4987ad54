"""Planning engines behind one interface (:class:`Engine`) and one registry.

``get_engine("builtin")`` is xaip's own pure-Python search (always available);
``get_engine("fd")`` is Fast Downward in a separate process (optional, GPL: xaip never
imports its code). A new engine registers itself here with :func:`register_engine`.

Typical use::

    from xaip.planning import get_engine
    engine = get_engine("builtin")
    result = engine.solve(task, optimal=True)
"""

from xaip.planning.engines.base import (
    DEFAULT_ENGINE,
    Engine,
    describe_engines,
    engine_names,
    get_engine,
    register_engine,
)
from xaip.planning.engines.builtin import BuiltinEngine
from xaip.planning.engines.compiled import CompiledEngine, preferred_engine
from xaip.planning.engines.fast_downward import (
    FDLandmark,
    FDLandmarks,
    FDRun,
    fd_available,
    fd_command,
    fd_landmarks,
    fd_solve,
)
from xaip.planning.engines.fd import FastDownwardEngine

register_engine("builtin", BuiltinEngine,
                "xaip's own A*/UCS/GBFS/EHC/BFS with blind, h_max, h_add, h_FF, LM-cut")
register_engine("compiled", CompiledEngine,
                "the same searches and heuristics in C (xaip._core; built at install time)")
register_engine("fd", FastDownwardEngine,
                "Fast Downward in a separate process (optional: pip install 'xaip[fd]')")
register_engine(DEFAULT_ENGINE, preferred_engine,
                "the compiled engine when xaip._core is built, else builtin (the default)")

__all__ = [
    "DEFAULT_ENGINE",
    "BuiltinEngine",
    "CompiledEngine",
    "Engine",
    "FDLandmark",
    "FDLandmarks",
    "FDRun",
    "FastDownwardEngine",
    "describe_engines",
    "engine_names",
    "fd_available",
    "fd_command",
    "fd_landmarks",
    "fd_solve",
    "get_engine",
    "register_engine",
]
