"""Budgets while grounding: the clock, a size cap, and how far grounding got.

Why a module of its own: the checks sit in several nested loops of grounding (the join,
quantifier expansion, DNF products, assembly); each must stop with the same clear answer,
:class:`~xaip.errors.BudgetExhausted` saying how large the task was getting.
"""

from __future__ import annotations

from xaip.errors import BudgetExhausted
from xaip.runtime.budget import BudgetClock

#: Default memory budget: ground actions plus conditional effects (a ground action costs
#: roughly a kilobyte in Python, so this is a few gigabytes at most).
MAX_GROUND_SIZE = 2_000_000


class GroundingGuard:
    """The budget while grounding: the clock, the size cap and how far grounding got.

    Why one object: the checks sit in several nested loops (join, quantifiers, DNF
    products, assembly); each needs to say how large the task was getting when it stops.
    """

    __slots__ = ("clock", "max_size", "actions", "facts", "effects")

    def __init__(self, clock: BudgetClock | None, max_size: int) -> None:
        self.clock = clock if clock is not None and clock.budget.max_seconds is not None \
            else None
        self.max_size = max_size
        self.actions = 0
        self.facts = 0
        self.effects = 0

    def sizes(self) -> dict[str, int]:
        return {"actions": self.actions, "facts": self.facts,
                "conditional_effects": self.effects}

    def _so_far(self) -> str:
        text = f"{self.actions} actions / {self.facts} facts"
        if self.effects:
            text += f" / {self.effects} conditional effects"
        return text + " so far"

    def tick(self) -> None:
        """Raise :class:`BudgetExhausted` once the deadline has passed."""
        if self.clock is not None and not self.clock.tick():
            raise BudgetExhausted(
                f"budget exhausted while grounding: {self._so_far()}",
                phase="grounding", sizes=self.sizes())

    def grow(self, size: int) -> None:
        """Raise :class:`BudgetExhausted` when ``size`` more items would pass the cap."""
        if self.actions + self.effects + size > self.max_size:
            raise BudgetExhausted(
                f"grounding stopped: the task would exceed {self.max_size} ground actions "
                f"and conditional effects ({self._so_far()})",
                phase="grounding", sizes=self.sizes())


UNGUARDED = GroundingGuard(None, 1 << 62)
