"""Grounding PPDDL into a :class:`~xaip.planning.mdp.task.ProbabilisticTask`.

Why reuse the classical grounder's helpers: the relaxed-reachability fixpoint, the DNF
grounding of conditions and the outcome expansion of effects are exactly what a
probabilistic task needs (``_ground_effect`` already returns ``(probability, parts)``
outcomes); only the assembly differs — outcomes stay together in one action instead of
becoming separate deterministic actions. Using the same helpers also gives the same fact
order as :func:`xaip.planning.grounding.ground`, so a fact index means the same thing in
the probabilistic task, its determinisation and the classical all-outcomes grounding.

Costs (``cost=``):

* ``"unit"`` (default): every step costs 1. The TLdR paper measures policies (reachable
  states, landmarks), not their costs, and most IPPC domains have no costs at all.
  Numeric effects on ``reward`` and ``total-cost`` are ignored.
* ``"reward"``: an outcome costs what it adds to ``total-cost`` plus what it takes from
  ``reward`` (``(decrease (reward) k)`` is read as ``Increase(reward, -k)``), but never
  less than 1. The floor keeps the SSP well defined: with strictly positive step costs a
  policy that never reaches the goal is infinitely expensive, which our solvers rely on
  (and IPPC charges every step against its horizon anyway). A positive reward
  (``(increase (reward) k)``) is a negative cost and is refused. ``:goal-reward`` is
  ignored: reaching the goal is the objective, not a payment.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Literal

from xaip.errors import UnsupportedFeature
from xaip.planning.grounding import (
    COST_FLUENT,
    _Instance,
    _where,
    ground_skeleton,
)
from xaip.planning.mdp.task import Outcome, ProbabilisticAction, ProbabilisticTask
from xaip.planning.pddl.model import (
    Action,
    AndEffect,
    Atom,
    Domain,
    Effect,
    ForallEffect,
    FunctionTerm,
    Increase,
    Probabilistic,
    Problem,
    When,
)
from xaip.planning.task import ConditionalEffect
from xaip.runtime.budget import Budget, BudgetClock

CostModel = Literal["unit", "reward"]
COST_MODELS: tuple[str, ...] = ("unit", "reward")
REWARD_FLUENT = "reward"


def ground_probabilistic(
    domain: Domain, problem: Problem, cost: CostModel = "unit",
    budget: Budget | BudgetClock | None = None,
) -> ProbabilisticTask:
    """Ground ``problem`` over ``domain`` into a probabilistic task.

    Deterministic actions become actions with one outcome of probability 1; the remaining
    mass of a ``probabilistic`` effect whose probabilities sum to less than 1 is an explicit
    "no change" outcome; outcomes of probability 0 are dropped. ``budget`` (or a clock the
    caller shares with later phases) bounds the time: grounding IPPC drive p15 takes
    longer than many users' whole budget, and raises
    :class:`~xaip.errors.BudgetExhausted` when it runs out.
    """
    if cost not in COST_MODELS:
        raise ValueError(f"cost must be one of {COST_MODELS}, not {cost!r}")
    if cost == "reward":
        domain = _rewards_as_costs(domain)
    skeleton = ground_skeleton(domain, problem, budget=budget)
    actions: list[ProbabilisticAction] = []
    guard = skeleton.ctx.guard
    for instance in skeleton.instances:
        guard.tick()
        actions.extend(_assemble(instance, skeleton.reached, skeleton.mask, cost))
    return ProbabilisticTask(
        name=problem.name,
        facts=skeleton.facts,
        actions=tuple(actions),
        init=skeleton.init,
        goal=skeleton.goal,
        goal_neg=skeleton.goal_neg,
        static_facts=frozenset(skeleton.ctx.static_facts),
        cost_model=cost,
    )


def _assemble(
    instance: _Instance,
    reached: set[Atom],
    mask: Callable[[Iterable[Atom]], int],
    cost_model: str,
) -> Iterator[ProbabilisticAction]:
    outcomes: list[Outcome] = []
    for probability, parts in instance.outcomes:
        if probability == 0:
            continue
        add: set[Atom] = set()
        delete: set[Atom] = set()
        amount = Fraction(0)
        conditional: list[ConditionalEffect] = []
        for part in parts:
            amount += part.cost
            if part.conditions is None:
                add |= part.adds
                delete |= part.deletes
                continue
            for pos, neg in part.conditions:
                if not pos <= reached:
                    continue  # the condition can never hold
                conditional.append(
                    ConditionalEffect(mask(pos), mask(neg), mask(part.adds), mask(part.deletes))
                )
        step_cost = 1.0 if cost_model == "unit" else float(max(Fraction(1), amount))
        outcomes.append(
            Outcome(
                probability=float(probability),
                add=mask(add),
                delete=mask(delete) & ~mask(add),
                conditional=tuple(dict.fromkeys(conditional)),
                cost=step_cost,
            )
        )
    for pos, neg in instance.pre:
        if not pos <= reached:
            continue
        yield ProbabilisticAction(
            schema=instance.action.name,
            args=instance.args,
            pre=mask(pos),
            outcomes=tuple(outcomes),
            neg_pre=mask(neg),
        )


# --------------------------------------------------------------------------- rewards


def _rewards_as_costs(domain: Domain) -> Domain:
    """The domain with every ``(decrease (reward) k)`` rewritten as a ``total-cost``
    increase by ``k``, so the classical grounder's cost handling prices the outcomes."""
    actions = tuple(
        replace(action, effect=_reward_effect(action.effect, action)) for action in domain.actions
    )
    return replace(domain, actions=actions)


def _reward_effect(effect: Effect, action: Action) -> Effect:
    if isinstance(effect, Increase):
        if effect.fluent.name != REWARD_FLUENT:
            return effect
        value = effect.value
        if isinstance(value, FunctionTerm) or value > 0:
            raise UnsupportedFeature(
                _where(effect) + f"a positive reward in action '{action.name}' (a negative cost; "
                "use cost='unit')"
            )
        return Increase(FunctionTerm(COST_FLUENT), -value, effect.location)
    if isinstance(effect, AndEffect):
        return replace(effect, operands=tuple(_reward_effect(e, action) for e in effect.operands))
    if isinstance(effect, When | ForallEffect):
        return replace(effect, effect=_reward_effect(effect.effect, action))
    if isinstance(effect, Probabilistic):
        return replace(
            effect, outcomes=tuple((p, _reward_effect(e, action)) for p, e in effect.outcomes)
        )
    return effect
