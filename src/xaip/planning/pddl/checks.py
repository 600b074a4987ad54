"""Semantic checks: well-formed PDDL that refers to things that do not exist.

Why separate from the reader: model reconciliation builds domains in memory (by edits)
and must be able to check them the same way, and a problem can only be checked against
its domain. Errors carry the location of the offending construct when it is known.
"""

from __future__ import annotations

from collections.abc import Iterable

from xaip.errors import SemanticError
from xaip.planning.pddl.derived import stratify
from xaip.planning.pddl.limits import quoted
from xaip.planning.pddl.model import (
    COST_FLUENT,
    OBJECT,
    And,
    AndEffect,
    Atom,
    Condition,
    Domain,
    Effect,
    Exists,
    Forall,
    ForallEffect,
    FunctionTerm,
    Imply,
    Increase,
    Location,
    Not,
    Or,
    Probabilistic,
    Problem,
    TypedName,
    When,
    either_members,
)
from xaip.planning.pddl.visitor import Visitor, changed_atoms
from xaip.runtime.budget import check_reading

#: Numeric fluents a PPDDL/action-cost file may use without declaring them.
IMPLICIT_FUNCTIONS = frozenset({COST_FLUENT, "reward"})


def _where(location: Location | None, fallback: str | None) -> str:
    if location is not None:
        return f"{location}: "
    return f"{fallback}: " if fallback else ""


class _Scope:
    """Names visible at one point of a domain or problem, with their types."""

    def __init__(self, domain: Domain, objects: Iterable[TypedName] = ()) -> None:
        self.domain = domain
        self.types = {OBJECT, *(c for c, _ in domain.types), *(p for _, p in domain.types)}
        self.below = domain.subtypes_closure()
        self.predicates = {p.name: p for p in domain.predicates}
        self.functions = {f.name: f for f in domain.functions}
        self.objects: dict[str, str] = {c.name: c.type for c in domain.constants}
        for obj in objects:
            self.objects[obj.name] = obj.type
        self.file = domain.source

    def check_type(self, typed: TypedName, where: str, blame_domain: bool = False) -> None:
        """``blame_domain``: the name is a problem's, so say what the domain declares (the
        mistake may be a missing or misspelt type in the domain)."""
        for member in either_members(typed.type) or (typed.type,):
            if member in self.types:
                continue
            hint = ""
            if blame_domain:
                names = sorted(self.types)
                listed = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
                read = f" read from {self.domain.source}" if self.domain.source else ""
                hint = f" (the domain {quoted(self.domain.name)}{read} declares {listed})"
            raise SemanticError(f"{where}unknown type {quoted(member)} of "
                                f"{quoted(typed.name)}{hint}")

    def check_atom(self, atom: Atom, variables: dict[str, str], fallback: str | None,
                   ground: bool = False) -> None:
        where = _where(atom.location, fallback)
        if atom.predicate == "=":
            if len(atom.args) != 2:
                raise SemanticError(f"{where}'=' takes 2 arguments, found {len(atom.args)}")
        else:
            predicate = self.predicates.get(atom.predicate)
            if predicate is None:
                raise SemanticError(f"{where}undeclared predicate {quoted(atom.predicate)} in"
                                    f" {quoted(atom)}")
            if len(predicate.parameters) != len(atom.args):
                raise SemanticError(
                    f"{where}predicate {quoted(atom.predicate)} takes {len(predicate.parameters)} "
                    f"argument(s), {quoted(atom)} has {len(atom.args)}")
        for index, arg in enumerate(atom.args):
            if arg.startswith("?"):
                if ground:
                    raise SemanticError(f"{where}variable {quoted(arg)} in a ground fact"
                                        f" {quoted(atom)}")
                if arg not in variables:
                    raise SemanticError(f"{where}unbound variable {quoted(arg)} in {quoted(atom)}")
                continue
            if arg not in self.objects:
                raise SemanticError(f"{where}unknown object or constant {quoted(arg)} in"
                                    f" {quoted(atom)}")
            if atom.predicate != "=":
                wanted = self.predicates[atom.predicate].parameters[index].type
                if self.objects[arg] not in self.below.get(wanted, frozenset({wanted})):
                    raise SemanticError(
                        f"{where}{quoted(arg)} is a {self.objects[arg]}, but argument {index + 1} "
                        f"of {quoted(atom.predicate)} must be a {wanted} in {quoted(atom)}")

    def check_condition(self, condition: Condition, variables: dict[str, str],
                        fallback: str | None, ground: bool = False) -> None:
        _Check(self, variables, fallback, ground, effect=False).visit(condition)

    def bind(self, new: Iterable[TypedName], variables: dict[str, str],
             where: str) -> dict[str, str]:
        inner = dict(variables)
        for typed in new:
            self.check_type(typed, where)
            inner[typed.name] = typed.type
        return inner

    def check_function(self, term: FunctionTerm, variables: dict[str, str], where: str) -> None:
        function = self.functions.get(term.name)
        if function is None:
            if term.name in IMPLICIT_FUNCTIONS and not term.args:
                return
            raise SemanticError(f"{where}undeclared function {quoted(term.name)} in {quoted(term)}")
        if len(function.parameters) != len(term.args):
            raise SemanticError(f"{where}function {quoted(term.name)} takes "
                                f"{len(function.parameters)} argument(s), {quoted(term)} has "
                                f"{len(term.args)}")
        for arg in term.args:
            if arg.startswith("?") and arg not in variables:
                raise SemanticError(f"{where}unbound variable {quoted(arg)} in {quoted(term)}")
            if not arg.startswith("?") and arg not in self.objects:
                raise SemanticError(f"{where}unknown object or constant {quoted(arg)} in"
                                    f" {quoted(term)}")

    def check_effect(self, effect: Effect, variables: dict[str, str], fallback: str | None) -> None:
        _Check(self, variables, fallback, ground=False, effect=True).visit(effect)


class _Check(Visitor[None]):
    """Checks one condition or effect tree against a scope and the variables bound so far.

    Quantifiers and ``when`` start a fresh checker for their body (new variables; a
    condition inside an effect), so the state never needs undoing.
    """

    def __init__(self, scope: _Scope, variables: dict[str, str], fallback: str | None,
                 ground: bool, effect: bool) -> None:
        self.scope, self.variables, self.fallback = scope, variables, fallback
        self.ground, self.effect = ground, effect

    def inner(self, new: Iterable[TypedName], location: Location | None,
              effect: bool) -> _Check:
        variables = self.scope.bind(new, self.variables, _where(location, self.fallback))
        return _Check(self.scope, variables, self.fallback, False, effect)

    def visit_Atom(self, node: Atom) -> None:
        self.scope.check_atom(node, self.variables, self.fallback, self.ground)
        if self.effect and node.predicate == "=":
            raise SemanticError(f"{_where(node.location, self.fallback)}'=' cannot be an effect")

    def visit_Not(self, node: Not) -> None:
        self.visit(node.operand)

    def visit_And(self, node: And | Or | AndEffect) -> None:
        for operand in node.operands:
            self.visit(operand)

    visit_Or = visit_AndEffect = visit_And

    def visit_Imply(self, node: Imply) -> None:
        self.visit(node.antecedent)
        self.visit(node.consequent)

    def visit_Exists(self, node: Exists | Forall) -> None:
        self.inner(node.variables, node.location, effect=False).visit(node.body)

    visit_Forall = visit_Exists

    def visit_When(self, node: When) -> None:
        _Check(self.scope, self.variables, self.fallback, False, effect=False).visit(
            node.condition)
        self.visit(node.effect)

    def visit_ForallEffect(self, node: ForallEffect) -> None:
        self.inner(node.variables, node.location, effect=True).visit(node.effect)

    def visit_Increase(self, node: Increase) -> None:
        where = _where(node.location, self.fallback)
        self.scope.check_function(node.fluent, self.variables, where)
        if isinstance(node.value, FunctionTerm):
            self.scope.check_function(node.value, self.variables, where)

    def visit_Probabilistic(self, node: Probabilistic) -> None:
        for _, outcome in node.outcomes:
            self.visit(outcome)


def check_domain(domain: Domain) -> None:
    """Raise :class:`SemanticError` if the domain refers to undeclared names."""
    parents = dict(domain.types)
    for child, parent in domain.types:
        seen = {child}
        current = parent
        while current in parents and current != OBJECT:
            if current in seen:
                at = _where(domain.location_of(f"type:{child}"), domain.source)
                raise SemanticError(f"{at}type {quoted(child)} is its own ancestor")
            seen.add(current)
            current = parents[current]
    scope = _Scope(domain)
    for constant in domain.constants:
        scope.check_type(constant, _where(domain.location_of(f"constant:{constant.name}"),
                                          domain.source))
    for function in domain.functions:
        for parameter in function.parameters:
            scope.check_type(parameter, _where(function.location, domain.source))
    names: set[str] = set()
    for predicate in domain.predicates:
        if predicate.name in names:
            raise SemanticError(f"{_where(predicate.location, domain.source)}predicate "
                                f"{quoted(predicate.name)} declared twice")
        names.add(predicate.name)
        for parameter in predicate.parameters:
            scope.check_type(parameter, _where(predicate.location, domain.source))
    actions: set[str] = set()
    for action in domain.actions:
        at = _where(action.location, domain.source)
        if action.name in actions:
            raise SemanticError(f"{at}action {quoted(action.name)} declared twice")
        actions.add(action.name)
        variables: dict[str, str] = {}
        for parameter in action.parameters:
            if parameter.name in variables:
                raise SemanticError(f"{at}parameter {quoted(parameter.name)} of"
                                    f" {quoted(action.name)} "
                                    "declared twice")
            scope.check_type(parameter, at)
            variables[parameter.name] = parameter.type
        scope.check_condition(action.precondition, variables, domain.source)
        scope.check_effect(action.effect, variables, domain.source)
    _check_derived(domain, scope)


def _check_derived(domain: Domain, scope: _Scope) -> None:
    """Rules name declared predicates with their arity, bind their variables, define
    predicates that no action changes, and are stratifiable (negation through lower
    strata only)."""
    if not domain.derived:
        return
    for rule in domain.derived:
        at = _where(rule.location, domain.source)
        predicate = scope.predicates.get(rule.name)
        if predicate is None:
            raise SemanticError(f"{at}derived predicate {quoted(rule.name)} is not declared in"
                                f" :predicates")
        if len(predicate.parameters) != len(rule.parameters):
            raise SemanticError(f"{at}predicate {quoted(rule.name)} takes "
                                f"{len(predicate.parameters)} argument(s), the :derived rule "
                                f"has {len(rule.parameters)}")
        variables: dict[str, str] = {}
        for parameter in rule.parameters:
            if parameter.name in variables:
                raise SemanticError(f"{at}parameter {quoted(parameter.name)} of the :derived "
                                    f"rule for {quoted(rule.name)} declared twice")
            scope.check_type(parameter, at)
            variables[parameter.name] = parameter.type
        scope.check_condition(rule.condition, variables, domain.source)
    names = domain.derived_predicates
    for action in domain.actions:
        for node in changed_atoms(action.effect):
            if node.predicate in names:
                at = _where(node.location or action.location, domain.source)
                raise SemanticError(f"{at}derived predicate {quoted(node.predicate)} cannot be"
                                    f" an effect of action {quoted(action.name)}")
    stratify(domain)


def check_problem(domain: Domain, problem: Problem) -> None:
    """Raise :class:`SemanticError` if the problem does not fit the domain."""
    where = f"{problem.source}: " if problem.source else ""
    if problem.domain_name != domain.name:
        at = _where(problem.location_of("domain"), problem.source)
        read = f" read from {domain.source}" if domain.source else ""
        raise SemanticError(f"{at}the problem is for domain {quoted(problem.domain_name)}, "
                            f"but the domain{read} is {quoted(domain.name)}")
    scope = _Scope(domain)
    declared: dict[str, str] = {}
    for count, obj in enumerate(problem.objects):
        if not count & 0xFFF:
            check_reading(problem.source or "the problem")
        at = _where(problem.location_of(f"object:{obj.name}"), problem.source)
        scope.check_type(obj, at, blame_domain=True)
        known = declared.get(obj.name, scope.objects.get(obj.name))
        if known is not None and known != obj.type:
            raise SemanticError(f"{at}object {quoted(obj.name)} is declared as "
                                f"{quoted(known)} and as {quoted(obj.type)}")
        declared[obj.name] = obj.type
        scope.objects[obj.name] = obj.type
    derived = domain.derived_predicates
    for count, atom in enumerate(problem.init):
        if not count & 0xFFF:
            check_reading(problem.source or "the problem")
        scope.check_atom(atom, {}, problem.source, ground=True)
        if atom.predicate in derived:
            raise SemanticError(f"{_where(atom.location, problem.source)}derived predicate "
                                f"{quoted(atom.predicate)} cannot be in :init ({quoted(atom)})")
    for term, _ in problem.numeric_init:
        scope.check_function(term, {}, where)
    scope.check_condition(problem.goal, {}, problem.source, ground=True)
    if problem.metric is not None:
        scope.check_function(problem.metric[1], {}, where)
