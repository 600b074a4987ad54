"""xaip inside unified-planning (the ``xaip[up]`` extra).

* :func:`register` adds the engines ``xaip`` (satisficing) and ``xaip-opt`` (optimal) to
  unified-planning's factory, both also plan validators; importing this package calls it,
  so ``import xaip.interop.unified_planning`` is all a script needs (``docs/interop.md``
  shows the ``up.ini`` lines that make unified-planning load them with no code at all).
* :func:`from_up` / :func:`to_up` convert models, :func:`as_up_plan` / :func:`from_up_plan`
  convert plans; every xaip front door takes a unified-planning ``Problem`` directly
  (:mod:`xaip.planning.inputs`).
"""

from __future__ import annotations

from typing import Any

from xaip.interop.unified_planning.convert import UPModel, as_up_plan, from_up, from_up_plan, to_up
from xaip.interop.unified_planning.kind import SUPPORTED_FEATURES, supported_kind

__all__ = ["ENGINES", "SUPPORTED_FEATURES", "UPModel", "as_up_plan", "from_up", "from_up_plan",
           "register", "supported_kind", "to_up"]

#: Factory name -> class name in :mod:`xaip.interop.unified_planning.engine`.
ENGINES = {"xaip": "XaipPlanner", "xaip-opt": "XaipOptimalPlanner"}


def register(environment: Any = None) -> None:
    """Add xaip's engines to ``environment``'s factory (default: unified-planning's global
    environment); a no-op for names already there."""
    from unified_planning.environment import get_environment  # type: ignore[import-untyped]

    factory = (environment or get_environment()).factory
    for name, class_name in ENGINES.items():
        if name not in factory.engines:
            factory.add_engine(name, "xaip.interop.unified_planning.engine", class_name)


register()
