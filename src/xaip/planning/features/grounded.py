"""Γ and Γ⁻¹ for grounded tasks: features of ground actions, and edits of a :class:`Task`.

Grounded explanations speak about ground actions ("``move(loc1, loc2)`` requires
``(hand-tucked)``"), as the original model-reconciliation implementation did. A ground
feature is a :class:`Feature` whose ``action`` is the schema and whose ``parameters`` are
the objects.

What is a feature of a task:

* per ground action name: the facts in its precondition (positive and negative), its add
  and delete effects and its cost. Grounding turns a disjunctive precondition into
  several ground actions with one name (variants); the features of the name are what all
  variants share, exactly as the top-level conjuncts of a lifted action are, and the
  per-variant residue is the opaque remainder (as are conditional effects);
* the initial facts and the goal (positive and negative) facts in the fact table.

Static facts are *not* features of a task: grounding has already compiled them into
which ground actions exist, so they are not editable at this level.

Applying edits (:func:`apply_task_edits`) follows the lifted rules (see
:mod:`xaip.planning.features.apply`): adding a present feature or removing an absent one
changes nothing, a cost edit replaces the cost, removing the cost deletes the ground
action (all variants), and a feature of an unknown ground action creates it (no
precondition, no effect, cost 0 in a task with action costs, else 1).

The fact table grows on demand: an edit that mentions a fact the task does not index
(a static fact grounding removed, or a fact the task never mentions) appends a new bit,
so every existing mask keeps its meaning. The new fact is initially true exactly when it
was a static fact of the task (it is then moved from ``static_facts`` into the table),
and false otherwise (closed world).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from xaip.errors import SemanticError
from xaip.planning.features.diff import ModelDiff, StructuralDifference, diff
from xaip.planning.features.feature import ACTION_KINDS, Edit, Feature, FeatureKind
from xaip.planning.pddl.model import Atom
from xaip.planning.task import GroundAction, Task, bits

_K = FeatureKind


def _common(masks: Iterable[int]) -> int:
    result = -1
    for mask in masks:
        result &= mask
    return max(result, 0)


def _variants(task: Task) -> dict[str, list[GroundAction]]:
    groups: dict[str, list[GroundAction]] = {}
    for action in task.actions:
        groups.setdefault(action.name, []).append(action)
    return groups


def task_features(task: Task) -> frozenset[Feature]:
    """Γ of a grounded task (see the module docstring)."""
    facts = task.facts
    features: set[Feature] = set()
    for variants in _variants(task).values():
        first = variants[0]
        schema, args = first.schema, first.args
        for kind, mask in (
            (_K.PRECONDITION, _common(v.pre for v in variants)),
            (_K.NEGATIVE_PRECONDITION, _common(v.neg_pre for v in variants)),
            (_K.ADD_EFFECT, _common(v.add for v in variants)),
            (_K.DELETE_EFFECT, _common(v.delete for v in variants)),
        ):
            features.update(Feature(kind, schema, args, facts[i]) for i in bits(mask))
        if len({v.cost for v in variants}) == 1:
            features.add(Feature.cost(schema, args, first.cost))
    features.update(Feature.init(facts[i]) for i in bits(task.init))
    features.update(Feature.goal(facts[i]) for i in bits(task.goal))
    features.update(Feature.negative_goal(facts[i]) for i in bits(task.goal_neg))
    return frozenset(features)


# --------------------------------------------------------------------------- structure


def _remainder(task: Task, variants: list[GroundAction]) -> frozenset[str]:
    """The parts of a ground action name that are not features, as readable strings."""

    def conjunction(positive: int, negative: int) -> str:
        literals = [str(task.facts[i]) for i in bits(positive)]
        literals += [f"(not {task.facts[i]})" for i in bits(negative)]
        if len(literals) == 1:
            return literals[0]
        return "(and" + "".join(" " + x for x in literals) + ")"

    out: set[str] = set()
    pre, neg = _common(v.pre for v in variants), _common(v.neg_pre for v in variants)
    if len(variants) > 1:
        residues = sorted({conjunction(v.pre & ~pre, v.neg_pre & ~neg) for v in variants})
        out.add("(or " + " ".join(residues) + ")")
    for variant in variants:
        for effect in variant.conditional:
            out.add(
                f"(when {conjunction(effect.cond_pos, effect.cond_neg)} "
                f"{conjunction(effect.add, effect.delete)})"
            )
    return frozenset(out)


def task_diff(a: Task, b: Task) -> ModelDiff:
    """Diff two grounded tasks: features, plus structural differences of ground actions.

    Ground actions are matched by name. A ground action present on one side only shows
    up through its features (and its cost feature), not as a vocabulary mismatch.
    """
    features = diff(task_features(a), task_features(b))
    groups_a, groups_b = _variants(a), _variants(b)
    structural = []
    for name in sorted(groups_a.keys() & groups_b.keys()):
        rest_a, rest_b = _remainder(a, groups_a[name]), _remainder(b, groups_b[name])
        if rest_a != rest_b:
            structural.append(
                StructuralDifference(
                    f"ground action {name}",
                    tuple(sorted(rest_a - rest_b)),
                    tuple(sorted(rest_b - rest_a)),
                )
            )
    return dataclasses.replace(features, structural=tuple(structural))


# --------------------------------------------------------------------------- applying


class _FactTable:
    """The task's facts, extended on demand (new facts get new, higher bits)."""

    def __init__(self, task: Task) -> None:
        self.facts = list(task.facts)
        self.index = dict(task.fact_index)
        self.static = set(task.static_facts)
        self.init = task.init

    def bit(self, atom: Atom) -> int:
        index = self.index.get(atom)
        if index is None:
            index = len(self.facts)
            self.facts.append(atom)
            self.index[atom] = index
            if atom in self.static:
                self.static.discard(atom)
                self.init |= 1 << index
        return 1 << index


_FIELD = {
    _K.PRECONDITION: "pre",
    _K.NEGATIVE_PRECONDITION: "neg_pre",
    _K.ADD_EFFECT: "add",
    _K.DELETE_EFFECT: "delete",
}


def apply_task_edits(task: Task, edits: Iterable[Edit]) -> Task:
    """The task updated by grounded ``edits`` (pure; untouched actions are kept as is)."""
    edits = tuple(edits)
    for edit in edits:
        if edit.feature.kind is _K.INIT_VALUE:
            raise SemanticError(f"a grounded task has no numeric fluents: '{edit.feature}'")
        if edit.feature.is_lifted:
            raise SemanticError(f"'{edit.feature}' is a lifted feature; ground it first")
    removes = {e.feature for e in edits if e.op == "remove"}
    adds = {e.feature for e in edits if e.op == "add"} - removes
    _check_costs(adds)
    table = _FactTable(task)
    current = task_features(task)
    groups = _variants(task)
    by_action: dict[str, list[tuple[Feature, bool]]] = {}
    for feature in sorted(adds | removes):
        if feature.kind in ACTION_KINDS:
            name = " ".join((feature.action, *feature.parameters))
            by_action.setdefault(name, []).append((feature, feature in adds))

    actions: list[GroundAction] = []
    for action in task.actions:
        group = by_action.get(action.name)
        edited = action if group is None else _edit_action(action, group, current, table)
        if edited is not None:
            actions.append(edited)
    default_cost = 0 if task.has_costs else 1
    for name in sorted(by_action.keys() - groups.keys()):
        group = by_action[name]
        if not any(is_add for _, is_add in group):
            continue
        feature = group[0][0]
        fresh = GroundAction(feature.action, feature.parameters, 0, 0, 0, cost=default_cost)
        edited = _edit_action(fresh, group, current, table)
        if edited is not None:
            actions.append(edited)

    init, goal, goal_neg = table.init, task.goal, task.goal_neg
    for feature in sorted(adds | removes):
        if feature.kind not in (_K.INIT, _K.GOAL, _K.NEGATIVE_GOAL):
            continue
        if feature in removes and feature not in current:
            continue  # removing an absent feature changes nothing
        assert feature.atom is not None
        mask = table.bit(feature.atom)
        if feature.kind is _K.INIT:
            init = init | mask if feature in adds else init & ~mask
        elif feature.kind is _K.GOAL:
            goal = goal | mask if feature in adds else goal & ~mask
        else:
            goal_neg = goal_neg | mask if feature in adds else goal_neg & ~mask
    has_costs = task.has_costs or any(a.cost != 1 for a in actions)
    changes: dict[str, Any] = {}
    if len(actions) != len(task.actions) or any(
        x is not y for x, y in zip(actions, task.actions, strict=False)
    ):
        changes["actions"] = tuple(actions)
    if len(table.facts) != len(task.facts):
        changes.update(facts=tuple(table.facts), static_facts=frozenset(table.static))
    for key, new, old in (
        ("init", init, task.init),
        ("goal", goal, task.goal),
        ("goal_neg", goal_neg, task.goal_neg),
        ("has_costs", has_costs, task.has_costs),
    ):
        if new != old:
            changes[key] = new
    return dataclasses.replace(task, **changes) if changes else task


def _check_costs(adds: set[Feature]) -> None:
    slots: dict[object, Feature] = {}
    for feature in adds:
        if feature.kind is not _K.COST:
            continue
        value = feature.value
        if not isinstance(value, Fraction) or value.denominator != 1 or value < 0:
            raise SemanticError(
                f"a ground action's cost is a non-negative integer, not '{feature}'"
            )
        other = slots.setdefault(feature.slot, feature)
        if other != feature:
            raise SemanticError(f"conflicting edits: '{other}' and '{feature}'")


def _edit_action(
    action: GroundAction,
    group: list[tuple[Feature, bool]],
    current: frozenset[Feature],
    table: _FactTable,
) -> GroundAction | None:
    """One variant of a ground action after its edits; ``None`` if the action is deleted."""
    masks = {name: getattr(action, name) for name in _FIELD.values()}
    cost = action.cost
    for feature, is_add in group:
        if feature.kind is _K.COST:
            assert isinstance(feature.value, Fraction)
            if is_add:
                cost = int(feature.value)
            elif feature in current:
                if any(add for _, add in group):
                    raise SemanticError(
                        f"conflicting edits: ground action {action.name} is deleted (its "
                        "cost is removed) and edited"
                    )
                return None
            continue
        if not is_add and feature not in current:
            continue  # not a feature (absent, or only in some variants): nothing to remove
        assert feature.atom is not None
        field_name = _FIELD[feature.kind]
        mask = table.bit(feature.atom)
        masks[field_name] = masks[field_name] | mask if is_add else masks[field_name] & ~mask
    if cost == action.cost and all(masks[n] == getattr(action, n) for n in masks):
        return action
    return dataclasses.replace(action, cost=cost, **masks)
