"""The independent checker for balanced planning: re-derive every number of a result.

What it does, for a result ``(π, E)``:

1. every item of ``E`` is a difference between the two models (``model_diff`` recomputed);
2. ``M^R_h + E`` is rebuilt as lifted PDDL with :func:`~xaip.planning.features.apply_edits`
   (not the compiled :class:`~xaip.reconcile.space.ModelSpace` the search used);
3. ``π`` is validated on the lifted robot model and on the lifted updated model with the
   plan validator (:func:`xaip.planning.plans.validate`, which shares no code with search),
   giving ``C(π, M^R)`` and ``C(π, M^R_h + E)``;
4. ``C*_{M^R}`` and ``C*_{M^R_h + E}`` come from the checker's own A* with LM-cut
   (:mod:`xaip.balanced.check_search`) on a *fresh grounding* of each lifted model — the
   search used the product-model planner and the engines' A* on the space's own grounding;
5. the explanation cost, penalty and total are recomputed from the problem's prices;
6. the objective's constraints hold: ``explicable`` needs ``C(π, M^R_h + E) = C*``,
   ``explicable-optimal`` also ``C(π, M^R) = C*_{M^R}``;
7. for an exact search's answer, that no pair beats it (the optimality claim):
   :func:`xaip.balanced.check_optimal.refute` enumerates the edit sets whose bound could
   beat it and, for each, finds ``C*`` by its own A* and searches the product of the
   robot's fresh grounding and her model bi-objectively, both pruned by the planning
   core's LM-cut values. Her models there come from the
   reconciliation :class:`~xaip.reconcile.space.ModelSpace` (building thousands of them
   from lifted PDDL would make the checker ten times slower than the search); the
   answer's own edit set is cross-checked against a fresh grounding (step 4) and the
   reference pairs below use fresh groundings too.
   An approximate answer claims no optimality; ``balanced`` ones are compared with two
   reference pairs (the robot's optimal plan with nothing and with everything explained).

What it shares with the search: the PDDL reader, the feature extraction and edit
application of :mod:`xaip.planning.features` (also the candidate list), the grounder (run
afresh), the model space's tasks and the core's LM-cut values in the optimality proof (not
a search: neither the product-model planner, nor the engines' A*, nor MEGA*'s
compilation), the penalty function
of the problem and the one cost semantics (:mod:`xaip.planning.semantics`: each model
priced by its own domain and problem). With an observation model (B05) the plan's cost for
the person is the watched execution of :func:`xaip.balanced.epistemic.watched_cost`, and
the optimality proof uses its belief update :meth:`~xaip.balanced.epistemic.Watcher.step`.
When she learns from watching (:mod:`xaip.balanced.learning`) the checker recomputes what
she learns on the lifted models (:func:`~xaip.balanced.epistemic.watched_run`: the
robot's lifted effects, her lifted model rebuilt after each learning step), rejects an
answer whose learned set differs, judges the plan against ``C*`` of her final model
``M^R_h + E ∪ L`` on a fresh grounding, and its proof carries the learned set in every
product label; it shares the learning rule (``Rules``) with both searches.

It runs under the same budget as the search (the user's ``max_seconds``/``max_nodes``,
started afresh); running out is "unverified: checker budget"
(:func:`xaip.contract.run_checker`), never a verdict.
"""

from __future__ import annotations

import math

from xaip.balanced.check_search import estimate, optimal_plan
from xaip.balanced.objectives import BalancedProblem, Objective, feature_name
from xaip.balanced.results import BalancedResult, objective_value
from xaip.contract import CheckReport, run_checker
from xaip.planning.features import Edit, apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import parse_plan, validate
from xaip.planning.task import Task
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock

_EPS = 1e-6


def updated_model(problem: BalancedProblem, edits: tuple[Edit, ...]) -> tuple[Domain, Problem]:
    """``M^R_h + E`` as lifted PDDL."""
    domain, updated = apply_edits(problem.human_domain, problem.human_problem, list(edits),
                                  source_domain=problem.robot_domain,
                                  source_problem=problem.robot_problem)
    assert updated is not None
    return domain, updated


def task_optimum(task: Task, clock: BudgetClock) -> tuple[tuple[str, ...], int] | None:
    """An optimal plan of ``task`` and its cost by the checker's own A* with LM-cut
    (:mod:`xaip.balanced.check_search`; ``None``: no plan), charged to ``clock``;
    :class:`BudgetExhausted` when it runs out."""
    found = optimal_plan(task, estimate(task, clock), clock)
    if found is None:
        return None
    return tuple(task.actions[i].name for i in found[0]), found[1]


def optimum(domain: Domain, problem: Problem, budget: Budget | BudgetClock) -> int | None:
    """``C*`` by the checker's A* on a fresh grounding (``None``: unsolvable)."""
    clock = as_clock(budget)
    found = task_optimum(ground(domain, problem, budget=clock), clock)
    return None if found is None else found[1]


def lifted_cost(domain: Domain, problem: Problem, plan: tuple[str, ...]) -> int | None:
    """``C(π)`` by the lifted plan validator (``None``: not a plan of this model)."""
    steps = parse_plan("\n".join(f"({step})" for step in plan)) if plan else ()
    outcome = validate(domain, problem, tuple(steps))
    return int(outcome.cost) if outcome.valid and outcome.cost is not None else None


def human_cost(problem: BalancedProblem, domain: Domain, updated: Problem,
               plan: tuple[str, ...]) -> int | None:
    """The plan's cost for the person: lifted validation, or the watched execution when
    the person observes (B05)."""
    if problem.watched:
        from xaip.balanced.epistemic import watched_cost

        return watched_cost(problem, domain, updated, plan)
    return lifted_cost(domain, updated, plan)


def human_side(problem: BalancedProblem, told: tuple[Edit, ...], plan: tuple[str, ...]
               ) -> tuple[int | None, tuple[Edit, ...], Domain, Problem]:
    """Her cost of ``plan`` after hearing ``told``, what she learned by watching it
    (:mod:`xaip.balanced.learning`; nothing unless she learns) and her final lifted model
    ``M^R_h + told ∪ learned``, in which the plan is judged."""
    if not problem.learn_from_watching:
        domain, updated = updated_model(problem, told)
        return human_cost(problem, domain, updated, plan), (), domain, updated
    from xaip.balanced.epistemic import watched_run

    def model_of(learned: tuple[int, ...]) -> tuple[Domain, Problem]:
        extra = tuple(problem.differences[i] for i in learned)
        return updated_model(problem, (*told, *(e for e in extra if e not in told)))

    cost, learned = watched_run(problem, model_of, plan)
    edits = tuple(e for e in (problem.differences[i] for i in learned) if e not in told)
    domain, updated = updated_model(problem, (*told, *edits))
    return cost, edits, domain, updated


def check(problem: BalancedProblem, result: BalancedResult,
          budget: Budget | None = None) -> CheckReport:
    """Re-derive ``result``'s numbers independently (see the module docstring), within
    ``budget`` (unlimited when ``None``; started afresh)."""
    if not result.status.finished:
        return CheckReport(None, "the search did not finish; nothing to check")
    clock = as_clock(budget)
    return run_checker(lambda: _check(problem, result, clock))


def _check(problem: BalancedProblem, result: BalancedResult, budget: BudgetClock
           ) -> CheckReport:
    if result.status == Status.UNSOLVABLE:
        robot = optimum(problem.robot_domain, problem.robot_problem, budget)
        if robot is None:
            return CheckReport(True, "the robot's model has no plan (the checker's A*)")
        return CheckReport(False, f"the robot has a plan of cost {robot}, but the result "
                                  "says there is none")
    if result.status == Status.NO_EXPLANATION:
        return CheckReport(False, "a pair exists: the robot's optimal plan with every "
                                  "difference explained (the approximate search missed it)")
    known = set(problem.differences)
    for edit in result.explanation:
        if edit not in known:
            return CheckReport(False, f"{feature_name(edit.feature)} ({edit.op}) is not a "
                                      "difference between the models")
    if len(set(result.explanation)) != len(result.explanation):
        return CheckReport(False, "the explanation repeats an item")
    robot_cost = lifted_cost(problem.robot_domain, problem.robot_problem, result.plan)
    if robot_cost is None:
        return CheckReport(False, "the plan is not valid in the robot's model")
    if robot_cost != result.plan_cost:
        return CheckReport(False, f"the plan costs {robot_cost} for the robot, "
                                  f"not {result.plan_cost}")
    cost_h, learned, domain, updated = human_side(problem, result.explanation, result.plan)
    if set(learned) != set(result.learned):
        names = ", ".join(feature_name(e.feature) for e in learned) or "nothing"
        return CheckReport(False, f"watching the plan teaches her {names}, not what the "
                                  "result says")
    best_h = optimum(domain, updated, budget)
    if cost_h != result.human_cost or best_h != result.human_optimum:
        return CheckReport(False, f"in the updated human model the plan costs {cost_h} and "
                                  f"the optimum is {best_h}, not {result.human_cost} and "
                                  f"{result.human_optimum}")
    explanation_cost = sum(problem.edit_cost(e) for e in result.explanation)
    penalty = problem.inexplicability(cost_h, best_h)
    total = objective_value(problem.weights, robot_cost, explanation_cost, penalty)
    for name, mine, theirs in (("explanation cost", explanation_cost, result.explanation_cost),
                               ("penalty", penalty, result.penalty),
                               ("total", total, result.total)):
        if not _same(mine, theirs):
            return CheckReport(False, f"the {name} is {mine}, not {theirs}")
    objective = problem.objective
    explicable = problem.explicable(cost_h, best_h)
    if objective is not Objective.BALANCED and not explicable:
        return CheckReport(False, f"the plan costs {cost_h} in the updated human model, "
                                  f"whose optimum is {best_h}: not perfectly explicable")
    # one optimal search for the robot serves the remaining tests
    robot_task = ground(problem.robot_domain, problem.robot_problem, budget=budget)
    found = task_optimum(robot_task, budget)
    if found is None:
        return CheckReport(False, "the checker finds no plan for the robot")
    best_plan, best_r = found
    if objective is Objective.EXPLICABLE_OPTIMAL and robot_cost != best_r:
        return CheckReport(False, f"the plan costs {robot_cost}, the robot's optimum "
                                  f"is {best_r}")
    if objective is Objective.BALANCED:
        worse = _reference_beats(problem, best_plan, best_r, total, budget)
        if worse:
            return CheckReport(False, worse)
    if result.exact:
        from xaip.balanced.check_optimal import refute
        from xaip.balanced.check_search import optimum as proof_optimum

        space = problem.space
        subset = tuple(sorted(problem.differences.index(e)
                              for e in (*result.explanation, *learned)))
        spot_task = space.task(subset)
        spot = proof_optimum(spot_task, estimate(spot_task, budget), budget)
        if spot != best_h:
            return CheckReport(False, f"the model space's task for the answer's edit set has "
                                      f"optimum {spot}, a fresh grounding {best_h}")
        better = refute(problem, _objective_value(problem, robot_cost, explanation_cost,
                                                  total),
                        robot_task, best_r, space.task, budget)
        if better:
            return CheckReport(False, better)
    what = {Objective.BALANCED: "the balanced value",
            Objective.EXPLICABLE: "perfectly explicable",
            Objective.EXPLICABLE_OPTIMAL: "perfectly explicable and robot-optimal"}[objective]
    best_pair = " and no pair scores better (every edit set within the bound, each with a " \
        "bi-objective product search)" if result.exact else ""
    return CheckReport(True, f"{what} confirmed: plan cost {robot_cost}, human cost {cost_h} "
                             f"of optimum {best_h}, explanation cost {explanation_cost}, "
                             f"total {round(total, 6)}{best_pair} (lifted validation and "
                             "the checker's own A* on fresh groundings)")


def _objective_value(problem: BalancedProblem, robot_cost: int, explanation_cost: float,
                     total: float) -> float:
    """What ``problem.objective`` minimises, for the answer's numbers."""
    if problem.objective is Objective.BALANCED:
        return total
    if problem.objective is Objective.EXPLICABLE:
        w = problem.weights
        return w.alpha * robot_cost + w.beta * explanation_cost
    return explanation_cost


def _same(a: float, b: float) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= _EPS * max(1.0, abs(a))


def _reference_beats(problem: BalancedProblem, plan: tuple[str, ...], plan_cost: int,
                     total: float, budget: BudgetClock) -> str:
    """A message when the robot's optimal ``plan`` with no explanation, or with every
    difference explained, scores below ``total`` (else empty)."""
    for edits in ((), problem.differences):
        cost_h, _, domain, updated = human_side(problem, edits, plan)
        best_h = optimum(domain, updated, budget)
        penalty = problem.inexplicability(cost_h, best_h)
        value = objective_value(problem.weights, plan_cost,
                                sum(problem.edit_cost(e) for e in edits), penalty)
        if value < total - _EPS * max(1.0, abs(total)):
            return (f"the robot's optimal plan with {len(edits)} explanation items scores "
                    f"{round(value, 6)}, below the answer's {round(total, 6)}")
    return ""
