"""The independent checker of environment designs: ``check_design(spec, result)``.

What it does: (1) evaluates *every* subset of modifications (no breadth-first order, no
relevance pruning) and confirms none has a lower objective, nor an equal one with fewer
modifications, and that the chosen design's and the baseline's objectives are as claimed;
(2) for the chosen design, checks each task's most explicable plan with the explicable
planner's own independent checker (:func:`xaip.explicable.checks.check`: lifted plan
validation and a depth-first brute force over plans).

What it shares with the search: the objective formula and the inner explicable planner for
the subsets in (1). Above ``max_modifications`` modifications it answers ``ok=None``.
"""

from __future__ import annotations

import itertools
import math

from xaip.contract import CheckReport
from xaip.explicable.checks import check
from xaip.explicable.design import DesignProblem, apply_design, evaluate
from xaip.explicable.planner import explicable_plan
from xaip.explicable.problem import make_problem
from xaip.explicable.results import DesignResult


def check_design(spec: DesignProblem, result: DesignResult,
                 max_modifications: int = 10) -> CheckReport:
    """Confirm ``result`` is an optimal design (see the module docstring)."""
    if not result.status.finished or result.objective is None:
        return CheckReport(None, "the answer is unfinished")
    count = len(spec.modifications)
    if count > max_modifications:
        return CheckReport(None, f"{count} modifications: too many subsets to list")
    names = {m.name: i for i, m in enumerate(spec.modifications)}
    chosen = frozenset(names[n] for n in result.design)
    claimed = (result.objective, len(chosen))
    for size in range(count + 1):
        for subset in itertools.combinations(range(count), size):
            value = evaluate(spec, frozenset(subset)).objective
            if frozenset(subset) == chosen and not math.isclose(value, result.objective):
                return CheckReport(False, f"the design's objective is {value}, not "
                                          f"{result.objective}")
            if not subset and result.baseline_objective is not None and \
                    not math.isclose(value, result.baseline_objective):
                return CheckReport(False, f"the baseline objective is {value}")
            if (value, size) < claimed and not math.isclose(value, result.objective):
                listed = ", ".join(spec.modifications[i].name for i in subset) or "no change"
                return CheckReport(False, f"design {{{listed}}} scores {value}, lower")
    for task in spec.tasks:
        robot_problem, human_problem = apply_design(spec, task, sorted(chosen))
        problem = make_problem(spec.robot_domain, robot_problem, spec.human_domain,
                               human_problem)
        answer = explicable_plan(problem, spec.distance, check=False)
        report = check(problem, answer)
        if report.ok is not True:
            return CheckReport(report.ok, f"task {task.name}: {report.details}")
    return CheckReport(True, f"all {2 ** count} designs evaluated, none better; each task's "
                             "plan under the design checked by brute force")
