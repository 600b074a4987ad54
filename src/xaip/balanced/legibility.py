"""Balancing communication with legibility and predictability (book ch. 7 §7.5, B07).

The book sketches two objectives and leaves them at that ("research-grade"); this module
makes them concrete on a grounded task, for an observer who knows the robot's model
but not its goal (legibility) or not its plan (predictability), and who sees the first
``k`` actions:

* **Legibility with goal hints.** The observer holds hypotheses ``G`` about the goal; a
  *hint* rules one wrong hypothesis out (cost ``hint_cost`` each). Her posterior after
  the prefix is the cost-difference (Boltzmann, rate 1) model of goal recognition, with a
  uniform prior over the hypotheses left:
  ``P(g | π[1..k]) ∝ exp(−(C(π[1..k]) + C*(s_k → g) − C*(I → g)))``.
  We minimise ``α·C(π) + β·C(hints) + γ·(1 − P(g* | π[1..k], G − hints))``, the book's
  ``max P − costs`` written as a cost.
* **Predictability with commitments.** The robot may promise to pass through facts
  (a commitment each, cost ``commitment_cost``). The observer expects, after the
  prefix, a cheapest completion that keeps every promise, uniformly among them:
  ``P(π | π[1..k], μ) = 1/N`` when ``π`` is one of the ``N`` cheapest plans with this
  prefix visiting every promised fact, else 0. We minimise
  ``α·C(π) + β·C(μ) + γ·(1 − P)``.

Exactness: ``1 − P`` lies in [0, 1], so a pair beats (robot-optimal plan, no
communication) only if ``α·C(π) < α·C* + γ``; every plan within that bound is enumerated
(:func:`xaip.planning.search.enumerate.all_plans`) with every subset of hints or
commitments, so the answer is optimal for the stated observer model.

What is approximated (relative to the book): the observer model is fixed (rate-1
Boltzmann over cost differences, uniform priors, "a plan ends at the first goal state");
hints only rule goals out and commitments only promise facts (the book also mentions
partially ordered action commitments and whole-model parameters θ); the book's suggestion
to reuse the MEGA* compilation with a changed goal test is replaced by enumeration, which
is exponential and meant for small tasks.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.balanced.objectives import Weights
from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.engines import Engine, get_engine
from xaip.planning.pddl.model import Atom
from xaip.planning.search.enumerate import all_plans
from xaip.planning.task import GroundAction, State, Task
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock


@dataclass(frozen=True)
class LegibilityProblem:
    """A grounded task, the observer's hypotheses and the prices of talking.

    ``goals`` maps hypothesis names to goal atoms; the task's own goal is the true one
    and must be among them (``true_goal``). ``promises`` are the facts the robot may
    commit to visiting (predictability).
    """

    task: Task
    goals: Mapping[str, frozenset[Atom]]
    true_goal: str
    k: int = 1
    hint_cost: float = 1.0
    commitment_cost: float = 1.0
    promises: tuple[Atom, ...] = ()
    weights: Weights = Weights()

    def __post_init__(self) -> None:
        if self.true_goal not in self.goals:
            raise InputError(f"the true goal {self.true_goal!r} is not among the hypotheses")
        if self.k < 0:
            raise InputError(f"the observed prefix length must not be negative, not {self.k}")
        for name, atoms in self.goals.items():
            for atom in atoms:
                if atom not in self.task.fact_index:
                    raise InputError(f"goal {name!r}: {atom} is not a fact of the task")
        for atom in self.promises:
            if atom not in self.task.fact_index:
                raise InputError(f"promise {atom} is not a fact of the task")
        for name, value in (("hint", self.hint_cost), ("commitment", self.commitment_cost)):
            if value < 0 or not math.isfinite(value):
                raise InputError(f"the {name} cost must be a non-negative number")

    def goal_mask(self, name: str) -> int:
        return sum(1 << self.task.fact_index[a] for a in self.goals[name])


@dataclass(frozen=True)
class LegibilityResult:
    """The chosen plan and what to say with it (``mode``: legibility or predictability).

    ``said`` lists the hints ("not <goal>") or commitments ("I will reach <fact>");
    ``probability`` is ``P(g* | prefix)`` or ``P(π | prefix)``.
    """

    status: Status
    mode: str
    plan: tuple[str, ...]
    plan_cost: int | None
    said: tuple[str, ...]
    communication_cost: float
    probability: float
    total: float
    k: int
    seconds: float
    verified: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    check: CheckReport | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": str(self.status), "verified": self.verified, "mode": self.mode,
                "plan": [f"({s})" for s in self.plan], "plan_cost": self.plan_cost,
                "said": list(self.said), "communication_cost": self.communication_cost,
                "probability": round(self.probability, 6),
                "total": None if math.isinf(self.total) else round(self.total, 6),
                "k": self.k, "seconds": round(self.seconds, 6), "stats": dict(self.stats),
                "check": None if self.check is None else self.check.to_dict()}


class _Costs:
    """``C*(s → g)`` by an optimal planner, cached (``inf``: unreachable)."""

    def __init__(self, task: Task, engine: Engine, clock: BudgetClock) -> None:
        self.task, self.engine, self.clock = task, engine, clock
        self.cache: dict[tuple[State, int], float] = {}

    def __call__(self, state: State, goal: int) -> float:
        key = (state, goal)
        if key not in self.cache:
            sub = dataclasses.replace(self.task, init=state, goal=goal, goal_neg=0)
            result = self.engine.solve(sub, optimal=True, budget=self.clock.remaining())
            self.clock.charge(max(1, result.expanded))
            if result.status == Status.BUDGET_EXHAUSTED:
                raise _Out
            self.cache[key] = math.inf if result.cost is None else float(result.cost)
        return self.cache[key]


class _Out(BudgetExhausted):
    """The budget ran out (a :class:`BudgetExhausted`, so the checker's
    :func:`~xaip.contract.run_checker` reports it in the contract's words)."""

    def __init__(self) -> None:
        super().__init__("budget exhausted", phase="legibility")


def goal_posterior(problem: LegibilityProblem, prefix: Sequence[GroundAction],
                   hypotheses: Sequence[str], costs: _Costs | None = None) -> dict[str, float]:
    """``P(g | prefix)`` over ``hypotheses`` (the cost-difference observer)."""
    task = problem.task
    costs = costs or _Costs(task, get_engine("default"), as_clock(None))
    state, spent = task.init, 0
    for action in prefix:
        state, spent = action.apply(state), spent + action.cost
    weights = {}
    for name in hypotheses:
        goal = problem.goal_mask(name)
        before, after = costs(task.init, goal), costs(state, goal)
        weights[name] = 0.0 if math.isinf(before) or math.isinf(after) else math.exp(
            -(spent + after - before))
    mass = sum(weights.values())
    return {g: (w / mass if mass else 0.0) for g, w in weights.items()}


def _plans(problem: LegibilityProblem, clock: BudgetClock) -> list[tuple[GroundAction, ...]]:
    task, weights = problem.task, problem.weights
    if weights.alpha <= 0:
        raise InputError("legibility balancing needs alpha > 0 (it bounds the plans)")
    cheapest = all_plans(task, None, budget=clock.remaining(), max_plans=1)
    if cheapest.status == Status.BUDGET_EXHAUSTED:
        raise _Out
    if not cheapest.plans:
        return []
    bound = cheapest.costs[0] + math.floor(weights.gamma / weights.alpha + 1e-9)
    listed = all_plans(task, bound, budget=clock.remaining())
    clock.charge(max(1, listed.expanded))
    if listed.status == Status.BUDGET_EXHAUSTED:
        raise _Out
    return list(listed.plans)


def balance_legibility(problem: LegibilityProblem, budget: Budget | None = None,
                       engine: str = "default") -> LegibilityResult:
    """The plan and goal hints minimising ``α·C(π) + β·C(hints) + γ·(1 − P(g*))``."""
    return _run(problem, budget, engine, "legibility")


def balance_predictability(problem: LegibilityProblem, budget: Budget | None = None,
                           engine: str = "default") -> LegibilityResult:
    """The plan and commitments minimising ``α·C(π) + β·C(μ) + γ·(1 − P(π))``."""
    return _run(problem, budget, engine, "predictability")


def _run(problem: LegibilityProblem, budget: Budget | None, engine: str,
         mode: str) -> LegibilityResult:
    started = time.perf_counter()
    clock = as_clock(budget)
    w = problem.weights
    best: tuple[float, tuple[GroundAction, ...], tuple[str, ...], float, float] | None = None
    evaluated = 0
    try:
        if not clock.charge(1):
            raise _Out
        plans = _plans(problem, clock)
        costs = _Costs(problem.task, get_engine(engine), clock)
        for plan in plans:
            plan_cost = sum(a.cost for a in plan)
            for said, price, probability in _options(problem, plan, plans, mode, costs):
                evaluated += 1
                total = w.alpha * plan_cost + w.beta * price + w.gamma * (1 - probability)
                if best is None or total < best[0] - 1e-12:
                    best = (total, plan, said, price, probability)
            if not clock.charge(1):
                raise _Out
        status = Status.FOUND if best is not None else Status.UNSOLVABLE
    except _Out:
        status = Status.BUDGET_EXHAUSTED
    seconds = time.perf_counter() - started
    stats = {"pairs": evaluated}
    if best is None:
        return LegibilityResult(status, mode, (), None, (), 0.0, 0.0, math.inf, problem.k,
                                seconds, stats=stats)
    total, plan, said, price, probability = best
    result = LegibilityResult(status, mode, tuple(a.name for a in plan),
                              sum(a.cost for a in plan), said, price, probability, total,
                              problem.k, seconds, stats=stats)
    report = check_legibility(problem, result, budget)
    return dataclasses.replace(result, check=report,
                               verified=report.ok is True and status.finished)


def _options(problem: LegibilityProblem, plan: tuple[GroundAction, ...],
             plans: list[tuple[GroundAction, ...]], mode: str, costs: _Costs
             ) -> list[tuple[tuple[str, ...], float, float]]:
    """(what is said, its price, the probability it buys) for every subset of hints or
    commitments."""
    prefix = plan[:problem.k]
    out = []
    if mode == "legibility":
        others = [g for g in problem.goals if g != problem.true_goal]
        for size in range(len(others) + 1):
            for ruled in itertools.combinations(others, size):
                left = [g for g in problem.goals if g not in ruled]
                p = goal_posterior(problem, prefix, left, costs)[problem.true_goal]
                out.append((tuple(f"my goal is not {g}" for g in ruled),
                            size * problem.hint_cost, p))
        return out
    visits = _visited(problem.task, plan)
    options = [a for a in problem.promises if problem.task.fact_index[a] in visits]
    for size in range(len(options) + 1):
        for promised in itertools.combinations(options, size):
            p = predictability(problem, plan, plans, promised)
            out.append((tuple(f"I will reach {a}" for a in promised),
                        size * problem.commitment_cost, p))
    return out


def _visited(task: Task, plan: Sequence[GroundAction]) -> set[int]:
    state, seen = task.init, set()
    for action in (None, *plan):
        if action is not None:
            state = action.apply(state)
        seen |= {i for i in range(len(task.facts)) if state >> i & 1}
    return seen


def predictability(problem: LegibilityProblem, plan: Sequence[GroundAction],
                   plans: Sequence[Sequence[GroundAction]], promised: Sequence[Atom]) -> float:
    """``P(π | prefix, μ)``: 1/N if ``plan`` is among the ``N`` cheapest of ``plans``
    sharing its prefix and visiting every promised fact, else 0."""
    k = problem.k
    wanted = {problem.task.fact_index[a] for a in promised}
    keep = [tuple(p) for p in plans
            if tuple(p[:k]) == tuple(plan[:k]) and wanted <= _visited(problem.task, p)]
    if not keep:
        return 0.0
    low = min(sum(a.cost for a in p) for p in keep)
    cheapest = [p for p in keep if sum(a.cost for a in p) == low]
    return 1.0 / len(cheapest) if tuple(plan) in cheapest else 0.0


def check_legibility(problem: LegibilityProblem, result: LegibilityResult,
                     budget: Budget | None = None) -> CheckReport:
    """Re-derive the probability and total: the plan is re-simulated, goal costs come
    from uniform-cost search (the search used the default engine's A*) and, for
    predictability, the completions are re-listed under the plan's own cost. Shares the
    observer model's formulas and the plan enumeration; not a proof of optimality (the
    tests compare with hand-computed cases). Runs under ``budget`` (the search's, started
    afresh); the empty plan (the goal holds initially) is a plan like any other."""
    if not result.status.finished or result.plan_cost is None:
        return CheckReport(None, "nothing finished to check")
    clock = as_clock(budget)
    return run_checker(lambda: _check_legibility(problem, result, clock))


def _check_legibility(problem: LegibilityProblem, result: LegibilityResult,
                      clock: BudgetClock) -> CheckReport:
    task = problem.task
    steps: list[GroundAction] = []
    state = task.init
    for name in result.plan:
        action = next((task.actions[i] for i in task.action_index.get(name, ())
                       if task.actions[i].applicable(state)), None)
        if action is None:
            return CheckReport(False, f"{name} is not applicable")
        steps.append(action)
        state = action.apply(state)
    if not task.is_goal(state):
        return CheckReport(False, "the plan does not reach the goal")
    costs = _Costs(task, get_engine("default", search="ucs", heuristic="blind"), clock)
    if result.mode == "legibility":
        ruled = {s.removeprefix("my goal is not ") for s in result.said}
        left = [g for g in problem.goals if g not in ruled]
        p = goal_posterior(problem, steps[:problem.k], left, costs)[problem.true_goal]
        price = len(ruled) * problem.hint_cost
    else:
        promised = [a for a in problem.promises if f"I will reach {a}" in result.said]
        listed = all_plans(task, sum(a.cost for a in steps), budget=clock.remaining())
        clock.charge(max(1, listed.expanded))
        if listed.status == Status.BUDGET_EXHAUSTED:
            raise _Out
        p = predictability(problem, steps, listed.plans, promised)
        price = len(promised) * problem.commitment_cost
    w = problem.weights
    total = w.alpha * sum(a.cost for a in steps) + w.beta * price + w.gamma * (1 - p)
    if abs(p - result.probability) > 1e-9 or abs(total - result.total) > 1e-9:
        return CheckReport(False, f"probability {p} and total {total}, not "
                                  f"{result.probability} and {result.total}")
    return CheckReport(True, f"probability {round(p, 6)} and total {round(total, 6)} "
                             "re-derived (uniform-cost search)")


_WALK = """(define (domain walk) (:requirements :strips)
  (:predicates (at ?p) (link ?a ?b))
  (:action go :parameters (?a ?b) :precondition (and (at ?a) (link ?a ?b))
    :effect (and (at ?b) (not (at ?a)))))"""
_MAP = """(define (problem walk) (:domain walk) (:objects s m x y a b)
  (:init (at s) (link s m) (link m a) (link m b) (link s x) (link x y) (link y a))
  (:goal (at a)))"""


def example_problem(hint_cost: float = 0.5, gamma: float = 4.0) -> LegibilityProblem:
    """A small example: the short way to goal A passes a junction that also leads to B,
    a longer way is legible at once, and a hint can rule B out."""
    from xaip.planning.grounding import ground
    from xaip.planning.pddl import parse_domain, parse_problem

    goals = {"A": frozenset({Atom("at", ("a",))}), "B": frozenset({Atom("at", ("b",))})}
    return LegibilityProblem(ground(parse_domain(_WALK), parse_problem(_MAP)), goals, "A",
                             k=1, hint_cost=hint_cost, weights=Weights(gamma=gamma))

