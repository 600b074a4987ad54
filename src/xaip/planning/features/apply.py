"""Γ⁻¹ for lifted models: apply feature edits to a PDDL domain and problem.

Pure: the inputs are not changed; the result is built with ``dataclasses.replace`` and
every action, declaration and problem part that no edit touches is the *same* object as
before, so unchanged parts stay equal and hashable (planner calls can be cached by model).

Semantics, chosen so that ``features(apply_edits(M, E)) == (Γ(M) ∪ E⁺) \\ E⁻``:

* Adding a feature that is present, or removing one that is absent, changes nothing.
  A feature both added and removed by the same edit set ends up removed.
* Features name actions by name and parameters by *position*: a feature written for
  ``pickup(?b)`` applies to a model whose ``pickup`` calls its parameter ``?x``.
* Functional features: adding ``cost(a) = c`` replaces ``a``'s cost; adding an initial
  value replaces the old one. Every action has exactly one cost feature, so the cost
  feature doubles as the statement "``a`` exists": removing it deletes the action, and
  adding any feature of an action the domain lacks creates it (its declaration, with
  parameter types, is copied from ``source_domain``; it starts with no preconditions, no
  effects and the domain's default cost: 0 with action costs, 1 without).
* Costs follow :func:`xaip.planning.semantics.counts_action_costs` of the edited model
  (its domain *and* problem): when declared costs count, a cost feature is the declared
  ``increase`` (0 when there is none); otherwise every action costs 1, whatever the domain
  declares. A cost other than 1 in a model whose declared costs do not count turns costs
  on: the domain gains ``:action-costs`` and the ``total-cost`` function, every other
  action (new ones included) costs exactly ``(increase (total-cost) 1)`` (declared
  increases that did not count are replaced), and the problem minimises ``total-cost``,
  so every other action keeps the cost it had. A cost of 0 in a model whose costs count
  is written as no ``increase``. Without a problem, a domain's declared costs are taken
  as counting (there is no plan to price).
* Predicates, types, constants, objects and functions that an edit mentions but the
  model does not declare are copied from ``source_domain``/``source_problem``; without a
  source, that is a :class:`~xaip.errors.SemanticError`. Arities are checked; argument
  types are not (grounding rejects ill-typed uses).
* The remainder of an action or goal (quantifiers, disjunctions, conditional and
  probabilistic effects) is never edited; it is kept as it is.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from fractions import Fraction
from typing import Any

from xaip.errors import SemanticError
from xaip.planning.features.extract import (
    COST_FLUENT,
    ActionParts,
    is_cost_increase,
    model_counts_costs,
    split_action,
    split_goal,
    strip,
)
from xaip.planning.features.feature import (
    ACTION_KINDS,
    Edit,
    Feature,
    FeatureKind,
)
from xaip.planning.pddl.model import (
    OBJECT,
    Action,
    And,
    AndEffect,
    Atom,
    Condition,
    Domain,
    Effect,
    Function,
    FunctionTerm,
    Increase,
    Not,
    Predicate,
    Problem,
    TypedName,
    conjuncts,
    effect_parts,
)

_K = FeatureKind


def apply_edits(
    domain: Domain,
    problem: Problem | None,
    edits: Iterable[Edit],
    *,
    source_domain: Domain | None = None,
    source_problem: Problem | None = None,
) -> tuple[Domain, Problem | None]:
    """The model ``(domain, problem)`` updated by ``edits`` (see the module docstring).

    ``source_domain``/``source_problem`` (typically the model the edits come from) supply
    declarations the edited model lacks. Raises :class:`~xaip.errors.SemanticError` for
    edits that cannot be applied: problem edits without a problem, undeclared symbols
    without a source, wrong arities, variables that are not parameters of the action,
    conflicting values for one cost, or editing a cost that is not a single value.
    """
    edits = tuple(edits)
    action_edits = [e for e in edits if e.feature.kind in ACTION_KINDS]
    problem_edits = [e for e in edits if e.feature.kind not in ACTION_KINDS]
    if problem_edits and problem is None:
        raise SemanticError(
            "edits of the initial state or goal need a problem: "
            + "; ".join(str(e.feature) for e in problem_edits[:3])
        )
    _check_functional_conflicts(edits)
    vocabulary = _Vocabulary(domain, source_domain)
    actions, converted = _edit_actions(domain, action_edits, vocabulary,
                                       model_counts_costs(domain, problem))
    new_problem = problem
    if problem is not None:
        new_problem = _edit_problem(problem, problem_edits, vocabulary, source_problem)
        if converted:
            new_problem = _with_cost_metric(new_problem)
    new_domain = vocabulary.domain_with(actions)
    return new_domain, new_problem


# --------------------------------------------------------------------------- checks


def _check_functional_conflicts(edits: tuple[Edit, ...]) -> None:
    values: dict[object, Feature] = {}
    for edit in edits:
        feature = edit.feature
        if edit.op != "add" or not feature.is_functional:
            continue
        other = values.setdefault(feature.slot, feature)
        if other != feature:
            raise SemanticError(f"conflicting edits: '{other}' and '{feature}'")


class _Vocabulary:
    """The domain's declarations, extended on demand from a source domain."""

    def __init__(self, domain: Domain, source: Domain | None) -> None:
        self.domain = domain
        self.source = source
        self.requirements = list(domain.requirements)
        self.types = list(domain.types)
        self.constants = list(domain.constants)
        self.predicates = list(domain.predicates)
        self.functions = list(domain.functions)
        self.changed = False

    # ------------------------------------------------------------------ lookups

    def _source_item(self, kind: str, name: str) -> object:
        if self.source is None:
            raise SemanticError(
                f"{kind} '{name}' is not declared in domain '{self.domain.name}' "
                "(pass source_domain to copy its declaration)"
            )
        tables: dict[str, dict[str, object]] = {
            "action": {a.name: a for a in self.source.actions},
            "predicate": {p.name: p for p in self.source.predicates},
            "function": {f.name: f for f in self.source.functions},
            "constant": {c.name: c for c in self.source.constants},
        }
        table = tables[kind]
        if name not in table:
            raise SemanticError(
                f"{kind} '{name}' is declared neither in domain '{self.domain.name}' "
                f"nor in source domain '{self.source.name}'"
            )
        return table[name]

    def source_action(self, name: str) -> Action:
        action = self._source_item("action", name)
        assert isinstance(action, Action)
        for parameter in action.parameters:
            self.ensure_type(parameter.type)
        return Action(name, action.parameters)

    def ensure_type(self, type_name: str) -> None:
        known = {t for t, _ in self.types} | {OBJECT}
        if type_name in known:
            return
        parents = dict(self.source.types) if self.source is not None else {}
        if type_name not in parents:
            raise SemanticError(f"type '{type_name}' is not declared")
        self.types.append((type_name, parents[type_name]))
        self.changed = True
        self.ensure_type(parents[type_name])

    def require(self, requirement: str) -> None:
        if requirement not in self.requirements:
            self.requirements.append(requirement)
            self.changed = True

    def check_atom(self, atom: Atom, where: str) -> None:
        """The predicate is declared (copying it if needed) with the atom's arity."""
        if atom.predicate == "=":
            if len(atom.args) != 2:
                raise SemanticError(f"{where}: equality takes 2 arguments, not {atom}")
            self.require(":equality")
            return
        declared = {p.name: p for p in self.predicates}
        predicate = declared.get(atom.predicate)
        if predicate is None:
            source = self._source_item("predicate", atom.predicate)
            assert isinstance(source, Predicate)
            predicate = Predicate(source.name, source.parameters)
            for parameter in predicate.parameters:
                self.ensure_type(parameter.type)
            self.predicates.append(predicate)
            self.changed = True
        if len(predicate.parameters) != len(atom.args):
            raise SemanticError(
                f"{where}: predicate '{atom.predicate}' takes {len(predicate.parameters)} "
                f"arguments, not {len(atom.args)} as in {atom}"
            )

    def check_function(self, term: FunctionTerm, where: str) -> None:
        declared = {f.name: f for f in self.functions}
        function = declared.get(term.name)
        if function is None:
            source = self._source_item("function", term.name)
            assert isinstance(source, Function)
            function = Function(source.name, source.parameters, source.type)
            for parameter in function.parameters:
                self.ensure_type(parameter.type)
            self.functions.append(function)
            self.changed = True
        if len(function.parameters) != len(term.args):
            raise SemanticError(
                f"{where}: function '{term.name}' takes {len(function.parameters)} "
                f"arguments, not {len(term.args)} as in {term}"
            )

    def ensure_constant(self, name: str) -> bool:
        """Declare ``name`` as a domain constant from the source; False if unknown there."""
        if any(c.name == name for c in self.constants):
            return True
        if self.source is None or not any(c.name == name for c in self.source.constants):
            return False
        constant = self._source_item("constant", name)
        assert isinstance(constant, TypedName)
        self.ensure_type(constant.type)
        self.constants.append(constant)
        self.changed = True
        return True

    def use_costs(self) -> None:
        self.require(":action-costs")
        if not any(f.name == COST_FLUENT for f in self.functions):
            self.functions.append(Function(COST_FLUENT))
            self.changed = True

    def domain_with(self, actions: tuple[Action, ...]) -> Domain:
        changes: dict[str, Any] = {}
        if len(actions) != len(self.domain.actions) or any(
            a is not b for a, b in zip(actions, self.domain.actions, strict=False)
        ):
            changes["actions"] = actions
        if self.changed:
            changes.update(
                requirements=tuple(self.requirements),
                types=tuple(self.types),
                constants=tuple(self.constants),
                predicates=tuple(self.predicates),
                functions=tuple(self.functions),
            )
        return dataclasses.replace(self.domain, **changes) if changes else self.domain


# --------------------------------------------------------------------------- actions


def _edit_actions(
    domain: Domain, edits: list[Edit], vocabulary: _Vocabulary, counts: bool
) -> tuple[tuple[Action, ...], bool]:
    """The edited action list, and whether the model was converted to counted costs.

    ``counts``: do the declared costs count in the model being edited?"""
    by_action: dict[str, list[Edit]] = {}
    for edit in edits:
        by_action.setdefault(edit.feature.action, []).append(edit)
    uses_costs = counts
    converted = False
    if not uses_costs and any(
        e.op == "add" and e.feature.kind is _K.COST and e.feature.value != 1 for e in edits
    ):
        uses_costs = converted = True
        vocabulary.use_costs()
    existing = {action.name for action in domain.actions}
    result: list[Action] = []
    for action in domain.actions:
        if converted:
            action = _with_unit_cost(action)
        group = by_action.get(action.name)
        if group is None:
            result.append(action)
            continue
        edited = _edit_action(action, group, uses_costs, vocabulary)
        if edited is not None:
            result.append(edited)
    for name in sorted(by_action.keys() - existing):
        group = by_action[name]
        if all(e.op == "remove" for e in group):
            continue  # removing features of an action the model lacks changes nothing
        fresh = vocabulary.source_action(name)
        if converted:
            fresh = _with_unit_cost(fresh)  # as every other action of a converted model
        edited = _edit_action(fresh, group, uses_costs, vocabulary)
        if edited is not None:
            result.append(edited)
    return tuple(result), converted


def _with_unit_cost(action: Action) -> Action:
    """The action costing exactly 1 once costs count: any declared increase (which did not
    count before) is replaced by ``(increase (total-cost) 1)``."""
    parts = tuple(p for p in effect_parts(action.effect) if not is_cost_increase(p))
    return dataclasses.replace(
        action, effect=AndEffect((*parts, Increase(FunctionTerm(COST_FLUENT), Fraction(1))))
    )


def _edit_action(
    action: Action, group: list[Edit], uses_costs: bool, vocabulary: _Vocabulary
) -> Action | None:
    """The action after ``group`` (all about this action); ``None`` if it was deleted."""
    parameters = tuple(p.name for p in action.parameters)
    where = f"action {action.name}"
    adds: set[Feature] = set()
    removes: set[Feature] = set()
    for edit in group:
        feature = edit.feature
        if len(feature.parameters) != len(parameters):
            raise SemanticError(
                f"{where} has {len(parameters)} parameters, but the edit "
                f"'{feature}' gives it {len(feature.parameters)}"
            )
        (adds if edit.op == "add" else removes).add(feature.renamed(parameters))
    adds -= removes
    parts = split_action(action, uses_costs)
    new_cost = _new_cost(action, parts, adds, removes, where)
    if isinstance(new_cost, _Deleted):
        if adds:
            raise SemanticError(
                f"conflicting edits: {where} is deleted (its cost is removed) and edited"
            )
        return None
    for feature in adds:
        _check_action_feature(feature, parameters, vocabulary, where)

    def keep(kind: FeatureKind, atom: Atom) -> bool:
        return Feature(kind, action.name, parameters, atom) not in removes

    precondition: list[Condition] = []
    for conjunct in conjuncts(action.precondition):
        if isinstance(conjunct, Atom) and not keep(_K.PRECONDITION, strip(conjunct)):
            continue
        if (
            isinstance(conjunct, Not)
            and isinstance(conjunct.operand, Atom)
            and not keep(_K.NEGATIVE_PRECONDITION, strip(conjunct.operand))
        ):
            continue
        precondition.append(conjunct)
    current = {
        *(Feature.precondition(action.name, parameters, a) for a in parts.preconditions),
        *(
            Feature.negative_precondition(action.name, parameters, a)
            for a in parts.negative_preconditions
        ),
        *(Feature.add_effect(action.name, parameters, a) for a in parts.adds),
        *(Feature.delete_effect(action.name, parameters, a) for a in parts.deletes),
    }
    new = sorted(f for f in adds if f not in current and not f.is_functional)
    for feature in new:
        assert feature.atom is not None
        if feature.kind is _K.PRECONDITION:
            precondition.append(feature.atom)
        elif feature.kind is _K.NEGATIVE_PRECONDITION:
            precondition.append(Not(feature.atom))
    effect: list[Effect] = []
    for part in effect_parts(action.effect):
        if isinstance(part, Atom) and not keep(_K.ADD_EFFECT, strip(part)):
            continue
        if (
            isinstance(part, Not)
            and isinstance(part.operand, Atom)
            and not keep(_K.DELETE_EFFECT, strip(part.operand))
        ):
            continue
        if new_cost is not None and is_cost_increase(part):
            continue
        effect.append(part)
    for feature in new:
        assert feature.atom is not None
        if feature.kind is _K.ADD_EFFECT:
            effect.append(feature.atom)
        elif feature.kind is _K.DELETE_EFFECT:
            effect.append(Not(feature.atom))
    if new_cost is not None and new_cost != 0:
        # Only reachable with action costs: without them the only cost is 1 (unchanged).
        effect.append(Increase(FunctionTerm(COST_FLUENT), new_cost))
    changes: dict[str, Any] = {}
    if tuple(precondition) != conjuncts(action.precondition):
        changes["precondition"] = And(tuple(precondition))
    if tuple(effect) != effect_parts(action.effect) or new_cost is not None:
        changes["effect"] = AndEffect(tuple(effect))
    if not changes:
        return action
    return dataclasses.replace(action, **changes)


class _Deleted:
    """Marks an action whose cost feature (and so the action itself) is removed."""


def _new_cost(
    action: Action, parts: ActionParts, adds: set[Feature], removes: set[Feature], where: str
) -> Fraction | FunctionTerm | None | _Deleted:
    """The action's new cost value, ``None`` if unchanged, ``_Deleted`` if removed."""
    cost_adds = [f for f in adds if f.kind is _K.COST]
    cost_removes = [f for f in removes if f.kind is _K.COST]
    if not cost_adds and not cost_removes:
        return None
    parameters = tuple(p.name for p in action.parameters)
    if parts.cost is None:
        raise SemanticError(
            f"the cost of {where} is not a single value (several increases of total-cost "
            "with fluent terms); it cannot be edited"
        )
    current = Feature.cost(action.name, parameters, parts.cost)
    if cost_adds:
        value = cost_adds[0].value
        assert value is not None
        if isinstance(value, Fraction) and value < 0:
            raise SemanticError(f"{where}: negative action cost {value}")
        return None if cost_adds[0] == current else value
    if current in removes:
        return _Deleted()
    return None


def _check_action_feature(
    feature: Feature, parameters: tuple[str, ...], vocabulary: _Vocabulary, where: str
) -> None:
    if isinstance(feature.value, FunctionTerm):
        vocabulary.check_function(feature.value, where)
        _check_terms(feature.value.args, parameters, vocabulary, where, str(feature.value))
    if feature.atom is None:
        return
    vocabulary.check_atom(feature.atom, where)
    _check_terms(feature.atom.args, parameters, vocabulary, where, str(feature.atom))
    if feature.kind is _K.NEGATIVE_PRECONDITION:
        vocabulary.require(":negative-preconditions")


def _check_terms(
    args: tuple[str, ...],
    parameters: tuple[str, ...],
    vocabulary: _Vocabulary,
    where: str,
    shown: str,
) -> None:
    for arg in args:
        if arg.startswith("?"):
            if arg not in parameters:
                raise SemanticError(f"{where}: {arg} in {shown} is not a parameter")
        elif not vocabulary.ensure_constant(arg):
            raise SemanticError(f"{where}: {arg} in {shown} is not a declared constant")


# --------------------------------------------------------------------------- problem


def _edit_problem(
    problem: Problem,
    edits: list[Edit],
    vocabulary: _Vocabulary,
    source_problem: Problem | None,
) -> Problem:
    if not edits:
        return problem
    adds = {e.feature for e in edits if e.op == "add"}
    removes = {e.feature for e in edits if e.op == "remove"}
    adds -= removes
    objects = list(problem.objects)
    known = {o.name for o in problem.objects}

    source_objects = {o.name: o for o in (source_problem.objects if source_problem else ())}

    def declare(arg: str, where: str, shown: str) -> None:
        """``arg`` is an object or constant, declaring it from the sources if needed."""
        if arg.startswith("?"):
            raise SemanticError(f"{where}: variable {arg} in {shown}")
        if arg in known or vocabulary.ensure_constant(arg):
            return
        if arg not in source_objects:
            raise SemanticError(f"{where}: object {arg} in {shown} is not declared")
        vocabulary.ensure_type(source_objects[arg].type)
        objects.append(source_objects[arg])
        known.add(arg)

    def check(atom: Atom, where: str) -> None:
        vocabulary.check_atom(atom, where)
        for arg in atom.args:
            declare(arg, where, str(atom))

    changes: dict[str, Any] = {}
    init = [a for a in problem.init if Feature.init(a) not in removes]
    present = {strip(a) for a in init}
    for feature in sorted(f for f in adds if f.kind is _K.INIT):
        assert feature.atom is not None
        check(feature.atom, "initial state")
        if feature.atom not in present:
            init.append(feature.atom)
            present.add(feature.atom)
    if tuple(init) != problem.init:
        changes["init"] = tuple(init)

    numeric = list(problem.numeric_init)
    for feature in sorted(f for f in adds | removes if f.kind is _K.INIT_VALUE):
        assert feature.fluent is not None and isinstance(feature.value, Fraction)
        slot = [i for i, (term, _) in enumerate(numeric) if term == feature.fluent]
        if feature in adds:
            vocabulary.check_function(feature.fluent, "initial state")
            for arg in feature.fluent.args:
                declare(arg, "initial state", str(feature.fluent))
            if slot:
                numeric[slot[0]] = (feature.fluent, feature.value)
            else:
                numeric.append((feature.fluent, feature.value))
        elif slot and numeric[slot[0]][1] == feature.value:
            del numeric[slot[0]]
    if numeric != list(problem.numeric_init):
        changes["numeric_init"] = tuple(numeric)

    goal = split_goal(problem.goal)
    goal_parts: list[Condition] = []
    for conjunct in conjuncts(problem.goal):
        if isinstance(conjunct, Atom) and Feature.goal(conjunct) in removes:
            continue
        if (
            isinstance(conjunct, Not)
            and isinstance(conjunct.operand, Atom)
            and Feature.negative_goal(conjunct.operand) in removes
        ):
            continue
        goal_parts.append(conjunct)
    current_goal = {Feature.goal(a) for a in goal.positive} | {
        Feature.negative_goal(a) for a in goal.negative
    }
    for feature in sorted(f for f in adds if f.kind in (_K.GOAL, _K.NEGATIVE_GOAL)):
        if feature in current_goal:
            continue
        assert feature.atom is not None
        check(feature.atom, "goal")
        if feature.kind is _K.GOAL:
            goal_parts.append(feature.atom)
        else:
            vocabulary.require(":negative-preconditions")
            goal_parts.append(Not(feature.atom))
        current_goal.add(feature)
    if tuple(goal_parts) != conjuncts(problem.goal):
        changes["goal"] = And(tuple(goal_parts))
    if objects != list(problem.objects):
        changes["objects"] = tuple(objects)
    if not changes:
        return problem
    return dataclasses.replace(problem, **changes)


def _with_cost_metric(problem: Problem) -> Problem:
    """Make a problem minimise ``total-cost`` after its domain was given action costs
    (a metric on anything else did not count declared costs; it is replaced)."""
    changes: dict[str, Any] = {}
    total = FunctionTerm(COST_FLUENT)
    if problem.metric != ("minimize", total):
        changes["metric"] = ("minimize", total)
    if all(term != total for term, _ in problem.numeric_init):
        changes["numeric_init"] = ((total, Fraction(0)), *problem.numeric_init)
    return dataclasses.replace(problem, **changes) if changes else problem
