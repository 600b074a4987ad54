"""The capabilities family's explainers, registered for the conformance tests and the
workbench (see :mod:`xaip.contract`).

Each spec runs on a small bundled example: capability discovery on a 3x4 Zelda level with
the search agent, and query-based model learning of a two-room gripper domain. A one-node
budget leaves each unfinished (status ``budget_exhausted``, not verified); an unlimited
budget finishes in about a second and the one checker,
:func:`xaip.capabilities.checks.check`, confirms the answer.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.capabilities.checks import DiscoveryInputs, LearningInputs, check
from xaip.contract import CheckReport, ExplainerSpec, register_explainer, with_check
from xaip.runtime import Budget

#: The discovery example: game, rows, columns, seed.
DISCOVERY_EXAMPLE = ("zelda", 3, 4, 1)


@cache
def _discovery_inputs() -> DiscoveryInputs:
    from xaip.capabilities.discovery import game_refine
    from xaip.vocab.registry import get_game

    game, rows, cols, seed = DISCOVERY_EXAMPLE
    spec = get_game(game)
    return DiscoveryInputs(spec.make(rows, cols, seed), spec.vocabulary(), game_refine(game))


def discovery_example(budget: Budget) -> Any:
    """Discover the search agent's capabilities on the example level within ``budget``
    (``max_nodes`` counts reachability queries), checked."""
    from xaip.capabilities.discovery import discover_game

    game, rows, cols, seed = DISCOVERY_EXAMPLE
    result, _ = discover_game(game, rows, cols, seed=seed, budget=budget)
    return with_check(result, discovery_check(result))


def discovery_check(result: Any) -> CheckReport:
    return check(_discovery_inputs(), result)


@cache
def _learning_inputs() -> LearningInputs:
    from xaip.domains import generators
    from xaip.planning.pddl import parse_domain, parse_problem

    domain_text, problem_text = generators.gripper(2)
    return LearningInputs(parse_domain(domain_text), parse_problem(problem_text))


def learning_example(budget: Budget) -> Any:
    """Learn the hidden gripper model within ``budget`` (``max_nodes`` counts queries),
    checked."""
    from xaip.capabilities.symbolic import SymbolicAgent, learn_model

    inputs = _learning_inputs()
    result = learn_model(SymbolicAgent(inputs.domain, inputs.problem), budget=budget)
    return with_check(result, learning_check(result))


def learning_check(result: Any) -> CheckReport:
    return check(_learning_inputs(), result)


DISCOVERY = register_explainer(ExplainerSpec(
    "capabilities.discover", "capabilities", discovery_example, discovery_check,
    "capabilities of a black-box agent from traces and reachability queries (KR 2022)"))
LEARNING = register_explainer(ExplainerSpec(
    "capabilities.learn_model", "capabilities", learning_example, learning_check,
    "a hidden PDDL action model learned from plan-outcome queries (AIA, AAAI 2021)"))
