"""What balanced planning optimises (book ch. 7, B01): objectives, weights, costs, penalty.

Why a separate, checked input object: the three objectives of the chapter differ only in
what they minimise and which pairs ``(π, E)`` they admit, and every solver (model-space
search here, the MEGA* compilation in :mod:`xaip.balanced.megastar`) must read the same
weights, explanation costs and penalty. Bad inputs (negative weights, a cost file naming
a feature the two models do not disagree on) are caught once, here.

* ``balanced``: ``min α·C(π, M^R) + β·C(E) + γ·P(C(π, M^R_h + E) − C*_{M^R_h + E})``;
* ``explicable``: ``min α·C(π, M^R) + β·C(E)`` with π optimal in ``M^R_h + E``;
* ``explicable-optimal``: ``min C(E)`` with π optimal in both ``M^R`` and ``M^R_h + E``.

``P`` is the inexplicability penalty; the book's example uses ``exp`` of the cost
difference (so a perfectly explicable plan still pays ``e⁰ = 1``). A plan the updated
human model cannot execute has infinite penalty.

Explanation items are the edits of :mod:`xaip.planning.features` between the human's and
the robot's model (the candidates of :class:`xaip.reconcile.space.ModelSpace`), named
by :func:`feature_name`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.planning.features import Edit, Feature
from xaip.planning.features.sentences import sentence
from xaip.planning.inputs import UPProblem, models
from xaip.planning.pddl.model import Domain, Problem
from xaip.sidefiles import read_json


class Objective(StrEnum):
    """The three objectives of book §7 (B01)."""

    BALANCED = "balanced"
    EXPLICABLE = "explicable"
    EXPLICABLE_OPTIMAL = "explicable-optimal"


@dataclass(frozen=True)
class Weights:
    """α (plan cost), β (communication cost), γ (inexplicability penalty)."""

    alpha: float = 1.0
    beta: float = 1.0
    gamma: float = 1.0

    def __post_init__(self) -> None:
        for name in ("alpha", "beta", "gamma"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or math.isnan(value) or math.isinf(value):
                raise InputError(f"weight {name} must be a finite number, not {value!r}")
            if value < 0:
                raise InputError(f"weight {name} must not be negative, not {value}")

    def to_dict(self) -> dict[str, float]:
        return {"alpha": self.alpha, "beta": self.beta, "gamma": self.gamma}


def _exp(difference: float) -> float:
    return math.inf if math.isinf(difference) else math.exp(difference)


def _exp_minus_one(difference: float) -> float:
    return math.inf if math.isinf(difference) else math.expm1(difference)


def _linear(difference: float) -> float:
    return difference


#: Named penalty functions of the cost difference ``C(π, M̂) − C*_M̂`` (all increasing, as
#: the exact searches assume). ``exp`` is the book's example; ``exp-1`` gives a perfectly
#: explicable plan zero penalty (book-spec §6.3 [D]).
PENALTIES: dict[str, Callable[[float], float]] = {
    "exp": _exp, "exp-1": _exp_minus_one, "linear": _linear}


@dataclass(frozen=True)
class Penalty:
    """An inexplicability penalty: a name (for JSON) and an increasing function of the
    cost difference. Infinity (the plan is not executable for the person) maps to
    infinity."""

    name: str = "exp"
    function: Callable[[float], float] = field(default=_exp, compare=False, repr=False)

    def __call__(self, difference: float) -> float:
        if math.isinf(difference):
            return math.inf
        return float(self.function(difference))

    @classmethod
    def named(cls, name: str) -> Penalty:
        if name not in PENALTIES:
            raise InputError(f"unknown penalty {name!r}; use one of {', '.join(PENALTIES)}")
        return cls(name, PENALTIES[name])


def feature_name(feature: Feature) -> str:
    """A feature's short, stable name, e.g. ``init (clear p16 p17)`` or
    ``precondition move(?from, ?to) (clear ?from ?to)``: what cost files use."""
    parts = [feature.kind.value]
    if feature.action:
        parts.append(feature.action_label)
    subject = feature.atom if feature.atom is not None else feature.fluent
    if subject is not None:
        parts.append(str(subject))
    if feature.value is not None:
        parts.append(f"= {feature.value}")
    return " ".join(parts)


def edit_sentence(edit: Edit) -> str:
    """What the person is told for ``edit`` (the reconciliation sentences)."""
    return sentence(edit.feature, negated=edit.op == "remove")


def _key(text: str) -> str:
    return " ".join(text.lower().split())


@dataclass(frozen=True)
class BalancedProblem:
    """A balanced-planning problem: the two models, the objective and its prices.

    ``explanation_costs`` maps a feature name (:func:`feature_name`) or an edit's
    sentence to the cost of communicating it; every other item costs ``default_cost``.
    ``observable`` (B05, :mod:`xaip.balanced.epistemic`) names predicates the person sees
    while watching the robot execute; empty means the plan is only proposed.
    ``learn_from_watching`` (:mod:`xaip.balanced.learning`): a watched effect her model
    lacks (or has wrong) updates her model of the action, free of charge.
    """

    robot_domain: Domain
    robot_problem: Problem
    human_domain: Domain
    human_problem: Problem
    objective: Objective = Objective.BALANCED
    weights: Weights = Weights()
    explanation_costs: Mapping[str, float] = field(default_factory=dict)
    default_cost: float = 1.0
    penalty: Penalty = Penalty()
    observable: frozenset[str] = frozenset()
    infer_conditions: bool = False
    learn_from_watching: bool = False

    @property
    def watched(self) -> bool:
        """Does the person watch the plan executed (B05)? Then every solver and the
        checker score it by :mod:`xaip.balanced.epistemic`'s watched execution."""
        return bool(self.observable) or self.infer_conditions

    @cached_property
    def differences(self) -> tuple[Edit, ...]:
        """The candidate explanation items: edits from the human's model towards the
        robot's, in the order of :class:`xaip.reconcile.space.ModelSpace`."""
        return tuple(c.edit for c in self.space.candidates)

    @cached_property
    def robot_task(self) -> Any:
        """The robot's grounded task ``M^R``, priced by its own domain and problem
        (:func:`xaip.planning.semantics.counts_action_costs`: declared costs only under
        ``(:metric minimize (total-cost))``, else 1 per action). Every robot cost of both
        methods comes from here, never from the model space, whose tasks are priced as
        the *person's* models."""
        from xaip.planning.grounding import ground

        return ground(self.robot_domain, self.robot_problem)

    @cached_property
    def space(self) -> Any:
        """The reconciliation model space (grounded once; ``H + S`` per edit set)."""
        from xaip.reconcile.space import ModelSpace

        return ModelSpace(self.robot_domain, self.robot_problem, self.human_domain,
                          self.human_problem)

    def inexplicability(self, human_cost: int | None, optimum: int | None) -> float:
        """The penalty ``P(C(π, M̂) − C*_M̂)``: infinite when the person's model cannot
        execute the plan; a (watched) plan cheaper than she expected counts as 0."""
        if human_cost is None or optimum is None:
            return math.inf
        return self.penalty(max(0, human_cost - optimum))

    @staticmethod
    def explicable(human_cost: int | None, optimum: int | None) -> bool:
        """Whether a plan of this cost for the person is optimal in her model (a watched
        plan may cost her less than she expected, B05)."""
        return human_cost is not None and optimum is not None and human_cost <= optimum

    def differences_of(self, subset: tuple[int, ...] | list[int]) -> tuple[Edit, ...]:
        """The edits with the candidate indices ``subset``."""
        return tuple(self.differences[i] for i in subset)

    def edit_cost(self, edit: Edit) -> float:
        """The communication cost of one explanation item."""
        costs = {_key(k): v for k, v in self.explanation_costs.items()}
        for key in (feature_name(edit.feature), edit_sentence(edit)):
            if _key(key) in costs:
                return float(costs[_key(key)])
        return float(self.default_cost)

    @cached_property
    def edit_costs(self) -> tuple[float, ...]:
        """Cost of each candidate of :attr:`differences`, by index."""
        return tuple(self.edit_cost(e) for e in self.differences)

    def feature_costs(self) -> dict[Feature, float]:
        """Cost per candidate feature (what :class:`ModelSpace` and the compilation key
        by)."""
        return {e.feature: c for e, c in zip(self.differences, self.edit_costs, strict=True)}


def balanced_problem(
    robot_domain: Domain | UPProblem,
    robot_problem: Problem | None,
    human_domain: Domain | UPProblem,
    human_problem: Problem | None = None,
    *,
    objective: Objective | str = Objective.BALANCED,
    weights: Weights | None = None,
    explanation_costs: Mapping[str, float] | None = None,
    default_cost: float = 1.0,
    penalty: str | Penalty = "exp",
    observable: frozenset[str] | set[str] | tuple[str, ...] = frozenset(),
    infer_conditions: bool = False,
    learn_from_watching: bool = False,
) -> BalancedProblem:
    """Check the inputs and build the problem.

    Raises :class:`~xaip.errors.InputError` for an unknown objective or penalty, negative
    weights or costs, a cost naming no candidate explanation item, an observable
    predicate neither model declares, inferring or learning without observable
    predicates, and models in different vocabularies. Either model
    may be a unified-planning ``Problem`` given alone (its problem ``None``).
    """
    robot_domain, robot_problem, human_domain, human_problem = models(
        robot_domain, robot_problem, human_domain, human_problem)
    try:
        chosen = Objective(objective)
    except ValueError:
        raise InputError(f"unknown objective {objective!r}; use one of "
                         f"{', '.join(o.value for o in Objective)}") from None
    if isinstance(default_cost, bool) or not isinstance(default_cost, int | float) \
            or not math.isfinite(default_cost) or default_cost < 0:
        raise InputError(f"the communication cost must be a non-negative number, "
                         f"not {default_cost!r}")
    problem = BalancedProblem(
        robot_domain, robot_problem, human_domain, human_problem,
        chosen, weights or Weights(), dict(explanation_costs or {}), float(default_cost),
        penalty if isinstance(penalty, Penalty) else Penalty.named(penalty),
        frozenset(observable), infer_conditions, learn_from_watching)
    if (infer_conditions or learn_from_watching) and not problem.observable:
        what = "inferring conditions" if infer_conditions else "learning from watching"
        raise InputError(f"{what} needs observable predicates (what the person sees)")
    # each model on its own first: an error in one (a bad cost, say) then names its own
    # file, not the person's, whose updated copies the model space grounds
    problem.robot_task  # noqa: B018 - grounded for its checks (and cached for the solvers)
    from xaip.planning.grounding import ground

    ground(problem.human_domain, problem.human_problem)
    known = {_key(feature_name(e.feature)) for e in problem.differences} | {
        _key(edit_sentence(e)) for e in problem.differences}
    for name, cost in problem.explanation_costs.items():
        if _key(name) not in known:
            listed = "; ".join(feature_name(e.feature) for e in problem.differences)
            raise InputError(f"the explanation-cost entry {name!r} names no difference "
                             f"between the models (they differ in: {listed or 'nothing'})")
        if isinstance(cost, bool) or not isinstance(cost, int | float) \
                or not math.isfinite(cost) or cost < 0:
            raise InputError(f"the explanation cost of {name!r} must be a non-negative "
                             f"number, not {cost!r}")
    predicates = {p.name for p in (*robot_domain.predicates, *human_domain.predicates)}
    for name in sorted(problem.observable):
        if name not in predicates:
            raise InputError(f"observable predicate {name!r} is declared in neither model")
    return problem


def read_explanation_costs(path: str | Path) -> dict[str, float]:
    """Read a cost file: a JSON object mapping feature names (or sentences) to costs."""
    data = read_json(path, "weights")  # limits, devices, FIFOs; NaN refused
    if not isinstance(data, dict):
        raise InputError(f"{path}: an explanation-cost file is a JSON object mapping "
                         "feature names to costs")
    return data
