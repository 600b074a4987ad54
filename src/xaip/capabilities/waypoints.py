"""A query as data: waypoints from a concrete start state, each a capability step the
agent is asked to reach, and what a failed step records.

Why apart from the engine: generation builds these, posing walks them, and the look-ahead
batches their first steps; none of that needs the engine's caches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xaip.capabilities.pal import CapState, refute
from xaip.capabilities.traces import Abstractor, AbstractState


@dataclass
class Step:
    """One waypoint pair: apply ``cap`` with ``binding`` in ``before`` to reach ``target``;
    ``alternative`` is the second predicted outcome of an effect test."""

    cap: CapState
    binding: dict[str, str]
    before: AbstractState
    target: AbstractState
    alternative: AbstractState | None = None


@dataclass
class Failure:
    """A failed step, to be recorded as a clause (``effects=False``: both predicted
    outcomes of an effect were unreachable, so only preconditions can explain it)."""

    step: Step
    effects: bool

    def record(self) -> bool:
        s = self.step
        return refute(s.cap, s.binding, s.before, s.target, effects=self.effects)


@dataclass
class Query:
    """A query ⟨s0, π⟩ as waypoints from a concrete start state. ``attributable`` is false
    when the start violates soft requirements (then only a success is worth confirming)."""

    start: Any
    steps: list[Step]
    attributable: bool = True


class AbstractGoal:
    """A goal given as an abstract state (when no refinement function is available)."""

    def __init__(self, target: AbstractState, abstractor: Abstractor) -> None:
        self.target = target
        self.abstractor = abstractor

    def __call__(self, state: Any) -> bool:
        return self.abstractor.fluent(state) == self.target

    def __repr__(self) -> str:
        return "abstract:" + " ".join(sorted(str(a) for a in self.target))

