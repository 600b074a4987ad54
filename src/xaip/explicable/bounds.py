"""The explicable checkers' lower bound on a state's goal distance: the *certified* LM-cut.

Why: the checkers list the plans within a cost bound from exact goal distances
(:func:`xaip.explicable.exact.goal_distances`), which first sweep forwards over the states
a plan within the bound can pass through. Without a bound on the cost still to come that
sweep is every state of cost ``<= bound`` from the start: on the RADAR firefighting task
from the middle of the operation (bound 12) 918,000 states and 59 million transitions,
over four minutes, where the plans within the bound number 112. With ``g(s) + h(s) >
bound`` pruned for an admissible ``h`` it is 11,087 states, and the distances stay exact
(every state on a plan within the bound has ``g + h* <= bound``, and ``h <= h*``).

Which ``h``: LM-cut as an **untrusted oracle**. The compiled core's LM-cut
(``src/xaip/_native/lmcut.c``, not the pure-Python LM-cut the explicable planner's plan
enumeration uses) hands over its cuts, sets of actions each charged a cost; the core's
certificate checker (``src/xaip/_native/certify.c``, which shares no code with LM-cut)
counts their sum only if every cut is a landmark of the delete relaxation from the state
and no action is charged more than its cost; a state whose certificate fails gets h^max
(:data:`xaip.planning.engines.compiled.CERTIFIED_LMCUT`, the reconciliation checker's
heuristic too). The value is admissible whatever LM-cut computes, so a fault in LM-cut can
make a check slower, never wrong. Without the compiled core the bound is 0 (no pruning,
the sweep of every state within the bound as before).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xaip.planning.task import State, Task

INF = math.inf

#: ``h(state)``: a lower bound on the cost from ``state`` to a goal state (``inf``: none).
LowerBound = Callable[[State], float]


def zero(state: State) -> float:
    """No information: every state may still reach the goal at no cost."""
    return 0.0


def certified_bound(task: Task) -> LowerBound:
    """The certified LM-cut of ``task`` as a cached function of the state, or :func:`zero`
    when the compiled core is absent or cannot run ``task``."""
    from xaip.planning.engines.compiled import (
        CERTIFIED_LMCUT,
        MAX_COST,
        core_available,
        evaluate,
    )

    if not core_available() or any(a.cost > MAX_COST or a.cost < 0 for a in task.actions):
        return zero
    cache: dict[State, float] = {}

    def bound(state: State) -> float:
        value = cache.get(state)
        if value is None:
            value = cache[state] = evaluate(task, CERTIFIED_LMCUT, state)
        return value

    return bound
