"""Issue 9: one visitor and one printer for the PDDL syntax tree."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import xaip
from xaip.errors import InputError
from xaip.planning.features.sentences import format_condition, format_effect
from xaip.planning.pddl import (
    Visitor,
    children,
    effect_text,
    parse_domain,
    print_condition,
    print_effect,
    read_domain,
    read_problem,
    walk,
)
from xaip.planning.pddl.lexer import Source, parse_sexpr
from xaip.planning.pddl.model import (
    And,
    AndEffect,
    Atom,
    ForallEffect,
    FunctionTerm,
    Increase,
    Not,
    Or,
    Probabilistic,
    TypedName,
    When,
)
from xaip.planning.pddl.reader import _Reader

BUNDLED = sorted(Path(xaip.__file__).parent.glob("domains/**/*.pddl"))
CASES = sorted((Path(__file__).parent / "pddl_cases").glob("*.pddl"))
IPPC = sorted(Path("/work/shared/data/ippc").glob("**/*.pddl"))[:40]


def _parts(path: Path) -> list[tuple[str, object]]:
    """Every precondition, effect and goal of a PDDL file, with its kind."""
    text = path.read_text()
    try:
        if "(:action" in text.replace("( :", "(:"):
            domain = read_domain(path)
            return [part for a in domain.actions
                    for part in (("condition", a.precondition), ("effect", a.effect))]
        return [("condition", read_problem(path).goal)]
    except InputError:  # an IPPC file holding both, or an unsupported feature
        return []


@pytest.mark.parametrize("path", BUNDLED + CASES + IPPC, ids=lambda p: p.name)
def test_printed_trees_read_back_equal(path: Path) -> None:
    for kind, node in _parts(path):
        text = print_condition(node)  # type: ignore[arg-type]
        source = Source(text, "<printed>")
        (tree,) = parse_sexpr(source)
        reader = _Reader(source)
        assert (reader.condition(tree) if kind == "condition" else reader.effect(tree)) == node


def test_writer_and_sentences_share_the_printer() -> None:
    effect = AndEffect((Atom("p", ("?x",)), Not(Atom("q")),
                        Increase(FunctionTerm("reward"), Fraction(-5)),
                        Probabilistic(((Fraction(1, 3), Atom("r")),))))
    assert format_effect(effect) == effect_text(effect) == print_effect(effect) == (
        "(and (p ?x) (not (q)) (decrease (reward) 5) (probabilistic 1/3 (r)))")
    condition = Or((Atom("p"), And(())))
    assert format_condition(condition) == print_condition(condition) == "(or (p) ())"


def test_printer_and_walk_do_not_recurse() -> None:
    deep: object = Atom("q")
    for _ in range(50_000):  # far deeper than the reader allows or Python could recurse
        deep = Not(deep)  # type: ignore[arg-type]
    text = print_condition(deep)  # type: ignore[arg-type]
    assert text.startswith("(not (not ") and text.count("(q)") == 1
    assert sum(1 for _ in walk(deep)) == 50_001  # type: ignore[arg-type]


def test_walk_is_pre_order_in_source_order() -> None:
    effect = ForallEffect((TypedName("?x", "t"),), AndEffect((
        When(Atom("c"), Atom("a")), Not(Atom("d")))))
    kinds = [type(n).__name__ + (f":{n.predicate}" if isinstance(n, Atom) else "")
             for n in walk(effect)]
    assert kinds == ["ForallEffect", "AndEffect", "When", "Atom:c", "Atom:a", "Not", "Atom:d"]
    assert children(Atom("x")) == ()
    with pytest.raises(TypeError, match="int"):
        children(3)  # type: ignore[arg-type]


def test_visitor_dispatches_on_class_name_and_names_missing_cases() -> None:
    class Count(Visitor[int]):
        def visit_Atom(self, node: Atom) -> int:
            return 1

        def visit_And(self, node: And) -> int:
            return sum(self.visit(c) for c in node.operands)

    assert Count().visit(And((Atom("a"), And((Atom("b"), Atom("c")))))) == 3
    with pytest.raises(TypeError, match="Count cannot handle Or"):
        Count().visit(Or(()))


def test_either_types_print_back() -> None:
    domain = parse_domain("""(define (domain e) (:types a b)
      (:predicates (p ?x - (either a b)))
      (:action go :parameters (?x - (either a b)) :precondition (p ?x)
        :effect (forall (?y - (either b a)) (not (p ?y)))))""")
    assert print_effect(domain.actions[0].effect) == "(forall (?y - (either b a)) (not (p ?y)))"
