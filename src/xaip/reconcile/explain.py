"""The front door of model reconciliation: :func:`explain` answers every explanation type.

Types (book ch. 5–6): ``mce`` minimally complete, ``mme`` minimally monotonic, ``ppe`` plan
patch, ``mpe`` model patch, ``approx`` approximate MCE, ``contrastive`` against foils, and
for an annotated (uncertain) human model ``conformant``, ``conditional`` and ``anytime``.
Every result is checked by :func:`xaip.reconcile.checks.check` before it is returned, and
``verified`` is set through :func:`xaip.contract.with_check`: never for an unfinished answer.

Budgets: ``max_nodes`` bounds *every* search of the call on its own (the robot's optimal
plan when the MRP is built, each planner call of a goal test, the model-space search);
``max_seconds`` bounds the whole call, checking included.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from xaip.contract import with_check
from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine
from xaip.planning.features import Feature
from xaip.planning.pddl import write_domain
from xaip.planning.plans import PlanStep, validate
from xaip.planning.semantics import step_number
from xaip.reconcile.checks import check
from xaip.reconcile.goals import (
    ApproximateTest,
    ContrastiveTest,
    Foil,
    OptimalityTest,
    Verdict,
    _Planner,
)
from xaip.reconcile.problem import MRP
from xaip.reconcile.results import Explanation, edit_text
from xaip.reconcile.search import mce_search, mme_search
from xaip.reconcile.space import ModelSpace
from xaip.runtime import Budget, BudgetClock, Progress, Status, report

#: Explanation types for a known human model.
TYPES = ("mce", "mme", "ppe", "mpe", "approx", "contrastive")
#: Explanation types for an annotated (uncertain) human model.
UNCERTAIN_TYPES = ("conformant", "conditional", "anytime")
ALL_TYPES = TYPES + UNCERTAIN_TYPES

#: The budget when none is given: generous, but never a hang.
DEFAULT_BUDGET = Budget(max_seconds=300)

__all__ = ["ALL_TYPES", "TYPES", "UNCERTAIN_TYPES", "Explainer", "edit_text", "explain",
           "remaining"]


def remaining(budget: Budget, clock: BudgetClock) -> Budget:
    """The budget left for one more search: the same node limit, the seconds not yet used."""
    if budget.max_seconds is None:
        return budget
    return Budget(budget.max_nodes, max(0.0, budget.max_seconds - clock.elapsed()))


class Explainer:
    """Explains one MRP; reuse it to ask for several explanation types (the engine behind
    :func:`explain`)."""

    def __init__(
        self,
        mrp: MRP,
        grounded: bool = False,
        edit_costs: dict[Feature, int] | None = None,
        budget: Budget | None = None,
        engine: str | Engine = DEFAULT_ENGINE,
    ) -> None:
        self.mrp = mrp
        self.edit_costs = dict(edit_costs or {})
        self.budget = budget or DEFAULT_BUDGET
        self.clock = self.budget.start()
        self.space = ModelSpace(mrp.robot_domain, mrp.robot_problem, mrp.human_domain,
                                mrp.human_problem, grounded=grounded, edit_costs=edit_costs)
        self.planner = _Planner(self.budget, engine, self.clock)
        self.engine = self.planner.engine.name
        self.plan = mrp.plan_names
        self.optimal = OptimalityTest(self.space, self.plan, self.planner)
        before = self.optimal(())
        self.before = before
        self.human_optimal_before = self._human_optimum(before)

    def _human_optimum(self, verdict: Verdict) -> int | None:
        if verdict.explained:
            return verdict.plan_cost
        # A cheaper plan found under the bound need not be the cheapest: ask for it.
        status, _, cost = self.planner.cheaper_plan(self.space.task(()), None)
        return cost if status == "solved" else None

    def _check_foils(self, foils: Sequence[Foil]) -> None:
        actions = sorted({a.name for a in self.mrp.robot_domain.actions}
                         | {a.name for a in self.mrp.human_domain.actions})
        for foil in foils:
            if foil.kind == "plan":
                for number, step in enumerate(foil.steps, start=1):
                    name = step.split()[0]
                    if name not in actions:
                        raise InputError(f"{foil.source or 'foil plan'}: step {number}: "
                                         f"neither the robot's nor the human's model has an "
                                         f"action '{name}' (actions: {', '.join(actions)})")
                continue
            schema = foil.action.split()[0]
            if schema not in actions:
                raise InputError(f"foil '{foil.kind}:{foil.action}': neither the robot's nor "
                                 f"the human's model has an action '{schema}' (actions: "
                                 f"{', '.join(actions)})")

    # ------------------------------------------------------------------ types

    def explain(
        self,
        kind: str = "mce",
        foils: Sequence[Foil] = (),
        progress: Progress | None = None,
        check_budget: Budget | None = None,
    ) -> Explanation:
        """One explanation of ``kind``, checked (see :func:`explain`)."""
        if kind not in TYPES:
            raise InputError(f"unknown explanation type '{kind}' (one of {', '.join(TYPES)})")
        if foils and kind != "contrastive":
            raise InputError("foils go with contrastive explanations")
        self._check_foils(foils)
        start = time.perf_counter()
        calls, hits = self.planner.calls, self.planner.hits
        nodes, status = 1, Status.FOUND
        everything = tuple(range(len(self.space.candidates)))

        def tick(done: int, size: int) -> None:
            report(progress, f"{kind} search", done, message=f"edit sets of size {size}")

        budget = remaining(self.budget, self.clock)
        if kind in ("ppe", "mpe") and not budget.start().charge(1):
            status = Status.BUDGET_EXHAUSTED  # not even the one model-space node fits
        if kind == "mpe":
            subset = everything
        elif kind == "ppe":
            schemas = {name.split(" ", 1)[0] for name in self.plan}
            subset = tuple(
                i for i, c in enumerate(self.space.candidates)
                if c.action in schemas and (c.instance is None
                                            or self.space.instances[c.instance].name
                                            in set(self.plan)))
        elif kind == "mme":
            outcome = mme_search(self.space, self.optimal, budget, tick)
            subset, nodes, status = outcome.subset, outcome.nodes, Status(outcome.status)
        else:
            if kind == "contrastive":
                test: Any = ContrastiveTest(self.space, self.plan, self.planner, foils)
            elif kind == "approx":
                expected = None
                if self.before.alternative is not None:
                    expected = [a.name for a in self.before.alternative]
                test = ApproximateTest(self.space, self.plan, expected)
            else:
                test = self.optimal
            from xaip.reconcile import empty_model  # A06: a direct search for this case

            if kind == "mce" and empty_model.applies(self.space):
                outcome = empty_model.empty_model_mce(self.space, test, self.plan, budget,
                                                      tick)
            else:
                outcome = mce_search(self.space, test, self.plan, budget, progress=tick)
            subset, nodes, status = outcome.subset, outcome.nodes, Status(outcome.status)
        if status == Status.NO_EXPLANATION:
            raise InputError(self._no_explanation_message(kind))
        edits = self.space.edits(subset)
        verdict = self.optimal(tuple(sorted(subset))) if status.finished else None
        complete = None if verdict is None or verdict.undecided else verdict.explained
        if complete is None and kind in ("mce", "mme", "ppe", "mpe"):
            status = Status.BUDGET_EXHAUSTED  # what the explanation claims was not established
        updated = None
        cheaper = self.before.alternative if not self.before.explained else None
        expected_plan = tuple(a.name for a in cheaper) if cheaper else ()
        after = ""
        if not self.space.grounded:
            domain, _ = self.space.model(subset)
            updated = write_domain(domain)
            if expected_plan:
                after = self._expected_after(domain, expected_plan)
        result = Explanation(
            type=kind, edits=edits, plan=self.plan, plan_cost=self.mrp.plan_cost,
            human_plan_cost_before=self.before.plan_cost,
            human_optimal_cost_before=self.human_optimal_before,
            complete=complete, status=status,
            seconds=time.perf_counter() - start,
            stats={"nodes": nodes, "planner_calls": self.planner.calls - calls,
                   "cache_hits": self.planner.hits - hits},
            difference_size=len(self.space.candidates), grounded=self.space.grounded,
            foils=tuple(foils), engine=self.engine, updated_domain=updated,
            expected_plan=expected_plan,
            expected_plan_cost=self.before.alternative_cost if expected_plan else None,
            expected_plan_after=after,
            edit_costs=tuple(sorted(self.edit_costs.items())))
        return self._checked(result, check_budget)

    def _checked(self, result: Explanation, check_budget: Budget | None) -> Explanation:
        began = time.perf_counter()
        # the checker runs under the same budget as the search, started afresh
        outcome = check(self.mrp, result, check_budget or self.budget)
        checked = with_check(result, outcome)
        return dataclasses.replace(checked, check=outcome,
                                   seconds=result.seconds + time.perf_counter() - began,
                                   stats={**result.stats,
                                          "check_seconds": time.perf_counter() - began})

    def _expected_after(self, domain: Any, plan: tuple[str, ...]) -> str:
        """What the updated human model says about the plan the human expected: where it
        breaks, or what it costs now (checked by plan validation, not by the search)."""
        steps = [PlanStep(name.split(" ")[0], tuple(name.split(" ")[1:])) for name in plan]
        try:
            outcome = validate(domain, self.mrp.human_problem, steps)
        except InputError:
            return ""
        if outcome.valid:
            assert outcome.cost is not None
            mine = validate(domain, self.mrp.human_problem, self.mrp.plan)
            if mine.valid and mine.cost is not None and outcome.cost < mine.cost:
                return (f"still costs {outcome.cost}, less than the robot's plan "
                        f"({mine.cost}) there")
            return f"costs {outcome.cost}, no less than the robot's plan ({mine.cost})"
        if outcome.failed_step is not None and outcome.failed_step < len(steps):
            unmet = ", ".join(outcome.unmet)
            return (f"fails at step {step_number(outcome.failed_step)}, "
                    f"({plan[outcome.failed_step]}): {unmet or outcome.reason} does not "
                    "hold there")
        return f"no longer reaches the goal ({', '.join(outcome.unmet) or outcome.reason})"

    def _no_explanation_message(self, kind: str) -> str:
        if not self.optimal(tuple(range(len(self.space.candidates)))).explained:
            return ("no explanation exists: the plan is not optimal for the human even after "
                    "every difference is explained (do the problems differ?)")
        return f"no {kind} explanation exists for these inputs"


def explain(
    mrp: Any,
    kind: str = "mce",
    *,
    budget: Budget | None = None,
    progress: Progress | None = None,
    engine: str | Engine = DEFAULT_ENGINE,
    foils: Sequence[Foil] = (),
    annotations: Sequence[Any] | str | Path | None = None,
    answers: Callable[[Feature], bool] | Mapping[Feature, bool] | None = None,
    grounded: bool = False,
    edit_costs: dict[Feature, int] | None = None,
    alpha: float = 1.0,
    question_cost: float = 0.1,
    annotation_cost: float = 1.0,
    check_budget: Budget | None = None,
    robustness: Any = None,
) -> Any:
    """Explain ``mrp.plan`` to the human; every type, one call.

    ``mrp`` is an :class:`~xaip.reconcile.problem.MRP` (or an
    :class:`~xaip.reconcile.annotated.AnnotatedMRP` for the uncertain types, which may
    instead take ``annotations``: possible features or an annotation file). ``foils`` go
    with ``contrastive``; ``answers`` (a callable or a mapping from possible features to
    the person's yes/no) with ``anytime``; ``alpha`` and ``question_cost`` with
    ``conditional``; ``annotation_cost`` with the uncertain types. ``check_budget`` bounds
    the independent check (default: what is left of ``budget``); ``robustness`` (a
    :class:`~xaip.reconcile.robustness.RobustnessOptions`) how ``conformant`` computes its
    robustness values (exact up to 4,096 completions, sampled beyond).

    Returns a frozen result (:mod:`xaip.reconcile.results`) with ``status``, ``verified``,
    ``seconds``, ``stats`` and ``to_dict()``; render it with :func:`xaip.render.render`.
    """
    if kind in UNCERTAIN_TYPES:
        from xaip.reconcile.conformant import explain_uncertain

        return explain_uncertain(mrp, kind, budget=budget, progress=progress,
                                 annotations=annotations, answers=answers, alpha=alpha,
                                 question_cost=question_cost, annotation_cost=annotation_cost,
                                 check_budget=check_budget, engine=engine,
                                 robustness=robustness)
    if kind not in TYPES:
        raise InputError(f"unknown explanation type '{kind}' (one of {', '.join(ALL_TYPES)})")
    if annotations is not None:
        raise InputError(f"annotations go with {', '.join(UNCERTAIN_TYPES)} explanations")
    return Explainer(mrp, grounded, edit_costs, budget, engine).explain(
        kind, foils, progress, check_budget)
