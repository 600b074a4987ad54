"""Humans as actors (book-spec section 9.1, feature A01): the *person* acts, and xaip holds
the true model ``M*`` and her model of it ``M^H``.

Two answers use her model:

* ``suggest --explicable``: among the completions of her prefix that are valid in ``M*`` and
  cost at most the cheapest completion plus a slack, the one closest to what she would do
  -- the explicable planner's choice (:func:`xaip.explicable.explicable_plan`: lowest
  inexplicability against her optimal plans in ``M^H``, then cheapest), planned from the
  state her prefix reaches in each model;
* ``check`` of her plan: where it breaks in ``M*`` (the assistant's validation), and the
  fewest facts of ``M*`` she needs to hear so that, in her updated model, the robot's plan
  works and hers is no cheaper -- a contrastive explanation with her plan as the foil
  (:func:`xaip.reconcile.explain`, ``contrastive``), checked by the reconciliation checker.

Why these front doors: each family already has a checked search for exactly this
question; the assistant only builds their inputs (the models at the prefix's end state) and
says how the answers fit the dialogue. The assistant's checker
(:func:`check_explicable`) rebuilds those inputs itself and runs the explicable family's
checker on them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from xaip.contract import CheckReport
from xaip.errors import InputError
from xaip.planning.pddl import check_problem
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, validate
from xaip.runtime import Budget, Status

#: Distances the explicable suggestion accepts (:data:`xaip.explicable.DISTANCES`).
DEFAULT_DISTANCE = "cost"


@dataclasses.dataclass(frozen=True)
class HumanAnswer:
    """What the person's model adds to an answer.

    ``kind`` is ``"explicable"`` (a suggestion chosen by her model) or ``"explain"`` (her
    plan failed in the true model). Explicable: ``slack`` and ``distance`` as asked,
    ``cheapest_cost`` the cheapest completion in ``M*``, ``expected_plan`` her nearest
    optimal plan in ``M^H`` from her state after the prefix, ``inexplicability`` its
    distance (``None``: the completion is not a plan of her model) and ``explicable`` the
    explicable planner's whole answer. Explain: ``valid_for_her`` and ``her_reason`` say
    whether her plan works in her own model, and ``explanation`` is the reconciliation
    answer (``None`` when her plan works in ``M*``)."""

    kind: str
    slack: int = 0
    distance: str = DEFAULT_DISTANCE
    cheapest_cost: int | None = None
    expected_plan: tuple[str, ...] | None = None
    inexplicability: float | None = None
    explicable: Any = None
    valid_for_her: bool | None = None
    her_reason: str | None = None
    explanation: Any = None
    #: The rest of her intended plan after the prefix, when she gave one (explicable).
    intended: tuple[str, ...] | None = None

    @property
    def verified(self) -> bool:
        """The embedded family answer's own verdict (explanation or explicable plan)."""
        inner = self.explanation if self.kind == "explain" else self.explicable
        return inner is None or bool(inner.verified)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.kind == "explicable":
            out.update(slack=self.slack, distance=self.distance,
                       intended=None if self.intended is None else
                       [f"({s})" for s in self.intended],
                       cheapest_cost=self.cheapest_cost,
                       expected_plan=None if self.expected_plan is None else
                       [f"({s})" for s in self.expected_plan],
                       inexplicability=self.inexplicability,
                       explicable=None if self.explicable is None else
                       self.explicable.to_dict())
        else:
            out.update(valid_for_her=self.valid_for_her, her_reason=self.her_reason,
                       explanation=None if self.explanation is None else
                       self.explanation.to_dict())
        return out


def check_human(domain: Domain, problem: Problem, human_domain: Domain,
                human_problem: Problem | None) -> tuple[Domain, Problem]:
    """Her model, checked: a valid task in the robot's vocabulary (one-line InputError)."""
    from xaip.planning.features.diff import model_diff
    from xaip.reconcile.problem import vocabulary_error

    human_problem = human_problem or problem
    check_problem(human_domain, human_problem)
    difference = model_diff(human_domain, domain, human_problem, problem)
    if difference.mismatches:
        raise vocabulary_error(difference.mismatches)
    return human_domain, human_problem


def at_state(domain: Domain, problem: Problem, steps: Sequence[PlanStep], whose: str
             ) -> Problem:
    """``problem`` started where ``steps`` lead in ``domain`` (the lifted validator's last
    state; derived facts are left to the axioms). One-line InputError when a step does not
    apply there."""
    outcome = validate(domain, problem, steps, keep_trace=True)
    if outcome.failed_step is not None and not outcome.goal_unmet:
        raise InputError(f"the prefix does not apply in {whose}: {outcome.reason}")
    derived = {rule.name for rule in domain.derived}
    state = outcome.trace[-1] if outcome.trace else frozenset(problem.init)
    init = tuple(sorted((a for a in state if a.predicate not in derived), key=str))
    return dataclasses.replace(problem, init=init)


def explicable_completion(domain: Domain, problem: Problem, human: tuple[Domain, Problem],
                          steps: Sequence[PlanStep], cheapest: int, slack: int,
                          distance: str, budget: Budget,
                          intended: Sequence[str] | None = None) -> Any:
    """The explicable planner's completion of ``steps``: robot plans from the prefix's end
    in ``M*`` costing at most ``cheapest + slack``, scored against what she would do from
    her state after the prefix -- the rest of her ``intended`` plan when she gave one,
    else her optimal plans there; checked by the explicable family's checker."""
    from xaip.explicable import explicable_plan, make_problem

    robot_here, her_here = explicable_problem(domain, problem, human, steps)
    task = make_problem(domain, robot_here, human[0], her_here)
    expected = None if intended is None else [her_plan(task, intended)]
    return explicable_plan(task, distance=distance, max_cost=cheapest + slack,
                           expected=expected, budget=budget)


def her_plan(task: Any, intended: Sequence[str]) -> Any:
    """The rest of her intended plan as ground actions of her model at the prefix's end;
    one-line InputError when it does not reach her goal there (her own model says it
    fails, so it cannot stand for what she expects)."""
    from xaip.explicable.problem import plan_in

    plan = plan_in(task.human_task, [name.strip("()") for name in intended])
    if plan is None:
        raise InputError("your intended plan does not reach the goal in your own model "
                         "after the prefix")
    return plan


def remainder(prefix: Sequence[PlanStep], intended: Sequence[PlanStep]) -> tuple[str, ...]:
    """Her intended plan after the prefix (one-line InputError unless it starts with it)."""
    if tuple(intended[:len(prefix)]) != tuple(prefix):
        raise InputError("your intended plan must start with your prefix")
    return tuple(" ".join((s.name, *s.args)) for s in intended[len(prefix):])


def explicable_problem(domain: Domain, problem: Problem, human: tuple[Domain, Problem],
                       steps: Sequence[PlanStep]) -> tuple[Problem, Problem]:
    """The robot's and her problem at the prefix's end (each in its own model)."""
    return (at_state(domain, problem, steps, "the true model"),
            at_state(human[0], human[1], steps, "your model"))


def explain_failure(domain: Domain, problem: Problem, human: tuple[Domain, Problem],
                    plan: Sequence[PlanStep], budget: Budget) -> HumanAnswer:
    """Her plan failed in ``M*``: does it work in her own model, and the contrastive
    explanation (her plan as the foil) of the robot's optimal plan towards her model."""
    from xaip.reconcile import explain, make_mrp
    from xaip.reconcile.goals import Foil

    mine = validate(human[0], human[1], plan)
    names = tuple(" ".join((s.name, *s.args)) for s in plan)
    mrp = make_mrp(domain, problem, human[0], human[1], budget=budget)
    explanation = explain(mrp, "contrastive", budget=budget,
                          foils=[Foil("plan", steps=names, source="your plan")])
    return HumanAnswer("explain", valid_for_her=mine.valid,
                       her_reason=None if mine.valid else mine.reason,
                       explanation=explanation)


def with_explanation(result: Any, answer: HumanAnswer, human: tuple[Domain, Problem]
                     ) -> Any:
    """``result`` (a failed ``check``) with the explanation of her plan's failure; verified
    only when the assistant's checker, :func:`check_failure_explanation` and the
    reconciliation checker all confirm."""
    explanation = answer.explanation
    inner = explanation.check if explanation is not None else None
    problems = check_failure_explanation(human, result.prefix, answer)
    details = (f"{result.check.details if result.check else 'unchecked'}; the explanation: "
               f"{inner.details if inner else 'unchecked'}")
    ok = None if result.check is None else result.check.ok
    if problems:
        ok, details = False, f"{details}; " + "; ".join(problems)
    elif ok and not answer.verified:
        ok = None if inner is None else inner.ok
    return dataclasses.replace(result, human=answer, verified=bool(ok) and result.verified
                               and answer.verified, check=CheckReport(ok, details))


def check_failure_explanation(human: tuple[Domain, Problem], plan: Sequence[str],
                              answer: HumanAnswer) -> list[str]:
    """The claims the assistant adds to the explanation: whether her plan works in her own
    model (re-validated on her lifted model) and that the explanation is a contrastive one
    whose only foil is exactly her plan."""
    out = []
    steps = [PlanStep(w[0], tuple(w[1:])) for w in (s.strip("()").split() for s in plan)]
    hers = validate(human[0], human[1], steps)
    if hers.valid != answer.valid_for_her:
        out.append(f"her plan {'works' if hers.valid else 'fails'} in her own model")
    explanation = answer.explanation
    names = tuple(" ".join(s.strip("()").split()) for s in plan)
    if explanation is None or explanation.type != "contrastive" or \
            [tuple(f.steps) for f in explanation.foils] != [names]:
        out.append("the explanation is not a contrastive one against her plan")
    return out


def check_explicable(domain: Domain, problem: Problem, human: tuple[Domain, Problem],
                     result: Any, budget: Budget) -> list[str]:
    """The explicable suggestion's own claims (the rest is :mod:`xaip.assist.check`'s):
    the explicable answer is for the checker's own rebuilding of the two problems at the
    prefix's end and its bound is the proved cheapest completion plus the slack; its plan
    is the completion; the explicable family's checker confirms it (most explicable, then
    cheapest, within the bound)."""
    from xaip.explicable import make_problem
    from xaip.explicable.checks import check as check_plan

    answer: HumanAnswer = result.human
    out: list[str] = []
    inner = answer.explicable
    if inner is None or result.completion is None:
        return out
    kept = [PlanStep(w[0], tuple(w[1:])) for w in
            (s.strip("()").split() for s in result.prefix[:result.kept])]
    robot_here, her_here = explicable_problem(domain, problem, human, kept)
    if answer.cheapest_cost is None or inner.max_cost != answer.cheapest_cost + answer.slack:
        out.append("the explicable bound is not the cheapest completion plus the slack")
    if tuple(f"({s})" for s in inner.plan) != tuple(result.completion):
        out.append("the suggested completion is not the explicable planner's plan")
    if result.completion and result.suggestion != result.completion[0]:
        out.append("the suggestion is not the first step of the completion")
    task = make_problem(domain, robot_here, human[0], her_here)
    expected = None if answer.intended is None else [her_plan(task, answer.intended)]
    report: CheckReport = check_plan(task, inner, expected=expected, budget=budget)
    if report.ok is None:
        from xaip.errors import BudgetExhausted

        raise BudgetExhausted("checker budget exhausted", phase="checking")
    if not report.ok:
        out.append(f"the explicable choice: {report.details}")
    return out


def status_of(inner: Any) -> Status:
    """The assistant's status for an explicable answer's status."""
    if inner.status == Status.BUDGET_EXHAUSTED:
        return Status.BUDGET_EXHAUSTED
    return Status.SOLVED if inner.has_plan else Status.UNSOLVABLE
