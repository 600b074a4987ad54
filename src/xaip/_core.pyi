"""Type stub of the optional C extension ``xaip._core`` (sources in src/xaip/_native/)."""

from typing import Any

class Task:
    """A grounded STRIPS task compiled to flat arrays."""

    num_facts: int
    num_actions: int
    num_active: int

    def __init__(self, num_facts: int, num_actions: int, masks: bytes, lengths: bytes,
                 costs: bytes, init: bytes, goal: bytes, goal_neg: bytes,
                 prune: bool = True, axiom_masks: bytes | None = None,
                 axiom_lengths: bytes | None = None, axiom_heads: bytes | None = None,
                 axiom_strata: bytes | None = None, derived: bytes | None = None,
                 effect_actions: bytes | None = None, effect_masks: bytes | None = None,
                 effect_lengths: bytes | None = None) -> None: ...
    def solve(self, mode: str, heuristic: str, admissible: bool, cost_bound: int,
              max_nodes: int, max_seconds: float, max_bytes: int, preferred: bool = False
              ) -> tuple[str, tuple[int, ...], dict[str, Any]]: ...
    def evaluate(self, heuristic: str, state: bytes) -> int | None: ...
    def preferred(self, state: bytes) -> list[int]: ...
    def cuts(self, state: bytes) -> tuple[int | None, list[tuple[tuple[int, ...], int]]]: ...
    def certify(self, state: bytes, cuts: list[tuple[tuple[int, ...], int]],
                dead_end: bool = False) -> tuple[str, int | None]: ...
