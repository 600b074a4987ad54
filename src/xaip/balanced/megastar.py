"""MEGA* (book ch. 7, B04/B06): best-first search over the compiled task for the best
self-explaining plan, under each of the three objectives.

Why a search of our own: the objectives need more than the compiled task's action costs.
``explicable`` and ``explicable-optimal`` accept a solution only when its task plan is
*optimal* in the person's updated model ``M^R_h + E`` and ``balanced`` charges the
inexplicability penalty ``γ·P(C(π, M^R_h + E) − C*_{M^R_h + E})``; both need the oracle
``C*_{M^R_h + E}``, an optimal-planner call cached by the edit set ``E``. Off-the-shelf
planners cannot call it (book-spec §6.5), so this module runs A* on the compiled task
:mod:`xaip.balanced.compile` with that oracle.

How (explanations come first in the compiled task, so ``E`` is fixed once ``start`` has
run):

* before ``start`` the search adds explanations, in increasing candidate order (every set
  once), bounded by ``α·C*_{M^R} + β·C(S)`` (+ ``γ·P(0)``); at ``start`` the node's edit
  set ``S`` is known and, when the node is expanded, the oracle gives ``C*_S`` (skipped
  when the relaxation of ``M^R_h + S`` already has no plan) and the compiled actions are
  specialised to ``S`` (guards and conditional belief effects resolved, cached by the meta
  bits each action reads), a plain task the usual successor generator runs;
* a node carries its robot cost ``g_R`` and the cost ``g_H`` the person's model gives the
  plan so far (the beliefs are exactly the state of ``M^R_h + S`` after the plan); nodes
  of one compiled state are kept while no other is at least as cheap in both (a Pareto
  front), since every objective grows with both;
* bounds: ``h_R`` on the world bits (the robot's task) and ``h_H`` on the belief bits
  (the person's task for ``S``), both admissible (LM-cut or h_max), give
  ``α·(g_R + h_R) + β·C(S) + γ·P(max(0, g_H + h_H − C*_S))`` for ``balanced`` (``P`` is
  increasing); the explicable objectives prune ``g_H + h_H > C*_S`` (the plan could not
  end optimal for her) and ``explicable-optimal`` also ``g_R + h_R > C*_{M^R}``;
* at ``finish`` the value is exact, so the first solution popped is optimal.

Proposition 9 (``robot_optimal=True``): explanations priced ``w_φ·Δ/(Σw + 1)``, with
``Δ`` a lower bound on the robot's optimality delta (the gcd of its action costs, exact
for integer costs), make the cheapest perfectly explicable solution's plan robot-optimal
and its explanation a cheapest MCE over all robot-optimal plans: the
``explicable-optimal`` answer, found by the ``explicable`` search on rescaled costs.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

from xaip.balanced.compile import (
    EXPLAIN,
    FINISH,
    START,
    TASK,
    CompiledAction,
    CompiledTask,
    compile_problem,
)
from xaip.balanced.compile_when import lifted_costs
from xaip.balanced.evaluate import OutOfBudget, Point, optimal_plan, plan_cost
from xaip.balanced.objectives import BalancedProblem, Objective
from xaip.balanced.results import BalancedResult, to_result
from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.heuristics import ADMISSIBLE, make_heuristic
from xaip.planning.pddl.model import Atom
from xaip.planning.search.successors import Successors
from xaip.planning.task import ConditionalEffect, GroundAction, Task
from xaip.runtime import Budget, BudgetClock, Progress, Status, report
from xaip.runtime.budget import as_clock

#: the admissible heuristic of the bounds (the C core's when built)
HEURISTIC = "lmcut"


class _Estimate:
    """An admissible heuristic of one grounded task, in C when the core is built."""

    def __init__(self, task: Task, name: str, clock: BudgetClock) -> None:
        from xaip.planning.engines.compiled import compile_task, core_available

        self.nbytes = 8 * (task.num_facts // 64 + 1)
        self.name = name
        self.core = compile_task(task) if core_available() else None
        self.python: Callable[[int], float] | None = None
        if self.core is None:
            self.python = make_heuristic(name, task, clock)

    def __call__(self, state: int) -> float:
        if self.core is not None:
            value = self.core.evaluate(self.name, state.to_bytes(self.nbytes, "little"))
            return math.inf if value is None else int(value)
        assert self.python is not None
        return self.python(state)


@dataclass
class _Subset:
    """What the search knows about one edit set ``S`` (the meta bits after ``start``)."""

    subset: tuple[int, ...]
    optimum: int | None
    successors: Successors | None = None
    robot_costs: tuple[int, ...] = ()
    human_costs: tuple[int, ...] = ()
    finish: tuple[bool, ...] = ()
    human_h: _Estimate | None = None
    missing: int = 0  # compiled actions her task lacks (a compilation bug if ever > 0)


class MegaStar:
    """One MEGA* run (use :func:`solve`)."""

    def __init__(self, problem: BalancedProblem, compiled: CompiledTask, mode: Objective,
                 clock: BudgetClock, engine: Engine, heuristic: str,
                 progress: Progress | None) -> None:
        self.problem, self.c, self.mode = problem, compiled, mode
        self.clock, self.engine, self.heuristic = clock, engine, heuristic
        self.progress = progress
        self.space = problem.space
        self.n = len(problem.differences)
        self.mu_mask = ((1 << self.n) - 1) << compiled.mu_offset
        self.subsets: dict[int, _Subset] = {}
        self.atoms = tuple(Atom(name) for name in compiled.facts)
        self.expanded = self.generated = self.oracle_calls = 0
        self.robot_h = _Estimate(compiled.robot_task, heuristic, clock)
        self.robot_optimum: int | None = None
        self.learned: tuple[int, ...] = ()
        self.alpha, self.gamma = problem.weights.alpha, problem.weights.gamma
        # she may learn from watching (B05): the compiled task actions then set meta
        # fluents, so the explained set is carried by each node, not read off its state
        self.learning = problem.learn_from_watching and any(
            a.kind == TASK and (a.add | a.delete) & self.mu_mask for a in compiled.actions)
        # the explicable objective ranks by the compiled prices (Proposition 9 rescales)
        self.prices = [Fraction(0)] * self.n
        self.compiled_alpha = float(compiled.alpha)
        self._cost_cache: dict[tuple[int, ...], tuple[float, float]] = {}
        self._robot_cache: dict[int, float] = {}
        # which meta bits each compiled action reads, and its versions per reading
        self._reads = [_reads(a) for a in compiled.actions]
        self._ground: dict[tuple[int, int], GroundAction | None] = {}
        for action in compiled.actions:
            if action.kind == EXPLAIN and action.candidate is not None:
                self.prices[action.candidate] = Fraction(action.cost, compiled.scale)

    # ------------------------------------------------------------------ oracle

    def _optimal(self, task: Task) -> int | None:
        self.oracle_calls += 1
        return optimal_cost(self.engine, task, self.clock)

    def subset_of(self, state: int) -> tuple[int, ...]:
        return tuple(sorted(self.c.believed(state)))

    def _specialise(self, mu_bits: int, state: int) -> _Subset:
        """The compiled task/finish actions with the meta fluents fixed to ``mu_bits``."""
        subset = self.subset_of(state)
        human = self.space.task(subset)
        solvable = relaxed_solvable(human)
        if not solvable and not self.learning:
            return _Subset(subset, None)  # her model has no plan (relaxation proves it)
        estimate = _Estimate(human, self.heuristic, self.clock)
        record = _Subset(subset, self._optimal(human) if solvable else None)
        if record.optimum is None and not self.learning:
            return record  # (learning: watching may still teach her a model with a plan)
        # her model grounded on its own (conditional effects) may lack actions only
        # watching lets her take: her costs then come from her lifted model
        lifted = None if self.space.compiled else lifted_costs(*self.space.model(subset))
        actions: list[GroundAction] = []
        robot_costs: list[int] = []
        human_costs: list[int] = []
        finish: list[bool] = []
        for number, action in enumerate(self.c.actions):
            if action.kind not in (TASK, FINISH):
                continue
            reads = self._reads[number]
            key = (number, mu_bits & reads)
            if key in self._ground:
                ground = self._ground[key]
            else:
                ground = self._ground[key] = _resolve(action, mu_bits, self.mu_mask)
            if ground is None:
                continue
            cost_h = 0
            if action.kind == TASK and lifted is not None:
                found = lifted(action.label)
                if found is None:
                    record.missing += 1
                    continue
                cost_h = found
            elif action.kind == TASK:
                ids = human.action_index.get(action.label)
                if not ids:
                    record.missing += 1
                    continue
                cost_h = human.actions[ids[0]].cost
            actions.append(ground)
            robot_costs.append(action.robot_cost)
            human_costs.append(cost_h)
            finish.append(action.kind == FINISH)
        task = Task(name="megastar-s", facts=self.atoms, actions=tuple(actions), init=0,
                    goal=0, has_costs=True)
        record.successors = Successors(task)
        record.robot_costs, record.human_costs = tuple(robot_costs), tuple(human_costs)
        record.finish = tuple(finish)
        record.human_h = estimate
        return record

    # ------------------------------------------------------------------ bounds

    def _value(self, g_r: int, subset: tuple[int, ...], g_h: float, optimum: int,
               final: bool = True) -> tuple[float, float] | None:
        """The priority of a partial or complete solution (``g_h`` already includes the
        estimate of her remaining cost); ``None``: it cannot satisfy the objective.
        ``subset`` is what was explained (paid for). When she learns from watching, a
        partial solution's ``optimum`` is not yet her final model's: the bound then
        assumes the smallest penalty and no optimality condition for her."""
        cost_e, prices = self._costs(subset)
        open_model = self.learning and not final
        if self.mode is Objective.BALANCED:
            value = self.alpha * g_r + self.problem.weights.beta * cost_e
            if self.gamma:
                value += self.gamma * self.problem.penalty(
                    0.0 if open_model else max(0.0, g_h - optimum))
            return value, 0.0
        if g_h > optimum and not open_model:
            return None
        if self.mode is Objective.EXPLICABLE:
            return self.compiled_alpha * g_r + prices, 0.0
        assert self.robot_optimum is not None
        if g_r > self.robot_optimum:
            return None
        return cost_e, float(g_r)

    def _robot_estimate(self, world: int) -> float:
        """``h_R`` of a world state, cached: every edit set visits the same world states."""
        value = self._robot_cache.get(world)
        if value is None:
            if len(self._robot_cache) > 1_000_000:
                self._robot_cache.clear()
            value = self._robot_cache[world] = self.robot_h(world)
        return value

    def _costs(self, subset: tuple[int, ...]) -> tuple[float, float]:
        """(``C(E)`` at the problem's prices, ``E``'s compiled price in objective units)."""
        found = self._cost_cache.get(subset)
        if found is None:
            found = (sum(self.problem.edit_costs[i] for i in subset),
                     float(sum((self.prices[i] for i in subset), Fraction(0))))
            self._cost_cache[subset] = found
        return found

    # ------------------------------------------------------------------ search

    def run(self) -> tuple[Status, tuple[str, ...], tuple[int, ...], int, int, int | None]:
        """(status, plan, subset, robot cost, human cost, C*_S)."""
        c = self.c
        robot_optimum = self._optimal(c.robot_task)
        self.robot_optimum = robot_optimum
        if robot_optimum is None:
            return Status.UNSOLVABLE, (), (), 0, 0, None
        # every plan costs the robot at least C*_{M^R}: the bound before start
        h_start = float(robot_optimum)
        # node: state, robot cost, human cost, parent, action name, last explained
        states: list[int] = [c.init]
        g_robot: list[int] = [0]
        g_human: list[int] = [0]
        parents: list[int] = [-1]
        steps: list[str] = [""]
        last: list[int] = [-1]
        told: list[int] = [c.init & self.mu_mask]  # meta bits when she started watching
        fronts: dict[tuple[int, int], list[tuple[int, int]]] = {
            (c.init, told[0]): [(0, 0)]}
        counter = 0
        # (bound, second key, -g_R: ties go deeper, insertion order, node)
        open_list: list[tuple[float, float, int, int, int]] = [(0.0, 0.0, 0, 0, 0)]
        starts = {a.kind: a for a in c.actions if a.kind == START}
        explains = [a for a in c.actions if a.kind == EXPLAIN]
        goal_nodes: set[int] = set()

        def push(state: int, g_r: int, g_h: int, parent: int, step: str, key: tuple[float,
                 float], said: int, explained: int = -1) -> None:
            nonlocal counter
            if state not in goal_states:
                front = fronts.setdefault((state, said), [])
                for r, h in front:
                    if r <= g_r and h <= g_h:
                        return
                front[:] = [(r, h) for r, h in front if not (g_r <= r and g_h <= h)]
                front.append((g_r, g_h))
            states.append(state)
            g_robot.append(g_r)
            g_human.append(g_h)
            parents.append(parent)
            steps.append(step)
            last.append(explained)
            told.append(said)
            counter += 1
            self.generated += 1
            heapq.heappush(open_list, (key[0], key[1], -g_r, counter, len(states) - 1))

        goal_states: set[int] = set()
        while open_list:
            node = heapq.heappop(open_list)[-1]
            state = states[node]
            if node in goal_nodes:
                return self._answer(node, states, g_robot, g_human, parents, steps,
                                    told[node])
            said = told[node]
            if (g_robot[node], g_human[node]) not in fronts.get((state, said), ()):
                continue  # dominated after it was queued
            if not self.clock.charge():
                raise OutOfBudget("budget exhausted", phase="megastar search")
            self.expanded += 1
            if self.expanded % 500 == 0:
                report(self.progress, "megastar", self.expanded)
            if state >> c.p_init & 1:
                # before start: explain (in candidate order) or start
                subset = self.subset_of(state)
                for action in explains:
                    assert action.candidate is not None
                    if action.candidate <= last[node] or not c.applicable(action, state):
                        continue
                    child = c.apply(action, state)
                    key = self._before_start(self.subset_of(child), h_start)
                    if key is not None:
                        push(child, 0, 0, node, action.name, key, child & self.mu_mask,
                             action.candidate)
                child = c.apply(starts[START], state)
                key = self._before_start(subset, h_start)
                if key is not None:
                    push(child, 0, 0, node, START, key, said)
                continue
            mu_bits = state & self.mu_mask
            record = self.subsets.get(mu_bits)
            if record is None:
                record = self.subsets[mu_bits] = self._specialise(mu_bits, state)
            if record.successors is None or (record.optimum is None and not self.learning):
                continue
            at_goal = c.stop_at_goal and c.robot_goal_reached(state)
            paid = record.subset if not self.learning else self.subset_of(said)
            for index, child, _ in record.successors(state):
                is_finish = record.finish[index]
                if at_goal and not is_finish:
                    continue
                g_r = g_robot[node] + record.robot_costs[index]
                g_h = g_human[node] + record.human_costs[index]
                if is_finish:
                    if record.optimum is None:
                        continue  # her final model has no plan: infinite penalty
                    key = self._value(g_r, paid, g_h, record.optimum)
                    if key is None:
                        continue  # (explicable modes: g_h <= C*_S, less when watched)
                    goal_states.add(child)
                    push(child, g_r, g_h, node, FINISH, key, said)
                    goal_nodes.add(len(states) - 1)
                    continue
                if any(r <= g_r and h <= g_h for r, h in fronts.get((child, said), ())):
                    continue  # dominated: no need to estimate it
                h_r = self._robot_estimate(child & c.world_mask)
                if math.isinf(h_r) or (self.robot_optimum is not None and self.mode is
                                       Objective.EXPLICABLE_OPTIMAL
                                       and g_r + h_r > self.robot_optimum):
                    continue
                assert record.human_h is not None
                # watched beliefs may reach her goal more cheaply than her model
                # predicts (B05): her model's estimate would not be admissible then
                h_h = 0.0 if self.problem.watched or not self.space.compiled \
                    else record.human_h(
                    (child >> c.world) & c.world_mask)
                if math.isinf(h_h):
                    continue
                bound = self._value(g_r + int(h_r), paid, g_h + h_h, record.optimum or 0,
                                    final=False)
                if bound is not None:
                    push(child, g_r, g_h, node, steps_name(c, index, record), bound, said)
        return Status.UNSOLVABLE, (), (), 0, 0, None

    def _before_start(self, subset: tuple[int, ...], h_start: float) -> tuple[float,
                                                                             float] | None:
        if math.isinf(h_start):
            return None
        # her part is unknown before start: at least the penalty of an explicable plan
        return self._value(int(h_start), subset, -math.inf, 0)

    def _answer(self, node: int, states: list[int], g_robot: list[int], g_human: list[int],
                parents: list[int], steps: list[str], said: int
                ) -> tuple[Status, tuple[str, ...], tuple[int, ...], int, int, int | None]:
        names: list[str] = []
        at = node
        while at > 0:
            names.append(steps[at])
            at = parents[at]
        names.reverse()
        plan, subset = self.c.split(names)
        mu_bits = states[node] & self.mu_mask
        optimum = self.subsets[mu_bits].optimum
        self.answer_names = tuple(names)
        # what she learned by watching: her final model's edits that were not explained
        self.learned = tuple(sorted(set(self.subset_of(mu_bits)) - set(self.subset_of(said))))
        return Status.FOUND, plan, subset, g_robot[node], g_human[node], optimum


def relaxed_solvable(task: Task) -> bool:
    """Can the goal's facts be reached ignoring deletes and negative conditions? (A
    cheap necessary condition for a plan: most edit sets of some MRPs leave her model
    without one.)"""
    reached = task.init
    waiting = [(a.pre, a.add) for a in task.actions]
    # a conditional effect is an operator of its own: the action's and its conditions
    waiting += [(a.pre | c.cond_pos, c.add) for a in task.actions for c in a.conditional]
    grew = True
    while grew:
        grew = False
        rest = []
        for pre, add in waiting:
            if reached & pre == pre:
                if add & ~reached:
                    reached |= add
                    grew = True
            else:
                rest.append((pre, add))
        waiting = rest
    return reached & task.goal == task.goal


def _reads(action: CompiledAction) -> int:
    """The meta bits ``action`` depends on (its specialisation key)."""
    mask = 0
    for guard in action.guards:
        mask |= 1 << guard.mu
    for when in action.when:
        mask |= 1 << when.mu
    for cond in action.conditional:
        mask |= cond.cond_pos | cond.cond_neg
    return mask | action.pre | action.neg_pre


def _resolve(action: CompiledAction, mu_bits: int, mu_mask: int) -> GroundAction | None:
    """``action`` with the meta fluents fixed to ``mu_bits`` (``None``: not applicable
    under them): guards become belief preconditions, conditional belief effects plain
    effects."""
    pre, neg, add, delete = action.pre, action.neg_pre, action.add, action.delete
    if pre & mu_mask & ~mu_bits or neg & mu_bits:
        return None
    for guard in action.guards:
        if mu_bits >> guard.mu & 1:
            if guard.positive:
                pre |= 1 << guard.belief
            else:
                neg |= 1 << guard.belief
    if pre & neg:
        return None
    for when in action.when:
        if mu_bits >> when.mu & 1:
            add |= when.add
            delete |= when.delete
    conditional: list[ConditionalEffect] = []
    for cond in action.conditional:  # B05: their meta literals are fixed too
        if cond.cond_pos & mu_mask & ~mu_bits or cond.cond_neg & mu_bits:
            continue
        conditional.append(ConditionalEffect(cond.cond_pos & ~mu_mask,
                                             cond.cond_neg & ~mu_mask, cond.add,
                                             cond.delete))
    return GroundAction(action.name, (), pre, add, delete & ~add, action.robot_cost, neg,
                        tuple(conditional))


def optimal_cost(engine: Engine, task: Task, clock: BudgetClock) -> int | None:
    """``C*`` of ``task`` (``None``: no plan), charged to ``clock``."""
    found = optimal_plan(engine, task, clock)
    return None if found is None else found[1]


def steps_name(compiled: CompiledTask, index: int, record: _Subset) -> str:
    """The compiled action name of successor ``index`` of ``record``'s task."""
    assert record.successors is not None
    return record.successors.task.actions[index].schema


def optimality_delta_bound(task: Task) -> int:
    """A lower bound on ``Δ``, the gap between the optimal and the next plan cost: every
    plan cost is a multiple of the gcd of the action costs (1 without positive costs)."""
    divisor = 0
    for action in task.actions:
        divisor = math.gcd(divisor, int(action.cost))
    return divisor or 1


def proposition9_costs(problem: BalancedProblem, delta: int) -> tuple[Fraction, ...]:
    """Explanation prices ``w_φ·Δ/(Σw + 1)``: their sum stays below ``Δ``."""
    weights = [Fraction(repr(float(w))) for w in problem.edit_costs]
    total = sum(weights, Fraction(0))
    return tuple(w * delta / (total + 1) for w in weights)


def solve(
    problem: BalancedProblem,
    budget: Budget | BudgetClock | None = None,
    progress: Progress | None = None,
    *,
    robot_optimal: bool = False,
    engine: str | Engine = DEFAULT_ENGINE,
    heuristic: str = HEURISTIC,
) -> BalancedResult:
    """The best (plan, explanation) pair for ``problem.objective`` by MEGA*.

    ``robot_optimal=True`` (objectives ``explicable`` and ``explicable-optimal`` only)
    answers ``explicable-optimal`` through Proposition 9's cost scaling. Unchecked: use
    :func:`xaip.balanced.balance` with ``method="compile"`` for a verified result.
    """
    if heuristic not in ADMISSIBLE:
        raise InputError(f"MEGA* needs an admissible heuristic ({', '.join(sorted(ADMISSIBLE))}"
                         f"), not {heuristic!r}")
    started = time.perf_counter()
    clock = as_clock(budget)
    chosen = get_engine(engine) if isinstance(engine, str) else engine
    mode = problem.objective
    stats: dict[str, int | float] = {"candidates": len(problem.differences)}
    if robot_optimal:
        if mode is Objective.BALANCED:
            raise InputError("robot_optimal (Proposition 9) applies to the explicable "
                             "objectives, not to balanced")
        delta = optimality_delta_bound(problem.robot_task)
        compiled = compile_problem(problem, alpha=1,
                                   explanation_costs=proposition9_costs(problem, delta))
        mode = Objective.EXPLICABLE
        stats["delta_bound"] = delta
    else:
        compiled = compile_problem(problem)
    stats.update(compiled.stats())
    stats["scale"] = compiled.scale
    if mode is Objective.BALANCED and problem.weights.gamma == 0:
        return _without_penalty(problem, compiled, chosen, clock, started, stats)
    search = MegaStar(problem, compiled, mode, clock, chosen, heuristic, progress)
    try:
        status, plan, subset, g_r, g_h, optimum = search.run()
    except OutOfBudget:
        status, plan, subset, g_r, g_h, optimum = Status.BUDGET_EXHAUSTED, (), (), 0, 0, None
    stats.update({"expanded": search.expanded, "generated": search.generated,
                  "oracle_calls": search.oracle_calls, "edit_sets": len(search.subsets),
                  "missing_actions": sum(r.missing for r in search.subsets.values())})
    point = Point(plan, g_r, g_h) if status == Status.FOUND else None
    result = to_result(problem, status, subset, point, optimum, search.robot_optimum,
                       method="compile", exact=True, seconds=time.perf_counter() - started,
                       stats=stats, learned=search.learned if point else ())
    if robot_optimal:
        result = replace(result, objective=Objective.EXPLICABLE_OPTIMAL)
    return result


def _without_penalty(problem: BalancedProblem, compiled: CompiledTask, engine: Engine,
                     clock: BudgetClock, started: float,
                     stats: dict[str, int | float]) -> BalancedResult:
    """γ = 0: the penalty is ignored (``0·∞ = 0``), so explaining never pays and the
    person's model does not constrain the plan: the robot's optimal plan, ``E = ∅``."""
    def finish(status: Status, point: Point | None = None, optimum: int | None = None,
               learned: tuple[int, ...] = ()) -> BalancedResult:
        return to_result(problem, status, (), point, optimum,
                         None if point is None else point.robot_cost, method="compile",
                         exact=True, seconds=time.perf_counter() - started, stats=stats,
                         learned=learned)

    try:
        found = optimal_plan(engine, compiled.robot_task, clock)
        if found is None:
            return finish(Status.UNSOLVABLE)
        plan = tuple(a.name for a in found[0])
        learned: tuple[int, ...] = ()
        if problem.learn_from_watching:  # she judges it in the model she ends with
            from xaip.balanced.learning import Learner, indices

            learned = indices(Learner(problem, compiled.robot_task).along(plan) or 0)
        human = problem.space.task(learned)
        optimum = optimal_cost(engine, human, clock)
    except OutOfBudget:
        return finish(Status.BUDGET_EXHAUSTED)
    if problem.watched and not problem.space.compiled:
        # her model grounded on its own lacks what only watching makes her believe: her
        # cost on her lifted model (as the model-space search prices it)
        from xaip.balanced.epistemic import watched_cost

        domain, updated = problem.space.model(())
        cost_h = watched_cost(problem, domain, updated, plan)
    elif problem.watched:  # her cost as she watches it (B05), as every other answer
        from xaip.balanced.epistemic import watched_cost_in

        cost_h = watched_cost_in(problem, compiled.robot_task, problem.space.task(()), plan,
                                 task_of=problem.space.task)
    else:
        cost_h = plan_cost(human, plan)
    return finish(Status.FOUND, Point(plan, found[1], cost_h), optimum, learned)
