"""Γ for lifted models: which parts of a PDDL domain and problem are features.

Only the STRIPS-like parts are features, because only they have a one-fact-per-edit
meaning:

* an action's top-level conjunctive precondition literals (``(p ?x)`` and ``(not (p ?x))``,
  equality included),
* its top-level effect literals (``(p ?x)`` adds, ``(not (p ?x))`` deletes),
* its cost: what the action costs *in this model*, decided by
  :func:`xaip.planning.semantics.counts_action_costs` of the model's domain and problem:
  when declared costs count (the domain declares them and the problem minimises
  ``total-cost``), the constant (or single fluent-term) ``(increase (total-cost) ...)`` at
  the top level of the effect, 0 when the action has none; otherwise 1 for every action
  (as grounding, validation and every planner price plans),
* the problem's initial facts and numeric values, and the goal's top-level literals.

Everything else — disjunctions, implications, quantifiers, conditional and universal
effects, probabilistic effects, other numeric effects, non-literal goal parts — is the
*remainder*: it is kept untouched when edits are applied, and two models that differ
there are reported by :func:`~xaip.planning.features.diff.model_diff` as structural
differences not expressible as features.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from xaip.planning.features.feature import Feature, FeatureKind
from xaip.planning.pddl.model import (
    COST_FLUENT,
    Action,
    Atom,
    Condition,
    Domain,
    Effect,
    FunctionTerm,
    Increase,
    Not,
    Problem,
    conjuncts,
    effect_parts,
)
from xaip.planning.semantics import counts_action_costs


def strip(atom: Atom) -> Atom:
    """The atom without its source location."""
    return atom if atom.location is None else Atom(atom.predicate, atom.args)


def is_cost_increase(part: Effect) -> bool:
    return isinstance(part, Increase) and part.fluent.name == COST_FLUENT and not part.fluent.args


@dataclass(frozen=True)
class ActionParts:
    """An action split into its feature literals and its opaque remainder.

    ``cost`` is ``None`` when the action's cost is not expressible as one feature value
    (several increases that include a fluent term); those increases then sit in
    ``effect_rest``.
    """

    preconditions: tuple[Atom, ...]
    negative_preconditions: tuple[Atom, ...]
    precondition_rest: tuple[Condition, ...]
    adds: tuple[Atom, ...]
    deletes: tuple[Atom, ...]
    cost_increases: tuple[Increase, ...]
    effect_rest: tuple[Effect, ...]
    cost: Fraction | FunctionTerm | None


def split_action(action: Action, uses_costs: bool) -> ActionParts:
    """``action`` as feature literals and remainder; ``uses_costs``: do declared costs count
    in the action's model (:func:`model_counts_costs`)? If not, its cost is 1."""
    pre: list[Atom] = []
    neg: list[Atom] = []
    pre_rest: list[Condition] = []
    for conjunct in conjuncts(action.precondition):
        if isinstance(conjunct, Atom):
            pre.append(strip(conjunct))
        elif isinstance(conjunct, Not) and isinstance(conjunct.operand, Atom):
            neg.append(strip(conjunct.operand))
        else:
            pre_rest.append(conjunct)
    adds: list[Atom] = []
    deletes: list[Atom] = []
    increases: list[Increase] = []
    eff_rest: list[Effect] = []
    for part in effect_parts(action.effect):
        if isinstance(part, Atom):
            adds.append(strip(part))
        elif isinstance(part, Not) and isinstance(part.operand, Atom):
            deletes.append(strip(part.operand))
        elif is_cost_increase(part):
            assert isinstance(part, Increase)
            increases.append(part)
        else:
            eff_rest.append(part)
    cost: Fraction | FunctionTerm | None
    if not uses_costs:
        cost = Fraction(1)
    elif not increases:
        cost = Fraction(0)
    elif len(increases) == 1:
        cost = increases[0].value
    elif all(isinstance(i.value, Fraction) for i in increases):
        cost = sum((Fraction(i.value) for i in increases if isinstance(i.value, Fraction)),
                   Fraction(0))
    else:
        cost = None
        eff_rest.extend(increases)
        increases = []
    return ActionParts(
        tuple(pre), tuple(neg), tuple(pre_rest), tuple(adds), tuple(deletes), tuple(increases),
        tuple(eff_rest), cost,
    )


def action_features(action: Action, uses_costs: bool) -> frozenset[Feature]:
    """The features of one action schema (its remainder is not a feature)."""
    parts = split_action(action, uses_costs)
    name = action.name
    params = tuple(p.name for p in action.parameters)
    features: set[Feature] = set()
    features.update(Feature.precondition(name, params, a) for a in parts.preconditions)
    features.update(
        Feature.negative_precondition(name, params, a) for a in parts.negative_preconditions
    )
    features.update(Feature.add_effect(name, params, a) for a in parts.adds)
    features.update(Feature.delete_effect(name, params, a) for a in parts.deletes)
    if parts.cost is not None:
        features.add(Feature.cost(name, params, parts.cost))
    return frozenset(features)


def model_counts_costs(domain: Domain, problem: Problem | None) -> bool:
    """Do the declared action costs count in the model ``(domain, problem)``?

    With a problem: :func:`xaip.planning.semantics.counts_action_costs` (declared costs
    only under ``(:metric minimize (total-cost))``, else 1 per action). A domain without a
    problem prices no plan; its features then describe what the file declares (its
    declared costs, when it declares any) -- used only to compare two domain files.
    """
    if problem is None:
        return domain.declares_action_costs
    return counts_action_costs(domain, problem)


def domain_features(domain: Domain, counts_costs: bool | None = None) -> frozenset[Feature]:
    """Γ of a domain: preconditions, effects and costs of every action schema.

    ``counts_costs``: do declared costs count in the model this domain is part of
    (:func:`model_counts_costs`; default: the domain on its own, as declared)?
    """
    counts = model_counts_costs(domain, None) if counts_costs is None else counts_costs
    features: set[Feature] = set()
    for action in domain.actions:
        features |= action_features(action, counts)
    return frozenset(features)


@dataclass(frozen=True)
class GoalParts:
    positive: tuple[Atom, ...]
    negative: tuple[Atom, ...]
    rest: tuple[Condition, ...]


def split_goal(goal: Condition) -> GoalParts:
    positive: list[Atom] = []
    negative: list[Atom] = []
    rest: list[Condition] = []
    for conjunct in conjuncts(goal):
        if isinstance(conjunct, Atom):
            positive.append(strip(conjunct))
        elif isinstance(conjunct, Not) and isinstance(conjunct.operand, Atom):
            negative.append(strip(conjunct.operand))
        else:
            rest.append(conjunct)
    return GoalParts(tuple(positive), tuple(negative), tuple(rest))


def problem_features(problem: Problem) -> frozenset[Feature]:
    """Γ of a problem: initial facts, initial numeric values, goal literals.

    The initial value of ``(total-cost)`` is not a feature: it is bookkeeping, not a
    belief about the world.
    """
    features: set[Feature] = {Feature.init(a) for a in problem.init}
    features.update(
        Feature.init_value(term, value)
        for term, value in problem.numeric_init
        if not (term.name == COST_FLUENT and not term.args)
    )
    goal = split_goal(problem.goal)
    features.update(Feature.goal(a) for a in goal.positive)
    features.update(Feature.negative_goal(a) for a in goal.negative)
    return frozenset(features)


def model_features(domain: Domain, problem: Problem | None = None) -> frozenset[Feature]:
    """Γ(M) of a whole model: the domain's features plus the problem's (when given).

    Cost features are what each action costs in this model (:func:`model_counts_costs`):
    two models that price plans differently have different cost features.
    """
    features = domain_features(domain, model_counts_costs(domain, problem))
    if problem is not None:
        features |= problem_features(problem)
    return features


def features_of_kind(features: frozenset[Feature], *kinds: FeatureKind) -> frozenset[Feature]:
    return frozenset(f for f in features if f.kind in kinds)
