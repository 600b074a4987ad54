"""U07: the lattice of abstractions and locating the person in it by queries."""

from __future__ import annotations

import dataclasses
import io
import math

import pytest

from xaip.abstraction.bundled import HIDDEN, bundled_task
from xaip.abstraction.check_localise import check_localisation
from xaip.abstraction.lattice import parse_levels, subset_lattice
from xaip.abstraction.localise import localise, simulated_person, terminal_person
from xaip.errors import InputError
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.render import render
from xaip.runtime import Budget, Status


def test_every_level_of_the_bundled_lattice_is_located_in_log2_queries() -> None:
    domain, problem, _ = bundled_task()
    hideable = (*HIDDEN, "ontable")
    lattice = subset_lattice(hideable)
    assert len(lattice) == 16
    for level in lattice:
        result = localise(domain, problem, simulated_person(domain, problem, level),
                          hideable=hideable, truth=level)
        assert result.candidates == (level,) and result.exact and result.verified
        assert result.status == Status.FOUND
        assert len(result.queries) == result.lower_bound == math.ceil(math.log2(16))
    assert "found." in render(result)


def test_indistinguishable_levels_are_reported_together_and_proved() -> None:
    """(spare) is read by no action and no goal: hiding it changes no plan."""
    domain = parse_domain("""(define (domain d) (:requirements :strips)
      (:predicates (key) (door) (inside) (spare))
      (:action open :parameters () :precondition (key) :effect (door))
      (:action take :parameters () :precondition () :effect (and (key) (spare)))
      (:action enter :parameters () :precondition (door) :effect (inside)))""")
    problem = parse_problem("(define (problem p) (:domain d) (:init) (:goal (inside)))")
    truth = frozenset({"key"})
    result = localise(domain, problem, simulated_person(domain, problem, truth),
                      hideable=("key", "door", "spare"), truth=truth)
    assert set(result.candidates) == {frozenset({"key"}), frozenset({"key", "spare"})}
    assert result.exact and result.verified and result.status == Status.FOUND
    assert "proved to admit the same plans" in result.check.details  # type: ignore[union-attr]
    assert "same model for every plan" in render(result)


def test_any_answers_end_at_one_level() -> None:
    """Each query splits the levels left into two non-empty parts, so whatever the person
    answers, some level agrees with her (a careless answer can only mislead, not empty it)."""
    domain, problem, _ = bundled_task()
    for bits in range(8):
        answers = iter([bool(bits & 1), bool(bits & 2), bool(bits & 4)])
        result = localise(domain, problem, lambda plan, a=answers: next(a), hideable=HIDDEN)
        assert len(result.candidates) == 1 and result.verified


def test_a_levels_file_gives_the_lattice() -> None:
    domain, problem, _ = bundled_task()
    names, levels = parse_levels("; novice, operator, engineer\nclear handempty holding\n"
                                 "clear, holding\n-\n")
    assert names == ("clear", "handempty", "holding") and len(levels) == 3
    truth = frozenset({"clear", "holding"})
    result = localise(domain, problem, simulated_person(domain, problem, truth),
                      levels=levels, truth=truth)
    assert result.candidates == (truth,) and result.verified and len(result.queries) <= 2


@pytest.mark.parametrize(("text", "message"), [
    ("", "no levels"),
    ("clear\nclear\n", "same level as line 1"),
    ("cl@ar\n", "not a predicate name"),
])
def test_bad_levels_files(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_levels(text)


def test_bad_lattices() -> None:
    domain, problem, _ = bundled_task()
    person = simulated_person(domain, problem, frozenset())
    with pytest.raises(InputError, match="at most 10"):
        subset_lattice([f"p{i}" for i in range(11)])
    with pytest.raises(InputError, match="not a level of the lattice"):
        localise(domain, problem, person, hideable=("clear",), truth=frozenset({"holding"}))
    with pytest.raises(InputError, match="no such predicate"):
        localise(domain, problem, person, hideable=("clean",))
    with pytest.raises(InputError, match="distinct"):
        localise(domain, problem, person, levels=[frozenset(), frozenset()])


def test_the_terminal_person_reads_answers() -> None:
    domain, problem, _ = bundled_task()
    out = io.StringIO()
    person = terminal_person(io.StringIO("maybe\ny\nn\nn\n"), out)
    result = localise(domain, problem, person, hideable=HIDDEN)
    assert result.candidates == (frozenset({"clear"}),) and result.verified
    assert "please answer y or n" in out.getvalue() and "1. (pick-up a)" in out.getvalue()
    with pytest.raises(InputError, match="answers ended"):
        localise(domain, problem, terminal_person(io.StringIO("y\n"), out), hideable=HIDDEN)


def test_budget_and_the_checker_catching_wrong_answers() -> None:
    domain, problem, _ = bundled_task()
    truth = frozenset({"clear"})
    person = simulated_person(domain, problem, truth)
    short = localise(domain, problem, person, hideable=HIDDEN, budget=Budget(max_nodes=3))
    assert short.status == Status.BUDGET_EXHAUSTED and not short.verified
    good = localise(domain, problem, person, hideable=HIDDEN, truth=truth, check=False)
    assert check_localisation(domain, problem, good).ok is True
    first = good.queries[0]
    wrong = [
        dataclasses.replace(good, candidates=(frozenset({"holding"}),)),
        dataclasses.replace(good, queries=(dataclasses.replace(first, after=3),
                                           *good.queries[1:])),
        dataclasses.replace(good, truth=frozenset({"holding"})),
        dataclasses.replace(good, candidates=(truth, frozenset({"clear", "holding"}))),
        dataclasses.replace(good, queries=(), candidates=good.levels),  # "exact": it is not
    ]
    for result in wrong:
        assert check_localisation(domain, problem, result).ok is False
