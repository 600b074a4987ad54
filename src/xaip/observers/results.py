"""What the observer-aware planners return: frozen, JSON-safe data.

One result type for every single-observer mode (goal legibility, plan legibility,
goal obfuscation, secure goal obfuscation, plan obfuscation, and the score of a given plan)
because they share their payload: a plan, the tokens it emits, the observer's beliefs and
the goals or plans left in its final belief. ``score`` is the mode's own measure, named by
``score_name``:

* ``goals`` (legible-goal, ambiguous, secure-ambiguous, score): |𝒢(b_n)|, the candidate
  goals some state of the final belief satisfies (fewer: more legible);
* ``max_distance`` (legible-plan): the largest distance between two plans of the BPS;
* ``min_distance`` (diverse): the smallest such distance.

English comes from :mod:`xaip.render.observers`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import CheckReport
from xaip.runtime import Status

MODES = ("legible-goal", "legible-plan", "ambiguous", "secure-ambiguous", "diverse", "score")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


@dataclass(frozen=True)
class ObserverResult:
    """A plan chosen (or scored) for an observer who sees only tokens.

    ``plan`` is empty when none was found (``unsolvable``: no plan within the cost bound
    passes the mode's test) or the budget ran out. ``beliefs`` holds the belief sizes
    ``|b_0| .. |b_n|``; ``bps_count`` the exact number of plans the observer cannot tell
    from ``plan``; ``decoy`` (secure obfuscation only) the goal set and decoy true goal the
    randomised algorithm drew with ``seed``. ``cheapest`` is the claim that no plan within
    the bounds that passes the mode's test costs less (made only by the exact search,
    ``heuristic="blind"``; the checker re-proves it by its own exhaustive search).
    """

    status: Status
    mode: str
    plan: tuple[str, ...]
    cost: int | None
    observations: tuple[str, ...]
    goals_in_final_belief: Mapping[str, tuple[str, ...]]
    score: float | None
    score_name: str
    true_goal: str
    goals: tuple[str, ...]
    observer: str
    params: Mapping[str, Any]
    seconds: float
    beliefs: tuple[int, ...] = ()
    bps_count: int | None = None
    bps_listed: tuple[tuple[str, ...], ...] = ()
    distance_min: float | None = None
    distance_max: float | None = None
    delta: int | None = None
    decoy: Mapping[str, Any] | None = None
    message: str = ""
    cheapest: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    verified: bool = False
    check: CheckReport | None = None

    @property
    def found(self) -> bool:
        return bool(self.plan) or (self.status == Status.SOLVED and self.cost == 0)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "verified": self.verified,
            "mode": self.mode,
            "plan": [f"({step})" for step in self.plan],
            "cost": self.cost,
            "cheapest": self.cheapest,
            "observations": list(self.observations),
            "goals_in_final_belief": {k: list(v) for k, v in self.goals_in_final_belief.items()},
            "score": _round(self.score),
            "score_name": self.score_name,
            "true_goal": self.true_goal,
            "goals": list(self.goals),
            "observer": self.observer,
            "params": dict(self.params),
            "beliefs": list(self.beliefs),
            "bps_count": self.bps_count,
            "bps_listed": [[f"({s})" for s in p] for p in self.bps_listed],
            "distance_min": _round(self.distance_min),
            "distance_max": _round(self.distance_max),
            "delta": self.delta,
            "decoy": None if self.decoy is None else dict(self.decoy),
            "message": self.message,
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "check": None if self.check is None else {"ok": self.check.ok,
                                                      "details": self.check.details},
        }
