"""Issue 16, case 10: IPC files that Fast Downward reads, xaip reads (or refuses clearly)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from xaip.errors import PlanFormatError, SemanticError, UnsupportedFeature
from xaip.planning import plan
from xaip.planning.grounding import ground
from xaip.planning.pddl import (
    check_problem,
    parse_domain,
    parse_problem,
    read_domain,
    read_problem,
    write_domain,
)
from xaip.planning.plans import parse_plan, validate

CASES = Path(__file__).parent / "pddl_cases"


def test_question_mark_starts_a_variable_as_in_fast_downward() -> None:
    domain = parse_domain("""(define (domain z) (:requirements :typing)
      (:types aircraft city)
      (:predicates (at?a - aircraft ?c - city) (fuel?a - aircraft))
      (:action fly :parameters (?a - aircraft?from ?to - city)
        :precondition (and (at?a ?from)(fuel?a)) :effect (and (at ?a?to) (not (at?a ?from)))))""")
    assert [p.name for p in domain.predicates] == ["at", "fuel"]
    assert [v.name for v in domain.actions[0].parameters] == ["?a", "?from", "?to"]
    assert str(domain.actions[0].effect.operands[0]) == "(at ?a ?to)"  # type: ignore[union-attr]


def either_task():  # type: ignore[no-untyped-def]
    domain = read_domain(CASES / "either_domain.pddl")
    problem = read_problem(CASES / "either_problem.pddl")
    check_problem(domain, problem)
    return domain, problem


def test_either_types_round_trip_and_plan() -> None:
    domain, problem = either_task()
    assert parse_domain(write_domain(domain)) == domain
    in_predicate = domain.predicate("in")
    assert in_predicate.parameters[0].type == "(either storearea crate)"
    result = plan(ground(domain, problem))
    assert [a.name for a in result.plan] == ["lift h0 c0 s0 t0 d0", "drop h0 c0 s1 t0 d0"]


def test_either_parameters_range_over_the_union_of_their_members() -> None:
    """Brute force: every object whose type is below a member fits, and no other."""
    domain, problem = either_task()
    below = domain.subtypes_closure()
    objects = {o.name: o.type for o in problem.objects}
    fits = sorted(name for name, kind in objects.items()
                  if kind in below["storearea"] | below["crate"])
    expected = {f"mark {x} {p}" for x, p in itertools.product(fits, ["d0"])}
    task = ground(domain, problem)
    marks = {a.name for a in task.actions if a.name.startswith("mark")}
    assert marks == expected  # every fitting object is in an (in ?x d0) fact here


def test_either_types_are_checked_in_plans_and_facts() -> None:
    domain, problem = either_task()
    with pytest.raises(PlanFormatError, match=r"'t0' is a transitarea, but \?x of 'mark' "
                       r"must be a \(either storearea crate\)"):
        validate(domain, problem, parse_plan("(mark t0 d0)"))
    bad = parse_problem((CASES / "either_problem.pddl").read_text().replace(
        "(in s0 d0)", "(in h0 d0)"))
    with pytest.raises(SemanticError, match="'h0' is a hoist"):
        check_problem(domain, bad)


def test_either_with_an_unknown_member_is_an_error() -> None:
    text = (CASES / "either_domain.pddl").read_text().replace("(either storearea crate)",
                                                              "(either storearea box)")
    with pytest.raises(SemanticError, match="unknown type 'box'"):
        parse_domain(text)


@pytest.mark.parametrize("where", ["(:objects x - (either a b))", "(:constants x - (either a b))"])
def test_objects_cannot_have_either_types(where: str) -> None:
    text = f"(define (domain e) (:types a b) {where} (:predicates (p)))"
    with pytest.raises(UnsupportedFeature, match="'either' types of (objects|constants)"):
        parse_domain(text.replace(":objects", ":constants"))


def test_derived_predicates_are_read_and_non_stratifiable_rules_refused_with_place() -> None:
    # Derived predicates are supported now (tests/planning/test_derived.py covers them end
    # to end); what is still refused is a rule set with negation through a cycle.
    text = """(define (domain d) (:requirements :strips :derived-predicates)
      (:predicates (p) (q))
      (:derived (q) (p))
      (:action a :parameters () :precondition (q) :effect (p)))"""
    assert [rule.name for rule in parse_domain(text, "d.pddl").derived] == ["q"]
    with pytest.raises(SemanticError, match=r"^d\.pddl:3:7: derived predicates are not "
                       r"stratifiable"):
        parse_domain(text.replace("(:derived (q) (p))", "(:derived (q) (not (q)))"), "d.pddl")
