"""GBFS with h_FF's preferred operators: the C core against the Python reference, and the
expansions they save on satisficing tasks."""

from __future__ import annotations

import pytest

from tests.planning.test_compiled_engine import sample, strips_task
from tests.planning.test_heuristics import reachable
from xaip.domains.generators import blocksworld, gripper, logistics
from xaip.errors import InputError
from xaip.planning.engines.builtin import BuiltinEngine
from xaip.planning.engines.compiled import CompiledEngine, core_available, preferred_actions
from xaip.planning.grounding import ground
from xaip.planning.heuristics import HFF
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.plans import PlanStep, validate
from xaip.planning.search import solve
from xaip.planning.task import Task
from xaip.runtime import Budget

pytestmark = pytest.mark.skipif(not core_available(), reason="xaip._core was not built")


def _lifted_valid(domain: object, problem: object, plan: tuple[object, ...]) -> bool:
    """The plan checked by the lifted validator (no grounding shared with the search)."""
    steps = [PlanStep(a.schema, a.args) for a in plan]  # type: ignore[attr-defined]
    return validate(domain, problem, steps).valid  # type: ignore[arg-type]


def _mirrors(task: Task, **kw: object) -> None:
    """prune=False: the C search expands what the Python search expands, in order."""
    expected = solve(task, "gbfs", "hff", preferred=True, **kw)  # type: ignore[arg-type]
    got = CompiledEngine("gbfs", "hff", prune=False, preferred=True).solve(
        task, cost_bound=kw.get("cost_bound"), budget=kw.get("budget"))  # type: ignore[arg-type]
    assert got.engine == "compiled"
    assert (got.status, got.cost) == (expected.status, expected.cost)
    assert (got.expanded, got.generated) == (expected.expanded, expected.generated)
    assert [a.name for a in got.plan] == [a.name for a in expected.plan]
    if got.solved:
        assert got.cost is not None and (kw.get("cost_bound") is None
                                          or got.cost < kw["cost_bound"])  # type: ignore[operator]


@pytest.mark.parametrize("seed", range(60))
def test_random_preferred_actions_equal(seed: int) -> None:
    task = strips_task(seed)
    hff = HFF(task)
    for state in sample(reachable(task), 25, seed):
        expected = sorted(set(hff.relaxed_plan(state) or ()))
        assert preferred_actions(task, state, prune=False) == expected


@pytest.mark.parametrize("seed", range(60))
def test_random_preferred_search_mirrors_python(seed: int) -> None:
    task = strips_task(seed)
    _mirrors(task)
    optimum = solve(task, "astar", "lmcut").cost
    if optimum is not None:  # bounds at, just above and below the optimum
        for bound in (optimum, optimum + 1, optimum + 3):
            _mirrors(task, cost_bound=bound)
    _mirrors(task, budget=Budget(max_nodes=1))
    _mirrors(task, budget=Budget(max_nodes=3))


GENERATED = [("blocksworld-9", *blocksworld(9, seed=4)), ("gripper-7", *gripper(7)),
             ("logistics-2c4p", *logistics(2, 4, seed=3))]


@pytest.mark.parametrize(("name", "domain", "problem"), GENERATED, ids=[g[0] for g in GENERATED])
def test_generated_tasks_mirror_and_validate(name: str, domain: str, problem: str) -> None:
    dom, prob = parse_domain(domain), parse_problem(problem)
    task = ground(dom, prob)
    _mirrors(task)
    result = CompiledEngine("gbfs", "hff", preferred=True).solve(task)
    assert result.solved and _lifted_valid(dom, prob, result.plan)


def test_preferred_operators_save_expansions() -> None:
    """Blocksworld with 16 blocks: plain GBFS wanders (thousands of expansions), the
    helpful actions lead it (two orders of magnitude fewer); gripper-12 in Python too."""
    domain_text, problem_text = blocksworld(16, seed=5)
    dom, problem = parse_domain(domain_text), parse_problem(problem_text)
    task = ground(dom, problem)
    plain = CompiledEngine("gbfs", "hff", preferred=False).solve(task)
    helped = CompiledEngine("gbfs", "hff").solve(task)  # on by default for GBFS + h_FF
    assert plain.solved and helped.solved
    assert 10 * helped.expanded < plain.expanded
    assert _lifted_valid(dom, problem, helped.plan)
    small = ground(parse_domain(gripper(12)[0]), parse_problem(gripper(12)[1]))
    assert (BuiltinEngine("gbfs", "hff").solve(small).expanded
            < BuiltinEngine("gbfs", "hff", preferred=False).solve(small).expanded)


def test_preferred_needs_gbfs_with_hff() -> None:
    task = strips_task(1)
    with pytest.raises(InputError):
        solve(task, "astar", "lmcut", preferred=True)
    with pytest.raises(InputError):
        CompiledEngine("gbfs", "hadd", preferred=True).solve(task)
    # the optimal default is unaffected: preferred=None leaves A* + LM-cut optimal and
    # expanding exactly what it expands with preferred operators off
    default = solve(task, "astar", "lmcut")
    plain = solve(task, "astar", "lmcut", preferred=False)
    assert default.solved and default.optimal
    assert (default.cost, default.expanded, default.generated) == \
        (plain.cost, plain.expanded, plain.generated)
