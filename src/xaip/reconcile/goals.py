"""Goal tests of the model-space searches: when does a model explain the plan?

Each test looks at ``H + S`` and answers with a :class:`Verdict`: whether the plan is
explained, and the plans that matter for relevance (the robot's plan and, when the model
is not explained, the human's cheaper alternative). The searches never look inside a
test, so MCE, contrastive and approximate explanations share one search (book §4.5, §4.7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.pddl.model import Atom
from xaip.planning.plans import causal_links
from xaip.planning.task import GroundAction, Task
from xaip.reconcile.space import ModelSpace
from xaip.runtime import Budget, BudgetClock


@dataclass(frozen=True)
class Verdict:
    """The answer of a goal test on one model."""

    explained: bool
    valid: bool
    plan_cost: int | None
    failed_step: int | None = None
    alternative: tuple[GroundAction, ...] | None = None  # a cheaper plan, or a cheap foil
    alternative_cost: int | None = None
    undecided: bool = False  # the planner ran out of budget


class GoalTest(Protocol):
    name: str

    def __call__(self, subset: tuple[int, ...]) -> Verdict: ...


class _Planner:
    """Cost-bounded optimal planning with a cache keyed by the grounded task.

    Different edit sets often give the same grounded task (an edit on an action no plan
    can use), so the cache is keyed by the task's content, not by the edits. The engine
    (:func:`xaip.planning.engines.get_engine`) is the built-in A* + LM-cut by default, or
    any registered engine (``"fd"``: Fast Downward in a subprocess).
    """

    def __init__(self, budget: Budget, engine: str | Engine = DEFAULT_ENGINE,
                 clock: BudgetClock | None = None) -> None:
        self.budget = budget
        self.clock = clock or budget.start()
        self.engine = get_engine(engine) if isinstance(engine, str) else engine
        self.calls = 0
        self.hits = 0
        self._cache: dict[tuple[object, ...], tuple[str, tuple[GroundAction, ...], int | None]]
        self._cache = {}

    def cheaper_plan(self, task: Task, bound: int | None) -> tuple[str, tuple[GroundAction, ...],
                                                                   int | None]:
        key = (task.actions, task.init, task.goal, task.goal_neg, bound)
        found = self._cache.get(key)
        if found is not None:
            self.hits += 1
            return found
        # Each call gets the node limit afresh and whatever time the whole run has left.
        budget = self.budget
        if budget.max_seconds is not None:
            left = budget.max_seconds - self.clock.elapsed()
            if left <= 0:
                return "budget_exhausted", (), None
            budget = Budget(budget.max_nodes, left)
        self.calls += 1
        result = self.engine.solve(task, optimal=True, cost_bound=bound, budget=budget)
        answer = (str(result.status), tuple(result.plan), result.cost)
        if answer[0] != "budget_exhausted":  # an unfinished answer is not worth keeping
            self._cache[key] = answer
        return answer


def _resolve(task: Task, names: Sequence[str]) -> list[GroundAction] | None:
    plan = []
    for name in names:
        indices = task.action_index.get(name)
        if not indices:
            return None
        plan.append(task.actions[indices[0]])
    return plan


def _execute(task: Task, names: Sequence[str]) -> tuple[bool, int | None, int | None,
                                                         list[GroundAction]]:
    """(valid, cost, failed step, ground plan) of the plan in ``task``."""
    plan: list[GroundAction] = []
    state = task.init
    for step, name in enumerate(names):
        indices = task.action_index.get(name)
        action = None
        for index in indices or ():
            if task.actions[index].applicable(state):
                action = task.actions[index]
                break
        if action is None:
            return False, None, step, plan
        plan.append(action)
        state = action.apply(state)
    if not task.is_goal(state):
        return False, None, len(names), plan
    return True, sum(a.cost for a in plan), None, plan


class OptimalityTest:
    """MCE's test (book Def. 21): the plan is valid and optimal in ``H + S``."""

    name = "optimal"

    #: How many cheaper plans found so far are retried on later nodes before planning.
    MAX_WITNESSES = 32

    def __init__(self, space: ModelSpace, plan: Sequence[str], planner: _Planner) -> None:
        self.space, self.plan, self.planner = space, tuple(plan), planner
        self.witnesses: list[tuple[str, ...]] = []
        self.witness_hits = 0

    def __call__(self, subset: tuple[int, ...]) -> Verdict:
        valid, cost, failed, _ = _execute(self.space.plan_task(subset, self.plan), self.plan)
        if not valid:
            return Verdict(False, False, None, failed)
        assert cost is not None
        # A cheaper plan found at another node often still works here; simulating it is
        # far cheaper than planning, and a valid cheaper plan settles the question.
        for witness in self.witnesses:
            ok, other, _, steps = _execute(self.space.plan_task(subset, witness), witness)
            if ok and other is not None and other < cost:
                self.witness_hits += 1
                return Verdict(False, True, cost, alternative=tuple(steps),
                               alternative_cost=other)
        task = self.space.task(subset)
        status, cheaper, cheaper_cost = self.planner.cheaper_plan(task, cost)
        if status == "budget_exhausted":
            return Verdict(False, True, cost, undecided=True)
        if status == "solved":
            names = tuple(a.name for a in cheaper)
            if names not in self.witnesses:
                self.witnesses.insert(0, names)
                del self.witnesses[self.MAX_WITNESSES:]
            return Verdict(False, True, cost, alternative=cheaper, alternative_cost=cheaper_cost)
        return Verdict(True, True, cost)


@dataclass(frozen=True)
class Foil:
    """What the person expected instead: a plan, or a constraint on plans.

    ``kind`` is ``"plan"`` (``steps`` is the plan), ``"avoid"`` (plans that never use an
    action named ``action`` — a schema name or a ground action name) or ``"use"`` (plans
    that use it at least once).
    """

    kind: str
    steps: tuple[str, ...] = ()
    action: str = ""
    source: str = field(default="", compare=False)  # the plan file, for messages

    @property
    def text(self) -> str:
        """The foil in English ("a plan that never uses tuck")."""
        if self.kind == "plan":
            return "the plan " + " ".join(f"({s})" for s in self.steps)
        verb = "never uses" if self.kind == "avoid" else "uses"
        return f"a plan that {verb} {self.action}"


def parse_foil(text: str, source: str = "<foil>") -> Foil:
    """``avoid:ACTION``, ``use:ACTION``, or plan-file text (``source`` names it in errors)."""
    from xaip.planning.plans import parse_plan

    stripped = text.strip()
    for prefix in ("avoid:", "use:"):
        if stripped.startswith(prefix):
            action = stripped[len(prefix):].strip().strip("()").lower()
            if not action:
                raise InputError(f"foil '{text}': name an action after '{prefix}'")
            return Foil(prefix[:-1], action=action)
    steps = parse_plan(stripped, source)
    if not steps:
        raise InputError(f"{source}: the foil plan is empty")
    return Foil("plan", steps=tuple(" ".join((s.name, *s.args)) for s in steps), source=source)


def _matches(action: GroundAction, name: str) -> bool:
    return action.schema == name or action.name == name


class ContrastiveTest:
    """Contrastive test (book §4.7.1): the plan is valid, and no foil is cheaper."""

    name = "contrastive"

    def __init__(self, space: ModelSpace, plan: Sequence[str], planner: _Planner,
                 foils: Sequence[Foil]) -> None:
        if not foils:
            raise InputError("contrastive explanations need at least one foil")
        self.space, self.plan, self.planner, self.foils = space, tuple(plan), planner, foils

    def __call__(self, subset: tuple[int, ...]) -> Verdict:
        task = self.space.task(subset)
        valid, cost, failed, _ = _execute(task, self.plan)
        if not valid:
            return Verdict(False, False, None, failed)
        assert cost is not None
        for foil in self.foils:
            if foil.kind == "plan":
                foil_valid, foil_cost, _, foil_plan = _execute(task, foil.steps)
                if foil_valid and foil_cost is not None and foil_cost < cost:
                    return Verdict(False, True, cost, alternative=tuple(foil_plan),
                                   alternative_cost=foil_cost)
                continue
            status, cheaper, cheaper_cost = self.planner.cheaper_plan(
                _constrained(task, foil), cost)
            if status == "budget_exhausted":
                return Verdict(False, True, cost, undecided=True)
            if status == "solved":
                real = tuple(a for a in cheaper if a.schema != _USED)
                return Verdict(False, True, cost, alternative=real, alternative_cost=cheaper_cost)
        return Verdict(True, True, cost)


_USED = "xaip-used"


def _constrained(task: Task, foil: Foil) -> Task:
    """The task restricted to the foil's plans (compiled into the task, book §4.7.1)."""
    if foil.kind == "avoid":
        actions = tuple(a for a in task.actions if not _matches(a, foil.action))
        return Task(task.name, task.facts, actions, task.init, task.goal, task.goal_neg,
                    task.static_facts, task.has_costs)
    used = len(task.facts)
    bit = 1 << used
    actions = tuple(
        GroundAction(a.schema, a.args, a.pre, a.add | bit, a.delete, a.cost, a.neg_pre,
                     a.conditional) if _matches(a, foil.action) else a
        for a in task.actions)
    # No ground action of the foil's (none reachable in this model): no plan uses it, so
    # the constrained task is unsolvable (the foil names a declared action: checked before).
    facts = (*task.facts, Atom(_USED, (foil.action,)))
    return Task(task.name, facts, actions, task.init, task.goal | bit, task.goal_neg,
                task.static_facts, task.has_costs)


class ApproximateTest:
    """Approximate MCE (book §4.7.2): cheap proxies instead of optimal planning.

    C1: the plan is valid; C2: the human's originally expected plan is invalid or costs
    more; C3: every step of the plan supports a causal link (a step that supports nothing
    could be dropped, so the plan could not be optimal).
    """

    name = "approximate"

    def __init__(self, space: ModelSpace, plan: Sequence[str],
                 expected: Sequence[str] | None) -> None:
        self.space, self.plan = space, tuple(plan)
        self.expected = tuple(expected) if expected is not None else None

    def __call__(self, subset: tuple[int, ...]) -> Verdict:
        task = self.space.task(subset)
        valid, cost, failed, ground_plan = _execute(task, self.plan)
        if not valid:
            return Verdict(False, False, None, failed)
        alternative = None
        if self.expected is not None:
            exp_valid, exp_cost, _, exp_plan = _execute(task, self.expected)
            if exp_valid and exp_cost is not None and cost is not None and exp_cost < cost:
                return Verdict(False, True, cost, alternative=tuple(exp_plan),
                               alternative_cost=exp_cost)
        producers = {link.producer for link in causal_links(task, ground_plan)}
        if any(step not in producers for step in range(len(ground_plan))):
            return Verdict(False, True, cost, alternative=alternative)
        return Verdict(True, True, cost)
