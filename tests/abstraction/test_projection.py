"""The projection operator f_P(M): a valid PDDL model, complete (every plan of M stays a
plan), negation normal form for richer conditions, and one-line refusals."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from xaip.abstraction.bundled import bundled_task
from xaip.abstraction.projection import check_hideable, project, relevant
from xaip.errors import InputError
from xaip.planning.grounding import ground
from xaip.planning.pddl import check_problem, parse_domain, parse_problem, write_domain
from xaip.planning.pddl.model import TRUE, Atom, Not
from xaip.planning.pddl.writer import write_problem
from xaip.planning.plans import parse_plan, validate

PREDICATES = ("on", "ontable", "clear", "handempty", "holding")


def test_projection_is_a_valid_pddl_model_without_the_hidden_predicates() -> None:
    domain, problem, _ = bundled_task()
    for k in range(len(PREDICATES) + 1):
        for hidden in itertools.combinations(PREDICATES, k):
            d, p = project(domain, problem, hidden)
            text_d, text_p = write_domain(d), write_problem(p)
            again_d, again_p = parse_domain(text_d), parse_problem(text_p)
            check_problem(again_d, again_p)
            for name in hidden:
                assert not re.search(rf"\({name}[\s)]", text_d)
                assert not re.search(rf"\({name}[\s)]", text_p)
            assert len(again_d.actions) == len(domain.actions)


def test_every_plan_of_the_robot_stays_a_plan_of_every_projection() -> None:
    """Book §5.6 test: f_P(M) admits every plan valid in M (random walks to the goal)."""
    domain, problem, _ = bundled_task()
    task = ground(domain, problem)
    rng = random.Random(5)
    plans = 0
    for _ in range(400):
        state, walk = task.init, []
        for _ in range(rng.randint(0, 10)):
            options = list(task.applicable(state))
            action = rng.choice(options)
            state, walk = action.apply(state), walk + [action]
            if task.is_goal(state):
                break
        steps = parse_plan("".join(f"{a}\n" for a in walk))
        concrete = validate(domain, problem, steps)
        if not concrete.valid:
            continue
        plans += 1
        hidden = rng.sample(PREDICATES, rng.randint(0, len(PREDICATES)))
        abstract = validate(*project(domain, problem, hidden), steps)
        assert abstract.valid and abstract.cost == concrete.cost
    assert plans > 5


def test_hiding_every_predicate_gives_the_empty_model() -> None:
    """P = F: the person knows nothing, so every sequence of actions is a plan."""
    domain, problem, _ = bundled_task()
    d, p = project(domain, problem, PREDICATES)
    assert not d.predicates and not p.init and p.goal == TRUE
    assert validate(d, p, ()).valid
    assert validate(d, p, parse_plan("(stack a a)\n(unstack b c)\n")).valid


RICH = """(define (domain rich) (:requirements :adl)
 (:predicates (p) (q) (r ?x) (s))
 (:action go :parameters (?x)
   :precondition (and (not (and (p) (q))) (or (q) (s)) (imply (s) (r ?x))
                      (forall (?y) (r ?y)) (not (p)))
   :effect (and (p) (not (q)) (when (s) (r ?x)))))"""
RICH_PROBLEM = """(define (problem r) (:domain rich) (:objects a b) (:init (q))
 (:goal (and (p) (not (q)))))"""


def test_richer_conditions_are_projected_in_negation_normal_form() -> None:
    domain, problem = parse_domain(RICH), parse_problem(RICH_PROBLEM)
    d, p = project(domain, problem, ["p", "r"])
    pre = d.actions[0].precondition
    # (not (and p q)) -> (or (not p) (not q)) -> true; (or q s) kept; (imply s (r ?x))
    # -> (or (not s) true) -> true; (forall (?y) (r ?y)) -> true; (not (p)) -> true
    assert "(or (q) (s))" in write_domain(d)
    assert "(p)" not in write_domain(d).split(":precondition", 1)[1].split(":effect")[0]
    assert p.goal == Not(Atom("q")) or "(not (q))" in write_problem(p)
    assert pre != TRUE
    check_problem(parse_domain(write_domain(d)), parse_problem(write_problem(p)))


@pytest.mark.parametrize(("hide", "message"), [
    (["nope"], "declares no such predicate"),
    (["="], "equality"),
    (["s"], "conditional effect of action go depends on it"),
])
def test_refusals_are_one_line(hide: list[str], message: str) -> None:
    domain, problem = parse_domain(RICH), parse_problem(RICH_PROBLEM)
    with pytest.raises(InputError, match=message) as caught:
        check_hideable(domain, problem, hide)
    assert "\n" not in str(caught.value)


def test_derived_predicates_and_their_sources_cannot_be_hidden() -> None:
    domain = parse_domain("""(define (domain d) (:requirements :strips :derived-predicates)
     (:predicates (a) (b) (c)) (:derived (c) (a))
     (:action x :parameters () :precondition (c) :effect (b)))""")
    problem = parse_problem("(define (problem p) (:domain d) (:init (a)) (:goal (b)))")
    with pytest.raises(InputError, match="derived predicate"):
        check_hideable(domain, problem, ["c"])
    with pytest.raises(InputError, match="defined from it"):
        check_hideable(domain, problem, ["a"])
    assert check_hideable(domain, problem, ["b", "b"]) == ("b",)


def test_only_predicates_the_foil_steps_or_goal_read_are_relevant() -> None:
    domain, problem, _ = bundled_task()
    assert relevant(domain, problem, {"put-down"}, PREDICATES) == ("on", "holding")
    assert relevant(domain, problem, {"stack"}, ("handempty", "clear")) == ("clear",)
