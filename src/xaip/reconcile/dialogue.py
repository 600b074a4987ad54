"""Decision support with vetoes (book ch. 10, RADAR): the person can reject an explanation.

The robot explains its plan; the person may answer "that is wrong" about one of the
edits ("the fire chief need not be alerted before deploying big engines"). Then the
*robot's* model was wrong: it is updated to agree with the person on that feature, the
plan is recomputed optimally in the corrected model, and a new explanation follows.

Budgets: ``max_nodes`` bounds every search of every round; ``max_seconds`` the whole
dialogue. A round that runs out of budget ends the dialogue: vetoes after it are not
applied, and the result says so (``status`` budget_exhausted, never verified).

A veto after which the robot's corrected model has no plan at all is a negative answer,
not bad input: the dialogue keeps every round accepted so far, records the veto, and ends
with status ``unsolvable`` (the CLI exits 1); the checker confirms that the corrected model
has no plan.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import with_check
from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.features import Edit
from xaip.planning.features.apply import apply_edits
from xaip.reconcile.checks import check
from xaip.reconcile.explain import Explainer, edit_text
from xaip.reconcile.problem import MRP, BudgetExhausted, make_mrp
from xaip.reconcile.results import Dialogue, Explanation, Round
from xaip.runtime import Budget, Status

__all__ = ["DecisionSupport", "Dialogue", "Round", "decision_support"]


@dataclass
class DecisionSupport:
    """A running dialogue; :meth:`veto` corrects the robot's model and re-explains."""

    mrp: MRP
    kind: str = "mce"
    budget: Budget | None = None
    engine: str = DEFAULT_ENGINE
    rounds: list[Round] = field(default_factory=list)
    stopped: str = ""  # why the dialogue could not go on (a round ran out of budget)
    no_plan: bool = False  # the last veto left the robot without a plan

    def __post_init__(self) -> None:
        self._started = time.perf_counter()
        self.rounds.append(Round(self._explain(self.mrp)))

    @property
    def current(self) -> Explanation:
        return self.rounds[-1].explanation

    @property
    def finished(self) -> bool:
        return (not self.stopped or self.no_plan) and self.current.status.finished

    def _left(self) -> Budget | None:
        if self.budget is None or self.budget.max_seconds is None:
            return self.budget
        used = time.perf_counter() - self._started
        return Budget(self.budget.max_nodes, max(0.0, self.budget.max_seconds - used))

    def _explain(self, mrp: MRP) -> Explanation:
        return Explainer(mrp, budget=self._left(), engine=self.engine).explain(self.kind)

    def veto(self, edit: Edit | int) -> Explanation:
        """Reject one edit of the current explanation (an :class:`Edit` or its 0-based index).

        Does nothing once the dialogue has run out of budget (see :attr:`stopped`).
        """
        if self.no_plan:
            raise InputError("the robot has no plan left to explain: no further veto")
        if not self.finished:
            self.stopped = self.stopped or "a round ran out of budget before the veto"
            return self.current
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
        try:
            mrp = make_mrp(domain, problem, self.mrp.human_domain, self.mrp.human_problem,
                           budget=self._left(), engine=self.engine)
        except BudgetExhausted as error:
            self.stopped = str(error)
            return self.current
        except InputError:
            if has_plan(domain, problem, self._left(), self.engine) is not False:
                raise
            self.rounds[-1] = Round(self.rounds[-1].explanation, edit)
            self.no_plan = True
            self.stopped = (f"the veto of '{edit_text(edit)}' leaves the robot with no plan "
                            "in its corrected model")
            return self.current
        self.mrp = mrp
        self.rounds[-1] = Round(self.rounds[-1].explanation, edit)
        self.rounds.append(Round(self._explain(self.mrp)))
        return self.current

    def result(self) -> Dialogue:
        """The dialogue so far as a frozen result (status and verified of the last round)."""
        status = Status.BUDGET_EXHAUSTED if not self.finished else (
            Status.UNSOLVABLE if self.no_plan else self.current.status)
        dialogue = Dialogue(rounds=tuple(self.rounds), status=status,
                            seconds=time.perf_counter() - self._started,
                            stats={"rounds": len(self.rounds)}, stopped=self.stopped)
        return with_check(dialogue, check(self.mrp, dialogue))


def has_plan(domain: Any, problem: Any, budget: Budget | None, engine: str) -> bool | None:
    """Does the model have a plan at all? (``None``: the budget ran out.)"""
    from xaip.planning.engines import get_engine
    from xaip.planning.grounding import ground

    result = get_engine(engine).solve(ground(domain, problem, budget=budget), optimal=False,
                                      budget=budget)
    if result.status == "budget_exhausted":
        return None
    return result.status == "solved"


def decision_support(mrp: MRP, vetoes: Sequence[int | Edit], kind: str = "mce",
                     budget: Budget | None = None, engine: str = DEFAULT_ENGINE) -> Dialogue:
    """Explain, apply the person's vetoes in turn (0-based edit numbers or edits), and
    return the whole dialogue."""
    dialogue = DecisionSupport(mrp, kind, budget, engine)
    for veto in vetoes:
        dialogue.veto(veto)
    return dialogue.result()
