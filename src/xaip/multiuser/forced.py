"""Edits every explanation must contain: a sound pruning of the searches over edit sets.

Why: the searches try edit sets by size, and real users' models differ from the robot's by
a dozen features or more, where an explanation may need ten of them: hundreds of thousands
of sets. Most of those sets lack an edit that no explanation can do without, and a
monotonicity argument finds such edits with one test each.

In a STRIPS model with positive preconditions and goals (no negative preconditions, no
derived predicates, no quantified, disjunctive or conditional parts), an edit either
*relaxes* the model (adds an add effect or an initial fact; removes a precondition, a
delete or a goal) or *restricts* it (the opposite). Relaxing never invalidates a valid plan
and never makes the cheapest plan dearer; restricting does neither for the opposite. So:

* an edit ``c`` that relaxes the model in which the plan must be *valid* is needed when the
  plan is invalid even after every other edit that does not restrict that model;
* an edit ``c`` that restricts the model in which no plan may be *cheaper* is needed when a
  cheaper plan exists even after every other edit that does not relax that model.

For one user both models are the user's updated model; for the group they are the least
and the most relaxed completions of the merged model (book Prop. 7). Cost edits change what
the plan costs, so with any cost edit (or a model outside the fragment) nothing is forced.
The checker (:mod:`xaip.multiuser.checks`) has its own version of this argument.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xaip.planning.features import Edit, FeatureKind
from xaip.planning.features.extract import split_action, split_goal
from xaip.planning.pddl.model import Domain, Problem
from xaip.reconcile.results import LabelledEdit

RELAXING = frozenset({FeatureKind.ADD_EFFECT, FeatureKind.INIT})
STRICT = frozenset({FeatureKind.PRECONDITION, FeatureKind.DELETE_EFFECT, FeatureKind.GOAL})
#: An edit's effect on a model: ``+1`` relaxes it, ``-1`` restricts it, ``0`` leaves it.
Effect = int
Model = tuple[Domain, Problem]


def in_fragment(models: Iterable[Model]) -> bool:
    """Are all ``models`` positive STRIPS (where the monotonicity argument holds)?"""
    for domain, problem in models:
        if domain.derived:
            return False
        for action in domain.actions:
            parts = split_action(action, True)
            if parts.negative_preconditions or parts.precondition_rest or parts.effect_rest:
                return False
        goal = split_goal(problem.goal)
        if goal.negative or goal.rest:
            return False
    return True


def effect(edit: Edit) -> Effect | None:
    """How ``edit`` changes a model (``None``: neither way, e.g. a cost)."""
    kind = edit.feature.kind
    if kind in RELAXING:
        return 1 if edit.op == "add" else -1
    if kind in STRICT:
        return -1 if edit.op == "add" else 1
    return None


def group_effects(edit: LabelledEdit) -> tuple[Effect | None, Effect | None]:
    """A shared edit's effect on the least and the most relaxed completion of the merged
    model: a known edit changes both; settling a possible feature changes only the one
    completion that did not already take it as settled."""
    base = effect(edit.edit)
    if base is None or edit.label.endswith("known"):
        return base, base
    stricter = edit.edit.feature.kind in STRICT
    if edit.label == "add-annot":  # the feature becomes certain
        return (0, base) if stricter else (base, 0)
    return (base, 0) if stricter else (0, base)  # remove-annot: certainly absent


def forced(effects: Sequence[tuple[Effect | None, Effect | None]],
           valid_without: Callable[[list[int]], bool],
           none_cheaper_without: Callable[[list[int]], bool]) -> frozenset[int]:
    """The indices of candidates every explanation contains.

    ``effects[i]`` is candidate ``i``'s effect on the model where the plan must be valid
    and on the one where nothing may be cheaper; ``valid_without(T)`` and
    ``none_cheaper_without(T)`` test those models after the candidates ``T``.
    """
    if any(low is None or high is None for low, high in effects):
        return frozenset()
    out = set()
    count = len(effects)
    for c, (low, high) in enumerate(effects):
        if low == 1:
            others = [d for d in range(count) if d != c and effects[d][0] != -1]
            if not valid_without(others):
                out.add(c)
                continue
        if high == -1:
            others = [d for d in range(count) if d != c and effects[d][1] != 1]
            if not none_cheaper_without(others):
                out.add(c)
    return frozenset(out)
