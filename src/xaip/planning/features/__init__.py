"""A planning model as a set of atomic, communicable features (Γ(M)), and edits of it.

This is the state space of model reconciliation: a model is a ``frozenset`` of
:class:`Feature` (lifted, on a PDDL domain and problem, or grounded, on a
:class:`~xaip.planning.task.Task`); two models differ by a :class:`ModelDiff`; an
explanation is a set of :class:`Edit` that :func:`apply_edits` (lifted) or
:func:`apply_task_edits` (grounded) turns into an updated model; :func:`sentence` says a
feature in English.

Only the STRIPS-like parts of a model are features (see :mod:`.extract`); the rest is an
opaque remainder that edits keep as it is and that :func:`model_diff` reports as
structural differences.
"""

from xaip.planning.features.apply import apply_edits
from xaip.planning.features.diff import (
    ModelDiff,
    StructuralDifference,
    ValueChange,
    diff,
    model_diff,
)
from xaip.planning.features.extract import (
    action_features,
    domain_features,
    model_features,
    problem_features,
)
from xaip.planning.features.feature import (
    Edit,
    Feature,
    FeatureKind,
    add,
    remove,
    update_features,
)
from xaip.planning.features.grounded import apply_task_edits, task_diff, task_features
from xaip.planning.features.sentences import sentence
from xaip.planning.features.vocabulary import Mismatch

__all__ = [
    "Edit",
    "Feature",
    "FeatureKind",
    "Mismatch",
    "ModelDiff",
    "StructuralDifference",
    "ValueChange",
    "action_features",
    "add",
    "apply_edits",
    "apply_task_edits",
    "diff",
    "domain_features",
    "model_diff",
    "model_features",
    "problem_features",
    "remove",
    "sentence",
    "task_diff",
    "task_features",
    "update_features",
]
