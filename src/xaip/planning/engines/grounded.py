"""Hand a grounded :class:`~xaip.planning.task.Task` to Fast Downward.

Why: explainers build grounded tasks directly (model reconciliation compiles each model
of its search space straight into a ``Task``), so there is no lifted PDDL to give an
external planner. A grounded task is itself a PDDL task with one 0-ary predicate per fact
and one parameterless action per ground action; Fast Downward's plan names the actions by
number and we map them back. Costs become ``total-cost`` increases.
"""

from __future__ import annotations

from xaip.errors import XaipError
from xaip.planning.engines.fast_downward import fd_solve
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget


def _literals(bits: int, negated: bool = False) -> list[str]:
    out = []
    index = 0
    while bits:
        if bits & 1:
            out.append(f"(not (f{index}))" if negated else f"(f{index})")
        bits >>= 1
        index += 1
    return out


def task_pddl(task: Task) -> tuple[str, str]:
    """The task as a (domain, problem) pair of PDDL texts (no conditional effects)."""
    if any(a.conditional for a in task.actions):
        raise XaipError("conditional effects cannot be written as a grounded PDDL task")
    if task.axioms or task.derived:
        raise XaipError("derived predicates (axioms) cannot be written as a grounded PDDL task")
    predicates = " ".join(f"(f{i})" for i in range(len(task.facts))) or "(dummy)"
    lines = ["(define (domain grounded)",
             "  (:requirements :strips :negative-preconditions :action-costs)",
             f"  (:predicates {predicates})",
             "  (:functions (total-cost) - number)"]
    for number, action in enumerate(task.actions):
        pre = _literals(action.pre) + _literals(action.neg_pre, negated=True)
        eff = _literals(action.add) + _literals(action.delete & ~action.add, negated=True)
        eff.append(f"(increase (total-cost) {action.cost})")
        lines.append(f"  (:action a{number} :parameters ()"
                     f" :precondition (and {' '.join(pre)})"
                     f" :effect (and {' '.join(eff)}))")
    lines.append(")")
    goal = _literals(task.goal) + _literals(task.goal_neg, negated=True)
    problem = "\n".join([
        "(define (problem grounded-task) (:domain grounded)",
        f"  (:init {' '.join(_literals(task.init))} (= (total-cost) 0))",
        f"  (:goal (and {' '.join(goal)}))",
        "  (:metric minimize (total-cost)))"])
    return "\n".join(lines), problem


def fd_cheaper_plan(task: Task, bound: int | None, budget: Budget | None = None
                    ) -> tuple[str, tuple[GroundAction, ...], int | None]:
    """Fast Downward's A* + LM-cut for a plan of cost below ``bound`` (``None``: optimal).

    Returns ``(status, plan, cost)`` like the built-in goal tests expect. FD's own
    ``bound=`` prunes by g only, so proving "nothing cheaper" would enumerate every state
    below the bound; an optimal search that stops at its first goal is far faster, and its
    cost answers the bounded question.
    """
    domain, problem = task_pddl(task)
    result = fd_solve(domain, problem, search="astar(lmcut())", budget=budget)
    if result.status != "solved":
        return result.status, (), None
    plan = tuple(task.actions[int(step.name[1:])] for step in result.plan)
    cost = sum(a.cost for a in plan)
    if bound is not None and cost >= bound:
        return "unsolvable", (), None
    return "solved", plan, cost
