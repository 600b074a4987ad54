"""The assistant, registered for the conformance tests and the workbench.

Why this example: the bundled 5-block blocksworld, a two-step prefix and one vetoed schema:
a few optimal-planner calls, verified in about a second; a one-node budget leaves it
unfinished.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.planning.pddl.model import Domain, Problem
from xaip.runtime import Budget

#: The example's partial plan and veto (``blocksworld/problem-5.pddl``).
EXAMPLE_PREFIX = ("(unstack b1 b2)", "(put-down b1)")
EXAMPLE_VETOES = ("(stack b1 b2)",)


def bundled_files() -> dict[str, Path]:
    root = resources.files("xaip") / "domains" / "blocksworld"
    return {key: Path(str(root / name)) for key, name in
            (("domain", "domain.pddl"), ("problem", "problem-5.pddl"))}


@cache
def _task() -> tuple[Domain, Problem]:
    from xaip.planning.pddl import read_domain, read_problem

    files = bundled_files()
    return read_domain(files["domain"]), read_problem(files["problem"])


def _example(budget: Budget) -> Any:
    from xaip.assist.assistant import Assistant

    return Assistant(*_task(), EXAMPLE_PREFIX, EXAMPLE_VETOES).suggest(budget)


def _check(result: Any) -> CheckReport:
    from xaip.assist.check import check

    return check(*_task(), result)


register_explainer(ExplainerSpec(
    name="assist.radar", family="assist", example=_example, check=_check,
    description="decision support (RADAR): completion, next-step suggestion with reasons, "
                "plan check and repair under vetoes (5-block blocksworld)"))


#: The book's firefighting example, recreated (book-spec section 9.2): alerting the fire
#: chief is needed before big engines or rescuers deploy, and a deployment uses the alert
#: up; the commander's model lacks both preconditions.
FIRE = """(define (domain fire) (:requirements :strips)
  (:predicates (alerted) (engines) (rescuers) (fire_out))
  (:action alert_chief :parameters () :precondition (and) :effect (alerted))
  (:action deploy_big_engines :parameters () :precondition (alerted)
    :effect (and (engines) (not (alerted))))
  (:action deploy_rescuers :parameters () :precondition (alerted)
    :effect (and (rescuers) (not (alerted))))
  (:action extinguish :parameters () :precondition (and (engines) (rescuers))
    :effect (fire_out)))"""
FIRE_PROBLEM = "(define (problem tempe) (:domain fire) (:init) (:goal (fire_out)))"


@cache
def fire_models() -> tuple[Domain, Problem, Domain]:
    """The robot's model, the problem and the commander's model of the fire example."""
    from xaip.planning.pddl import parse_domain, parse_problem

    commander = FIRE.replace(":precondition (alerted)", ":precondition (and)")
    return parse_domain(FIRE), parse_problem(FIRE_PROBLEM), parse_domain(commander)


def _human_example(budget: Budget) -> Any:
    from xaip.assist.assistant import Assistant

    robot, problem, commander = fire_models()
    return Assistant(robot, problem, human=(commander, None)).suggest(
        budget, explicable=True, slack=1)


def _human_check(result: Any) -> CheckReport:
    from xaip.assist.check import check

    robot, problem, commander = fire_models()
    return check(robot, problem, result, human=(commander, problem))


register_explainer(ExplainerSpec(
    name="assist.human", family="assist", example=_human_example, check=_human_check,
    description="humans as actors (A01): the completion closest to what the commander would "
                "do in her model, within a slack of the cheapest (the book's firefighting "
                "example)"))
