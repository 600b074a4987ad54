"""The searches: the smallest edit set the privacy map allows, per user and for the group.

Why one ordering for both: an explanation may only use edits the map allows, and when none
does, the user should learn *which* forbidden feature stands in the way. Edit sets are
therefore examined by (number of forbidden edits, size): every allowed-only set comes
before any set with a forbidden edit, so the first set that explains is the smallest
allowed explanation, or -- when the allowed sets are exhausted -- one with the fewest
forbidden edits, which proves that no allowed set explains and names what is needed.

The per-user goal test is "the plan is valid and optimal in the user's model updated by
the edits" (:class:`~xaip.multiuser.models.PlanTest`). The group's is conformance (book
Def. 30) in the merged annotated model: by Prop. 7 (the plan valid in the least relaxed
completion and optimal in the most relaxed one) when no model has negative preconditions,
else in every completion.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from xaip.errors import BudgetExhausted
from xaip.multiuser.models import PlanTest
from xaip.planning.features import FeatureKind, model_features
from xaip.planning.pddl.model import Domain, Problem
from xaip.reconcile.annotated import RELAXING_KINDS, AnnotatedMRP, completions, settle
from xaip.reconcile.results import LabelledEdit
from xaip.runtime import BudgetClock, Progress, report

T = TypeVar("T")


@dataclass(frozen=True)
class Outcome:
    """What a search established: ``found`` the first explaining set (``None``: none at
    all, or the budget ran out -- then ``exhausted``), ``nodes`` sets examined."""

    found: tuple[int, ...] | None
    nodes: int
    exhausted: bool = False


def cheapest(candidates: Sequence[T], forbidden: Sequence[bool],
             explains: Callable[[tuple[int, ...]], bool], clock: BudgetClock,
             progress: Progress | None = None, phase: str = "edit sets",
             required: frozenset[int] = frozenset()) -> Outcome:
    """The first subset (indices, sorted) by (forbidden edits, size) for which ``explains``
    holds; only subsets holding every ``required`` index are tried (:mod:`.forced`: no
    other subset explains). Charges one node of ``clock`` per subset."""
    free = [i for i in range(len(candidates)) if i not in required]
    allowed = [i for i in free if not forbidden[i]]
    denied = [i for i in free if forbidden[i]]
    always = tuple(sorted(required))
    nodes = 0
    try:
        for bad in range(len(denied) + 1):
            for good in range(len(allowed) + 1):
                for denied_part in itertools.combinations(denied, bad):
                    for allowed_part in itertools.combinations(allowed, good):
                        if not clock.charge() or clock.out_of_time():
                            return Outcome(None, nodes, exhausted=True)
                        nodes += 1
                        report(progress, phase, nodes,
                               message=f"{bad} withheld + {good} allowed edits besides "
                                       f"{len(always)} needed")
                        subset = tuple(sorted(always + allowed_part + denied_part))
                        if explains(subset):
                            return Outcome(subset, nodes)
    except BudgetExhausted:
        return Outcome(None, nodes, exhausted=True)
    return Outcome(None, nodes)


def group_candidates(amrp: AnnotatedMRP) -> tuple[LabelledEdit, ...]:
    """The edits of a shared explanation, with the book's labels: ``add-known`` /
    ``remove-known`` for what every user believes alike, ``add-annot`` / ``remove-annot``
    settling a feature the users disagree on toward the robot's truth."""
    from xaip.planning.features import Edit, model_diff

    mrp = amrp.mrp
    robot = model_features(mrp.robot_domain, mrp.robot_problem)
    possible = {p.feature for p in amrp.possible}
    diff = model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                      mrp.robot_problem)
    known = [LabelledEdit(e, f"{e.op}-known") for e in diff.edits()
             if e.feature not in possible]
    annot = [LabelledEdit(Edit(f, "add"), "add-annot") if f in robot
             else LabelledEdit(Edit(f, "remove"), "remove-annot") for f in sorted(possible)]
    return tuple(sorted(known + annot))


class GroupTest:
    """Is the plan optimal in every completion of the merged model updated by told edits?"""

    def __init__(self, amrp: AnnotatedMRP, test: PlanTest) -> None:
        self.amrp = amrp
        self.test = test
        mrp = amrp.mrp
        self.prop7 = not any(
            f.kind is FeatureKind.NEGATIVE_PRECONDITION
            for d, p in ((mrp.robot_domain, mrp.robot_problem),
                         (mrp.human_domain, mrp.human_problem))
            for f in model_features(d, p)) and not any(
            p.feature.kind is FeatureKind.NEGATIVE_PRECONDITION for p in amrp.possible)

    def low(self, told: Sequence[LabelledEdit]) -> tuple[Domain, Problem]:
        """The least relaxed completion after ``told``: every open condition that can only
        break plans realised."""
        edits, open_ = settle(self.amrp.possible, told, ())
        model = self.amrp.completion(
            edits, [p.feature for p in open_ if p.feature.kind not in RELAXING_KINDS])
        return model.human_domain, model.human_problem

    def high(self, told: Sequence[LabelledEdit]) -> tuple[Domain, Problem]:
        """The most relaxed completion after ``told``: every open add and initial fact."""
        edits, open_ = settle(self.amrp.possible, told, ())
        model = self.amrp.completion(
            edits, [p.feature for p in open_ if p.feature.kind in RELAXING_KINDS])
        return model.human_domain, model.human_problem

    def __call__(self, told: Sequence[LabelledEdit]) -> bool:
        if self.prop7:
            cost = self.test.plan_cost(*self.low(told))
            return cost is not None and self.test.none_cheaper(*self.high(told), cost)
        edits, open_ = settle(self.amrp.possible, told, ())
        for realised, _ in completions(open_):
            model = self.amrp.completion(edits, realised)
            if not self.test.explains(model.human_domain, model.human_problem):
                return False
        return True
