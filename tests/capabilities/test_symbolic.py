"""The AIA setting: the learned action model equals the hidden one, with fewer queries than
AIA reports (blocksworld 48, gripper 17, logistics 68)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from xaip.capabilities.checks import compare_models
from xaip.capabilities.symbolic import (
    SymbolicAgent,
    action_atoms,
    learn_model,
    read_agent,
)
from xaip.domains import generators
from xaip.errors import UnsupportedFeature
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.pddl.model import Atom

MRP = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp"


def _learn(domain_text: str, problem_text: str) -> tuple[int, list[str]]:
    domain = parse_domain(domain_text)
    agent = SymbolicAgent(domain, parse_problem(problem_text))
    learned = learn_model(agent)
    assert learned.queries == agent.queries
    return learned.queries, compare_models(domain, learned.domain).differences


@pytest.mark.parametrize(("name", "make", "aia"), [
    ("blocksworld", lambda: generators.blocksworld(4, 1), 48),
    ("gripper", lambda: generators.gripper(3), 17),
    ("logistics", lambda: generators.logistics(2, 2, 0), 68),
])
def test_generated_domains_are_learned_exactly(name: str, make: object, aia: int) -> None:
    queries, differences = _learn(*make())  # type: ignore[operator]
    assert differences == []
    assert queries < aia


def _mrp_pairs() -> list[tuple[str, str]]:
    pairs = []
    for folder in ("blocksworld", "logistics", "rover"):
        for domain in sorted((MRP / folder).glob("*domain*.pddl")):
            pairs.append((str(domain), str(MRP / folder / "prob1.pddl")))
    for domain, problem in (("fetchworld-base-m", "problem1"),
                            ("fetchworld-charge-sm-m", "problem1"),
                            ("fetchworld-base-duck", "problem_crouch"),
                            ("fetchworld-duck-tuck", "problem_crouch")):
        pairs.append((str(MRP / "fetch" / f"{domain}.pddl"),
                      str(MRP / "fetch" / f"{problem}.pddl")))
    for domain in ("domain_robot.pddl", "domain_human.pddl"):
        pairs.append((str(MRP / "radar" / domain), str(MRP / "radar" / "problem.pddl")))
    return pairs


@pytest.mark.skipif(not MRP.exists(), reason="shared MRP data not available")
@pytest.mark.parametrize(("domain", "problem"), _mrp_pairs(),
                         ids=lambda p: Path(p).parent.name + "/" + Path(p).name)
def test_mrp_domains_are_learned_exactly(domain: str, problem: str) -> None:
    agent = read_agent(domain, problem)
    learned = learn_model(agent)
    from xaip.planning.pddl import read_domain

    assert compare_models(read_domain(domain), learned.domain).differences == []
    # the learned PDDL reads back and compares equal again
    again = parse_domain(learned.pddl)
    assert compare_models(read_domain(domain), again).equal


NEGATIVE = """
(define (domain lamps)
  (:requirements :strips :typing :negative-preconditions)
  (:types lamp room)
  (:constants hall - room)
  (:predicates (on ?l - lamp) (broken ?l - lamp) (in ?l - lamp ?r - room) (dark ?r - room))
  (:action switch-on
    :parameters (?l - lamp ?r - room)
    :precondition (and (not (on ?l)) (not (broken ?l)) (in ?l ?r) (dark ?r))
    :effect (and (on ?l) (not (dark ?r))))
  (:action smash
    :parameters (?l - lamp)
    :precondition (and (on ?l) (not (broken ?l)) (dark hall))
    :effect (and (broken ?l) (not (on ?l)))))
"""
NEGATIVE_PROBLEM = """
(define (problem p) (:domain lamps)
  (:objects l1 l2 - lamp kitchen - room)
  (:init (in l1 kitchen) (dark kitchen) (dark hall))
  (:goal (on l1)))
"""


def test_negative_preconditions_mixed_with_positive_and_constants() -> None:
    queries, differences = _learn(NEGATIVE, NEGATIVE_PROBLEM)
    assert differences == []
    assert queries < 30


def test_agent_answers_plan_outcome_queries() -> None:
    agent = SymbolicAgent(parse_domain(NEGATIVE), parse_problem(NEGATIVE_PROBLEM))
    outcome = agent.execute(agent.init, [("switch-on", ("l1", "kitchen")),
                                         ("switch-on", ("l1", "kitchen"))])
    assert outcome.executed == 1  # the lamp is on: the second switch-on fails
    assert Atom("on", ("l1",)) in outcome.states[1]
    assert agent.execute(agent.init, [("smash", ("kitchen",))]).executed == 0  # wrong type
    assert agent.queries == 2


def test_pal_atoms_match_aia_counts() -> None:
    """AIA's PAL tuples for blocksworld: 52 = 2 x (4 + 4 + 9 + 9) atoms."""
    domain = parse_domain(generators.blocksworld(3, 0)[0])
    below = domain.subtypes_closure()
    sizes = [len(action_atoms(domain.predicates, a.parameters, domain.constants, below))
             for a in domain.actions]
    assert 2 * sum(sizes) == 52


def test_learning_is_checked_against_brute_force_on_a_tiny_domain() -> None:
    """Every (state, action) of a tiny instance: the learned model predicts exactly what
    the hidden agent does."""
    domain = parse_domain(NEGATIVE)
    problem = parse_problem(NEGATIVE_PROBLEM)
    agent = SymbolicAgent(domain, problem)
    learned = learn_model(agent)
    mirror = SymbolicAgent(learned.domain, problem)
    atoms = [Atom("on", ("l1",)), Atom("broken", ("l1",)), Atom("in", ("l1", "kitchen")),
             Atom("dark", ("kitchen",)), Atom("dark", ("hall",))]
    steps = [("switch-on", ("l1", "kitchen")), ("smash", ("l1",))]
    for bits in itertools.product((False, True), repeat=len(atoms)):
        state = frozenset(a for a, b in zip(atoms, bits, strict=True) if b)
        for step in steps:
            assert agent.execute(state, [step]) == mirror.execute(state, [step])


def test_unsupported_models_are_rejected() -> None:
    text = NEGATIVE.replace("(and (on ?l) (not (broken ?l)) (dark hall))",
                            "(or (on ?l) (dark hall))")
    with pytest.raises(UnsupportedFeature):
        SymbolicAgent(parse_domain(text), parse_problem(NEGATIVE_PROBLEM))


def test_an_add_that_re_asserts_a_precondition_is_learned_when_a_delete_can_alias_it() -> None:
    """Found by tests/differential/capabilities.py (seed 11): with distinct objects
    ``pre (p3 ?y), add (p3 ?y)`` looks like no effect, but ``a0(o0, o0)`` deletes (p3 o0)
    and adds it back (the add wins); the learner dropped the add and the checker, which
    dropped it on both sides, verified the wrong model."""
    from xaip.capabilities import LearningInputs, SymbolicAgent, check, learn_model
    from xaip.planning.pddl import parse_domain, parse_problem
    from xaip.planning.pddl.model import Atom

    domain = parse_domain(
        "(define (domain hidden) (:requirements :strips :negative-preconditions)"
        " (:predicates (p1) (p3 ?v0))"
        " (:action a0 :parameters (?x ?y) :precondition (and (p3 ?x) (not (p1)) (p3 ?y))"
        "  :effect (and (not (p3 ?x)) (p1) (p3 ?y))))")
    problem = parse_problem("(define (problem h) (:domain hidden) (:objects o0 o1)"
                            " (:init (p3 o0)) (:goal (p1)))")
    agent = SymbolicAgent(domain, problem)
    learned = learn_model(agent)
    effects = {str(e) for e in learned.domain.actions[0].effect.operands}
    assert "(p3 ?y)" in effects, effects
    # the hidden agent keeps (p3 o0) under a0(o0, o0): the add wins over the delete
    outcome = agent.execute(frozenset({Atom("p3", ("o0",))}), [("a0", ("o0", "o0"))])
    assert Atom("p3", ("o0",)) in outcome.states[1]
    assert check(LearningInputs(domain, problem), learned).ok is True
