"""Fuzz every reader: only xaip's own errors (InputError and its kind) may escape.

Bounded and seeded (``derandomize=True``) so CI runs the same examples in a few seconds;
``scripts/fuzz_campaign.py`` runs the same mutations for as long as a maintainer likes.
"""

from __future__ import annotations

import contextlib
import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xaip
from tests.fuzz.mutations import HOSTILE, mutate
from xaip.errors import XaipError
from xaip.planning.mdp import ground_probabilistic
from xaip.planning.pddl import check_problem, parse_domain, parse_problem, write_domain
from xaip.planning.plans import parse_plan, validate

DOMAINS = Path(xaip.__file__).parent / "domains"
BLOCKS_DOMAIN = (DOMAINS / "blocksworld" / "domain.pddl").read_text()
BLOCKS_PROBLEM = (DOMAINS / "blocksworld" / "problem-5.pddl").read_text()
SEEDS = {path.name + path.parent.name: path.read_text()
         for path in sorted(DOMAINS.glob("*/*.pddl"))}
PPDDL = """(define (domain coin) (:requirements :probabilistic-effects :rewards)
  (:predicates (heads) (done))
  (:action flip :parameters () :precondition (not (done))
    :effect (and (probabilistic 0.5 (heads) 0.5 (not (heads))) (decrease (reward) 1)))
  (:action stop :parameters () :precondition (heads) :effect (done)))"""
PPDDL_PROBLEM = """(define (problem c) (:domain coin) (:init) (:goal (done))
  (:goal-reward 10) (:metric maximize (reward)))"""
EXAMPLES = settings(max_examples=150, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

tokens = st.lists(st.one_of(st.sampled_from(HOSTILE),
                            st.text(max_size=6),
                            st.sampled_from(("(define", "(domain d)", "(problem p)", ":types",
                                             ":predicates", "(p ?x)", ":parameters", "(?x)",
                                             ":precondition", ":effect", "(p a)", "a", "t"))),
                  max_size=40)


def _read_both(text: str) -> None:
    """Read ``text`` as a domain and as a problem; anything but XaipError is a bug."""
    try:
        domain = parse_domain(text, "fuzz.pddl")
        parse_domain(write_domain(domain))  # what we accept, we can write back
    except XaipError:
        pass
    try:
        problem = parse_problem(text, "fuzz.pddl")
        check_problem(parse_domain(BLOCKS_DOMAIN), problem)
    except XaipError:
        pass


@EXAMPLES
@given(tokens)
def test_token_soup(parts: list[str]) -> None:
    _read_both(" ".join(parts))


@EXAMPLES
@given(st.sampled_from(sorted(SEEDS)), st.randoms(use_true_random=False))
def test_mutated_bundled_files(name: str, rng: random.Random) -> None:
    _read_both(mutate(SEEDS[name], rng))


@EXAMPLES
@given(st.sampled_from((PPDDL, PPDDL_PROBLEM)), st.randoms(use_true_random=False))
def test_mutated_ppddl(text: str, rng: random.Random) -> None:
    mutated = mutate(text, rng)
    try:
        domain = parse_domain(mutated)
        ground_probabilistic(domain, parse_problem(PPDDL_PROBLEM))
    except XaipError:
        pass
    with contextlib.suppress(XaipError):
        parse_problem(mutated)


@EXAMPLES
@given(st.randoms(use_true_random=False))
def test_mutated_plans_validate_or_fail_cleanly(rng: random.Random) -> None:
    domain, problem = parse_domain(BLOCKS_DOMAIN), parse_problem(BLOCKS_PROBLEM)
    plan = "(unstack b1 b2)\n(put-down b1)\n; comment\n0: (unstack b2 b3) [1]\n(stack b2 b1)\n"
    with contextlib.suppress(XaipError):
        validate(domain, problem, parse_plan(mutate(plan, rng), "fuzz.plan"))


@EXAMPLES
@given(st.text(max_size=200))
def test_arbitrary_plan_text(text: str) -> None:
    with contextlib.suppress(XaipError):
        parse_plan(text)
