"""Learning from watching in the model-space search (B05, :mod:`xaip.balanced.learning`).

Why a module of its own: without learning, an edit set ``E`` fixes her model, and the
best plan for ``E`` lies on the Pareto front of (her cost, robot cost) of the product of
the two models. With learning, what she ends up believing about the actions depends on
the plan: a plan that teaches her ``L`` is judged against ``C*`` of ``M^R_h + E ∪ L``.
So the fronts are taken per final learned set ``T``: for each ``T`` (a subset of the
learnable candidates not in ``E``), the product-model planner of
:mod:`xaip.explicable.product` runs on her task augmented with one fact per learnable
candidate, her goal requiring exactly ``T`` learned, and a person's step that applies
her model *as learned so far* (:class:`~xaip.balanced.epistemic.Watcher` for what she
sees, :class:`~xaip.balanced.learning.Learner` for what she learns). Preconditions and
costs are never learned, so her applicable actions and their costs are those of
``M^R_h + E``; only their effects change.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

from xaip.balanced.epistemic import Watcher, watched_cost_in
from xaip.balanced.evaluate import Evaluator, Point, product_point
from xaip.balanced.learning import Learner
from xaip.balanced.objectives import BalancedProblem, Objective
from xaip.balanced.results import objective_value
from xaip.errors import UnsupportedFeature
from xaip.explicable.problem import ExplicableProblem
from xaip.explicable.product import product_search
from xaip.planning.pddl.model import Atom
from xaip.planning.task import GroundAction, State, Task, bits

#: (value the objective minimises, plan point, C* of her final model, learned candidates)
Best = tuple[float, Point, int | None, tuple[int, ...]]


class LearningSpace:
    """Per edit set: the best plan when she learns from watching."""

    def __init__(self, problem: BalancedProblem, evaluator: Evaluator) -> None:
        if not problem.space.compiled:
            raise UnsupportedFeature("learning from watching is modelled for models without "
                                     "conditional effects (she could hypothesise one)")
        self.problem, self.ev = problem, evaluator
        self.learner = Learner(problem, evaluator.robot_task)
        self.learnable = sorted({entry[0] for entries in self.learner.rules.by_schema.values()
                                 for entry in entries})

    def _model(self, subset: tuple[int, ...], learned: tuple[int, ...] = ()) -> Task:
        return self.ev.human_task(tuple(sorted(set(subset) | set(learned))))

    def product(self, subset: tuple[int, ...], target: tuple[int, ...],
                max_robot: int | None) -> Point | None:
        """The plan teaching her exactly ``target`` (beyond ``subset``) that minimises
        (her cost, robot cost), robot cost within ``max_robot``."""
        free = [c for c in self.learnable if c not in subset]
        base = self._model(subset)
        n = base.num_facts
        position = {c: n + k for k, c in enumerate(free)}
        want = sum(1 << position[c] for c in target)
        other = sum(1 << position[c] for c in free if c not in target)
        human = replace(base, facts=(*base.facts, *(Atom(f"xaip-learned-{c}") for c in free)),
                        goal=base.goal | want, goal_neg=base.goal_neg | other)
        watcher = Watcher(self.ev.robot_task, base, self.problem.observable,
                          self.problem.infer_conditions)
        low = (1 << n) - 1

        def step(action: GroundAction, s_r: State, next_r: State, s_h: State,
                 move: GroundAction, used: int) -> tuple[State, int]:
            marks = s_h & ~low
            learned = tuple(c for c in free if marks >> position[c] & 1)
            task = self._model(subset, learned)
            belief = s_h & low
            mine = next((task.actions[i] for i in task.action_index.get(move.name, ())
                         if task.actions[i].applicable(belief)), move)
            belief, used = watcher.step(action, s_r, next_r, belief, mine, used)
            for c in bits(self.learner.step(action, s_r, next_r)):
                if c in position:
                    marks |= 1 << position[c]
            return belief | marks, used

        models = ExplicableProblem(self.problem.robot_domain, self.problem.robot_problem,
                                   self.problem.human_domain, self.problem.human_problem,
                                   self.ev.robot_task, human)
        self.ev.product_calls += 1
        answer = product_search(models, max_robot, self.ev.clock, step=step)
        return product_point(answer)

    def best(self, subset: tuple[int, ...], robot_optimum: int, cost_e: float) -> Best | None:
        """The best pair with explanation ``subset`` under the problem's objective."""
        problem = self.problem
        objective, weights = problem.objective, problem.weights
        free = [c for c in self.learnable if c not in subset]
        found: list[Best] = []
        for size in range(len(free) + 1):
            for target in itertools.combinations(free, size):
                optimum = self.ev.human_optimum(tuple(sorted((*subset, *target))))
                if objective is Objective.BALANCED:
                    found += self._front(subset, target, optimum, cost_e)
                elif optimum is not None:
                    bound = robot_optimum if objective is Objective.EXPLICABLE_OPTIMAL else None
                    point = self.product(subset, target, bound)
                    if point is None or not problem.explicable(point.human_cost, optimum):
                        continue
                    while point.robot_cost > 0:  # cheaper robot plans within her C*
                        cheaper = self.product(subset, target, point.robot_cost - 1)
                        if cheaper is None or not problem.explicable(cheaper.human_cost,
                                                                     optimum):
                            break
                        point = cheaper
                    value = cost_e if objective is Objective.EXPLICABLE_OPTIMAL else (
                        weights.alpha * point.robot_cost + weights.beta * cost_e
                        if weights.alpha or weights.beta else 0.0)
                    found.append((value, point, optimum, target))
        if objective is Objective.BALANCED:
            found.append(self._robot_plan(subset, cost_e))  # what γ = 0 picks
        if not found:
            return None
        return min(found, key=lambda b: (b[0], b[1].robot_cost))

    def _front(self, subset: tuple[int, ...], target: tuple[int, ...], optimum: int | None,
               cost_e: float) -> list[Best]:
        out: list[Best] = []
        bound: int | None = None
        while True:
            point = self.product(subset, target, bound)
            if point is None:
                return out
            penalty = self.problem.inexplicability(point.human_cost, optimum)
            out.append((objective_value(self.problem.weights, point.robot_cost, cost_e,
                                        penalty), point, optimum, target))
            bound = point.robot_cost - 1
            if bound < 0:
                return out

    def _robot_plan(self, subset: tuple[int, ...], cost_e: float) -> Best:
        """The robot's optimal plan with ``subset`` explained, as she watches it."""
        robot = self.ev.robot_optimal()
        assert robot is not None
        plan = robot[0]
        taught = self.learner.along(plan) or 0
        learned = tuple(c for c in bits(taught) if c not in subset)
        her = watched_cost_in(self.problem, self.ev.robot_task, self._model(subset), plan,
                              task_of=lambda more: self._model(subset, more))
        optimum = self.ev.human_optimum(tuple(sorted((*subset, *learned))))
        penalty = self.problem.inexplicability(her, optimum)
        value = objective_value(self.problem.weights, robot[1], cost_e, penalty)
        return value, Point(plan, robot[1], her), optimum, learned
