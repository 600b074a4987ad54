"""Diffing two models: features only in A, only in B, changed values, and what features miss.

``Γ(M_A) Δ Γ(M_B)`` is the space model reconciliation searches. A :class:`ModelDiff`
splits it into plain features on either side and *value changes* of functional
features (an action's cost, a fluent's initial value), so that "drive costs 3, not 1"
counts as one edit rather than two. It also carries what features cannot express:
vocabulary mismatches (declarations the two models do not share) and structural
differences in the opaque remainders (quantifiers, conditional effects, ...).

Diffs are symmetric: ``diff(a, b).only_in_a == diff(b, a).only_in_b``. Each side's
features keep that side's parameter names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from xaip.planning.features.extract import (
    model_counts_costs,
    model_features,
    split_action,
    split_goal,
)
from xaip.planning.features.feature import Edit, Feature, FeatureKind
from xaip.planning.features.sentences import format_condition, format_effect, format_value
from xaip.planning.features.vocabulary import (
    Mismatch,
    domain_mismatches,
    problem_mismatches,
    raise_for_mismatches,
)
from xaip.planning.pddl.model import Condition, Domain, Effect, Problem
from xaip.planning.pddl.rename import rename_condition, rename_effect


@dataclass(frozen=True, order=True)
class ValueChange:
    """A functional feature whose value differs: ``before`` is A's, ``after`` is B's."""

    before: Feature
    after: Feature

    @property
    def kind(self) -> FeatureKind:
        return self.before.kind

    def swapped(self) -> ValueChange:
        return ValueChange(self.after, self.before)

    def __str__(self) -> str:
        subject = self.before.action_label or str(self.before.fluent)
        what = "costs" if self.kind is FeatureKind.COST else "initially is"
        return (
            f"{subject} {what} {format_value(self.before.value)} in A "
            f"but {format_value(self.after.value)} in B"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "text": str(self),
        }


@dataclass(frozen=True, order=True)
class StructuralDifference:
    """Remainder parts (not features) that differ, e.g. a conditional effect of ``move``.

    ``where`` names the place (``action move: precondition``, ``action move: effect``,
    ``goal``); ``in_a``/``in_b`` list the parts present on one side only, in PDDL syntax
    and in each side's own parameter names.
    """

    where: str
    in_a: tuple[str, ...]
    in_b: tuple[str, ...]

    def swapped(self) -> StructuralDifference:
        return StructuralDifference(self.where, self.in_b, self.in_a)

    def __str__(self) -> str:
        a = "; ".join(self.in_a) or "nothing"
        b = "; ".join(self.in_b) or "nothing"
        return f"{self.where}: A has {a}, B has {b} (not expressible as features)"

    def to_dict(self) -> dict[str, Any]:
        return {"where": self.where, "in_a": list(self.in_a), "in_b": list(self.in_b),
                "text": str(self)}


@dataclass(frozen=True)
class ModelDiff:
    """What separates model A from model B.

    ``only_in_a``/``only_in_b`` are sorted features; ``value_changes`` pairs functional
    features present on both sides with different values; ``mismatches`` and
    ``structural`` are filled by :func:`model_diff` (empty for :func:`diff`).
    """

    only_in_a: tuple[Feature, ...]
    only_in_b: tuple[Feature, ...]
    value_changes: tuple[ValueChange, ...] = ()
    mismatches: tuple[Mismatch, ...] = ()
    structural: tuple[StructuralDifference, ...] = ()
    #: How people should read "A" and "B" (file names, "robot"/"human"); rendering only.
    names: tuple[str, str] = field(default=("A", "B"), compare=False)

    @property
    def cost_changes(self) -> tuple[ValueChange, ...]:
        return tuple(c for c in self.value_changes if c.kind is FeatureKind.COST)

    @property
    def features_equal(self) -> bool:
        """True when both models have the same features (remainders may still differ)."""
        return not (self.only_in_a or self.only_in_b or self.value_changes)

    @property
    def is_empty(self) -> bool:
        return self.features_equal and not self.mismatches and not self.structural

    def edits(self) -> tuple[Edit, ...]:
        """The edits that turn A's features into B's: remove A-only, add B-only, set values.

        Applied with :func:`~xaip.planning.features.apply.apply_edits` (passing B as the
        source of declarations A lacks), they give a model whose features equal B's.
        """
        out = [Edit(f, "remove") for f in self.only_in_a]
        out += [Edit(f, "add") for f in self.only_in_b]
        out += [Edit(c.after, "add") for c in self.value_changes]
        return tuple(sorted(out))

    @property
    def size(self) -> int:
        """The number of edits from A to B (a value change counts once)."""
        return len(self.only_in_a) + len(self.only_in_b) + len(self.value_changes)

    def reversed(self) -> ModelDiff:
        """The diff from B to A."""
        return ModelDiff(
            self.only_in_b,
            self.only_in_a,
            tuple(sorted(c.swapped() for c in self.value_changes)),
            tuple(m.swapped() for m in self.mismatches),
            tuple(s.swapped() for s in self.structural),
        )

    def raise_for_mismatches(self) -> None:
        """Raise :class:`~xaip.errors.SemanticError` if the vocabularies differ."""
        raise_for_mismatches(self.mismatches)

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": "complete",
            "names": list(self.names),
            "only_in_a": [f.to_dict() for f in self.only_in_a],
            "only_in_b": [f.to_dict() for f in self.only_in_b],
            "value_changes": [c.to_dict() for c in self.value_changes],
            "mismatches": [m.to_dict() for m in self.mismatches],
            "structural": [s.to_dict() for s in self.structural],
            "size": self.size,
        }


def diff(a: Iterable[Feature], b: Iterable[Feature]) -> ModelDiff:
    """The feature difference between two feature sets (lifted or grounded)."""
    set_a, set_b = frozenset(a), frozenset(b)
    a_only, b_only = set_a - set_b, set_b - set_a
    a_slots = {f.slot: f for f in a_only if f.is_functional}
    b_slots = {f.slot: f for f in b_only if f.is_functional}
    shared = a_slots.keys() & b_slots.keys()
    return ModelDiff(
        only_in_a=tuple(sorted(f for f in a_only if not (f.is_functional and f.slot in shared))),
        only_in_b=tuple(sorted(f for f in b_only if not (f.is_functional and f.slot in shared))),
        value_changes=tuple(sorted(ValueChange(a_slots[s], b_slots[s]) for s in shared)),
    )


def model_diff(
    domain_a: Domain,
    domain_b: Domain,
    problem_a: Problem | None = None,
    problem_b: Problem | None = None,
) -> ModelDiff:
    """Diff two lifted models, with vocabulary mismatches and structural differences.

    When only ``problem_a`` is given, both domains are compared under that one problem
    (the usual model-reconciliation setting: same task, different beliefs about the
    actions), so no problem features differ. Each side's cost features are what its
    actions cost in that side's model (declared costs only under the ``total-cost``
    metric, else 1: :func:`~xaip.planning.semantics.counts_action_costs`). Vocabulary
    mismatches are listed, never raised; call :meth:`ModelDiff.raise_for_mismatches` to
    insist on a shared vocabulary.
    """
    if problem_b is None:
        problem_b = problem_a
    features = diff(model_features(domain_a, problem_a), model_features(domain_b, problem_b))
    mismatches = list(domain_mismatches(domain_a, domain_b))
    if problem_a is not None and problem_b is not None:
        mismatches += problem_mismatches(problem_a, problem_b)
    structural = _action_structure(domain_a, domain_b, model_counts_costs(domain_a, problem_a),
                                   model_counts_costs(domain_b, problem_b))
    if problem_a is not None and problem_b is not None:
        structural += _goal_structure(problem_a, problem_b)
    return ModelDiff(
        features.only_in_a,
        features.only_in_b,
        features.value_changes,
        tuple(mismatches),
        tuple(sorted(structural)),
    )


def _one_sided(
    a: dict[Any, str], b: dict[Any, str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (
        tuple(sorted(text for key, text in a.items() if key not in b)),
        tuple(sorted(text for key, text in b.items() if key not in a)),
    )


def _action_structure(a: Domain, b: Domain, counts_a: bool, counts_b: bool
                      ) -> list[StructuralDifference]:
    out: list[StructuralDifference] = []
    b_actions = {action.name: action for action in b.actions}
    for action_a in a.actions:
        action_b = b_actions.get(action_a.name)
        if action_b is None or len(action_b.parameters) != len(action_a.parameters):
            continue  # reported as a vocabulary mismatch
        parts_a = split_action(action_a, counts_a)
        parts_b = split_action(action_b, counts_b)
        # Compare in A's parameter names; show each side as written.
        mapping = {
            pb.name: pa.name
            for pa, pb in zip(action_a.parameters, action_b.parameters, strict=True)
        }
        pre_a: dict[Condition, str] = {
            rename_condition(c, {}): format_condition(c) for c in parts_a.precondition_rest
        }
        pre_b: dict[Condition, str] = {
            rename_condition(c, mapping): format_condition(c) for c in parts_b.precondition_rest
        }
        only_a, only_b = _one_sided(pre_a, pre_b)
        if only_a or only_b:
            out.append(StructuralDifference(f"action {action_a.name}: precondition", only_a,
                                            only_b))
        eff_a: dict[Effect, str] = {rename_effect(e, {}): format_effect(e)
                                    for e in parts_a.effect_rest}
        eff_b: dict[Effect, str] = {
            rename_effect(e, mapping): format_effect(e) for e in parts_b.effect_rest
        }
        only_a, only_b = _one_sided(eff_a, eff_b)
        if only_a or only_b:
            out.append(StructuralDifference(f"action {action_a.name}: effect", only_a, only_b))
    return out


def _goal_structure(a: Problem, b: Problem) -> list[StructuralDifference]:
    rest_a = {c: format_condition(c) for c in split_goal(a.goal).rest}
    rest_b = {c: format_condition(c) for c in split_goal(b.goal).rest}
    only_a, only_b = _one_sided(rest_a, rest_b)
    if only_a or only_b:
        return [StructuralDifference("goal", only_a, only_b)]
    return []
