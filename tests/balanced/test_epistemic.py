"""Epistemic side effects (B05): what the person sees while the robot acts."""

from __future__ import annotations

import pytest

from xaip.balanced import balance, balanced_problem
from xaip.balanced.brute_force import brute_force
from xaip.balanced.epistemic import watched_cost
from xaip.errors import InputError

from .door import door


def problem(observable: tuple[str, ...] = (), infer: bool = False):  # type: ignore[no-untyped-def]
    rd, rp, hd, hp = door()
    return balanced_problem(rd, rp, hd, hp, default_cost=10, observable=observable,
                            infer_conditions=infer)


def test_a_proposed_plan_needs_the_detour() -> None:
    result = balance(problem())
    assert result.plan == ("detour",) and not result.explanation
    assert result.total == pytest.approx(5) and result.verified


def test_seeing_the_door_open_is_not_enough_without_inference() -> None:
    # she sees (open) but still believes the door locked, so (pass) makes no sense
    result = balance(problem(("open",)))
    assert result.plan == ("detour",) and result.verified


def test_seeing_it_open_lets_her_infer_it_was_unlocked() -> None:
    result = balance(problem(("open",), infer=True))
    assert result.plan == ("open", "pass") and not result.explanation
    assert result.human_cost == 2 and result.human_optimum == 4
    assert result.penalty == pytest.approx(1)  # cheaper than expected: no surprise
    assert result.total == pytest.approx(3) and result.verified
    assert brute_force(problem(("open",), infer=True)).value == pytest.approx(3)


def test_only_unused_facts_are_inferred() -> None:
    p = problem(("open",), infer=True)
    rd, rp, hd, hp = door()
    assert watched_cost(p, hd, hp, ("open", "pass")) == 2
    # after (unlock) the fact was used: she would not infer it, but (unlock) made it true
    # in her model anyway
    assert watched_cost(p, hd, hp, ("unlock", "open", "pass")) == 7
    unseen = problem()
    assert watched_cost(unseen, hd, hp, ("open", "pass")) is None


def test_explaining_is_priced_against_watching() -> None:
    # cheap talk: telling her the door is unlocked (1) beats the detour even unwatched
    result = balance(balanced_problem(*door(), default_cost=1))
    assert result.plan == ("open", "pass") and len(result.explanation) == 1
    assert result.total == pytest.approx(2 + 1 + 1)


def test_unknown_observable_predicate() -> None:
    with pytest.raises(InputError, match="observable predicate 'lit'"):
        problem(("lit",))
