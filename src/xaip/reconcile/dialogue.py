"""Decision support with vetoes (book ch. 10, RADAR): the person can reject an explanation.

The robot explains its plan; the person may answer "that is wrong" about one of the
edits ("the fire chief need not be alerted before deploying big engines"). Then the
*robot's* model was wrong: it is updated to agree with the person on that feature, the
plan is recomputed optimally in the corrected model, and a new explanation follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xaip.errors import InputError
from xaip.planning.features import Edit
from xaip.planning.features.apply import apply_edits
from xaip.reconcile.explain import Explainer, Explanation, edit_text
from xaip.reconcile.problem import MRP, make_mrp
from xaip.runtime import Budget


@dataclass(frozen=True)
class Round:
    """One exchange: the explanation given, and the edit the person vetoed (if any)."""

    explanation: Explanation
    vetoed: Edit | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "explanation": self.explanation.to_dict(),
            "vetoed": None if self.vetoed is None else edit_text(self.vetoed),
        }


@dataclass
class DecisionSupport:
    """A running dialogue; :meth:`veto` corrects the robot's model and re-explains."""

    mrp: MRP
    kind: str = "mce"
    budget: Budget | None = None
    rounds: list[Round] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rounds.append(Round(self._explain(self.mrp)))

    @property
    def current(self) -> Explanation:
        return self.rounds[-1].explanation

    def _explain(self, mrp: MRP) -> Explanation:
        return Explainer(mrp, budget=self.budget).explain(self.kind)

    def veto(self, edit: Edit | int) -> Explanation:
        """Reject one edit of the current explanation (an :class:`Edit` or its 0-based index)."""
        edits = self.current.edits
        if isinstance(edit, int):
            if not 0 <= edit < len(edits):
                raise InputError(f"there is no edit {edit + 1}; the explanation has "
                                 f"{len(edits)}")
            edit = edits[edit]
        if edit not in edits:
            raise InputError(f"'{edit_text(edit)}' is not part of the current explanation")
        # The robot adopts the person's view of this feature: the reverse edit.
        reverse = Edit(edit.feature, "remove" if edit.op == "add" else "add")
        domain, problem = apply_edits(
            self.mrp.robot_domain, self.mrp.robot_problem, [reverse],
            source_domain=self.mrp.human_domain, source_problem=self.mrp.human_problem)
        assert problem is not None
        self.mrp = make_mrp(domain, problem, self.mrp.human_domain, self.mrp.human_problem,
                            budget=self.budget)
        self.rounds[-1] = Round(self.rounds[-1].explanation, edit)
        self.rounds.append(Round(self._explain(self.mrp)))
        return self.current

    def to_dict(self) -> dict[str, Any]:
        return {"rounds": [r.to_dict() for r in self.rounds]}

    def describe(self) -> str:
        parts = []
        for number, round_ in enumerate(self.rounds, start=1):
            parts.append(f"Round {number}:\n{round_.explanation.describe()}")
            if round_.vetoed is not None:
                parts.append(f"The person vetoes: {edit_text(round_.vetoed)}. The robot "
                             "corrects its model and replans.")
        return "\n\n".join(parts)
