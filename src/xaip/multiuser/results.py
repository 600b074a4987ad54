"""What :func:`xaip.multiuser.explain_to_users` returns: plain frozen data
(:mod:`xaip.contract`); :mod:`xaip.render.multiuser` words it.

Statuses: a user's explanation is ``found`` (an edit set the privacy map allows explains
the plan; possibly empty), ``no_explanation`` (proved: no allowed edit set explains it;
``needed`` names forbidden edits that would, within ``explanation_with_needed``) or
``budget_exhausted``. The shared explanation has the same three, plus ``unavailable`` when
the users' models cannot be merged (``reason`` says why). The whole result is
``found`` when every user has an explanation, ``no_explanation`` when some user cannot be
given one, ``budget_exhausted`` when any search ran out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import CheckReport
from xaip.multiuser.merge import MergedModel
from xaip.planning.features import Edit
from xaip.planning.features.sentences import sentence
from xaip.planning.semantics import STEP_NUMBERING
from xaip.reconcile.results import LabelledEdit
from xaip.runtime import Status

#: The shared explanation's status when the users' models cannot be merged.
UNAVAILABLE = "unavailable"


def edit_dict(edit: Edit, why_not: str | None = None) -> dict[str, Any]:
    out = {"op": edit.op, "feature": edit.feature.to_dict(),
           "text": sentence(edit.feature, negated=edit.op == "remove")}
    if why_not is not None:
        out["withheld_because"] = why_not
    return out


@dataclass(frozen=True)
class UserExplanation:
    """The explanation for one user (see the module docstring for ``status``).

    ``differences`` counts the edits between the user's model and the robot's and
    ``withheld`` those the map does not let this user hear; ``plan_cost_before`` is the
    plan's cost in the user's own model (``None``: invalid there).
    """

    user: str
    status: Status
    edits: tuple[Edit, ...] = ()
    needed: tuple[tuple[Edit, str], ...] = ()
    explanation_with_needed: tuple[Edit, ...] = ()
    differences: int = 0
    withheld: int = 0
    plan_cost_before: int | None = None
    nodes: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "user": self.user, "status": str(self.status),
            "edits": [edit_dict(e) for e in self.edits], "size": len(self.edits),
            "differences": self.differences, "withheld": self.withheld,
            "plan_cost_before": self.plan_cost_before, "nodes": self.nodes}
        if self.needed:
            out["needed"] = [edit_dict(e, why) for e, why in self.needed]
            out["explanation_with_needed"] = [edit_dict(e) for e in
                                              self.explanation_with_needed]
        return out


@dataclass(frozen=True)
class SharedExplanation:
    """The conformant explanation for the whole group (book §6.2 on the merged model).

    ``edits`` carry the book's labels; ``for_user`` is each user's filtered view (book
    §10.2.2): the edits that are news to that user (not redundant for their model).
    ``needed`` (status ``no_explanation``): edits some user may not hear, with who, that a
    conformant explanation would need.
    """

    status: str
    edits: tuple[LabelledEdit, ...] = ()
    for_user: Mapping[str, tuple[Edit, ...]] = field(default_factory=dict)
    needed: tuple[tuple[LabelledEdit, str], ...] = ()
    explanation_with_needed: tuple[LabelledEdit, ...] = ()
    reason: str = ""
    nodes: int = 0
    completions: int = 0

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "status": self.status, "edits": [e.to_dict() for e in self.edits],
            "size": len(self.edits),
            "for_user": {u: [edit_dict(e) for e in es] for u, es in self.for_user.items()},
            "completions": self.completions, "nodes": self.nodes}
        if self.reason:
            out["reason"] = self.reason
        if self.needed:
            out["needed"] = [{**e.to_dict(), "withheld_because": why}
                             for e, why in self.needed]
            out["explanation_with_needed"] = [e.to_dict() for e in
                                              self.explanation_with_needed]
        return out


@dataclass(frozen=True)
class MultiUserResult:
    """Per-user explanations of the robot's plan, and the group's shared one."""

    status: Status
    plan: tuple[str, ...]
    plan_cost: int
    users: tuple[UserExplanation, ...]
    shared: SharedExplanation | None
    merged: MergedModel | None = field(default=None, compare=False)
    privacy: Mapping[str, Any] | None = None
    verified: bool = False
    seconds: float = 0.0
    stats: Mapping[str, Any] = field(default_factory=dict)
    check: CheckReport | None = None

    def user(self, name: str) -> UserExplanation:
        return next(u for u in self.users if u.user == name)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status), "verified": self.verified,
            "plan": [{"step": n, "action": f"({a})"} for n, a in enumerate(self.plan, 1)],
            "plan_cost": self.plan_cost, **STEP_NUMBERING,
            "users": [u.to_dict() for u in self.users],
            "shared": None if self.shared is None else self.shared.to_dict(),
            "merged": None if self.merged is None else self.merged.to_dict(),
            "privacy": None if self.privacy is None else dict(self.privacy),
            "seconds": round(self.seconds, 4), "stats": dict(self.stats),
            "check": None if self.check is None else self.check.to_dict()}
