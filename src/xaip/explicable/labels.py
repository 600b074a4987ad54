"""Model-free explicability by plan labelling (X04–X06, book ch. 3 §3.3).

People explain a plan to themselves by attaching task labels (sub-goals) to its steps; a
step they cannot label is inexplicable, so ``IE(π) = |{i : L(a_i) = ∅}| / |π|``.

* A :class:`Labeller` labels the steps of a plan; ``states[i]`` is the state before step
  ``i`` or ``None`` when unknown (steps of a relaxed plan). ``markov = True`` declares that
  a step's labels depend only on that state and the action — then the complete search of
  :func:`synthesize` is exact.
* :class:`RuleLabeller` wraps a function (an oracle, or hand-written rules);
  :class:`MajorityLabeller` is the learned baseline: the label set seen most often for the
  ground action in annotated plans, else for its schema ([D]);
  :class:`xaip.explicable.crf.CRFLabeller` is the book's CRF (context-dependent, so not
  Markov).
* :func:`select_plan` (X05) picks the candidate with the lowest IE, then cost, among the
  robot's cheapest plans (top-k) or given ones.
* :func:`synthesize` (X06) runs enforced hill-climbing on ``h_FF(s) + w · U_est``, where
  ``U_est`` counts the unlabelled steps of the prefix and the relaxed plan labelled
  together (relaxed steps without states) — a count, not the share, since a share would
  reward padding a plan with labelled detours and the climb would never end; if the
  labeller is Markov, a uniform-cost search on (unlabelled steps, cost) over states looks
  for a better plan, so a plan with no unlabelled step is returned whenever one exists;
  for other labellers the best of the robot's ``k`` cheapest plans plays that part (exact
  only among those plans).
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from xaip.contract import CheckReport
from xaip.errors import InputError
from xaip.explicable.problem import ExplicableProblem, ground_plan
from xaip.planning.heuristics import HFF
from xaip.planning.plans import validate
from xaip.planning.search.enumerate import top_k_plans
from xaip.planning.search.successors import Successors
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock, as_clock
from xaip.sidefiles import read_text

Label = frozenset[str]
INF = float("inf")


class Labeller(Protocol):
    markov: bool

    def label(self, steps: Sequence[GroundAction], states: Sequence[int | None]
              ) -> list[Label]: ...


class RuleLabeller:
    """Labels from a function of (action, state before it or ``None``)."""

    markov = True

    def __init__(self, rule: Callable[[GroundAction, int | None], Label]) -> None:
        self.rule = rule

    def label(self, steps: Sequence[GroundAction], states: Sequence[int | None]
              ) -> list[Label]:
        return [frozenset(self.rule(a, s)) for a, s in zip(steps, states, strict=True)]


class MajorityLabeller:
    """The label set seen most often for a ground action (else its schema) in training."""

    markov = True

    def __init__(self) -> None:
        self.by_action: dict[str, Counter[Label]] = {}
        self.by_schema: dict[str, Counter[Label]] = {}

    def fit(self, examples: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]]
            ) -> MajorityLabeller:
        """``examples``: (plan step names, label list per step) pairs."""
        for steps, labels in examples:
            if len(steps) != len(labels):
                raise InputError("each annotated plan needs one label list per step")
            for step, tags in zip(steps, labels, strict=True):
                name = " ".join(step.strip("() ").lower().split())
                label = frozenset(tags)
                self.by_action.setdefault(name, Counter())[label] += 1
                self.by_schema.setdefault(name.split()[0], Counter())[label] += 1
        return self

    def label(self, steps: Sequence[GroundAction], states: Sequence[int | None]
              ) -> list[Label]:
        return self.tag_names([a.name for a in steps])

    def tag_names(self, names: Sequence[str]) -> list[Label]:
        """Labels for a plan given by step names (the dataset's form)."""
        out = []
        for step in names:
            name = " ".join(step.strip("() ").lower().split())
            seen = self.by_action.get(name) or self.by_schema.get(name.split()[0])
            out.append(min(seen.items(), key=lambda kv: (-kv[1], sorted(kv[0])))[0]
                       if seen else frozenset())
        return out


def label_ie(labels: Sequence[Label]) -> float:
    """The share of unlabelled steps (0 for an empty plan)."""
    return sum(1 for label in labels if not label) / len(labels) if labels else 0.0


def labels_of(task: Task, labeller: Labeller, plan: Sequence[GroundAction]) -> list[Label]:
    states: list[int | None] = []
    state = task.init
    for action in plan:
        states.append(state)
        state = action.apply(state)
    return labeller.label(plan, states)


@dataclass(frozen=True)
class LabelledPlan:
    """A plan chosen or built by the labelling model, with its labels."""

    status: Status
    plan: tuple[str, ...]
    cost: int | None
    inexplicability: float | None
    labels: tuple[tuple[str, ...], ...]
    method: str
    candidates: int
    seconds: float
    stats: dict[str, int | float] = field(default_factory=dict)
    verified: bool = False
    check: CheckReport | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"status": str(self.status), "verified": self.verified,
                "plan": [f"({s})" for s in self.plan], "robot_cost": self.cost,
                "inexplicability": self.inexplicability,
                "labels": [list(label) for label in self.labels], "method": self.method,
                "candidates": self.candidates, "seconds": round(self.seconds, 6),
                "stats": dict(self.stats),
                "check": None if self.check is None else self.check.to_dict()}


def _result(task: Task, labeller: Labeller, plan: Sequence[GroundAction] | None,
            method: str, candidates: int, clock: BudgetClock, status: Status,
            stats: dict[str, int | float]) -> LabelledPlan:
    if plan is None:
        return LabelledPlan(status, (), None, None, (), method, candidates, clock.elapsed(),
                            stats)
    labels = labels_of(task, labeller, plan)
    return LabelledPlan(status, tuple(a.name for a in plan), sum(a.cost for a in plan),
                        label_ie(labels), tuple(tuple(sorted(lb)) for lb in labels), method,
                        candidates, clock.elapsed(), stats)


def select_plan(problem: ExplicableProblem, labeller: Labeller,
                candidates: Sequence[Sequence[GroundAction]] | None = None, k: int = 20,
                budget: Budget | None = None) -> LabelledPlan:
    """X05: the candidate with the lowest label IE, then cost (default: the k cheapest)."""
    clock = as_clock(budget)
    task = problem.robot_task
    status = Status.FOUND
    if candidates is None:
        listed = top_k_plans(task, k, clock.remaining())
        clock.charge(listed.expanded)
        candidates = listed.plans
        if listed.status == Status.BUDGET_EXHAUSTED:
            status = Status.BUDGET_EXHAUSTED
    best: tuple[tuple[float, int, int], Sequence[GroundAction]] | None = None
    for index, plan in enumerate(candidates):
        key = (label_ie(labels_of(task, labeller, plan)), sum(a.cost for a in plan), index)
        if best is None or key < best[0]:
            best = (key, plan)
    if best is None and status == Status.FOUND:
        status = Status.UNSOLVABLE
    result = _result(task, labeller, None if best is None else best[1], "select",
                     len(candidates), clock, status, {"candidates": len(candidates)})
    if result.status.finished and result.cost is not None:
        from dataclasses import replace

        from xaip.contract import with_check

        report = check_labelled(problem, labeller, result, candidates, budget)
        result = with_check(replace(result, check=report), report)
    return result


def synthesize(problem: ExplicableProblem, labeller: Labeller, weight: float = 1.0,
               budget: Budget | None = None, k: int = 50) -> LabelledPlan:
    """X06: enforced hill-climbing on ``h_FF + weight · U_est``, completed, for Markov
    labellers, by a uniform-cost search on (unlabelled steps, cost), and for others (a CRF,
    whose tags depend on the neighbours) by the best of the robot's ``k`` cheapest plans;
    the better (IE, cost) of the two plans is returned."""
    clock = as_clock(budget)
    task = problem.robot_task
    hff = HFF(task)
    succ = Successors(task)
    stats: dict[str, int | float] = {"expanded": 0}

    def h(state: int, prefix: tuple[GroundAction, ...], states: tuple[int, ...]) -> float:
        value, relaxed = hff.evaluate(state)
        if relaxed is None:
            return INF
        steps = [*prefix, *(task.actions[i] for i in relaxed)]
        known: list[int | None] = [*states, *([None] * len(relaxed))]
        return value + weight * sum(1 for lb in labeller.label(steps, known) if not lb)

    try:
        plan = _ehc(task, succ, h, clock, stats)
        found = (_fewest_unlabelled(task, succ, labeller, clock, stats)
                 if labeller.markov else _best_of_cheapest(task, labeller, k, clock, stats))
        if found is not None and (plan is None or _key(task, labeller, found)
                                  < _key(task, labeller, plan)):
            plan = found
    except _Out:
        return _result(task, labeller, None, "synthesize", 0, clock,
                       Status.BUDGET_EXHAUSTED, stats)
    result = _result(task, labeller, plan, "synthesize", 1, clock,
                     Status.FOUND if plan is not None else Status.UNSOLVABLE, stats)
    if result.cost is not None:
        from dataclasses import replace

        from xaip.contract import with_check

        report = check_labelled(problem, labeller, result, budget=budget)
        result = with_check(replace(result, check=report), report)
    return result


class _Out(Exception):
    pass


def _key(task: Task, labeller: Labeller, plan: Sequence[GroundAction]) -> tuple[float, int]:
    return label_ie(labels_of(task, labeller, plan)), sum(a.cost for a in plan)


def _ehc(task: Task, succ: Successors, h: Callable[..., float], clock: BudgetClock,
         stats: dict[str, int | float]) -> tuple[GroundAction, ...] | None:
    state = task.init
    prefix: tuple[GroundAction, ...] = ()
    states: tuple[int, ...] = ()
    current = h(state, prefix, states)
    while not task.is_goal(state):
        frontier: list[tuple[int, tuple[GroundAction, ...], tuple[int, ...]]] = [
            (state, prefix, states)]
        seen = {state}
        improved = None
        while frontier and improved is None:
            following: list[tuple[int, tuple[GroundAction, ...], tuple[int, ...]]] = []
            for s, p, ss in frontier:
                if not clock.charge():
                    raise _Out
                stats["expanded"] += 1
                for index, child, _ in succ(s):
                    if child in seen:
                        continue
                    seen.add(child)
                    node = (child, (*p, task.actions[index]), (*ss, s))
                    value = h(*node)
                    if value < current or task.is_goal(child):
                        improved = (node, value)
                        break
                    following.append(node)
                if improved is not None:
                    break
            frontier = following
        if improved is None:
            return None  # EHC is incomplete; the uniform-cost stage may still find a plan
        (state, prefix, states), current = improved
    return prefix


def _best_of_cheapest(task: Task, labeller: Labeller, k: int, clock: BudgetClock,
                      stats: dict[str, int | float]) -> tuple[GroundAction, ...] | None:
    listed = top_k_plans(task, k, clock.remaining())
    stats["expanded"] += listed.expanded
    stats["candidates"] = len(listed.plans)
    if not clock.charge(listed.expanded) or listed.status == Status.BUDGET_EXHAUSTED:
        raise _Out
    scored = [(_key(task, labeller, plan), index) for index, plan in enumerate(listed.plans)]
    return tuple(listed.plans[min(scored)[1]]) if scored else None


def _fewest_unlabelled(task: Task, succ: Successors, labeller: Labeller, clock: BudgetClock,
                       stats: dict[str, int | float]) -> tuple[GroundAction, ...] | None:
    queue: list[tuple[int, int, int, int]] = [(0, 0, 0, task.init)]
    parent: dict[int, tuple[int, int] | None] = {task.init: None}
    best = {task.init: (0, 0)}
    counter = 0
    while queue:
        bad, g, _, state = heapq.heappop(queue)
        if (bad, g) > best[state]:
            continue
        if task.is_goal(state):
            out = []
            link = parent[state]
            while link is not None:
                state, index = link
                out.append(task.actions[index])
                link = parent[state]
            return tuple(reversed(out))
        if not clock.charge():
            raise _Out
        stats["expanded"] += 1
        for index, child, cost in succ(state):
            action = task.actions[index]
            label = labeller.label([action], [state])[0]
            key = (bad + (0 if label else 1), g + cost)
            if key < best.get(child, (INF, INF)):
                best[child] = key
                parent[child] = (state, index)
                counter += 1
                heapq.heappush(queue, (key[0], key[1], counter, child))
    return None


def check_labelled(problem: ExplicableProblem, labeller: Labeller, result: LabelledPlan,
                   candidates: Sequence[Sequence[GroundAction]] | None = None,
                   budget: Budget | BudgetClock | None = None) -> CheckReport:
    """The plan is valid on the lifted robot model with the claimed cost; its labels and IE
    are recomputed; a selection is no worse than any candidate; a synthesis for a Markov
    labeller with unlabelled steps could not have avoided them (no goal is reachable by
    labelled steps alone: a reachability search scanning the actions). Shares the labeller
    and the grounded task. Runs under ``budget`` started afresh; running out is
    "unverified: checker budget" (:func:`xaip.contract.run_checker`)."""
    from xaip.contract import run_checker
    from xaip.explicable.checks import fresh_clock

    clock = fresh_clock(budget)
    return run_checker(lambda: _check_labelled(problem, labeller, result, candidates, clock))


def _check_labelled(problem: ExplicableProblem, labeller: Labeller, result: LabelledPlan,
                    candidates: Sequence[Sequence[GroundAction]] | None,
                    clock: BudgetClock) -> CheckReport:
    from xaip.errors import BudgetExhausted
    from xaip.explicable.checks import steps_of

    valid = validate(problem.robot_domain, problem.robot_problem, steps_of(result.plan))
    if not valid.valid or valid.cost != result.cost:
        return CheckReport(False, f"robot model: {valid.reason or 'cost differs'}")
    task = problem.robot_task
    plan = ground_plan(task, result.plan)
    assert plan is not None
    own = _key(task, labeller, plan)
    if result.inexplicability is None or abs(own[0] - result.inexplicability) > 1e-9:
        return CheckReport(False, f"label IE recomputed as {own[0]}")
    labels = tuple(tuple(sorted(label)) for label in labels_of(task, labeller, plan))
    if labels != tuple(tuple(label) for label in result.labels):
        return CheckReport(False, "the labels differ from the labeller's")
    if candidates is not None:
        worse = [c for c in candidates if _key(task, labeller, c) < own]
        if worse:
            return CheckReport(False, "a candidate has a lower (IE, cost)")
        return CheckReport(True, f"valid; no better among {len(candidates)} candidates")
    if own[0] == 0 or not labeller.markov:
        return CheckReport(True, "valid; labels and IE recomputed")
    frontier, seen = [task.init], {task.init}
    while frontier:
        state = frontier.pop()
        if task.is_goal(state):
            return CheckReport(False, "a plan with no unlabelled step exists")
        if not clock.charge():
            raise BudgetExhausted("the checker ran out of its budget", phase="check",
                                  sizes={"states": len(seen)})
        for action in task.applicable(state):
            child = action.apply(state)
            if child not in seen and labeller.label([action], [state])[0]:
                seen.add(child)
                frontier.append(child)
    return CheckReport(True, "valid; labels and IE recomputed; no plan without unlabelled "
                             "steps exists (reachability over labelled steps)")


def read_annotations(path: str | Path) -> list[tuple[list[str], list[list[str]]]]:
    """Annotated plans, JSON Lines: ``{"plan": ["pick-up c10", ...], "labels": [["serve"],
    [], ...]}`` with one label list per step (an empty list: the step was inexplicable)."""
    try:
        lines = read_text(path, "annotations").splitlines()
    except (OSError, UnicodeDecodeError) as error:  # pragma: no cover - read_text says why
        raise InputError(f"cannot read annotations {path}: "
                         f"{getattr(error, 'strerror', None) or 'not UTF-8'}") from None
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            plan = [str(s) for s in record["plan"]]
            labels = [[str(t) for t in tags] for tags in record["labels"]]
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InputError(f"{path}:{number}: expected a JSON object with a plan and one "
                             "label list per step") from None
        if len(plan) != len(labels):
            raise InputError(f"{path}:{number}: {len(plan)} steps but {len(labels)} label "
                             "lists")
        out.append((plan, labels))
    if not out:
        raise InputError(f"{path} has no annotated plans")
    return out
