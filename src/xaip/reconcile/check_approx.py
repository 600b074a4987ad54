"""The checker's test of an approximate MCE's proxies (book §4.7.2), on a fresh grounding.

C1: the plan is valid in the updated model; C2: the plan the human expected (if any) is
invalid there or no cheaper; C3: every step of the plan is the last achiever of a fact a
later step or the goal needs. Written here from the definitions, on the grounded task of
the updated PDDL model; it shares the grounder with the search, not the goal test
(:class:`~xaip.reconcile.goals.ApproximateTest`) nor :func:`~xaip.planning.plans.causal_links`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xaip.planning.features import Edit
from xaip.planning.grounding import ground
from xaip.planning.plans import PlanStep, validate
from xaip.planning.semantics import step_number
from xaip.reconcile.checks import updated_model
from xaip.reconcile.problem import MRP


def proxies_hold(mrp: MRP, edits: Sequence[Edit], expected: Sequence[str]
                 ) -> tuple[bool, str]:
    """(C1 and C2 and C3 hold, a sentence saying which fails)."""
    domain, problem = updated_model(mrp, edits)
    mine = validate(domain, problem, mrp.plan)
    if not mine.valid or mine.cost is None:
        return False, f"C1 fails: the plan is invalid ({mine.reason})"
    if expected:
        steps = [PlanStep(n.split(" ")[0], tuple(n.split(" ")[1:])) for n in expected]
        other = validate(domain, problem, steps)
        if other.valid and other.cost is not None and other.cost < mine.cost:
            return False, f"C2 fails: the expected plan costs {other.cost} < {mine.cost}"
    task = ground(domain, problem)
    state = task.init
    plan = []
    for step in mrp.plan:
        name = " ".join((step.name, *step.args))
        action = next(task.actions[i] for i in task.action_index[name]
                      if task.actions[i].applicable(state))
        plan.append(action)
        state = action.apply(state)
    # needs[k]: the facts step k (k = len: the goal) needs
    needs = [a.pre for a in plan] + [task.goal]
    for index, action in enumerate(plan):
        supported = False
        for later in range(index + 1, len(plan) + 1):
            between = 0
            for middle in plan[index + 1:later]:
                between |= middle.add | middle.delete
            if action.add & needs[later] & ~between:
                supported = True
                break
        if not supported:
            return False, f"C3 fails: step {step_number(index)} ({plan[index].name}) supports no " \
                          "causal link"
    return True, "C1 (valid), C2 (expected plan no cheaper) and C3 (every step supports " \
                 "a causal link) hold"
