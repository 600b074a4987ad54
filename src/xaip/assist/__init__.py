"""Decision support in the manner of RADAR: the person plans, xaip completes, suggests,
validates, explains what breaks and respects the person's vetoes.

Typical use::

    from xaip.assist import Assistant
    helper = Assistant(domain, problem, prefix=steps, vetoes=["put-down"])
    result = helper.complete()          # cheapest completion, its cost, gap to the robot
    result = helper.suggest()           # the next action and why
    result = helper.check(plan_steps)   # first failing step, what breaks, a repair

Every answer is checked by :mod:`xaip.assist.check` (lifted validation, a separate veto
matcher and a separate A* proof with the certified LM-cut); see ``docs/assist.md``.
"""

from __future__ import annotations

from xaip.assist.assistant import Assistant
from xaip.assist.results import AssistResult, Failure

__all__ = ["AssistResult", "Assistant", "Failure"]
