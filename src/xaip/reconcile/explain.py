"""One entry point for every explanation type, each result checked before it is returned.

Types (book ch. 5): ``mce`` minimally complete, ``mme`` minimally monotonic, ``ppe``
plan patch, ``mpe`` model patch, ``approx`` approximate MCE, ``contrastive`` against
foils. Every result records whether an independent check (:mod:`.checks`) confirmed it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.errors import InputError
from xaip.planning.features import Edit, Feature
from xaip.planning.features.sentences import sentence
from xaip.planning.pddl import write_domain
from xaip.planning.plans import PlanStep, validate
from xaip.reconcile.checks import brute_force_complete, is_complete
from xaip.reconcile.goals import (
    ApproximateTest,
    ContrastiveTest,
    Foil,
    OptimalityTest,
    Verdict,
    _Planner,
)
from xaip.reconcile.problem import MRP
from xaip.reconcile.search import mce_search, mme_search
from xaip.reconcile.space import ModelSpace
from xaip.runtime import Budget

TYPES = ("mce", "mme", "ppe", "mpe", "approx", "contrastive")


def edit_text(edit: Edit) -> str:
    """The sentence that tells a person this edit of their model."""
    return sentence(edit.feature, negated=edit.op == "remove")


@dataclass(frozen=True)
class Explanation:
    """A set of model edits that explains the robot's plan to the human."""

    type: str
    edits: tuple[Edit, ...]
    plan: tuple[str, ...]
    plan_cost: int
    human_plan_cost_before: int | None  # the robot plan's cost in the human model (None: invalid)
    human_optimal_cost_before: int | None
    complete: bool  # the plan is valid and optimal in the updated human model
    verified: bool  # an independent check agrees with ``complete``
    status: str  # "found" | "budget_exhausted" | "no_explanation"
    seconds: float
    nodes: int = 0
    planner_calls: int = 0
    cache_hits: int = 0
    difference_size: int = 0
    grounded: bool = False
    foils: tuple[str, ...] = ()
    updated_domain: str | None = field(default=None, repr=False)
    #: A plan the human model found cheaper than the robot's before the explanation (the
    #: plan the person expects), and what becomes of it in the updated model.
    expected_plan: tuple[str, ...] = ()
    expected_plan_cost: int | None = None
    expected_plan_after: str = ""

    @property
    def size(self) -> int:
        return len(self.edits)

    def sentences(self) -> list[str]:
        return [edit_text(e) for e in self.edits]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "edits": [{"op": e.op, "feature": e.feature.to_dict(), "text": edit_text(e)}
                      for e in self.edits],
            "size": self.size,
            "plan": [f"({step})" for step in self.plan],
            "plan_cost": self.plan_cost,
            "human_plan_cost_before": self.human_plan_cost_before,
            "human_optimal_cost_before": self.human_optimal_cost_before,
            "complete": self.complete,
            "verified": self.verified,
            "status": self.status,
            "seconds": round(self.seconds, 6),
            "nodes": self.nodes,
            "planner_calls": self.planner_calls,
            "cache_hits": self.cache_hits,
            "difference_size": self.difference_size,
            "grounded": self.grounded,
            "foils": list(self.foils),
            "updated_domain": self.updated_domain,
            "expected_plan": [f"({step})" for step in self.expected_plan],
            "expected_plan_cost": self.expected_plan_cost,
            "expected_plan_after": self.expected_plan_after,
        }

    def describe(self) -> str:
        lines = [f"Plan (cost {self.plan_cost}): " + " ".join(f"({s})" for s in self.plan)]
        if self.human_plan_cost_before is None:
            lines.append("In the human's model the plan is not even executable.")
        elif self.human_optimal_cost_before is not None and \
                self.human_optimal_cost_before < self.human_plan_cost_before:
            lines.append(f"In the human's model a plan of cost {self.human_optimal_cost_before} "
                         f"looks better.")
        if self.expected_plan:
            lines.append(f"  The plan the human expects (cost {self.expected_plan_cost}): "
                         + " ".join(f"({s})" for s in self.expected_plan))
        if self.status != "found":
            lines.append(f"Search status: {self.status} (the explanation may not be minimal).")
        if not self.edits:
            lines.append("Nothing to explain: the plan is already optimal for the human.")
        else:
            lines.append(f"{self.type.upper()} explanation ({self.size} of "
                         f"{self.difference_size} differences):")
            lines.extend(f"  - {text}" for text in self.sentences())
            if self.expected_plan_after:
                lines.append(f"With these, the plan the human expected {self.expected_plan_after}.")
        check = "verified" if self.verified else "NOT verified"
        lines.append(f"Complete: {self.complete} ({check} independently); "
                     f"{self.nodes} model-space nodes, {self.planner_calls} planner calls, "
                     f"{self.cache_hits} cache hits, {self.seconds:.3f} s.")
        return "\n".join(lines)


class Explainer:
    """Explains one MRP; reuse it to ask for several explanation types."""

    def __init__(
        self,
        mrp: MRP,
        grounded: bool = False,
        edit_costs: dict[Feature, int] | None = None,
        budget: Budget | None = None,
        engine: str = "builtin",
    ) -> None:
        self.mrp = mrp
        self.budget = budget or Budget(max_seconds=300)
        self.space = ModelSpace(mrp.robot_domain, mrp.robot_problem, mrp.human_domain,
                                mrp.human_problem, grounded=grounded, edit_costs=edit_costs)
        self.planner = _Planner(Budget(max_seconds=self.budget.max_seconds), engine)
        self.plan = mrp.plan_names
        self.optimal = OptimalityTest(self.space, self.plan, self.planner)
        before = self.optimal(())
        self.before = before
        self.human_optimal_before = self._human_optimum(before)

    def _human_optimum(self, verdict: Verdict) -> int | None:
        if verdict.explained:
            return verdict.plan_cost
        if verdict.alternative is not None:
            # The cheaper plan found under the bound need not be the cheapest: ask for it.
            status, _, cost = self.planner.cheaper_plan(self.space.task(()), None)
            return cost if status == "solved" else None
        status, _, cost = self.planner.cheaper_plan(self.space.task(()), None)
        return cost if status == "solved" else None

    # ------------------------------------------------------------------ types

    def explain(
        self,
        kind: str = "mce",
        foils: Sequence[Foil] = (),
        progress: Callable[[int, int], None] | None = None,
    ) -> Explanation:
        if kind not in TYPES:
            raise InputError(f"unknown explanation type '{kind}' (one of {', '.join(TYPES)})")
        start = time.perf_counter()
        calls, hits = self.planner.calls, self.planner.hits
        nodes, status = 0, "found"
        everything = tuple(range(len(self.space.candidates)))
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
            outcome = mme_search(self.space, self.optimal, self.budget, progress)
            subset, nodes, status = outcome.subset, outcome.nodes, outcome.status
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
            outcome = mce_search(self.space, test, self.plan, self.budget, progress=progress)
            subset, nodes, status = outcome.subset, outcome.nodes, outcome.status
            if status == "no_explanation":
                raise InputError(self._no_explanation_message(kind))
        if status == "no_explanation":
            raise InputError(self._no_explanation_message(kind))
        edits = self.space.edits(subset)
        complete = self.optimal(tuple(sorted(subset))).explained
        verified = self._verify(edits, complete)
        updated = None
        cheaper = self.before.alternative if not self.before.explained else None
        expected_plan = tuple(a.name for a in cheaper) if cheaper else ()
        after = ""
        if not self.space.grounded:
            domain, _ = self.space.model(subset)
            updated = write_domain(domain)
            if expected_plan:
                after = self._expected_after(domain, expected_plan)
        return Explanation(
            type=kind, edits=edits, plan=self.plan, plan_cost=self.mrp.plan_cost,
            human_plan_cost_before=self.before.plan_cost,
            human_optimal_cost_before=self.human_optimal_before,
            complete=complete, verified=verified, status=status,
            seconds=time.perf_counter() - start, nodes=nodes,
            planner_calls=self.planner.calls - calls, cache_hits=self.planner.hits - hits,
            difference_size=len(self.space.candidates), grounded=self.space.grounded,
            foils=tuple(f.describe() for f in foils), updated_domain=updated,
            expected_plan=expected_plan,
            expected_plan_cost=self.before.alternative_cost if expected_plan else None,
            expected_plan_after=after)

    def _expected_after(self, domain: Any, plan: tuple[str, ...]) -> str:
        """What the updated human model says about the plan the human expected: where it
        breaks, or what it costs now (checked by plan validation, not by the search)."""
        steps = [PlanStep(name.split(" ")[0], tuple(name.split(" ")[1:])) for name in plan]
        try:
            check = validate(domain, self.mrp.human_problem, steps)
        except InputError:
            return ""
        if check.valid:
            return f"costs {check.cost}, no less than the robot's plan ({self.mrp.plan_cost})"
        if check.failed_step is not None and check.failed_step < len(steps):
            unmet = ", ".join(check.unmet)
            return (f"fails at step {check.failed_step + 1}, ({plan[check.failed_step]}): "
                    f"{unmet or check.reason} does not hold there")
        return f"no longer reaches the goal ({', '.join(check.unmet) or check.reason})"

    def _no_explanation_message(self, kind: str) -> str:
        if not self.optimal(tuple(range(len(self.space.candidates)))).explained:
            return ("no explanation exists: the plan is not optimal for the human even after "
                    "every difference is explained (do the problems differ?)")
        return f"no {kind} explanation exists for these inputs"

    def _verify(self, edits: tuple[Edit, ...], complete: bool) -> bool:
        """Does an independent check agree that the edits (do not) complete the model?"""
        if self.space.grounded:
            result = brute_force_complete(self.mrp, edits)
        else:
            result = is_complete(self.mrp, edits, engine=self.planner.engine)
        return result.complete is complete


def explain(
    mrp: MRP,
    kind: str = "mce",
    grounded: bool = False,
    foils: Sequence[Foil] = (),
    edit_costs: dict[Feature, int] | None = None,
    budget: Budget | None = None,
) -> Explanation:
    """Explain ``mrp.plan`` to the human: see :class:`Explainer`."""
    return Explainer(mrp, grounded, edit_costs, budget).explain(kind, foils)
