"""Several users' models merged into one annotated model (MA-RADAR, book §10.2.2, §6.2).

Why: one explanation for the whole group needs one model of what the group believes. A
feature every user holds is *known*; a feature some but not all users hold is *possible*
(its probability is the share of users who hold it); a feature no user holds is absent.
Every user's own model is then one completion of the merged model (the known part plus the
possible features that user holds), so an explanation that works in every completion
(conformant, book Def. 30) works for every user. The merged model is an
:class:`xaip.reconcile.annotated.AnnotatedMRP`, the reconciliation family's annotated model,
used through its public API.

Costs and numeric initial values cannot be possible features (a feature has one value per
action); when users disagree on one, there is no merged model and the shared explanation is
unavailable (each user's own explanation is unaffected).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from xaip.multiuser.models import User, updated
from xaip.planning.features import Edit, Feature, model_features
from xaip.planning.features.feature import FUNCTIONAL_KINDS
from xaip.planning.features.sentences import sentence
from xaip.planning.pddl.model import Domain, Problem
from xaip.reconcile.annotated import AnnotatedMRP, Possible
from xaip.reconcile.problem import MRP


@dataclass(frozen=True, order=True)
class MergedFeature:
    """One feature of any model, with who holds it (``robot``: the robot's model does)."""

    feature: Feature
    holders: tuple[str, ...]
    robot: bool

    def to_dict(self) -> dict[str, Any]:
        return {"feature": self.feature.to_dict(), "text": sentence(self.feature),
                "holders": list(self.holders), "robot": self.robot}


@dataclass(frozen=True)
class MergedModel:
    """The users' models as one annotated model.

    ``features`` lists every feature some model holds that not every model (robot included)
    holds, with its holders; ``known`` is what every user holds (as a feature set);
    ``annotated`` the :class:`AnnotatedMRP` (``None`` with ``unavailable`` saying why).
    """

    users: tuple[str, ...]
    features: tuple[MergedFeature, ...]
    known: frozenset[Feature]
    annotated: AnnotatedMRP | None
    unavailable: str = ""

    @property
    def possible(self) -> tuple[MergedFeature, ...]:
        """Features some but not all users hold."""
        return tuple(f for f in self.features if 0 < len(f.holders) < len(self.users))

    def to_dict(self) -> dict[str, Any]:
        return {"users": list(self.users), "features": [f.to_dict() for f in self.features],
                "known_count": len(self.known), "possible_count": len(self.possible),
                "unavailable": self.unavailable or None}


def merge(robot_domain: Domain, robot_problem: Problem, users: Sequence[User],
          mrp: MRP) -> MergedModel:
    """Merge ``users``' models; ``mrp`` carries the robot's side (model, plan, its task)."""
    names = tuple(u.name for u in users)
    held = {u.name: u.features for u in users}
    robot = model_features(robot_domain, robot_problem)
    every = frozenset().union(*held.values(), robot)
    known = frozenset.intersection(*held.values())
    listed = []
    for feature in sorted(every):
        holders = tuple(n for n in names if feature in held[n])
        if len(holders) == len(names) and feature in robot:
            continue  # everyone agrees: nothing to say about it
        listed.append(MergedFeature(feature, holders, feature in robot))
    possible = [m for m in listed if 0 < len(m.holders) < len(names)]
    clash = next((m for m in possible if m.feature.kind in FUNCTIONAL_KINDS), None)
    if clash is not None:
        return MergedModel(names, tuple(listed), known, None,
                           f"the users disagree on {sentence(clash.feature)} (held by "
                           f"{', '.join(clash.holders)}): a value cannot be a possible "
                           "feature")
    first = users[0]
    drop = [Edit(f, "remove") for f in sorted(first.features - known)
            if f.kind not in FUNCTIONAL_KINDS]
    domain, problem = updated(first.domain, first.problem, drop, robot_domain, robot_problem)
    base = replace(mrp, human_domain=domain, human_problem=problem)
    annotations = tuple(Possible(m.feature, len(m.holders) / len(names)) for m in possible)
    return MergedModel(names, tuple(listed), known, AnnotatedMRP(base, annotations))
