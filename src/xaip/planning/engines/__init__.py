"""Planning engines behind one interface (:class:`Engine`) and one registry.

``get_engine("builtin")`` is xaip's own pure-Python search (always available);
``get_engine("fd")`` is Fast Downward in a separate process (optional, GPL: xaip never
imports its code). A new engine registers itself here with :func:`register_engine`.

Typical use::

    from xaip.planning import get_engine
    engine = get_engine("builtin")
    result = engine.solve(task, optimal=True)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
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


def _fast_downward(**options: Any) -> Engine:
    """The ``fd`` engine, imported when asked for: its module (regular expressions,
    subprocess, temporary files) is start-up cost no other engine needs (issue 26)."""
    from xaip.planning.engines.fd import FastDownwardEngine

    return FastDownwardEngine(**options)


register_engine("builtin", BuiltinEngine,
                "xaip's own A*/UCS/GBFS/EHC/BFS with blind, h_max, h_add, h_FF, LM-cut")
register_engine("compiled", CompiledEngine,
                "the same searches and heuristics in C (xaip._core; built at install time)")
register_engine("fd", _fast_downward,
                "Fast Downward in a separate process (optional: pip install 'xaip[fd]')")
register_engine(DEFAULT_ENGINE, preferred_engine,
                "the compiled engine when xaip._core is built, else builtin (the default)")

#: Fast Downward's names, imported on first use (see :func:`_fast_downward`).
_LAZY = {
    "FDLandmark": "fast_downward",
    "FDLandmarks": "fast_downward",
    "FDRun": "fast_downward",
    "fd_available": "fast_downward",
    "fd_command": "fast_downward",
    "fd_landmarks": "fast_downward",
    "fd_solve": "fast_downward",
    "FastDownwardEngine": "fd",
}


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


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
