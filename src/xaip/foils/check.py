"""The independent checker of ``xaip foil``.

What it does not share with the search: the compilation into monitor facts
(:mod:`xaip.foils.compile`), A* with LM-cut, and the subset search. It validates plans
against the *original* lifted task (:func:`xaip.planning.plans.validate`), reads each
constraint on the plan's action sequence with its own interpreter
(:mod:`xaip.foils.interpret`), and proves costs and (un)realisability by optimal search
on its own product of a fresh grounding with the interpreter's automata
(:func:`product_task`: one-hot automaton states, transitions read off the interpreter),
with A* and the reconciliation checker's heuristic
(:func:`xaip.planning.proofs.check_heuristic`: the *certified* LM-cut). What it shares:
the PDDL reader, the grounder, the engine's successor generator and A*, the action-pattern
matching (:meth:`~xaip.foils.language.Pattern.matches`), the cost semantics
(:mod:`xaip.planning.semantics`) and LM-cut as an **untrusted oracle**: on every state of
the product the core's certificate checker (``src/xaip/_native/certify.c``, no code shared
with LM-cut) accepts LM-cut's cuts only when each is a landmark of the delete relaxation
and their charges are a cost partition, else the state gets h^max (counted by
:func:`xaip.planning.engines.compiled.search_counts`), so a fault in LM-cut can slow a
proof, never make it wrong. On tasks with conditional effects, and without the compiled
core, the A* uses h^max. LM-cut runs on the checker's product, not on the search's
compiled task.

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

import dataclasses
import itertools
from collections.abc import Sequence

from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted
from xaip.foils import interpret
from xaip.foils.language import Constraint
from xaip.foils.results import Cost, FoilResult
from xaip.planning.engines import DEFAULT_ENGINE, get_engine
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.planning.plans import PlanStep, validate
from xaip.planning.proofs import CHECK_ALGORITHM, check_heuristic
from xaip.planning.semantics import action_cost, counts_action_costs
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, Status
from xaip.runtime.budget import BudgetClock

#: The checker's search: A* with :func:`check_heuristic` (the certified LM-cut, admissible
#: whatever LM-cut computes). On the shared RADAR firefighting model the robot's optimum
#: and a witness's take it about 26,000 states each, where h^max took 1.1M and uniform-cost
#: search 1.5M (the check: 1.2 s of CPU against h^max's 7.8 s).
CHECK_SEARCH = CHECK_ALGORITHM


def product_task(task: Task, constraints: Sequence[Constraint]) -> Task:
    """The task times the interpreter's automata, built from the automata's transition
    table (:func:`xaip.foils.interpret.step_matched`): one fact per (constraint, automaton
    state), exactly one true per constraint; every ground action gets one copy per
    combination of automaton states it moves (a transition to ``None`` has no copy), and
    the goal asks for an accepting state of every constraint. A different construction from
    :mod:`xaip.foils.compile`'s (one-hot states and explicit transitions, not cumulative
    monitors), read off the interpreter, not the compiler."""
    facts = list(task.facts)
    state_bit: list[dict[int, int]] = []
    init, goal = task.init, task.goal
    for number, constraint in enumerate(constraints, 1):
        states = 1 if constraint.kind == "avoid" else (
            2 if constraint.kind == "never_after" else len(constraint.patterns) + 1)
        bits = {}
        for q in range(states):
            bits[q] = 1 << len(facts)
            facts.append(Atom("foil-check", (f"c{number}", f"q{q}")))
        state_bit.append(bits)
        init |= bits[interpret.initial(constraint)]
        if not interpret.accepting(constraint, 0):
            goal |= bits[states - 1]  # orders accept only when complete
    actions: list[GroundAction] = []
    for action in task.actions:
        moves: list[list[tuple[int, int, int]]] = []  # per constraint: (pre, delete, add)
        for constraint, bits in zip(constraints, state_bit, strict=True):
            matched = tuple(p.matches(action.schema, action.args) for p in constraint.patterns)
            table = {q: interpret.step_matched(constraint, q, matched) for q in bits}
            if all(after == q for q, after in table.items()):
                continue
            moves.append([(bits[q], bits[q] if after != q else 0,
                           bits[after] if after != q else 0)
                          for q, after in table.items() if after is not None])
        for combination in itertools.product(*moves):
            pre = delete = add = 0
            for needs, drops, gains in combination:
                pre, delete, add = pre | needs, delete | drops, add | gains
            actions.append(dataclasses.replace(action, pre=action.pre | pre,
                                               delete=action.delete | delete,
                                               add=action.add | add))
    return dataclasses.replace(task, facts=tuple(facts), actions=tuple(actions), init=init,
                               goal=goal)


def cheapest(task: Task, constraints: Sequence[Constraint], counts: bool,
             clock: BudgetClock, claimed: Cost | None = None
             ) -> tuple[Cost, tuple[str, ...]] | None:
    """The cheapest plan satisfying every constraint (cost, actions), or ``None`` when none
    does (with ``claimed``: none costing at most ``claimed``, the bound ``claimed + 1``
    pruning the rest): A* with the certified LM-cut on :func:`product_task`. Raises
    :class:`~xaip.errors.BudgetExhausted` when ``clock`` runs out."""
    product = product_task(task, constraints)
    engine = get_engine(DEFAULT_ENGINE, search=CHECK_SEARCH,
                        heuristic=check_heuristic(DEFAULT_ENGINE))
    bound = claimed + 1 if isinstance(claimed, int) else None
    found = engine.solve(product, optimal=True, cost_bound=bound, budget=clock.remaining())
    clock.charge(max(found.expanded, 1))
    if found.status == Status.BUDGET_EXHAUSTED:
        raise BudgetExhausted("the checker's product search ran out of budget")
    if found.status != Status.SOLVED:
        return None
    return (sum((action_cost(a.cost, counts) for a in found.plan), 0),
            tuple(str(a) for a in found.plan))


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
    best = cheapest(task, (), counts, clock, result.robot_cost)
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
    best = cheapest(task, result.constraints, counts, clock, result.witness_cost)
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
