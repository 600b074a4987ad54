"""The COPP search against brute force on random tiny instances (book Prop. 1).

For every random walk instance and every mode: the search finds a plan within the step
bound exactly when the oracle's enumeration of all plans within the bound finds one, and
every plan it returns passes the mode's test recomputed from scratch by the oracle.
"""

from __future__ import annotations

from collections import Counter

import pytest

from xaip.observers.legibility import legible_goal_plan, legible_plan
from xaip.observers.obfuscation import ambiguous_plan, diverse_plan
from xaip.runtime import Status

from .tiny import passes, random_walk

BOUND = 4
CASES = [
    ("legible-goal", {"j": 1}),
    ("ambiguous", {"k": 2}),
    ("legible-plan", {"m": 2, "d": 0.5}),
    ("diverse", {"l": 2, "d": 0.5}),
]


def _solve(problem, mode: str, params: dict[str, float], heuristic: str):
    spread = heuristic == "spread"
    heuristic = "hadd" if spread else heuristic
    common = {"max_cost": BOUND, "heuristic": heuristic, "check": False}
    if mode == "legible-goal":
        return legible_goal_plan(problem, j=int(params["j"]), **common)
    if mode == "ambiguous":
        return ambiguous_plan(problem, k=int(params["k"]), **common)
    if mode == "legible-plan":
        return legible_plan(problem, m=int(params["m"]), d=params["d"],
                            spread_guidance=spread, **common)
    return diverse_plan(problem, ell=int(params["l"]), d=params["d"], spread_guidance=spread,
                        **common)


@pytest.mark.parametrize("heuristic", ["hadd", "blind", "spread"])
def test_search_agrees_with_brute_force(heuristic: str) -> None:
    outcomes: Counter[str] = Counter()
    deltas: Counter[int] = Counter()
    for seed in range(40):
        walk = random_walk(seed)
        problem = walk.problem()
        plans = list(walk.plans(BOUND))
        for mode, params in CASES:
            exists = any(passes(walk, mode, params, n, lab, s) for n, lab, s in plans)
            result = _solve(problem, mode, params, heuristic)
            assert result.status in (Status.SOLVED, Status.UNSOLVABLE)
            found = result.status == Status.SOLVED
            assert found == exists, (seed, mode, result.plan)
            outcomes[f"{mode}:{found}"] += 1
            if found:
                deltas[result.delta or 0] += 1
                names = result.plan
                match = [(lab, s) for n, lab, s in plans if n == names]
                assert match, (seed, mode, names)
                assert passes(walk, mode, params, names, *match[0]), (seed, mode, names)
    # the random family exercises both answers of every mode
    for mode, _ in CASES:
        assert outcomes[f"{mode}:True"] > 0 and outcomes[f"{mode}:False"] > 0, outcomes


def test_exact_blind_search_returns_a_cheapest_passing_plan() -> None:
    """Started at a Δ no belief exceeds, duplicate detection is exact on (state, belief)
    and the blind search is uniform-cost: the first plan found is a cheapest passing one."""
    from xaip.observers.copp import copp_search
    from xaip.observers.goals import goals_in

    for seed in range(25):
        walk = random_walk(seed)
        problem = walk.problem()
        plans = list(walk.plans(BOUND))
        best = min((len(n) for n, lab, s in plans
                    if passes(walk, "legible-goal", {"j": 1}, n, lab, s)), default=None)
        true, goals = problem.true_goal, problem.goals.goals

        def test(node, true=true, goals=goals) -> bool:
            return true.holds(node.state) and len(goals_in(node.belief, goals)) <= 1

        outcome = copp_search(problem.tracker, test, cost_bound=BOUND, delta_start=10_000)
        assert outcome.stats["iterations"] == 1
        if best is None:
            assert outcome.status == Status.UNSOLVABLE
        else:
            assert outcome.node is not None and outcome.node.g == best
