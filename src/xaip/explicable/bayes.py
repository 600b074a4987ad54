"""One posterior for explicability, legibility and predictability (G-HAP, book ch. 2 §2.5).

The person holds hypotheses ``𝕄`` about the robot's model with a prior ``P_0`` and updates
it on seeing behaviour ``τ``: ``P(M | τ) ∝ ℓ_M(τ) · P_0(M)``. Explicit models use a
noisy-rational likelihood ``ℓ_M(τ) = exp(−β · (C(τ, M) − C*_M))`` (0 when ``M`` cannot
execute ``τ`` to its goal); the special high-entropy model ``M_0`` ("none of my models
explains this") has a constant likelihood ``null_likelihood`` ([D]: the book's ``M_0`` is
uniform over behaviours up to a length bound; a constant is that uniform value).

* explicability: ``𝕄 = {M^R_h, M_0}``; the score is ``P(M^R_h | τ)``, which falls as the
  cost difference grows — so with optimal expected plans it ranks plans exactly as the
  cost-distance inexplicability does;
* legibility: ``P_0(M_0) = 0``; the score is the posterior mass of the hypotheses that
  share the parameter being communicated (e.g. the true goal);
* predictability of a prefix: ``1 / |completions|`` among the person's plans within a cost
  bound (default: their optimal plans) that extend the prefix; 0 when none does.

Why likelihoods are unnormalised over behaviours: every hypothesis shares the same
constant when behaviours are scored by cost difference (the usual goal-recognition
approximation), so the posterior is unchanged by it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from xaip.errors import InputError
from xaip.explicable.problem import plan_in, step_name
from xaip.planning.engines import get_engine
from xaip.planning.search.enumerate import all_plans
from xaip.planning.task import GroundAction, Task

NULL = "M0"


@dataclass(frozen=True)
class Hypothesis:
    """One model the person may attribute to the robot, with its prior probability."""

    name: str
    task: Task
    prior: float = 1.0


class Observer:
    """A Bayesian observer over named hypotheses (and, when ``null_prior > 0``, ``M_0``)."""

    def __init__(self, hypotheses: Sequence[Hypothesis], beta: float = 1.0,
                 null_prior: float = 0.0, null_likelihood: float = math.exp(-2.0)) -> None:
        if not hypotheses:
            raise InputError("a Bayesian observer needs at least one hypothesis")
        names = [h.name for h in hypotheses]
        if len(set(names)) != len(names) or NULL in names:
            raise InputError(f"hypothesis names must be unique and not {NULL!r}")
        if beta < 0 or null_prior < 0 or null_likelihood < 0 or \
                any(h.prior < 0 for h in hypotheses):
            raise InputError("beta, priors and likelihoods must be >= 0")
        total = sum(h.prior for h in hypotheses) + null_prior
        if total <= 0:
            raise InputError("the priors must not all be 0")
        self.hypotheses = tuple(hypotheses)
        self.beta = beta
        self.prior = {h.name: h.prior / total for h in hypotheses}
        if null_prior > 0:
            self.prior[NULL] = null_prior / total
        self.null_likelihood = null_likelihood
        self._optimum: dict[str, int | None] = {}

    def optimum(self, hypothesis: Hypothesis) -> int | None:
        if hypothesis.name not in self._optimum:
            found = get_engine("builtin").solve(hypothesis.task, optimal=True)
            self._optimum[hypothesis.name] = found.cost if found.solved else None
        return self._optimum[hypothesis.name]

    def likelihood(self, hypothesis: Hypothesis, plan: Sequence[GroundAction | str]) -> float:
        """``exp(−β (C(τ, M) − C*_M))``, or 0 when ``M`` cannot execute ``τ`` to its goal."""
        mine = plan_in(hypothesis.task, plan)
        best = self.optimum(hypothesis)
        if mine is None or best is None:
            return 0.0
        return math.exp(-self.beta * (sum(a.cost for a in mine) - best))

    def posterior(self, plan: Sequence[GroundAction | str]) -> dict[str, float]:
        """``P(M | τ)`` for every hypothesis (and ``M0``); all 0 if nothing explains ``τ``."""
        weights = {h.name: self.prior[h.name] * self.likelihood(h, plan)
                   for h in self.hypotheses}
        if NULL in self.prior:
            weights[NULL] = self.prior[NULL] * self.null_likelihood
        total = sum(weights.values())
        return {name: (w / total if total > 0 else 0.0) for name, w in weights.items()}


def explicability_posterior(robot_plan: Sequence[GroundAction | str], human: Task,
                            beta: float = 1.0, null_prior: float = 0.5,
                            null_likelihood: float = math.exp(-2.0)) -> float:
    """``P(M^R_h | τ)`` with ``𝕄 = {M^R_h, M_0}``: how likely the person thinks their own
    model of the robot explains the behaviour (higher is more explicable)."""
    observer = Observer([Hypothesis("human", human, 1.0 - null_prior)], beta, null_prior,
                        null_likelihood)
    return observer.posterior(robot_plan)["human"]


def legibility(plan: Sequence[GroundAction | str], hypotheses: Sequence[Hypothesis],
               true: str | Iterable[str], beta: float = 1.0) -> float:
    """The posterior mass of the hypotheses in ``true`` (those sharing the parameter the
    robot wants to convey), with no ``M_0`` (book §1.8)."""
    wanted = {true} if isinstance(true, str) else set(true)
    unknown = wanted - {h.name for h in hypotheses}
    if unknown:
        raise InputError(f"unknown hypothesis name(s) {sorted(unknown)}")
    posterior = Observer(hypotheses, beta).posterior(plan)
    return sum(posterior[name] for name in wanted)


def completions(task: Task, prefix: Sequence[GroundAction | str],
                cost_bound: int | None = None, max_plans: int = 10_000) -> int:
    """How many of the person's plans within ``cost_bound`` (default: their optimal plans)
    start with ``prefix``."""
    names = [step_name(s) for s in prefix]
    listed = all_plans(task, cost_bound, max_plans=max_plans)
    return sum(1 for plan in listed.plans
               if [a.name for a in plan[:len(names)]] == names)


def predictability(task: Task, prefix: Sequence[GroundAction | str],
                   cost_bound: int | None = None) -> float:
    """``1 / |completions|`` of ``prefix`` in the person's model; 0 when it has none."""
    count = completions(task, prefix, cost_bound)
    return 0.0 if count == 0 else 1.0 / count


def most_predictable_next(task: Task, prefix: Sequence[GroundAction | str],
                          cost_bound: int | None = None) -> Mapping[str, float]:
    """The predictability of each next action that keeps some completion (online mode)."""
    names = [step_name(s) for s in prefix]
    listed = all_plans(task, cost_bound)
    options = {plan[len(names)].name for plan in listed.plans
               if len(plan) > len(names) and [a.name for a in plan[:len(names)]] == names}
    return {name: predictability(task, [*names, name], cost_bound) for name in sorted(options)}
