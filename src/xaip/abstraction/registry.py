"""The abstraction explainers, registered for the conformance tests and the workbench.

Why this example: the bundled stacking task (``xaip/domains/abstraction``), where the person
ignores (clear ...), (handempty) and (holding ...): two foils need two of them made concrete
(12 validations, verified in milliseconds), and a person at one of the 8 levels is located
in 3 queries. A one-node budget leaves both unfinished.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from xaip.abstraction.bundled import HIDDEN, bundled_task
from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep
from xaip.runtime import Budget

#: The simulated person of the localisation example: she ignores only (clear ...).
PERSON = frozenset({"clear"})


@cache
def _task() -> tuple[Domain, Problem, dict[str, tuple[PlanStep, ...]]]:
    return bundled_task()


def _explain(budget: Budget) -> Any:
    from xaip.abstraction.explain import explain_by_abstraction

    domain, problem, foils = _task()
    return explain_by_abstraction(domain, problem, HIDDEN, foils, budget=budget)


def _check_explain(result: Any) -> CheckReport:
    from xaip.abstraction.check import check
    from xaip.abstraction.explain import named_foils

    domain, problem, foils = _task()
    plan = None  # the example plans the robot's plan itself
    return check(domain, problem, named_foils(foils), plan, result)


def _locate(budget: Budget) -> Any:
    from xaip.abstraction.localise import localise, simulated_person

    domain, problem, _ = _task()
    return localise(domain, problem, simulated_person(domain, problem, PERSON),
                    hideable=HIDDEN, truth=PERSON, budget=budget)


def _check_locate(result: Any) -> CheckReport:
    from xaip.abstraction.check_localise import check_localisation

    domain, problem, _ = _task()
    return check_localisation(domain, problem, result)


register_explainer(ExplainerSpec(
    name="abstraction.refute", family="abstraction", example=_explain, check=_check_explain,
    description="refute a person's foils with the fewest fluents made concrete (HELM): "
                "stacking blocks without clear/handempty/holding"))
register_explainer(ExplainerSpec(
    name="abstraction.locate", family="abstraction", example=_locate, check=_check_locate,
    description="locate a person's abstraction level by valid/invalid queries "
                "(8 levels of the stacking task)"))
