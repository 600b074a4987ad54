"""Why a task has no plan (book ch. 10, D3WA+; issue 24 item 4, feature A05).

``explain_unsolvable(domain, problem, trace=None)`` decides whether the task has a plan and,
when it has none, returns a minimum unsolvable core of the goal (the fewest goal facts that
already have no plan, first in goal order), the landmark of that core that nothing reachable
achieves, and where the person's attempted plan fails; :func:`check` confirms all of it by a
separate search on a fresh grounding. ``xaip unsolvable DOMAIN PROBLEM [--trace PLAN]`` is
the command; ``docs/unsolvable.md`` the guide.
"""

from xaip.unsolvable.check import check
from xaip.unsolvable.explain import explain_unsolvable
from xaip.unsolvable.results import TraceFailure, UnsolvableResult

__all__ = ["TraceFailure", "UnsolvableResult", "check", "explain_unsolvable"]
