"""One answer to each semantic question, decided here and used by every family and checker.

Why a module of its own: families that each decide what a plan costs, how steps are numbered
or how a fact is printed disagree on inputs nobody chose (a domain that declares costs but a
problem without a metric made reconciliation count declared costs while the validator counted
1 per action, and the checker then confirmed a wrong explanation). Every such decision lives
here; ``docs/semantics.md`` states them with an example each.

* **Action costs.** A plan's cost sums the declared action costs only when the domain declares
  them *and* the problem says ``(:metric minimize (total-cost))``; otherwise every action costs
  1 (as Fast Downward and VAL). Under the metric an action without ``(increase (total-cost)
  ...)`` costs 0. :func:`counts_action_costs`, :func:`action_cost`. A domain's
  ``declares_action_costs`` only says what the file declares -- never use it to price a plan.
  A pair of models (robot and person) is priced per model, each with the problem it plans
  for: :func:`counts_action_costs` of that model's domain and problem.
* **The empty plan** is a plan: valid exactly when the goal holds in the initial state, with
  cost 0, and then optimal. A goal true initially is solved, never "no plan".
* **Steps** are numbered from 1 wherever a person reads them (text, messages, pictures);
  :func:`step_number` turns a 0-based index into that number. JSON payloads that carry step
  numbers use the same 1-based numbers and say so with ``"steps_numbered_from": 1``
  (:data:`STEP_NUMBERING`).
* **Facts** print as PDDL atoms, ``(name arg ...)`` (:func:`fact_text`): two different facts
  never print alike. English sentences may rephrase a fact but must keep every argument.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from xaip.planning.pddl.model import COST_FLUENT, Domain, Problem

#: What every output says of the empty plan (``xaip plan``, ``xaip validate``, their JSON).
EMPTY_PLAN_NOTE = ("the goal holds in the initial state: the empty plan is valid, costs 0 "
                   "and is optimal")

#: The number a person reads for the first step of a plan.
FIRST_STEP = 1
#: Put into every JSON payload that carries step numbers, so a reader knows the convention.
STEP_NUMBERING = {"steps_numbered_from": FIRST_STEP}


def counts_action_costs(domain: Domain, problem: Problem) -> bool:
    """Do plan costs count the declared action costs?

    Following Fast Downward and VAL: only when the domain declares action costs *and* the
    problem asks to ``(:metric minimize (total-cost))``; otherwise every action costs 1.
    """
    if not domain.declares_action_costs or problem.metric is None:
        return False
    direction, term = problem.metric
    return direction == "minimize" and term.name == COST_FLUENT


def costs_ignored(domain: Domain, problem: Problem) -> bool:
    """The domain declares action costs that the problem's metric (or its absence) ignores."""
    return domain.declares_action_costs and not counts_action_costs(domain, problem)


def action_cost(declared: int | Fraction | None, counts: bool) -> int | Fraction:
    """What one action costs: its declared cost (0 when it declares none) when costs count,
    else 1."""
    if not counts:
        return 1
    return 0 if declared is None else declared


def empty_plan_optimal(solved: bool, steps: int) -> bool:
    """A solved empty plan is optimal whichever search found it: no plan costs less than 0
    (costs are never negative), so a greedy search that stops at once did not guess."""
    return solved and steps == 0


def step_number(index: int) -> int:
    """The 1-based step number a person reads for the 0-based plan index ``index``."""
    return index + FIRST_STEP


def step_index(number: int) -> int:
    """The 0-based plan index of the 1-based step number ``number``."""
    return number - FIRST_STEP


def fact_text(name: str, args: Iterable[str] = ()) -> str:
    """A fact as a person reads it and PDDL writes it: ``(name arg ...)``; injective."""
    return "(" + " ".join((name, *args)) + ")"
