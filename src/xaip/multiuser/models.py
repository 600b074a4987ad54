"""The users, their differences from the robot's model, and the search's goal test.

Why here: the per-user and the shared searches ask one question many times -- "is the
robot's plan valid and optimal in this model?" -- on models that differ by a few edits.
:class:`PlanTest` answers it with the lifted validator and an optimal planner bounded by the
plan's cost, and keeps every cheaper plan the planner found as a *witness*: a later model
in which a witness is still valid and cheaper than the robot's plan is refuted by
validation alone, without planning (sound: the witness is replayed on that model). This is
the search's, not the checker's; :mod:`xaip.multiuser.checks` has its own.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xaip.errors import BudgetExhausted, InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.features import Edit, Feature, model_diff, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, format_plan, parse_plan, validate
from xaip.runtime import Budget, BudgetClock


@dataclass(frozen=True)
class User:
    """One person and their model of the robot (domain and problem)."""

    name: str
    domain: Domain
    problem: Problem

    @property
    def features(self) -> frozenset[Feature]:
        return model_features(self.domain, self.problem)


def differences(user: User, robot_domain: Domain, robot_problem: Problem) -> tuple[Edit, ...]:
    """The edits that turn the user's model into the robot's (toward the robot's truth).

    Refuses (one line) a user whose model does not speak the robot's vocabulary or differs
    from it outside features (quantifiers, conditional effects): no edit could say that.
    """
    diff = model_diff(user.domain, robot_domain, user.problem, robot_problem)
    if diff.mismatches:
        m = diff.mismatches[0]
        side = "only the robot's model" if m.in_a is None else (
            f"only {user.name}'s model" if m.in_b is None else "both models, differently")
        raise InputError(f"user {user.name}: {m.category} '{m.name}' is declared in {side}; "
                         "every user's model must use the robot's vocabulary")
    if diff.structural:
        raise InputError(f"user {user.name}: the model differs from the robot's outside "
                         f"features ({diff.structural[0]}); only features can be explained")
    return diff.edits()


def updated(domain: Domain, problem: Problem, edits: Iterable[Edit], robot_domain: Domain,
            robot_problem: Problem) -> tuple[Domain, Problem]:
    """A model updated by edits (declarations it lacks come from the robot's model)."""
    new_domain, new_problem = apply_edits(domain, problem, list(edits),
                                          source_domain=robot_domain,
                                          source_problem=robot_problem)
    assert new_problem is not None
    return new_domain, new_problem


class PlanTest:
    """Is ``plan`` valid and optimal in a model? (the search's goal test, with witnesses)

    ``budget``: its node limit bounds each planner call; ``clock`` holds the seconds of the
    whole search. Raises :class:`BudgetExhausted` when either runs out.
    """

    def __init__(self, plan: Sequence[PlanStep], budget: Budget, clock: BudgetClock,
                 engine: str | Engine = DEFAULT_ENGINE) -> None:
        self.plan = tuple(plan)
        self.budget = budget
        self.clock = clock
        self.engine = get_engine(engine) if isinstance(engine, str) else engine
        self.witnesses: list[tuple[PlanStep, ...]] = []
        self.planner_calls = 0
        self.refuted_by_witness = 0

    def _call_budget(self) -> Budget:
        if self.budget.max_seconds is None:
            return Budget(self.budget.max_nodes)
        left = self.budget.max_seconds - self.clock.elapsed()
        if left <= 0:
            raise BudgetExhausted("the search ran out of time", phase="multiuser")
        return Budget(self.budget.max_nodes, left)

    def plan_cost(self, domain: Domain, problem: Problem) -> int | None:
        """The plan's cost in the model, ``None`` when it is not valid there."""
        outcome = validate(domain, problem, self.plan)
        return int(outcome.cost) if outcome.valid and outcome.cost is not None else None

    def cheaper_witness(self, domain: Domain, problem: Problem, cost: int) -> bool:
        """Does a known witness cost less than ``cost`` in this model?"""
        for witness in self.witnesses:
            outcome = validate(domain, problem, witness)
            if outcome.valid and outcome.cost is not None and outcome.cost < cost:
                self.refuted_by_witness += 1
                return True
        return False

    def none_cheaper(self, domain: Domain, problem: Problem, cost: int) -> bool:
        """No plan of the model costs less than ``cost`` (proved by the optimal planner)."""
        if self.cheaper_witness(domain, problem, cost):
            return False
        task = ground(domain, problem, budget=self._call_budget())
        self.planner_calls += 1
        result = self.engine.solve(task, optimal=True, cost_bound=cost,
                                   budget=self._call_budget())
        if str(result.status) == "budget_exhausted":
            raise BudgetExhausted("a planner call ran out of budget", phase="multiuser")
        if str(result.status) == "solved":
            self.witnesses.append(tuple(parse_plan(format_plan(result.plan))))
            return False
        return True

    def explains(self, domain: Domain, problem: Problem) -> bool:
        """The plan is valid in the model and no plan there is cheaper."""
        cost = self.plan_cost(domain, problem)
        return cost is not None and self.none_cheaper(domain, problem, cost)
