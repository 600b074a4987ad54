"""Brute-force completeness, by direct interpretation of feature sets (a test oracle).

Why a second checker: it shares nothing with grounding or search. It interprets the human
model's feature set, updated by the edits, over sets of atoms, instantiates every
type-consistent action itself and finds the optimum by Dijkstra. It is exponential and
meant for small models: the tests compare the explainers and :func:`.checks.is_complete`
against it, and :func:`.checks.check` uses it for grounded edits (which have no lifted
PDDL form).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from xaip.planning.features import Edit, Feature, FeatureKind, model_features, update_features
from xaip.planning.pddl.model import OBJECT, Atom, Domain, FunctionTerm, Problem
from xaip.planning.plans import PlanStep
from xaip.planning.semantics import counts_action_costs, step_number
from xaip.reconcile.problem import MRP
from xaip.runtime import Budget, BudgetClock
from xaip.runtime.budget import as_clock

_K = FeatureKind


@dataclass(frozen=True)
class CheckResult:
    """Is the plan valid and optimal in one updated model? ``complete`` is None when the
    check ran out of budget."""

    complete: bool | None
    valid: bool
    plan_cost: int | None
    optimal_cost: int | None
    reason: str
    #: A plan cheaper than the checked one (ground action names), when one was found.
    cheaper_plan: tuple[str, ...] | None = None


def _objects(domain: Domain, problem: Problem) -> dict[str, str]:
    found = {c.name: c.type for c in domain.constants}
    found.update({o.name: o.type for o in problem.objects})
    return found


def _parameter_types(mrp: MRP) -> dict[str, tuple[str, ...]]:
    types = {a.name: tuple(p.type for p in a.parameters) for a in mrp.robot_domain.actions}
    types.update({a.name: tuple(p.type for p in a.parameters) for a in mrp.human_domain.actions})
    return types


def _instances(mrp: MRP, action: str) -> Iterator[tuple[str, ...]]:
    below = {**mrp.robot_domain.subtypes_closure(), **mrp.human_domain.subtypes_closure()}
    objects = _objects(mrp.human_domain, mrp.human_problem)
    pools = []
    for type_name in _parameter_types(mrp).get(action, ()):
        allowed = below.get(type_name, frozenset({type_name})) | (
            frozenset(objects.values()) if type_name == OBJECT else frozenset())
        pools.append(sorted(name for name, t in objects.items() if t in allowed))
    return itertools.product(*pools)


def _instantiate(feature: Feature, args: tuple[str, ...]) -> Feature:
    mapping = dict(zip(feature.parameters, args, strict=True))
    atom = feature.atom
    if atom is not None:
        atom = Atom(atom.predicate, tuple(mapping.get(a, a) for a in atom.args))
    value = feature.value
    if isinstance(value, FunctionTerm):
        value = FunctionTerm(value.name, tuple(mapping.get(a, a) for a in value.args))
    return Feature(feature.kind, feature.action, args, atom, feature.fluent, value)


@dataclass(frozen=True)
class _Op:
    name: str
    pre: frozenset[Atom]
    neg: frozenset[Atom]
    add: frozenset[Atom]
    delete: frozenset[Atom]
    cost: int


def _holds(atom: Atom, state: frozenset[Atom]) -> bool:
    if atom.predicate == "=":
        return atom.args[0] == atom.args[1]
    return atom in state


def brute_force_complete(
    mrp: MRP, edits: Iterable[Edit], budget: Budget | BudgetClock | None = None
) -> CheckResult:
    """The same question as :func:`is_complete`, answered by direct interpretation.

    Lifted edits change schemas; grounded edits (whose parameters are objects) change
    one ground action. Semantics of both follow ``update_features``. ``budget`` (a
    running clock is shared) bounds the Dijkstra search: one node per expanded state;
    when it runs out, ``complete`` is ``None``.
    """
    clock = as_clock(budget)
    edits = list(edits)
    lifted = [e for e in edits if not (e.feature.is_action_feature and e.feature.parameters
                                       and not e.feature.is_lifted)]
    grounded = [e for e in edits if e not in lifted]
    # What an action created by an edit costs: the human model's default (0 when its
    # declared costs count, else 1), as every other action of that model is priced.
    default = Fraction(0) if counts_action_costs(mrp.human_domain, mrp.human_problem) \
        else Fraction(1)
    features = update_features(model_features(mrp.human_domain, mrp.human_problem), lifted,
                               default)
    by_action: dict[str, list[Feature]] = {}
    for feature in features:
        if feature.action:
            by_action.setdefault(feature.action, []).append(feature)
    for edit in grounded:
        by_action.setdefault(edit.feature.action, [])
    values = {f.fluent: f.value for f in features if f.kind is _K.INIT_VALUE}
    ops: dict[str, _Op] = {}
    for action, schema_features in sorted(by_action.items()):
        for args in _instances(mrp, action):
            ground_features = {_instantiate(f, args) for f in schema_features}
            mine = [e for e in grounded if e.feature.action == action
                    and e.feature.parameters == args]
            if mine:
                ground_features = set(update_features(ground_features, mine, default))
            op = _make_op(action, args, ground_features, values)
            if op is not None:
                ops[op.name] = op
    init = frozenset(f.atom for f in features if f.kind is _K.INIT and f.atom is not None)
    goal = [f.atom for f in features if f.kind is _K.GOAL and f.atom is not None]
    neg_goal = [f.atom for f in features if f.kind is _K.NEGATIVE_GOAL and f.atom is not None]

    def is_goal(state: frozenset[Atom]) -> bool:
        return all(_holds(a, state) for a in goal) and not any(_holds(a, state)
                                                               for a in neg_goal)

    def applicable(op: _Op, state: frozenset[Atom]) -> bool:
        return all(_holds(a, state) for a in op.pre) and not any(_holds(a, state)
                                                                 for a in op.neg)

    state, plan_cost = init, 0
    for step, name in enumerate(_names(mrp.plan)):
        op = ops.get(name)
        if op is None or not applicable(op, state):
            return CheckResult(False, False, None, None,
                               f"step {step_number(step)} ({name}) fails")
        state = (state - op.delete) | op.add
        plan_cost += op.cost
    if not is_goal(state):
        return CheckResult(False, False, None, None, "the goal is not reached")
    best: dict[frozenset[Atom], int] = {init: 0}
    parent: dict[frozenset[Atom], tuple[frozenset[Atom], str]] = {}
    frontier: list[tuple[int, int, frozenset[Atom]]] = [(0, 0, init)]
    tie = itertools.count(1)
    op_list = sorted(ops.values(), key=lambda o: o.name)
    while frontier:
        cost, _, current = heapq.heappop(frontier)
        if cost > best.get(current, cost):
            continue
        if cost >= plan_cost:
            break
        if not clock.charge():
            return CheckResult(None, True, plan_cost, None, "the checker's budget ran out")
        if is_goal(current):
            steps: list[str] = []
            at = current
            while at in parent:
                at, name = parent[at]
                steps.append(name)
            return CheckResult(False, True, plan_cost, cost,
                               f"a plan of cost {cost} beats the plan's {plan_cost}",
                               tuple(reversed(steps)))
        for op in op_list:
            if applicable(op, current):
                successor = (current - op.delete) | op.add
                new_cost = cost + op.cost
                if new_cost < best.get(successor, new_cost + 1):
                    best[successor] = new_cost
                    parent[successor] = (current, op.name)
                    heapq.heappush(frontier, (new_cost, next(tie), successor))
    return CheckResult(True, True, plan_cost, plan_cost, "valid and optimal")


def _names(plan: Sequence[PlanStep]) -> list[str]:
    return [" ".join((s.name, *s.args)) for s in plan]


def _make_op(action: str, args: tuple[str, ...], features: set[Feature],
             values: Mapping[FunctionTerm | None, object]) -> _Op | None:
    pre: set[Atom] = set()
    neg: set[Atom] = set()
    add: set[Atom] = set()
    delete: set[Atom] = set()
    cost: Fraction | None = None
    for feature in features:
        if feature.kind is _K.COST:
            value = feature.value
            if isinstance(value, FunctionTerm):
                found = values.get(value)
                if not isinstance(found, Fraction):
                    return None
                value = found
            cost = value
        elif feature.atom is not None:
            {_K.PRECONDITION: pre, _K.NEGATIVE_PRECONDITION: neg, _K.ADD_EFFECT: add,
             _K.DELETE_EFFECT: delete}[feature.kind].add(feature.atom)
    if cost is None:
        return None
    return _Op(" ".join((action, *args)), frozenset(pre), frozenset(neg), frozenset(add),
               frozenset(delete - add), int(cost))


def ground_candidates(mrp: MRP, lifted: Iterable[Edit]) -> list[tuple[Edit, Edit]]:
    """Every ground instance of each lifted action edit (type-consistent objects), with the
    lifted edit it comes from; problem edits stay as they are. The candidates of a
    grounded explanation, enumerated here without the model space."""
    out: list[tuple[Edit, Edit]] = []
    for edit in lifted:
        feature = edit.feature
        if not feature.is_action_feature or not feature.parameters:
            out.append((edit, edit))
            continue
        for args in _instances(mrp, feature.action):
            out.append((Edit(_instantiate(feature, args), edit.op), edit))
    return out
