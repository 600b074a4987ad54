"""Read PDDL and PPDDL domains and problems into the lifted model.

Supported: STRIPS, ``:typing`` with hierarchies and ``either`` parameter types, constants,
negative and disjunctive preconditions, ``=``, ``imply``/``exists``/``forall`` conditions,
conditional and universal effects, derived predicates (``:derived``), ``:action-costs``
(``increase`` of ``total-cost`` by a constant or a static function), PPDDL
``probabilistic`` effects, rewards (``increase``/``decrease`` of ``reward``) and
``:goal-reward``. Anything else (durative actions, ...) is refused with
:class:`~xaip.errors.UnsupportedFeature` naming the construct and where it is, so a user
never gets a silently wrong model. Input
limits (size, nesting, numbers) are in :mod:`xaip.planning.pddl.limits`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path

from xaip.errors import InputError, UnsupportedFeature
from xaip.planning.pddl.lexer import Node, SList, Source, Symbol, parse_sexpr
from xaip.planning.pddl.limits import looks_numeric, parse_number, quoted, read_input
from xaip.planning.pddl.model import (
    NO_EFFECT,
    TRUE,
    Action,
    And,
    AndEffect,
    Atom,
    Condition,
    DerivedRule,
    Domain,
    Effect,
    Exists,
    Forall,
    ForallEffect,
    Function,
    FunctionTerm,
    Imply,
    Increase,
    Location,
    Not,
    NumericExpression,
    Or,
    Predicate,
    Probabilistic,
    Problem,
    TypedName,
    When,
)
from xaip.runtime.budget import check_reading

SUPPORTED_REQUIREMENTS = frozenset({
    ":strips", ":typing", ":negative-preconditions", ":disjunctive-preconditions",
    ":equality", ":existential-preconditions", ":universal-preconditions",
    ":quantified-preconditions", ":conditional-effects", ":adl", ":action-costs",
    ":probabilistic-effects", ":rewards", ":mdp", ":fluents", ":numeric-fluents",
    ":derived-predicates",
})
UNSUPPORTED_REQUIREMENTS = {
    ":durative-actions": "durative actions",
    ":duration-inequalities": "duration inequalities",
    ":continuous-effects": "continuous effects",
    ":timed-initial-literals": "timed initial literals",
    ":preferences": "preferences",
    ":constraints": "state-trajectory constraints",
    ":non-deterministic": "non-deterministic (oneof) effects",
    ":object-fluents": "object fluents",
}
_UNSUPPORTED_EFFECTS = {
    "assign": "numeric 'assign' effects",
    "scale-up": "numeric 'scale-up' effects",
    "scale-down": "numeric 'scale-down' effects",
    "oneof": "non-deterministic 'oneof' effects",
}
_COMPARISONS = frozenset({"<", "<=", ">", ">="})


def read_domain(path: str | Path) -> Domain:
    """Read a domain file; errors name the file, line and column."""
    return parse_domain(_read_text(path), str(path))


def read_problem(path: str | Path) -> Problem:
    """Read a problem file; errors name the file, line and column."""
    return parse_problem(_read_text(path), str(path))


def _read_text(path: str | Path) -> str:
    return read_input(path, "PDDL file")


def parse_domain(text: str, file: str = "<string>") -> Domain:
    """Parse domain text and check that it is consistent (declared names, arities)."""
    from xaip.planning.pddl.checks import check_domain

    source = Source(text, file)
    reader = _Reader(source)
    domain = reader.domain(reader.select(parse_sexpr(source), "domain"))
    check_domain(domain)
    return domain


def parse_problem(text: str, file: str = "<string>") -> Problem:
    """Parse problem text. Use :func:`~xaip.planning.pddl.check_problem` against a domain."""
    source = Source(text, file)
    reader = _Reader(source)
    return reader.problem(reader.select(parse_sexpr(source), "problem"))


class _Reader:
    """Turns the s-expression tree of one file into model objects."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.locations: list[tuple[str, Location]] = []
        # kind of declaration -> name -> offset of its first declaration (duplicates refused)
        self.declared: dict[str, dict[str, int]] = {}

    # ------------------------------------------------------------------ small helpers

    def unsupported(self, node: Node, what: str) -> UnsupportedFeature:
        return UnsupportedFeature(f"{self.source.location(node.offset)}: {what} not supported")

    def list_of(self, node: Node, expected: str) -> SList:
        if not isinstance(node, SList):
            raise self.source.error(node.offset, f"expected {expected} but found"
                                                 f" {quoted(node.text)}")
        return node

    def symbol(self, node: Node, expected: str) -> str:
        if not isinstance(node, Symbol):
            raise self.source.error(node.offset, f"expected {expected} but found a list")
        return node.text

    def name(self, node: Node, expected: str) -> str:
        text = self.symbol(node, expected)
        if text.startswith(("?", ":")) or not _is_name(text):
            raise self.source.error(node.offset, f"expected {expected} but found {quoted(text)}")
        return text

    def head(self, node: SList) -> str | None:
        if node.items and isinstance(node.items[0], Symbol):
            return node.items[0].text
        return None

    def arity(self, node: SList, count: int, form: str) -> None:
        if len(node.items) != count + 1:
            raise self.source.error(
                node.offset, f"expected {form} ({count} argument{'s' * (count != 1)}), "
                f"found {len(node.items) - 1}")

    def select(self, tops: list[SList], kind: str) -> SList:
        """The ``(define (kind ...))`` among a file's top-level lists."""
        if len(tops) == 1:
            return tops[0]
        found = [top for top in tops if len(top.items) > 1 and isinstance(top.items[1], SList)
                 and self.head(top.items[1]) == kind]
        if not found:
            raise self.source.error(tops[0].offset, f"expected a '(define ({kind} NAME) ...)'")
        if len(found) > 1:
            raise self.source.error(found[1].offset, f"expected one {kind} per file, found a "
                                    f"second one")
        return found[0]

    def keyword_sections(self, root: SList, kind: str) -> tuple[str, Iterator[SList]]:
        """Check ``(define (kind name) ...)``; return the name and the remaining sections."""
        if not root.items or self.head(root) != "define":
            raise self.source.error(root.offset, "expected '(define ...'")
        if len(root.items) < 2:
            raise self.source.error(root.offset, f"expected '({kind} NAME)' after define")
        header = self.list_of(root.items[1], f"'({kind} NAME)'")
        if self.head(header) != kind or len(header.items) != 2:
            other = "problem" if kind == "domain" else "domain"
            if self.head(header) == other:
                raise InputError(
                    f"{self.source.location(header.offset)}: this is a {other} file, "
                    f"expected a {kind} file")
            raise self.source.error(header.offset, f"expected '({kind} NAME)'")
        name = self.name(header.items[1], f"a {kind} name")

        def sections() -> Iterator[SList]:
            for item in root.items[2:]:
                section = self.list_of(item, "a section such as '(:requirements ...)'")
                if self.head(section) is None or not section.items[0].text.startswith(":"):  # type: ignore[union-attr]
                    raise self.source.error(section.offset, "expected a ':keyword' section")
                yield section

        return name, sections()

    def requirements(self, section: SList) -> tuple[str, ...]:
        out = []
        for item in section.items[1:]:
            requirement = self.symbol(item, "a requirement such as ':strips'")
            if requirement in UNSUPPORTED_REQUIREMENTS:
                raise self.unsupported(item, f"requirement {requirement} "
                                       f"({UNSUPPORTED_REQUIREMENTS[requirement]})")
            if requirement not in SUPPORTED_REQUIREMENTS:
                raise self.unsupported(item, f"unknown requirement {quoted(requirement)} is")
            out.append(requirement)
        return tuple(out)

    def typed_list(
        self, items: list[Node], element: Callable[[Node], str], what: str,
        either: bool = False, record: str | None = None,
    ) -> list[TypedName]:
        """``a b - t c`` into typed names; untyped names get ``object``.

        ``either`` allows ``- (either t u)`` (parameters and variables only: an object
        belongs to one type); ``record`` names the kind of declaration whose locations are
        kept for messages (``type``, ``constant``, ``object``).
        """
        out: list[TypedName] = []
        pending: list[str] = []
        offsets: list[int] = []
        index = 0
        while index < len(items):
            item = items[index]
            if (isinstance(item, Symbol) and len(item.text) > 1
                    and item.text.startswith("-") and item.text[1].isalpha()):
                # ``?loc -zone``: the dash glued to the type (IPPC 2008's search-and-rescue
                # writes it so, and mdpsim reads it). No PDDL name starts with '-', so the
                # token can only mean ``- zone``.
                if not pending:
                    raise self.source.error(item.offset, f"expected {what} before '-'")
                type_name = self.name(Symbol(item.text[1:], item.offset + 1), "a type name")
                out.extend(TypedName(name, type_name) for name in pending)
                self.declare_all(record, pending, offsets, type_name)
                pending, offsets = [], []
                index += 1
                continue
            if isinstance(item, Symbol) and item.text == "-":
                if index + 1 >= len(items):
                    raise self.source.error(item.offset, "expected a type name after '-'")
                type_node = items[index + 1]
                if isinstance(type_node, SList):
                    if self.head(type_node) != "either":
                        raise self.source.error(type_node.offset,
                                                "expected a type name after '-'")
                    if not either:
                        raise self.unsupported(type_node, f"'either' types of {what} are")
                    type_name = self.either_type(type_node)
                else:
                    type_name = self.name(type_node, "a type name")
                if not pending:
                    raise self.source.error(item.offset, f"expected {what} before '-'")
                out.extend(TypedName(name, type_name) for name in pending)
                self.declare_all(record, pending, offsets, type_name)
                pending, offsets = [], []
                index += 2
                continue
            pending.append(element(item))
            offsets.append(item.offset)
            if not index & 0xFFF:
                check_reading(self.source.file)
            index += 1
        out.extend(TypedName(name) for name in pending)
        self.declare_all(record, pending, offsets, "object")
        return out

    def declare_all(self, record: str | None, names: list[str], offsets: list[int],
                    parent: str) -> None:
        """Remember where each of ``names`` (of type ``parent``) was declared; a second
        declaration is an error at its line:column (a dict lookup, so a problem with many
        objects stays linear). A type may be declared under several parents (multiple
        supertypes, as IPC's Storage declares ``area``); only the same parent twice is a
        duplicate."""
        if record is None:
            return
        seen = self.declared.setdefault(record, {})
        for name, offset in zip(names, offsets, strict=True):
            key = f"{name} - {parent}" if record == "type" else name
            first = seen.get(key)
            if first is not None:
                line, column = self.source.position(first)
                under = f" as a subtype of {quoted(parent)}" if record == "type" else ""
                raise self.source.error(offset, f"{record} {quoted(name)} declared twice"
                                                f"{under} (first at line {line}, column "
                                                f"{column})")
            seen[key] = offset
            self.locations.append((f"{record}:{name}", self.source.location(offset)))

    def either_type(self, node: SList) -> str:
        """``(either a b)`` as its canonical text (see :func:`~.model.either_members`)."""
        members = [self.name(item, "a type name") for item in node.items[1:]]
        if not members:
            raise self.source.error(node.offset, "expected '(either TYPE ...)' with a type")
        return "(either " + " ".join(members) + ")"

    def variable(self, node: Node) -> str:
        text = self.symbol(node, "a variable such as '?x'")
        if not text.startswith("?") or len(text) < 2 or not text.isprintable():
            raise self.source.error(node.offset,
                                    f"expected a variable such as '?x', found {quoted(text)}")
        return text

    def variables(self, node: Node) -> tuple[TypedName, ...]:
        variables = self.list_of(node, "a parameter list such as '(?x - type)'")
        return tuple(self.typed_list(variables.items, self.variable, "variables", either=True))

    def term(self, node: Node) -> str:
        if isinstance(node, SList):
            raise self.unsupported(node, "function terms as arguments are")
        text = node.text
        if text.startswith(":") or not (text.startswith("?") and text.isprintable()
                                        or _is_name(text)):
            raise self.source.error(node.offset, f"expected a variable or object, found"
                                                 f" {quoted(text)}")
        return text

    def atom(self, node: SList) -> Atom:
        predicate = self.name(node.items[0], "a predicate name") if node.items else None
        if predicate is None:
            raise self.source.error(node.offset, "expected an atom '(predicate args...)'")
        args = tuple(self.term(item) for item in node.items[1:])
        return Atom(predicate, args, self.source.location(node.offset))

    def number(self, node: Node) -> Fraction:
        text = self.symbol(node, "a number")
        try:
            return parse_number(text)
        except ValueError as error:
            if not looks_numeric(text):
                raise self.source.error(
                    node.offset, f"expected a number, found {quoted(text)}") from None
            raise self.source.error(
                node.offset, f"number {quoted(text)} {error}") from None

    def function_term(self, node: Node) -> FunctionTerm:
        if isinstance(node, Symbol) and _is_name(node.text) and not _is_number(node.text):
            # IPPC files write ``(decrease reward 10)``: a 0-ary fluent without parentheses.
            return FunctionTerm(node.text)
        term = self.list_of(node, "a function term such as '(total-cost)'")
        if not term.items:
            raise self.source.error(term.offset, "expected a function term such as '(total-cost)'")
        name = self.name(term.items[0], "a function name")
        if name in ("+", "-", "*", "/"):
            raise self.unsupported(term, "arithmetic expressions are")
        return FunctionTerm(name, tuple(self.term(item) for item in term.items[1:]))

    # ------------------------------------------------------------------ conditions

    def condition(self, node: Node) -> Condition:
        expr = self.list_of(node, "a condition '(...)'")
        if not expr.items:
            return TRUE
        head = self.head(expr)
        loc = self.source.location(expr.offset)
        if head == "and":
            return And(tuple(self.condition(item) for item in expr.items[1:]), loc)
        if head == "or":
            return Or(tuple(self.condition(item) for item in expr.items[1:]), loc)
        if head == "not":
            self.arity(expr, 1, "'(not CONDITION)'")
            return Not(self.condition(expr.items[1]), loc)
        if head == "imply":
            self.arity(expr, 2, "'(imply CONDITION CONDITION)'")
            return Imply(self.condition(expr.items[1]), self.condition(expr.items[2]), loc)
        if head in ("exists", "forall"):
            self.arity(expr, 2, f"'({head} (VARIABLES) CONDITION)'")
            variables = self.variables(expr.items[1])
            body = self.condition(expr.items[2])
            return (Exists if head == "exists" else Forall)(variables, body, loc)
        if head in _COMPARISONS:
            raise self.unsupported(expr, f"numeric comparison {quoted(head)} is")
        if head == "=" and any(isinstance(item, SList) for item in expr.items[1:]):
            raise self.unsupported(expr, "numeric comparison '=' is")
        if head in ("at", "over") and len(expr.items) > 1 and isinstance(expr.items[1], Symbol) \
                and expr.items[1].text in ("start", "end", "all"):
            raise self.unsupported(expr, "temporal conditions are")
        if head == "preference":
            raise self.unsupported(expr, "preferences are")
        return self.atom(expr)

    # ------------------------------------------------------------------ effects

    def effect(self, node: Node) -> Effect:
        if isinstance(node, Symbol) and _is_name(node.text) and not _is_number(node.text):
            # IPPC files write a 0-ary atom without parentheses (``dead``); unambiguous.
            return Atom(node.text, (), self.source.location(node.offset))
        expr = self.list_of(node, "an effect '(...)'")
        if not expr.items:
            return NO_EFFECT
        head = self.head(expr)
        loc = self.source.location(expr.offset)
        if head == "and":
            return AndEffect(tuple(self.effect(item) for item in expr.items[1:]), loc)
        if head == "not":
            self.arity(expr, 1, "'(not ATOM)'")
            inner = self.list_of(expr.items[1], "an atom to delete")
            if self.head(inner) in ("and", "or", "not", "when", "forall", "exists"):
                raise self.source.error(inner.offset, "expected an atom after 'not' in an effect")
            return Not(self.atom(inner), loc)
        if head == "when":
            self.arity(expr, 2, "'(when CONDITION EFFECT)'")
            return When(self.condition(expr.items[1]), self.effect(expr.items[2]), loc)
        if head == "forall":
            self.arity(expr, 2, "'(forall (VARIABLES) EFFECT)'")
            return ForallEffect(self.variables(expr.items[1]), self.effect(expr.items[2]), loc)
        if head in ("increase", "decrease"):
            self.arity(expr, 2, f"'({head} (FUNCTION) VALUE)'")
            fluent = self.function_term(expr.items[1])
            value: NumericExpression
            if isinstance(expr.items[2], SList):
                if head == "decrease":
                    raise self.unsupported(expr, "'decrease' by a function value is")
                value = self.function_term(expr.items[2])
            else:
                value = self.number(expr.items[2])
                if head == "decrease":
                    value = -value
            return Increase(fluent, value, loc)
        if head == "probabilistic":
            return self.probabilistic(expr)
        if head in _UNSUPPORTED_EFFECTS:
            raise self.unsupported(expr, _UNSUPPORTED_EFFECTS[head])
        if head in ("or", "exists", "imply"):
            raise self.source.error(expr.offset, f"expected an effect, found a {quoted(head)}"
                                                 f" condition")
        return self.atom(expr)

    def probabilistic(self, expr: SList) -> Probabilistic:
        items = expr.items[1:]
        if not items or len(items) % 2:
            raise self.source.error(
                expr.offset, "expected '(probabilistic p1 EFFECT1 ... pn EFFECTn)'")
        outcomes = []
        total = Fraction(0)
        for index in range(0, len(items), 2):
            probability = self.number(items[index])
            if probability < 0:
                raise self.source.error(items[index].offset, "expected a probability in [0, 1]")
            total += probability
            outcomes.append((probability, self.effect(items[index + 1])))
        if total > 1:
            raise self.source.error(
                expr.offset, f"expected probabilities that sum to at most 1, found {total}")
        return Probabilistic(tuple(outcomes), self.source.location(expr.offset))

    # ------------------------------------------------------------------ domain

    def domain(self, root: SList) -> Domain:
        name, sections = self.keyword_sections(root, "domain")
        requirements: tuple[str, ...] = ()
        types: list[tuple[str, str]] = []
        constants: list[TypedName] = []
        predicates: list[Predicate] = []
        functions: list[Function] = []
        actions: list[Action] = []
        derived: list[DerivedRule] = []
        for section in sections:
            keyword = self.head(section)
            if keyword == ":requirements":
                requirements += self.requirements(section)
            elif keyword == ":types":
                types.extend(
                    (t.name, t.type) for t in
                    self.typed_list(section.items[1:], lambda n: self.name(n, "a type name"),
                                    "type names", record="type"))
            elif keyword == ":constants":
                constants.extend(self.typed_list(
                    section.items[1:], lambda n: self.name(n, "a constant name"), "constants",
                    record="constant"))
            elif keyword == ":predicates":
                for item in section.items[1:]:
                    skeleton = self.list_of(item, "a predicate '(name ?x - type ...)'")
                    if not skeleton.items:
                        raise self.source.error(skeleton.offset, "expected a predicate name")
                    predicates.append(Predicate(
                        self.name(skeleton.items[0], "a predicate name"),
                        tuple(self.typed_list(skeleton.items[1:], self.variable, "variables",
                                              either=True)),
                        self.source.location(skeleton.offset)))
            elif keyword == ":functions":
                functions.extend(self.functions(section))
            elif keyword == ":action":
                actions.append(self.action(section))
            elif keyword == ":derived":
                derived.append(self.derived(section))
            elif keyword in (":durative-action", ":constraints", ":process", ":event"):
                raise self.unsupported(section, f"{quoted(keyword)} is")
            else:
                raise self.source.error(
                    section.offset,
                    f"expected one of :requirements, :types, :constants, :predicates, "
                    f":functions, :action, :derived; found {quoted(keyword)}")
        return Domain(name, requirements, tuple(types), tuple(constants), tuple(predicates),
                      tuple(functions), tuple(actions), self.source.file,
                      tuple(self.locations), tuple(derived))

    def derived(self, section: SList) -> DerivedRule:
        """``(:derived (name ?x - t ...) CONDITION)``."""
        self.arity(section, 2, "'(:derived (PREDICATE ?x - type ...) CONDITION)'")
        head = self.list_of(section.items[1], "a head '(predicate ?x - type ...)'")
        if not head.items:
            raise self.source.error(head.offset, "expected a derived predicate name")
        parameters = self.typed_list(head.items[1:], self.variable, "variables", either=True)
        return DerivedRule(self.name(head.items[0], "a predicate name"), tuple(parameters),
                           self.condition(section.items[2]),
                           self.source.location(section.offset))

    def functions(self, section: SList) -> list[Function]:
        out: list[Function] = []
        pending: list[tuple[str, tuple[TypedName, ...], SList]] = []
        items = section.items[1:]
        index = 0
        while index < len(items):
            item = items[index]
            if isinstance(item, Symbol) and item.text == "-":
                if index + 1 >= len(items) or not pending:
                    raise self.source.error(item.offset, "expected '(f ...) - number'")
                kind = self.name(items[index + 1], "a function type such as 'number'")
                if kind != "number":
                    raise self.unsupported(items[index + 1], f"function type {quoted(kind)} is")
                out.extend(Function(n, p, kind, self.source.location(s.offset))
                           for n, p, s in pending)
                pending = []
                index += 2
                continue
            skeleton = self.list_of(item, "a function '(name ?x - type ...)'")
            if not skeleton.items:
                raise self.source.error(skeleton.offset, "expected a function name")
            pending.append((self.name(skeleton.items[0], "a function name"),
                            tuple(self.typed_list(skeleton.items[1:], self.variable,
                                                  "variables", either=True)), skeleton))
            index += 1
        out.extend(Function(n, p, "number", self.source.location(s.offset)) for n, p, s in pending)
        return out

    def action(self, section: SList) -> Action:
        if len(section.items) < 2:
            raise self.source.error(section.offset, "expected an action name after ':action'")
        name = self.name(section.items[1], "an action name")
        parameters: tuple[TypedName, ...] = ()
        precondition: Condition = TRUE
        effect: Effect = NO_EFFECT
        items = section.items[2:]
        seen: set[str] = set()
        for index in range(0, len(items), 2):
            key = self.symbol(items[index], "':parameters', ':precondition' or ':effect'")
            if key not in (":parameters", ":precondition", ":effect"):
                raise self.source.error(
                    items[index].offset,
                    f"expected ':parameters', ':precondition' or ':effect', found {quoted(key)}")
            if key in seen:
                raise self.source.error(items[index].offset, f"{quoted(key)} given twice")
            seen.add(key)
            if index + 1 >= len(items):
                raise self.source.error(items[index].offset, f"expected a value after"
                                                             f" {quoted(key)}")
            value = items[index + 1]
            if key == ":parameters":
                parameters = self.variables(value)
            elif key == ":precondition":
                precondition = self.condition(value)
            else:
                effect = self.effect(value)
        return Action(name, parameters, precondition, effect,
                      self.source.location(section.offset))

    # ------------------------------------------------------------------ problem

    def problem(self, root: SList) -> Problem:
        name, sections = self.keyword_sections(root, "problem")
        domain_name: str | None = None
        requirements: tuple[str, ...] = ()
        objects: list[TypedName] = []
        init: list[Atom] = []
        numeric: list[tuple[FunctionTerm, Fraction]] = []
        goal: Condition | None = None
        metric: tuple[str, FunctionTerm] | None = None
        goal_reward: Fraction | None = None
        for section in sections:
            keyword = self.head(section)
            if keyword == ":domain":
                self.arity(section, 1, "'(:domain NAME)'")
                domain_name = self.name(section.items[1], "a domain name")
                self.locations.append(("domain", self.source.location(section.items[1].offset)))
            elif keyword == ":requirements":
                requirements += self.requirements(section)
            elif keyword == ":objects":
                objects.extend(self.typed_list(
                    section.items[1:], lambda n: self.name(n, "an object name"), "objects",
                    record="object"))
            elif keyword == ":init":
                for count, item in enumerate(section.items[1:]):
                    if not count & 0xFFF:
                        check_reading(self.source.file)
                    fact = self.list_of(item, "an initial fact '(predicate objects...)'")
                    head = self.head(fact)
                    if head == "=" and len(fact.items) == 3 and isinstance(fact.items[1], SList):
                        numeric.append((self.function_term(fact.items[1]),
                                        self.number(fact.items[2])))
                    elif head in ("not", "and", "or", "probabilistic", "forall"):
                        raise self.unsupported(fact, f"{quoted(head)} in the initial state is")
                    elif head == "at" and len(fact.items) == 3 and isinstance(
                            fact.items[1], Symbol) and _is_number(fact.items[1].text):
                        raise self.unsupported(fact, "timed initial literals are")
                    else:
                        init.append(self.atom(fact))
            elif keyword == ":goal":
                self.arity(section, 1, "'(:goal CONDITION)'")
                goal = self.condition(section.items[1])
            elif keyword == ":metric":
                self.arity(section, 2, "'(:metric minimize|maximize (FUNCTION))'")
                direction = self.symbol(section.items[1], "'minimize' or 'maximize'")
                if direction not in ("minimize", "maximize"):
                    raise self.source.error(section.items[1].offset,
                                            f"expected 'minimize' or 'maximize', found "
                                            f"{quoted(direction)}")
                metric = (direction, self.function_term(section.items[2]))
            elif keyword == ":goal-reward":
                self.arity(section, 1, "'(:goal-reward NUMBER)'")
                goal_reward = self.number(section.items[1])
            elif keyword in (":constraints", ":horizon", ":discount"):
                raise self.unsupported(section, f"{quoted(keyword)} is")
            else:
                raise self.source.error(
                    section.offset,
                    f"expected one of :domain, :requirements, :objects, :init, :goal, "
                    f":metric, :goal-reward; found {quoted(keyword)}")
        if domain_name is None:
            raise self.source.error(root.offset, "expected a '(:domain NAME)' section")
        if goal is None:
            raise self.source.error(root.offset, "expected a '(:goal CONDITION)' section")
        return Problem(name, domain_name, requirements, tuple(objects), tuple(init),
                       tuple(numeric), goal, metric, goal_reward, self.source.file,
                       tuple(self.locations))


def _is_number(text: str) -> bool:
    """Written as a number (syntax only: the value is checked, with its bounds, later)."""
    return looks_numeric(text)


def _is_name(text: str) -> bool:
    """PDDL names start with a letter (we also accept digits and '_', as planners do)."""
    return bool(text) and (text[0].isalnum() or text[0] in "_=-+*/<>") and "(" not in text \
        and text.isprintable()
