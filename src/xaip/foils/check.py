"""The independent checker of ``xaip foil``.

What it does not share with the search: the compilation into monitor facts, the optimal
planner and its heuristics, and the subset search. It validates plans against the *original*
lifted task (:func:`xaip.planning.plans.validate`), reads each constraint on the plan's
action sequence with its own interpreter (:mod:`xaip.foils.interpret`), and proves costs and
(un)realisability by its own uniform-cost search on the product of a fresh grounding of the
task with the interpreter's constraint automata. What it shares: the PDDL reader, the
grounder, the action-pattern matching (:meth:`~xaip.foils.language.Pattern.matches`) and the
cost semantics (:mod:`xaip.planning.semantics`).

Claims checked: the witness is a valid plan of the task, satisfies every constraint, and
costs what is reported; no plan satisfying the constraints is cheaper (product search); the
robot's plan is valid and optimal; the cost gap is their difference. For an unrealisable foil:
no plan satisfies all constraints; every listed conflict has no plan; every listed maximal
set has one; and the lists are exactly the minimal conflicts and maximal realisable sets
(each maximal set plus any other constraint contains a listed conflict, each conflict minus
one constraint lies in a listed maximal set, and the minimal sets outside every maximal set
are the listed conflicts -- by monotonicity of realisability, no search needed for these).
Runs under a fresh copy of the user's budget; :class:`~xaip.errors.BudgetExhausted` becomes
"unverified: checker budget" (:func:`xaip.contract.run_checker`).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence

from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted
from xaip.foils import interpret
from xaip.foils.language import Constraint
from xaip.foils.results import Cost, FoilResult
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, validate
from xaip.planning.semantics import action_cost, counts_action_costs
from xaip.planning.task import Task
from xaip.runtime import Budget
from xaip.runtime.budget import BudgetClock

Node = tuple[int, tuple[int, ...]]


def cheapest(task: Task, constraints: Sequence[Constraint], counts: bool,
             clock: BudgetClock) -> tuple[Cost, tuple[str, ...]] | None:
    """Uniform-cost search on task x constraint automata: the cheapest plan satisfying every
    constraint (cost, actions), or ``None`` when none does. Raises
    :class:`~xaip.errors.BudgetExhausted` when ``clock`` runs out.

    Why the tables: which patterns a ground action matches is computed once, and each
    (action, automata) transition once, so an expansion costs little more than a plain
    search's."""
    actions = task.actions
    matched = [tuple(tuple(p.matches(a.schema, a.args) for p in c.patterns)
                     for c in constraints) for a in actions]
    prices = [action_cost(a.cost, counts) for a in actions]
    moves: dict[tuple[int, tuple[int, ...]], tuple[int, ...] | None] = {}
    closing = bool(task.axioms or task.derived)

    def move(index: int, automata: tuple[int, ...]) -> tuple[int, ...] | None:
        key = (index, automata)
        if key not in moves:
            after = [interpret.step_matched(c, q, m) for c, q, m in
                     zip(constraints, automata, matched[index], strict=True)]
            moves[key] = None if None in after else tuple(q for q in after if q is not None)
        return moves[key]

    buckets = _buckets(task)
    accept: dict[tuple[int, ...], bool] = {}
    start: Node = (task.close(task.init), tuple(interpret.initial(c) for c in constraints))
    best: dict[Node, Cost] = {start: 0}
    parent: dict[Node, tuple[Node, int] | None] = {start: None}
    counter = itertools.count()
    frontier: list[tuple[Cost, int, Node]] = [(0, next(counter), start)]
    closed: set[Node] = set()
    while frontier:
        cost, _, node = heapq.heappop(frontier)
        if node in closed:
            continue
        closed.add(node)
        state, automata = node
        if automata not in accept:
            accept[automata] = all(interpret.accepting(c, q)
                                   for c, q in zip(constraints, automata, strict=True))
        if accept[automata] and task.is_goal(state):
            return cost, tuple(str(actions[i]) for i in _path(parent, node))
        if not clock.charge():
            raise BudgetExhausted("the checker's product search ran out of budget")
        for index in _candidates(buckets, state):
            action = actions[index]
            if state & action.pre != action.pre or state & action.neg_pre:
                continue
            after = move(index, automata)
            if after is None:
                continue
            successor = action.apply(state)
            child: Node = (task.close(successor) if closing else successor, after)
            price = cost + prices[index]
            if child not in best or price < best[child]:
                best[child] = price
                parent[child] = (node, index)
                heapq.heappush(frontier, (price, next(counter), child))
    return None


def _buckets(task: Task) -> tuple[list[int], dict[int, list[int]]]:
    """Actions without positive preconditions, and the others by their lowest one: an
    action can only apply in a state that has that fact (the checker's own successor
    index, not the planner's)."""
    free: list[int] = []
    by_fact: dict[int, list[int]] = {}
    for index, action in enumerate(task.actions):
        if action.pre:
            by_fact.setdefault((action.pre & -action.pre).bit_length() - 1, []).append(index)
        else:
            free.append(index)
    return free, by_fact


def _candidates(buckets: tuple[list[int], dict[int, list[int]]], state: int) -> list[int]:
    free, by_fact = buckets
    out = list(free)
    for fact, indices in by_fact.items():
        if state >> fact & 1:
            out.extend(indices)
    return out


def _path(parent: dict[Node, tuple[Node, int] | None], node: Node) -> list[int]:
    steps: list[int] = []
    link = parent[node]
    while link is not None:
        node, index = link
        steps.append(index)
        link = parent[node]
    return steps[::-1]


def _steps(plan: Sequence[str]) -> tuple[PlanStep, ...]:
    out = []
    for text in plan:
        words = text.strip("()").split()
        out.append(PlanStep(words[0], tuple(words[1:])))
    return tuple(out)


def check(domain: Domain, problem: Problem, result: FoilResult,
          budget: Budget | None = None) -> CheckReport:
    """Confirm every claim of ``result`` (see the module docstring); ``ok=None`` when the
    budget ran out first or the result claims nothing finished."""
    if result.realisable is None:
        return CheckReport(None, "nothing to check: the search did not finish")
    clock = (budget or Budget()).start()
    counts = counts_action_costs(domain, problem)
    task = ground(domain, problem, budget=clock)
    if result.task_solvable is False:
        if cheapest(task, (), counts, clock) is not None:
            return CheckReport(False, "the task has a plan, but the answer says it has none")
        return CheckReport(True, "the task has no plan at all (exhaustive search)")
    problems = _robot(domain, problem, task, result, counts, clock)
    if problems:
        return CheckReport(False, problems)
    if result.realisable:
        return _witness(domain, problem, task, result, counts, clock)
    return _unrealisable(task, result, counts, clock)


def _robot(domain: Domain, problem: Problem, task: Task, result: FoilResult, counts: bool,
           clock: BudgetClock) -> str:
    assert result.robot_plan is not None
    checked = validate(domain, problem, _steps(result.robot_plan))
    if not checked.valid:
        return f"the robot's plan is not valid: {checked.reason}"
    if checked.cost != result.robot_cost:
        return f"the robot's plan costs {checked.cost}, not {result.robot_cost}"
    best = cheapest(task, (), counts, clock)
    if best is None or best[0] != result.robot_cost:
        return (f"the robot's optimal cost is {None if best is None else best[0]}, "
                f"not {result.robot_cost}")
    return ""


def _witness(domain: Domain, problem: Problem, task: Task, result: FoilResult, counts: bool,
             clock: BudgetClock) -> CheckReport:
    assert result.witness is not None
    steps = _steps(result.witness)
    checked = validate(domain, problem, steps)
    if not checked.valid:
        return CheckReport(False, f"the witness plan is not valid: {checked.reason}")
    if checked.cost != result.witness_cost:
        return CheckReport(False, f"the witness costs {checked.cost}, not "
                                  f"{result.witness_cost}")
    sequence = [(s.name, s.args) for s in steps]
    broken = [c.text for c in result.constraints if not interpret.holds(c, sequence)]
    if broken:
        return CheckReport(False, f"the witness breaks: {'; '.join(broken)}")
    best = cheapest(task, result.constraints, counts, clock)
    if best is None or best[0] != result.witness_cost:
        return CheckReport(False, f"the cheapest plan satisfying the foil costs "
                                  f"{None if best is None else best[0]}, not "
                                  f"{result.witness_cost}")
    if result.cost_gap != checked.cost - (result.robot_cost or 0):
        return CheckReport(False, "the cost gap is not the difference of the costs")
    return CheckReport(True, f"witness valid, every constraint holds, optimal at cost "
                             f"{best[0]} (product search), gap {result.cost_gap}")


def _unrealisable(task: Task, result: FoilResult, counts: bool,
                  clock: BudgetClock) -> CheckReport:
    constraints = result.constraints
    n = len(constraints)

    def has_plan(indices: Sequence[int]) -> bool:
        return cheapest(task, [constraints[i] for i in indices], counts, clock) is not None

    if has_plan(range(n)):
        return CheckReport(False, "a plan satisfies every constraint")
    if not result.conflicts_complete:
        return CheckReport(None, "the conflict search did not finish")
    conflicts = [frozenset(c) for c in result.conflicts]
    maximal = [frozenset(m) for m in result.maximal]
    for conflict in conflicts:
        if has_plan(sorted(conflict)):
            return CheckReport(False, f"conflict {_numbers(conflict)} has a plan")
    for chosen in maximal:
        if not has_plan(sorted(chosen)):
            return CheckReport(False, f"maximal set {_numbers(chosen)} has no plan")
        for i in set(range(n)) - chosen:
            if not any(c <= chosen | {i} for c in conflicts):
                return CheckReport(False, f"{_numbers(chosen | {i})} contains no listed "
                                          "conflict: the maximal set is not shown maximal")
    for conflict in conflicts:
        for i in conflict:
            if not any(conflict - {i} <= m for m in maximal):
                return CheckReport(False, f"{_numbers(conflict - {i})} lies in no listed "
                                          "maximal set: the conflict is not shown minimal")
    uncovered = _minimal_uncovered(n, maximal)
    if uncovered != set(conflicts):
        return CheckReport(False, "the conflicts are not exactly the minimal sets outside "
                                  "every maximal set (a list is incomplete)")
    return CheckReport(True, f"no plan satisfies all {n} constraints; {len(conflicts)} "
                             f"minimal conflict(s) and {len(maximal)} maximal realisable "
                             "set(s) confirmed (product search)")


def _minimal_uncovered(n: int, maximal: list[frozenset[int]]) -> set[frozenset[int]]:
    """The minimal subsets of ``range(n)`` contained in no set of ``maximal``."""
    out: set[frozenset[int]] = set()
    for size in range(n + 1):
        for chosen in itertools.combinations(range(n), size):
            subset = frozenset(chosen)
            if any(s <= subset for s in out):
                continue
            if not any(subset <= m for m in maximal):
                out.add(subset)
    return out


def _numbers(indices: frozenset[int]) -> str:
    return "{" + ", ".join(str(i + 1) for i in sorted(indices)) + "}"
