"""The independent checker of ``xaip assist``.

What it checks, claim by claim, sharing no search with :mod:`xaip.assist.assistant`:

* the prefix failure (step number and unmet preconditions) and, in ``check`` mode, the
  plan's verdict: re-validated on the lifted model (:func:`xaip.planning.plans.validate`);
* every returned plan (kept prefix + completion, the robot's plan) is valid on the lifted
  model and costs what the answer says;
* no completion step is vetoed: :func:`vetoed_text`, a tiny matcher on the plan *text*
  (not :mod:`xaip.assist.vetoes`);
* optimality of the completion and of the robot's plan, "no completion avoids the vetoes",
  the suggestion's cost with and without it, and each claimed landmark (no plan from the
  prefix's end avoids making it true): re-proved by :func:`cheapest_cost`, the planning
  core's A* with the reconciliation checker's heuristic
  (:func:`xaip.planning.proofs.check_heuristic`: the *certified* LM-cut, h^max without
  the compiled core or on conditional effects) on a fresh grounding
  (:func:`xaip.planning.grounding.ground`) restricted by the vetoes and started from the
  prefix's end state;
* the goal facts and landmarks a suggestion claims to make true: false before the step and
  true after it, on the lifted model's state trace.

Shared with the search: the PDDL reader, the lifted validator, the grounder (the same
code the search's task comes from; the checker grounds afresh), the planning core's A*
loop and LM-cut, as an **untrusted oracle** only: for every state the core's certificate
checker (``src/xaip/_native/certify.c``, no code shared with LM-cut) accepts LM-cut's cuts
only if each is a landmark of the delete relaxation from that state and their charges are
a cost partition; a state whose certificate fails gets h^max (counted by
:func:`xaip.planning.engines.compiled.search_counts`), so a fault in LM-cut can slow the
proof, never make it wrong. The core runs h^max instead on tasks with conditional effects
(LM-cut's cuts are not certified there) and without the compiled core. An earlier version
ran its own Python A* with its own h^max; it could not prove the RADAR firefighting
robot's optimum within 150 s, the core's A* + h^max did in about 16 s (1.1 million states),
the certified LM-cut in about 1 s. It runs under the user's budget started afresh; running
out gives "unverified: checker budget".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from xaip.assist.results import AssistResult
from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted
from xaip.planning.engines import DEFAULT_ENGINE, get_engine
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, validate
from xaip.planning.proofs import CHECK_ALGORITHM, check_heuristic
from xaip.planning.task import GroundAction, State, Task, bits
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock

#: The checker's optimal search: the reconciliation checker's A* (the certified LM-cut where
#: the compiled core runs, else h^max; see the module docstring).
CHECK_SEARCH = CHECK_ALGORITHM


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.strip().strip("()").lower().split())


def vetoed_text(step: str, vetoes: Sequence[str]) -> bool:
    """Does a veto (``schema`` or ``(schema arg ...)``) forbid the plan step ``step``?"""
    words = _words(step)
    for veto in vetoes:
        forbidden = _words(veto)
        if words == forbidden or (len(forbidden) == 1 and words[:1] == forbidden):
            return True
    return False


def _steps(texts: Sequence[str]) -> list[PlanStep]:
    return [PlanStep(w[0], w[1:]) for w in map(_words, texts)]


def cheapest_cost(task: Task, start: State, allowed: Callable[[GroundAction], bool],
                 clock: BudgetClock, bound: int | None = None) -> int | None:
    """The cost of a cheapest plan from ``start`` using only ``allowed`` actions, or
    ``None`` when none exists: the planning core's A* with :func:`check_heuristic` (the
    certified LM-cut, or h^max; admissible either way, so the first goal reached is
    optimal), on the checker's fresh grounding restricted here.
    Raises BudgetExhausted when ``clock`` runs out.

    ``bound``: the cost of a plan the caller has *validated*; the search then only has to
    show that nothing is cheaper (a strict cost bound), and returns ``bound`` when so."""
    restricted = dataclasses.replace(task, init=start,
                                     actions=tuple(a for a in task.actions if allowed(a)))
    if not clock.tick():
        raise BudgetExhausted("checker budget exhausted", phase="checking")
    engine = get_engine(DEFAULT_ENGINE, search=CHECK_SEARCH,
                        heuristic=check_heuristic(DEFAULT_ENGINE))
    answer = engine.solve(restricted, optimal=True, cost_bound=bound, budget=clock.remaining())
    clock.charge(answer.expanded)
    if answer.status == Status.BUDGET_EXHAUSTED:
        raise BudgetExhausted("checker budget exhausted", phase="checking")
    if answer.status == Status.SOLVED:
        assert answer.cost is not None
        return int(answer.cost)
    return bound  # nothing cheaper than the validated plan (None: no plan at all)


def _replay(task: Task, steps: Sequence[str]) -> State | None:
    state = task.init
    for text in steps:
        ids = task.action_index.get(" ".join(_words(text)), ())
        usable = [task.actions[i] for i in ids if task.actions[i].applicable(state)]
        if not usable:
            return None
        state = usable[0].apply(state)
    return state


def check(domain: Domain, problem: Problem, result: AssistResult,
          budget: Budget | None = None, human: tuple[Domain, Problem] | None = None
          ) -> CheckReport:
    """Check every claim of ``result`` (see the module docstring); ``human`` is the
    person's model when the answer used it (an explicable suggestion)."""
    problems = _problems(domain, problem, result, (budget or Budget()).start(), human,
                         budget or Budget())
    return CheckReport(not problems, "; ".join(problems) or "every claim checked")


def _problems(domain: Domain, problem: Problem, result: AssistResult,
              clock: BudgetClock, human: tuple[Domain, Problem] | None = None,
              budget: Budget | None = None) -> list[str]:
    out: list[str] = []
    steps = _steps(result.prefix)
    whole = validate(domain, problem, steps)
    failure = result.failure
    if result.status == Status.VALID:
        if not whole.valid:
            out.append(f"the plan is not valid: {whole.reason}")
        return out
    if failure is not None and failure.kind == "precondition":
        if whole.failed_step_number != failure.step or tuple(whole.unmet) != failure.unmet:
            out.append(f"failure claimed at step {failure.step}, the validator says "
                       f"{whole.reason or 'valid'}")
        if result.kept != (failure.step or 0) - 1:
            out.append("the kept steps do not end before the failing step")
        if result.mode != "check":
            return out
    elif failure is not None and (not whole.goal_unmet or tuple(whole.unmet) != failure.unmet):
        out.append(f"goal failure claimed, the validator says {whole.reason or 'valid'}")
    elif failure is None and not whole.valid and whole.failed_step is not None \
            and not whole.goal_unmet:
        out.append(f"the prefix does not apply: {whole.reason}")
        return out
    kept = steps[:result.kept]
    kept_texts = list(result.prefix[:result.kept])
    task = ground(domain, problem, budget=clock)
    start = _replay(task, kept_texts)
    if start is None:
        return [*out, "the kept steps do not replay on a fresh grounding"]
    if result.prefix_cost != validate(domain, problem, kept).cost:
        out.append("the prefix cost is wrong")
    robot = _robot(domain, problem, result, task, clock, out)
    vetoes = result.vetoes

    def free(action: GroundAction) -> bool:
        return not vetoed_text(str(action), vetoes)

    # the same search as the robot's when nothing is kept or vetoed: proved once
    same = start == task.init and not any(not free(a) for a in task.actions)
    if result.completion is None:
        best = robot if same else cheapest_cost(task, start, free, clock)
        if best is not None:
            out.append(f"a completion avoiding the vetoes exists (cost {best})")
        return out
    plan = validate(domain, problem, [*kept, *_steps(result.completion)], keep_trace=True)
    if not plan.valid:
        out.append(f"the completed plan is not valid: {plan.reason}")
    elif plan.cost != result.total_cost:
        out.append(f"the completed plan costs {plan.cost}, not {result.total_cost}")
    clean = not any(vetoed_text(step, vetoes) for step in result.completion)
    if not clean:
        out.append("the completion uses a vetoed action")
    # a valid completion avoiding the vetoes bounds the search: it need only show that
    # nothing is cheaper
    bound = plan.cost - validate(domain, problem, kept).cost if plan.valid and clean else None
    explicable = result.human is not None and result.human.kind == "explicable"
    if explicable:
        assert result.human is not None
        if human is None:
            return [*out, "an explicable suggestion, but no model of the person to check it"]
        from xaip.assist.human import check_explicable

        best = robot if same else cheapest_cost(task, start, free, clock)
        if best != result.human.cheapest_cost:
            out.append(f"the cheapest completion costs {best}, not "
                       f"{result.human.cheapest_cost}")
        elif best is not None and result.completion_cost is not None and \
                result.completion_cost > best + result.human.slack:
            out.append("the suggested completion costs more than the slack allows")
        return [*out, *check_explicable(domain, problem, human, result, budget or Budget())]
    best = robot if same else cheapest_cost(task, start, free, clock, bound=bound)
    if best != result.completion_cost:
        out.append(f"the cheapest completion costs {best}, not {result.completion_cost}")
    if result.mode == "suggest":
        _suggestion(result, task, start, free, plan.trace, clock, out)
    return out


def _robot(domain: Domain, problem: Problem, result: AssistResult, task: Task,
           clock: BudgetClock, out: list[str]) -> int | None:
    """Check the robot's plan and return the proved optimal cost from the initial state."""
    if result.robot_plan is None:
        optimum = cheapest_cost(task, task.init, lambda action: True, clock)
        if optimum is not None:
            out.append(f"the task has a plan (cost {optimum}), the answer says none")
        return optimum
    robot = validate(domain, problem, _steps(result.robot_plan))
    fine = robot.valid and robot.cost == result.robot_cost
    if not fine:
        out.append("the robot's plan is not valid or costs something else")
    optimum = cheapest_cost(task, task.init, lambda action: True, clock,
                           bound=robot.cost if robot.valid else None)
    if optimum != result.robot_cost:
        out.append(f"the robot's optimal cost is {optimum}, not {result.robot_cost}")
    return optimum


def _suggestion(result: AssistResult, task: Task, start: State,
                free: Callable[[GroundAction], bool], trace: Sequence[frozenset[Any]],
                clock: BudgetClock, out: list[str]) -> None:
    if not result.completion:
        if result.suggestion is not None:
            out.append("a suggestion was made although the goal already holds")
        return
    if result.suggestion != result.completion[0]:
        out.append("the suggestion is not the first step of the cheapest completion")
    if result.cost_with != result.completion_cost:
        out.append("the cost with the suggestion is not the cheapest completion's")
    action = " ".join(_words(result.suggestion or ""))
    without = cheapest_cost(task, start, lambda a: free(a) and a.name != action, clock)
    if without != result.cost_without:
        out.append(f"without the suggestion the cheapest completion costs {without}, not "
                   f"{result.cost_without}")
    if len(trace) <= result.kept + 1:
        return
    before = {str(atom) for atom in trace[result.kept]}
    after = {str(atom) for atom in trace[result.kept + 1]}
    goal = {str(task.facts[i]) for i in bits(task.goal)}
    for fact in result.achieves_goals:
        if fact not in goal or fact in before or fact not in after:
            out.append(f"the suggestion does not make the goal fact {fact} true")
    for landmark in result.achieves_landmarks:
        facts = landmark.split(" or ")
        if any(f in before for f in facts) or not any(f in after for f in facts):
            out.append(f"the suggestion does not make the landmark {landmark} true")
            continue
        adds = 0
        for atom in task.facts:
            if str(atom) in facts:
                adds |= 1 << task.fact_index[atom]

        def avoids(action: GroundAction, mask: int = adds) -> bool:
            return free(action) and not action.add & mask \
                and not any(effect.add & mask for effect in action.conditional)

        if cheapest_cost(task, start, avoids, clock) is not None:
            out.append(f"{landmark} is not a landmark: a completion avoids it")
