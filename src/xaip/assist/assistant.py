"""The assistant: holds the person's task, partial plan and vetoes; completes, suggests and
checks (RADAR's decision-support loop, book-spec section 9).

Why one object: a UI drives a dialogue (the person adds steps, vetoes an action, asks
again), so the task is read and grounded once and the answers are recomputed from the
current prefix and vetoes. Every search is xaip's optimal planner (A* + LM-cut) on the
grounded task started from the prefix's end state with the vetoed actions removed; every
answer is then checked by :func:`xaip.assist.check.check` under a fresh copy of the budget.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable, Sequence
from typing import Any

from xaip.assist.results import AssistResult, Failure
from xaip.assist.vetoes import banned, parse_veto, veto_text
from xaip.contract import run_checker, with_check
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.grounding import ground
from xaip.planning.pddl import check_problem
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.planner import plan_task
from xaip.planning.plans import PlanStep, check_steps, resolve, validate
from xaip.planning.semantics import counts_action_costs, fact_text
from xaip.planning.task import GroundAction, State, Task, bits
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock

MODES = ("complete", "suggest", "check")


def as_steps(plan: Iterable[PlanStep | str]) -> tuple[PlanStep, ...]:
    """Plan steps from :class:`PlanStep` objects or texts such as ``(pick-up b1)``."""
    out = []
    for item in plan:
        if isinstance(item, PlanStep):
            out.append(item)
            continue
        words = item.strip().strip("()").lower().split()
        if not words:
            raise InputError(f"empty plan step {item!r}")
        out.append(PlanStep(words[0], tuple(words[1:])))
    return tuple(out)


def _text(step: PlanStep | GroundAction) -> str:
    return str(step)


class _OutOfBudget(Exception):
    """The search's budget ran out (turned into status ``budget_exhausted``)."""


class Assistant:
    """The person's task, partial plan (``prefix``) and vetoes, and the three questions.

    ``prefix`` and plans are :class:`~xaip.planning.plans.PlanStep` sequences or texts;
    ``vetoes`` are schema names or ground actions (:mod:`xaip.assist.vetoes`). Bad input
    (unknown actions or objects, unknown veto) raises a one-line :class:`InputError`.
    """

    def __init__(self, domain: Domain, problem: Problem,
                 prefix: Iterable[PlanStep | str] = (), vetoes: Iterable[str] = (),
                 human: tuple[Domain, Problem | None] | None = None) -> None:
        check_problem(domain, problem)
        self.domain = domain
        self.problem = problem
        #: The person's model of the task (humans as actors), or None.
        self.human: tuple[Domain, Problem] | None = None
        if human is not None:
            from xaip.assist.human import check_human

            self.human = check_human(domain, problem, *human)
        self.prefix: tuple[PlanStep, ...] = ()
        self.vetoes: tuple[tuple[str, ...], ...] = ()
        self.set_prefix(prefix)
        for veto in vetoes:
            self.veto(veto)
        self._task: Task | None = None

    # ------------------------------------------------------------------ dialogue state

    def set_prefix(self, prefix: Iterable[PlanStep | str]) -> None:
        """Replace the person's partial plan (checked for unknown actions and objects)."""
        steps = as_steps(prefix)
        check_steps(self.domain, self.problem, steps)
        self.prefix = steps

    def veto(self, action: str) -> None:
        """Forbid a schema (every instance) or one ground action from now on."""
        words = parse_veto(action, self.domain, self.problem)
        if words not in self.vetoes:
            self.vetoes = (*self.vetoes, words)

    def clear_vetoes(self) -> None:
        self.vetoes = ()

    @property
    def counts_costs(self) -> bool:
        return counts_action_costs(self.domain, self.problem)

    # ------------------------------------------------------------------ questions

    def complete(self, budget: Budget | None = None) -> AssistResult:
        """The cheapest completion of the prefix avoiding the vetoes, and its gap to the
        robot's own optimal plan."""
        return self._answer("complete", self.prefix, budget)

    def suggest(self, budget: Budget | None = None, explicable: bool = False,
                slack: int = 0, distance: str = "cost",
                intended: Iterable[PlanStep | str] | None = None) -> AssistResult:
        """The next action after the prefix and why (goal facts, landmarks, cost with it
        and without it). With ``explicable`` (needs the person's model), the completion
        within ``slack`` of the cheapest that is closest to what she would do, by the
        explicable planner's ``distance`` (:mod:`xaip.assist.human`) to the rest of her
        ``intended`` plan (a whole plan starting with the prefix), or without one to her
        optimal plans in her model."""
        if explicable:
            if self.human is None:
                raise InputError("an explicable suggestion needs your model of the task "
                                 "(--human-domain)")
            if self.vetoes:
                raise InputError("vetoes and explicable suggestions do not combine yet")
            if slack < 0:
                raise InputError(f"the slack must not be negative, not {slack}")
            from xaip.explicable import DISTANCES

            if distance not in DISTANCES:
                raise InputError(f"unknown distance {distance!r} (one of "
                                 f"{', '.join(DISTANCES)})")
            rest = None
            if intended is not None:
                from xaip.assist.human import remainder

                whole = as_steps(intended)
                check_steps(self.domain, self.problem, whole)
                rest = remainder(self.prefix, whole)
            return self._answer("suggest", self.prefix, budget, (slack, distance, rest))
        return self._answer("suggest", self.prefix, budget)

    def check(self, plan: Iterable[PlanStep | str], budget: Budget | None = None
              ) -> AssistResult:
        """Validate the person's whole plan; when it fails, where and what breaks, and the
        cheapest completion from the last applicable step as a repair. With the person's
        model, also what she needs to know about the true model: a contrastive
        explanation with her plan as the foil (:func:`xaip.assist.human.explain_failure`)."""
        steps = as_steps(plan)
        check_steps(self.domain, self.problem, steps)
        result = self._answer("check", steps, budget)
        if self.human is None or result.status != Status.INVALID:
            return result
        from xaip.assist.human import explain_failure, with_explanation

        answer = explain_failure(self.domain, self.problem, self.human, steps,
                                 budget or Budget())
        return with_explanation(result, answer, self.human)

    # ------------------------------------------------------------------ work

    def _answer(self, mode: str, steps: tuple[PlanStep, ...], budget: Budget | None,
                explicable: tuple[int, str, tuple[str, ...] | None] | None = None) -> AssistResult:
        started = time.perf_counter()
        budget = budget or Budget()
        clock = budget.start()
        stats: dict[str, Any] = {"planner_calls": 0, "expanded": 0}
        base = AssistResult(mode, Status.BUDGET_EXHAUSTED, tuple(_text(s) for s in steps),
                            tuple(veto_text(v) for v in self.vetoes),
                            counts_costs=self.counts_costs)
        try:
            result = self._work(mode, steps, base, clock, stats, explicable)
        except (_OutOfBudget, BudgetExhausted):
            result = base
        result = dataclasses.replace(result, stats=stats,
                                     seconds=time.perf_counter() - started)
        if not result.status.finished:
            return result
        from xaip.assist.check import check

        report = run_checker(lambda: check(self.domain, self.problem, result, budget,
                                           human=self.human))
        return dataclasses.replace(with_check(result, report), check=report,
                                   seconds=time.perf_counter() - started)

    def _grounded(self, clock: BudgetClock) -> Task:
        if self._task is None:
            self._task = ground(self.domain, self.problem, budget=clock)
        return self._task

    def _work(self, mode: str, steps: tuple[PlanStep, ...], base: AssistResult,
              clock: BudgetClock, stats: dict[str, Any],
              explicable: tuple[int, str, tuple[str, ...] | None] | None = None) -> AssistResult:
        lifted = validate(self.domain, self.problem, steps)
        failure: Failure | None = None
        kept = len(steps)
        if not lifted.valid and not lifted.goal_unmet:
            assert lifted.failed_step is not None
            index = lifted.failed_step
            failure = Failure("precondition", lifted.failed_step_number, _text(steps[index]),
                              lifted.unmet)
            if mode != "check":
                return dataclasses.replace(base, status=Status.INVALID, failure=failure,
                                           kept=index)
            kept = index
        elif not lifted.valid and mode == "check":
            failure = Failure("goal", None, None, lifted.unmet)
        task = self._grounded(clock)
        state = self._replay(task, steps[:kept])
        prefix_cost = validate(self.domain, self.problem, steps[:kept]).cost
        robot = self._cheapest(task, task.init, None, clock, stats)
        base = dataclasses.replace(
            base, kept=kept, prefix_cost=prefix_cost, failure=failure,
            robot_plan=None if robot is None else tuple(map(_text, robot[0])),
            robot_cost=None if robot is None else robot[1])
        if mode == "check" and lifted.valid:
            return dataclasses.replace(base, status=Status.VALID, completion=(),
                                       completion_cost=0)
        allowed = [a for a in task.actions if not banned(a, self.vetoes)]
        best = self._cheapest(task, state, allowed, clock, stats)
        if best is None:
            status = Status.INVALID if mode == "check" else Status.UNSOLVABLE
            return dataclasses.replace(base, status=status)
        completion, cost = best
        if mode == "suggest" and explicable is not None:
            return self._explicable_answer(base, steps[:kept], cost, *explicable, clock)
        status = Status.INVALID if mode == "check" else Status.SOLVED
        result = dataclasses.replace(base, status=status,
                                     completion=tuple(map(_text, completion)),
                                     completion_cost=cost)
        if mode != "suggest" or not completion:
            return result
        return self._reasons(result, task, state, allowed, completion[0], clock, stats)

    def _explicable_answer(self, base: AssistResult, kept: tuple[PlanStep, ...],
                           cheapest: int, slack: int, distance: str,
                           intended: tuple[str, ...] | None, clock: BudgetClock
                           ) -> AssistResult:
        from xaip.assist.human import HumanAnswer, explicable_completion, status_of

        assert self.human is not None
        inner = explicable_completion(self.domain, self.problem, self.human, kept, cheapest,
                                      slack, distance, clock.remaining(), intended)
        answer = HumanAnswer("explicable", slack=slack, distance=distance, intended=intended,
                             cheapest_cost=cheapest, expected_plan=inner.nearest_expected,
                             inexplicability=inner.inexplicability, explicable=inner)
        status = status_of(inner)
        if status != Status.SOLVED:
            return dataclasses.replace(base, status=status, human=answer)
        completion = tuple(f"({name})" for name in inner.plan)
        return dataclasses.replace(
            base, status=status, completion=completion, completion_cost=inner.robot_cost,
            suggestion=completion[0] if completion else None,
            cost_with=inner.robot_cost, human=answer)

    def _reasons(self, result: AssistResult, task: Task, state: State,
                 allowed: list[GroundAction], action: GroundAction, clock: BudgetClock,
                 stats: dict[str, Any]) -> AssistResult:
        from xaip.planning.landmarks import find_landmarks

        after = action.apply(state)
        new = after & ~state
        goals = tuple(fact_text(task.facts[i].predicate, task.facts[i].args)
                      for i in bits(new & task.goal))
        here = self._restricted(task, state, allowed)
        graph = find_landmarks(here, budget=clock.remaining())
        if not graph.complete:
            raise _OutOfBudget
        marks = []
        for landmark in graph.landmarks:
            facts = landmark.facts
            if any(state >> f & 1 for f in facts) or not any(new >> f & 1 for f in facts):
                continue
            marks.append(" or ".join(fact_text(here.facts[f].predicate, here.facts[f].args)
                                     for f in facts))
        without = self._cheapest(task, state, [a for a in allowed if a is not action],
                                 clock, stats)
        return dataclasses.replace(
            result, suggestion=_text(action), achieves_goals=goals,
            achieves_landmarks=tuple(m for m in marks if m not in goals),
            cost_with=result.completion_cost,
            cost_without=None if without is None else without[1])

    @staticmethod
    def _replay(task: Task, steps: Sequence[PlanStep]) -> State:
        """The grounded state after ``steps`` (already validated on the lifted model)."""
        state = task.init
        for step, variants in zip(steps, resolve(task, steps, strict=False), strict=True):
            usable = [a for a in variants if a.applicable(state)]
            if not usable:
                raise InputError(f"{step} applies on the lifted model but not in the grounded "
                                 "task (please report this)")
            state = usable[0].apply(state)
        return state

    @staticmethod
    def _restricted(task: Task, state: State, allowed: Sequence[GroundAction] | None) -> Task:
        actions = task.actions if allowed is None else tuple(allowed)
        return dataclasses.replace(task, init=state, actions=actions)

    def _cheapest(self, task: Task, state: State, allowed: Sequence[GroundAction] | None,
                  clock: BudgetClock, stats: dict[str, Any]
                  ) -> tuple[tuple[GroundAction, ...], int] | None:
        """An optimal plan from ``state`` with only ``allowed`` actions (``None``: all), or
        ``None`` when none exists."""
        restricted = self._restricted(task, state, allowed)
        if not clock.tick():
            raise _OutOfBudget
        answer = plan_task(restricted, optimal=True, budget=clock.remaining())
        stats["planner_calls"] += 1
        stats["expanded"] += answer.expanded
        clock.charge(answer.expanded)
        if answer.status == Status.BUDGET_EXHAUSTED:
            raise _OutOfBudget
        if answer.status != Status.SOLVED:
            return None
        assert answer.cost is not None
        return answer.plan, answer.cost
