"""The optimality proof's two routes to each edit set agree.

Why: her ``C*_E`` is found directly when it is easy (at most
``check_optimal.EASY_EXPANSIONS`` A* expansions); when it is hard the proof first runs the
product search as if ``C*_E`` were infinite, a relaxation that can dismiss the edit set
without ``C*_E`` (blocksworld d1/p4 of the shared MRPs: checker 52 s -> 2.5 s). The
bundled instances are all easy, so these tests count every ``C*_E`` as hard and demand
the same verdicts: correct answers confirmed, a pair that is not optimal refuted by the
same better pair.
"""

from __future__ import annotations

import dataclasses

import pytest

from xaip.balanced import balance, check_optimal
from xaip.balanced.check import check
from xaip.balanced.check_search import Unfinished, estimate, optimum
from xaip.balanced.instances import usar_problem
from xaip.runtime import Budget


@pytest.fixture
def everything_hard(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(check_optimal, "EASY_EXPANSIONS", 0)


@pytest.mark.parametrize("method", ["model-space", "compile"])
@pytest.mark.parametrize("objective", ["balanced", "explicable", "explicable-optimal"])
def test_relaxation_first_confirms_optimal_answers(everything_hard: None, method: str,
                                                   objective: str) -> None:
    problem = usar_problem(objective)
    result = balance(problem, method=method, check=False)
    report = check(problem, result)
    assert report.ok is True and "no pair scores better" in report.details


def test_relaxation_first_refutes_the_same_better_pair(everything_hard: None) -> None:
    """The explicable answer on USAR passed off as balanced: the rubble route with nothing
    said scores 6 + e^2 (as ``test_semantics`` shows without the relaxation)."""
    told = balance(usar_problem("explicable"), check=False)
    problem = usar_problem("balanced")
    report = check(problem, dataclasses.replace(told, objective=problem.objective))
    assert report.ok is False and "a better pair exists" in report.details
    assert "13.389056" in report.details


def test_an_expansion_limit_is_no_answer() -> None:
    """``max_expansions`` stops the A* with :class:`Unfinished`, never with a number."""
    problem = usar_problem("balanced")
    task = problem.space.task(())
    clock = Budget().start()
    exact = optimum(task, estimate(task, clock), clock)
    assert exact is not None and exact > 0
    with pytest.raises(Unfinished):
        optimum(task, estimate(task, clock), clock, max_expansions=0)
