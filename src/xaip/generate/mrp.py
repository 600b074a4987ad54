"""Random model-reconciliation problems (book ch. 5 experiments; book-spec row R08).

The book evaluates model reconciliation on instances made from one robot model ``M^R``:
the human's model ``M^R_h`` is ``M^R`` with ``k`` features removed (or spurious ones
added), and the plan to explain is the robot's optimal plan ``π``. :func:`random_mrp`
builds such an instance from a seed, reproducibly: the same inputs and seed give the same
edits, the same plan and the same files.

What is decided where: the robot's optimal plan comes from the planner
(:func:`xaip.planning.planner.plan_model` with ``optimal=True``) and its cost from the
validator (:func:`xaip.planning.plans.validate`, which prices by
:mod:`xaip.planning.semantics`); the human model is
:func:`xaip.planning.features.apply_edits` of the drawn edits. With
``need_explanation=True`` an instance is kept only when ``π`` is *not* optimal in the
human's model (invalid there, or a cheaper human plan exists, found by a second optimal
planner call on the human's model); otherwise new edits are drawn, at most ``max_tries``
times, and the instance says how many tries it took.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted, InputError, XaipError
from xaip.generate.candidates import DEFAULT_KINDS, addable, parse_kinds, removable
from xaip.generate.check import check_optimal, combine
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.features import Edit, FeatureKind, apply_edits
from xaip.planning.pddl import check_problem
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.planner import plan_model
from xaip.planning.plans import PlanStep, format_plan, parse_plan, validate
from xaip.planning.search.result import PlanResult
from xaip.planning.semantics import counts_action_costs
from xaip.runtime import Budget
from xaip.runtime.budget import BudgetClock, as_clock

Mode = Literal["remove", "add", "mix"]
MODES: tuple[str, ...] = ("remove", "add", "mix")
#: How many edit sets :func:`random_mrp` draws, by default, before giving up on
#: ``need_explanation``.
DEFAULT_MAX_TRIES = 50


@dataclass(frozen=True)
class GeneratedMRP:
    """One random MRP: the robot's model, the human's model, the plan and how it was made.

    ``edits`` turn the robot's model into the human's (``apply_edits(robot, edits)``);
    ``plan_cost`` is ``π``'s cost in the robot's model (optimal there);
    ``human_plan_cost`` its cost in the human's model (``None`` when ``π`` is invalid
    there) and ``human_optimal_cost`` the human model's optimum when it was computed
    (with ``need_explanation``, or ``None``). ``tries`` counts the edit sets drawn.
    """

    robot_domain: Domain
    robot_problem: Problem
    human_domain: Domain
    human_problem: Problem
    plan: tuple[PlanStep, ...]
    plan_cost: int
    edits: tuple[Edit, ...]
    seed: int
    k: int
    mode: str
    kinds: tuple[FeatureKind, ...]
    tries: int
    human_plan_valid: bool
    human_plan_cost: int | None
    human_optimal_cost: int | None
    needs_explanation: bool | None
    #: the checker confirmed every claim about the plans (:mod:`xaip.generate.check`)
    verified: bool = False
    check_details: str = "not checked"

    @property
    def plan_text(self) -> str:
        """``π`` in plan-file format with its robot cost."""
        unit = not counts_action_costs(self.robot_domain, self.robot_problem)
        return format_plan(self.plan, self.plan_cost, unit_cost=unit)

    def manifest(self) -> dict[str, Any]:
        """What a reader needs to reproduce and check the instance (JSON-ready)."""
        return {
            "seed": self.seed, "k": self.k, "mode": self.mode,
            "kinds": [kind.value for kind in self.kinds], "tries": self.tries,
            "edits": [edit.to_dict() for edit in self.edits],
            "plan": [f"({' '.join((s.name, *s.args))})" for s in self.plan],
            "plan_cost": self.plan_cost,
            "costs_count": counts_action_costs(self.robot_domain, self.robot_problem),
            "human_plan_valid": self.human_plan_valid,
            "human_plan_cost": self.human_plan_cost,
            "human_optimal_cost": self.human_optimal_cost,
            "needs_explanation": self.needs_explanation,
            "verified": self.verified, "check": self.check_details,
        }


@dataclass(frozen=True)
class RobotPlan:
    """The robot's optimal plan, its cost and the checker's report on both."""

    steps: tuple[PlanStep, ...]
    cost: int
    check: CheckReport


def robot_plan(domain: Domain, problem: Problem, budget: Budget | BudgetClock | None = None,
               engine: str = DEFAULT_ENGINE, check: bool = True) -> RobotPlan:
    """The robot's optimal plan and its cost (the validator's, by the one semantics),
    checked (:mod:`xaip.generate.check`) under the user's budget started afresh.

    A running ``budget`` clock is charged with the search's expanded states, so several
    calls share one user budget of nodes as well as seconds.
    """
    clock = as_clock(budget)
    found = plan_model(domain, problem, optimal=True, budget=clock.remaining(), engine=engine)
    clock.charge(found.expanded)
    if found.status == "budget_exhausted":
        raise BudgetExhausted("budget exhausted while finding the robot's optimal plan; "
                              "raise --max-nodes/--max-seconds", phase="robot plan")
    if found.status != "solved":
        raise InputError("the problem has no solution in the robot's model")
    steps = tuple(parse_plan(format_plan(found.plan)))
    checked = validate(domain, problem, steps)
    if not checked.valid:  # the planner and the validator disagree: never hand it out
        raise XaipError(f"the planner's plan is not valid in the robot's model: "
                        f"{checked.reason}")
    report = (check_optimal(domain, problem, found, int(checked.cost), clock.budget, "robot")
              if check else CheckReport(None, "robot plan: not checked"))
    return RobotPlan(steps, int(checked.cost), report)


def edit_pool(domain: Domain, problem: Problem, mode: str,
              kinds: Sequence[FeatureKind]) -> list[Edit]:
    """Every edit a draw may choose, in a fixed order."""
    pool: list[Edit] = []
    if mode in ("remove", "mix"):
        pool.extend(Edit(f, "remove") for f in removable(domain, problem, kinds))
    if mode in ("add", "mix"):
        pool.extend(Edit(f, "add") for f in addable(domain, problem, kinds))
    return pool


def _verb(mode: str) -> str:
    return {"remove": "remove", "add": "add", "mix": "remove or add"}[mode]


def random_mrp(
    domain: Domain,
    problem: Problem,
    k: int,
    seed: int,
    *,
    mode: str = "remove",
    kinds: Sequence[FeatureKind | str] = DEFAULT_KINDS,
    need_explanation: bool = False,
    max_tries: int = DEFAULT_MAX_TRIES,
    budget: Budget | BudgetClock | None = None,
    engine: str = DEFAULT_ENGINE,
    plan: RobotPlan | None = None,
    check: bool = True,
) -> GeneratedMRP:
    """A random MRP from the robot model ``(domain, problem)``: see the module docstring.

    ``mode`` is ``remove`` (the human lacks ``k`` of the robot's features), ``add`` (the
    human believes ``k`` spurious ones) or ``mix`` (``k`` drawn from both pools).
    ``kinds`` restricts the features drawn (:data:`~xaip.generate.candidates.DEFAULT_KINDS`).
    ``plan`` passes the robot's optimal plan and cost when already known (from
    :func:`robot_plan`, e.g. for many seeds of one model). ``check=False`` skips the
    checker (the instance is then not ``verified``). The whole call, planner calls
    included, runs within ``budget`` (a running clock is shared: its nodes count every
planner call's expanded states); raises :class:`BudgetExhausted` when it runs out and
    :class:`InputError` for bad arguments, ``k`` above the features available, or no
    instance that needs an explanation within ``max_tries`` draws.
    """
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r} (choose from {', '.join(MODES)})")
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise InputError(f"k must be a non-negative integer, not {k!r}")
    if isinstance(max_tries, bool) or not isinstance(max_tries, int) or max_tries < 1:
        raise InputError(f"max_tries must be a positive integer, not {max_tries!r}")
    chosen = parse_kinds(kinds)
    check_problem(domain, problem)
    clock = as_clock(budget)
    robot = plan if plan is not None else robot_plan(domain, problem, clock, engine, check)
    steps, cost = robot.steps, robot.cost
    pool = edit_pool(domain, problem, mode, chosen)
    if k > len(pool):
        raise InputError(f"k={k} is larger than the {len(pool)} features available to "
                         f"{_verb(mode)} ({', '.join(x.value for x in chosen)})")
    rng = random.Random(seed)
    for tries in range(1, max_tries + 1):
        edits = tuple(sorted(rng.sample(pool, k)))
        human_domain, human_problem = apply_edits(domain, problem, edits,
                                                  source_domain=domain,
                                                  source_problem=problem)
        assert human_problem is not None
        in_human = validate(human_domain, human_problem, steps)
        human_cost = int(in_human.cost) if in_human.valid else None
        optimum: int | None = None
        needs: bool | None = None
        reports = [robot.check]
        if need_explanation:
            found = _human_optimum(human_domain, human_problem, in_human.valid, clock, engine)
            optimum = None if found is None else int(found.cost or 0)
            needs = human_cost is None or (optimum is not None and optimum < human_cost)
            if not needs:
                continue
            if found is not None and optimum is not None:
                reports.append(check_optimal(human_domain, human_problem, found, optimum,
                                             clock.budget, "human")
                               if check else CheckReport(None, "human plan: not checked"))
        report = combine(*reports)
        return GeneratedMRP(domain, problem, human_domain, human_problem, steps, cost, edits,
                            seed, k, mode, chosen, tries, in_human.valid, human_cost,
                            optimum, needs, report.ok is True, report.details)
    raise InputError(f"no edit set of k={k} made the plan need an explanation in "
                     f"{max_tries} tries (seed {seed}); try a larger k, another mode or "
                     "more --max-tries")


def _human_optimum(domain: Domain, problem: Problem, plan_valid: bool, clock: BudgetClock,
                   engine: str) -> PlanResult | None:
    """The human model's optimal plan, when ``π`` is valid there (else not needed)."""
    if not plan_valid:
        return None
    found = plan_model(domain, problem, optimal=True, budget=clock.remaining(), engine=engine)
    clock.charge(found.expanded)
    if found.status == "budget_exhausted":
        raise BudgetExhausted("budget exhausted while planning in the human's model; raise "
                              "--max-nodes/--max-seconds", phase="human plan")
    if found.status != "solved" or found.cost is None:  # cannot be: the plan is valid
        raise XaipError("the human model has a valid plan but the planner found none")
    return found


__all__ = ["DEFAULT_MAX_TRIES", "MODES", "GeneratedMRP", "Mode", "RobotPlan", "edit_pool",
           "random_mrp", "robot_plan"]
