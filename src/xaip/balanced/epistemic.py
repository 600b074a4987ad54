"""Epistemic side effects of watching the robot act (book ch. 7 §7.4, B05).

Why: a plan the person only *hears about* must make sense in her model as it stands; a
plan she *watches* explains part of itself — she sees what the actions do. The book
proposes two side effects, both needing an observation model the base formulation
omits; here the model is ``BalancedProblem.observable``, the predicates she can see:

1. **Observed effects.** After each action, every fact of an observable predicate that
   the robot's action asserts (its add and delete effects, including fired conditional
   effects) takes its *real* value in her beliefs, whatever her model predicted.
2. **Inferred conditions** (``infer_conditions``). When a conditional effect fires and
   she sees its effect, she concludes that its condition held: the condition's positive
   atoms become believed true, its negative atoms false — but only for facts that no
   earlier action of the plan used (mentioned in a precondition or effect), so she is
   never expected to regress through the whole plan (the book's restriction), and not
   for facts the step itself asserts: the condition describes the state *before* the
   step, so a fact the step changes takes the step's value (an earlier version let the
   pre-step value overwrite it, so a fully explained robot-optimal plan could leave her
   believing a fact the step had just made false; found by the differential campaign).

A watched plan is executable for her when each action is applicable in her *belief*
state (her updated model's action with the same name), and it ends with her goal believed
reached; its cost for her is the sum of her model's action costs. Optimality is judged
against ``C*`` of her updated model as she would plan it (without watching).

Learning from watching (her *model* of the actions updated by what she sees, the book's
"and even the meta-fluent") is :mod:`xaip.balanced.learning`; :func:`watched_run` walks
it on the lifted models for the checker. Observation of the initial state is not
modelled (only effects are seen).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xaip.balanced.objectives import BalancedProblem
from xaip.explicable.problem import ExplicableProblem
from xaip.explicable.product import ProductAnswer, product_search
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.planning.task import GroundAction, State, Task, bits
from xaip.runtime.budget import BudgetClock


@dataclass
class Watcher:
    """The belief update of one watched step, precomputed for a pair of grounded tasks."""

    robot: Task
    human: Task
    observable: frozenset[str]
    infer: bool

    def __post_init__(self) -> None:
        where = {fact: j for j, fact in enumerate(self.human.facts)}
        self.to_human: dict[int, int] = {}
        self.observed_mask = 0
        for i, fact in enumerate(self.robot.facts):
            j = where.get(fact)
            if j is not None:
                self.to_human[i] = j
                if fact.predicate in self.observable:
                    self.observed_mask |= 1 << i

    def fired(self, action: GroundAction, state: State) -> tuple[int, int, int]:
        """The facts ``action`` asserts in ``state`` and the condition atoms (positive,
        negative) of its fired conditional effects whose effect was seen."""
        asserted = action.add | action.delete
        inferred_pos = inferred_neg = 0
        for effect in action.conditional:
            if state & effect.cond_pos == effect.cond_pos and not state & effect.cond_neg:
                asserted |= effect.add | effect.delete
                if (effect.add | effect.delete) & self.observed_mask:
                    inferred_pos |= effect.cond_pos
                    inferred_neg |= effect.cond_neg
        return asserted, inferred_pos, inferred_neg

    @staticmethod
    def mentions(action: GroundAction) -> int:
        mask = action.pre | action.neg_pre | action.add | action.delete
        for effect in action.conditional:
            mask |= effect.cond_pos | effect.cond_neg | effect.add | effect.delete
        return mask

    def step(self, action: GroundAction, s_r: State, next_r: State, belief: State,
             human_action: GroundAction, used: int) -> tuple[State, int]:
        """Her belief after watching ``action`` (her model predicted ``human_action``),
        and the robot facts used so far (always 0 without ``infer``: nothing reads them,
        and a constant keeps the product search's states from splitting on it). The
        :data:`~xaip.explicable.product.HumanStep` of the watched product search."""
        belief = human_action.apply(belief)
        asserted, pos, neg = self.fired(action, s_r)
        for i in bits(asserted & self.observed_mask):
            j = self.to_human[i]
            belief = belief | (1 << j) if next_r >> i & 1 else belief & ~(1 << j)
        if self.infer:
            fresh = ~(used | asserted)
            for mask, value in ((pos & fresh, True), (neg & fresh, False)):
                for i in bits(mask):
                    where = self.to_human.get(i)
                    if where is not None:
                        belief = belief | (1 << where) if value else belief & ~(1 << where)
        return belief, (used | self.mentions(action)) if self.infer else 0


def watched_product_search(problem: BalancedProblem, models: ExplicableProblem,
                           max_cost: int | None, budget: BudgetClock | None) -> ProductAnswer:
    """The product-model planner of :mod:`xaip.explicable.product` with her side
    following the watched belief update: the plan valid for the robot and executable in
    her beliefs minimising (her cost, the robot's cost), robot cost within ``max_cost``."""
    watcher = Watcher(models.robot_task, models.human_task, problem.observable,
                      problem.infer_conditions)
    return product_search(models, max_cost, budget, step=watcher.step)


def watched_cost(problem: BalancedProblem, domain: Domain, updated: Problem,
                 plan: tuple[str, ...]) -> int | None:
    """The plan's cost for a person who watches it, in her model ``(domain, updated)``
    (``None``: some action is not applicable in her beliefs, or she does not believe the
    goal reached). The checker's and the oracle's version: the robot's side runs on its
    grounded task, hers on the *lifted* model with the plan validator's formula
    evaluation, so no grounding of her model (which prunes what her model alone cannot
    reach, though watching can) is involved."""
    return watched_run(problem, lambda learned: (domain, updated), plan)[0]


def watched_run(problem: BalancedProblem,
                model_of: Callable[[tuple[int, ...]], tuple[Domain, Problem]],
                plan: tuple[str, ...]) -> tuple[int | None, tuple[int, ...]]:
    """:func:`watched_cost` when she may learn from watching
    (:mod:`xaip.balanced.learning`): ``model_of(L)`` is her lifted model after learning
    the candidates ``L`` (on top of what she was told); returns her cost and the
    candidates she learned along the plan (empty without learning)."""
    from xaip.balanced.learning import Learner, indices
    from xaip.planning.plans import _effects, _holds, _World

    robot = ground(problem.robot_domain, problem.robot_problem)
    watcher = Watcher(robot, robot, problem.observable, problem.infer_conditions)
    learner = Learner(problem, robot)
    # what the robot's step asserts comes from its lifted model: its grounding drops
    # facts the robot's world never makes true, though a delete still asserts them
    r_world = _World(problem.robot_domain, problem.robot_problem)
    r_schemas = {a.name: a for a in problem.robot_domain.actions}
    r_state = frozenset(Atom(a.predicate, a.args) for a in problem.robot_problem.init)
    learned = 0
    domain, updated = model_of(())
    world = _World(domain, updated)
    schemas = {a.name: a for a in domain.actions}
    belief = {Atom(a.predicate, a.args) for a in updated.init}
    s_r, used, cost = robot.init, 0, 0
    alive = True  # her model can still execute the plan (she learns from the robot anyway)
    for name in plan:
        action = next((robot.actions[i] for i in robot.action_index.get(name, ())
                       if robot.actions[i].applicable(s_r)), None)
        schema_name, *args = name.split()
        if action is None:
            return None, indices(learned)
        mine = schemas.get(schema_name)
        if mine is None or len(args) != len(mine.parameters):
            alive = False
        if alive:
            assert mine is not None
            binding = dict(zip((p.name for p in mine.parameters), args, strict=True))
            view = frozenset(belief)
            if not _holds(mine.precondition, view, binding, world):
                alive = False
        if alive:
            assert mine is not None
            adds: set[Atom] = set()
            deletes: set[Atom] = set()
            step = _effects(mine.effect, view, binding, world, adds, deletes)
            cost += int(step or 0) if world.uses_costs else 1
            belief = (belief - deletes) | adds
        elif not learner.active:
            return None, ()
        next_r = action.apply(s_r)
        asserted, pos, neg = watcher.fired(action, s_r)
        r_adds: set[Atom] = set()
        r_deletes: set[Atom] = set()
        r_schema = r_schemas[schema_name]
        _effects(r_schema.effect, r_state, dict(zip((p.name for p in r_schema.parameters),
                                                    args, strict=True)),
                 r_world, r_adds, r_deletes)
        r_state = (r_state - r_deletes) | r_adds
        seen = {f: f in r_state for f in r_adds | r_deletes
                if f.predicate in problem.observable}
        belief = (belief - set(seen)) | {f for f, value in seen.items() if value}
        if watcher.infer:
            fresh = ~(used | asserted)
            belief |= {robot.facts[i] for i in bits(pos & fresh)}
            belief -= {robot.facts[i] for i in bits(neg & fresh)}
            used |= watcher.mentions(action)
        if learner.active:
            now = learned | learner.rules.learned(
                schema_name, tuple(args), {(f.predicate, *f.args): v for f, v in seen.items()})
            if now != learned:  # her model of the action changes from the next step on
                learned = now
                domain, updated = model_of(indices(learned))
                world = _World(domain, updated)
                schemas = {a.name: a for a in domain.actions}
        s_r = next_r
    reached = alive and robot.is_goal(s_r) and _holds(updated.goal, frozenset(belief), {},
                                                      world)
    return (cost if reached else None), indices(learned)


def watched_cost_in(problem: BalancedProblem, robot: Task, human: Task,
                    plan: tuple[str, ...],
                    task_of: Callable[[tuple[int, ...]], Task] | None = None) -> int | None:
    """:func:`watched_cost` on grounded tasks. When she learns from watching,
    ``task_of(L)`` is her task after learning ``L`` (tasks of one
    :class:`~xaip.reconcile.space.ModelSpace`, which number facts alike)."""
    from xaip.balanced.learning import Learner, indices

    learner = Learner(problem, robot)
    learning = learner.active and task_of is not None
    learned = 0
    watcher = Watcher(robot, human, problem.observable, problem.infer_conditions)
    s_r, belief, used, cost = robot.init, human.init, 0, 0
    for name in plan:
        action = next((robot.actions[i] for i in robot.action_index.get(name, ())
                       if robot.actions[i].applicable(s_r)), None)
        mine = next((human.actions[i] for i in human.action_index.get(name, ())
                     if human.actions[i].applicable(belief)), None)
        if action is None or mine is None:
            return None
        next_r = action.apply(s_r)
        belief, used = watcher.step(action, s_r, next_r, belief, mine, used)
        if learning:
            now = learned | learner.step(action, s_r, next_r)
            if now != learned:
                assert task_of is not None
                learned, human = now, task_of(indices(now))
                watcher = Watcher(robot, human, problem.observable, problem.infer_conditions)
        s_r, cost = next_r, cost + mine.cost
    return cost if robot.is_goal(s_r) and human.is_goal(belief) else None
