"""The result of a model-free explanation (plain data; text comes from
:mod:`xaip.render.modelfree`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import CheckReport
from xaip.modelfree.data import Message
from xaip.modelfree.labeller import Accuracy
from xaip.planning.semantics import STEP_NUMBERING, step_number
from xaip.runtime import Status


@dataclass(frozen=True)
class ModelFreeExplanation:
    """The cheapest (``method == "exact"``) or an irredundant (``"greedy"``) message set
    after which the learned labeller labels every step of ``plan`` explicable.

    ``cheapest`` is claimed only for the exact method; ``lower_bound`` is a cost below which
    every message set was shown to fail (the optimum lies between it and ``cost``).
    ``before``/``after`` are each step's P(explicable) without messages and with the chosen
    ones; ``accuracy`` is the labeller's report on held-out labelled plans. ``exhaustive``
    says a ``no_explanation`` answer examined every message set."""

    status: Status
    plan: tuple[str, ...]
    messages: tuple[Message, ...]
    chosen: tuple[Message, ...]
    cost: float | None
    method: str
    cheapest: bool
    lower_bound: float | None
    exhaustive: bool
    before: tuple[float, ...]
    after: tuple[float, ...]
    threshold: float
    accuracy: Accuracy
    seconds: float
    stats: Mapping[str, int | float] = field(default_factory=dict)
    verified: bool = False
    check: CheckReport | None = None

    def to_dict(self) -> dict[str, Any]:
        steps = [{"step": step_number(i), "action": f"({name})",
                  "p_explicable_before": round(self.before[i], 6) if self.before else None,
                  "p_explicable_after": round(self.after[i], 6) if self.after else None}
                 for i, name in enumerate(self.plan)]
        return {"status": str(self.status), "verified": self.verified,
                "messages": [m.to_dict() for m in self.chosen], "cost": self.cost,
                "method": self.method, "cheapest": self.cheapest,
                "lower_bound": self.lower_bound, "exhaustive": self.exhaustive,
                "available_messages": [m.to_dict() for m in self.messages],
                "threshold": self.threshold, "steps": steps, **STEP_NUMBERING,
                "labeller": {"model": "logistic regression (scikit-learn)",
                             "shared_with_checker": True, **self.accuracy.to_dict()},
                "seconds": round(self.seconds, 6), "stats": dict(self.stats),
                "check": None if self.check is None else self.check.to_dict()}
