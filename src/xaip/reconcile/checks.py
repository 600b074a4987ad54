"""Independent checks of explanations: is the plan valid and optimal after the edits?

Why independent: an explanation we cannot verify is a bug. These checks share no code
with the model-space search or its compiled model space:

* :func:`is_complete` rebuilds the updated human model as PDDL (``apply_edits``), grounds
  it from scratch, validates the plan on the *lifted* model and asks for a cheaper plan on
  that fresh grounding.
* :func:`brute_force_complete` interprets the feature sets directly over sets of atoms
  and finds the optimum by Dijkstra over every type-consistent action instance, for tests
  and for grounded edits.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from xaip.planning.features import Edit, Feature, FeatureKind, model_features, update_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import OBJECT, Atom, Domain, FunctionTerm, Problem
from xaip.planning.planner import plan_task
from xaip.planning.plans import PlanStep, validate
from xaip.reconcile.problem import MRP
from xaip.runtime import Budget

_K = FeatureKind


@dataclass(frozen=True)
class CheckResult:
    """``complete`` is None when the check ran out of budget."""

    complete: bool | None
    valid: bool
    plan_cost: int | None
    optimal_cost: int | None
    reason: str


def _lifted_only(edits: Iterable[Edit]) -> list[Edit]:
    edits = list(edits)
    if any(e.feature.is_action_feature and not e.feature.is_lifted and e.feature.parameters
           for e in edits):
        raise ValueError("grounded edits: use brute_force_complete")
    return edits


def is_complete(mrp: MRP, edits: Iterable[Edit], budget: Budget | None = None,
                engine: str = "builtin") -> CheckResult:
    """Is ``mrp.plan`` valid and optimal in the human model updated by lifted ``edits``?

    ``engine="fd"`` proves optimality with Fast Downward on the lifted PDDL instead.
    """
    domain, problem = apply_edits(
        mrp.human_domain, mrp.human_problem, _lifted_only(edits),
        source_domain=mrp.robot_domain, source_problem=mrp.robot_problem)
    assert problem is not None
    result = validate(domain, problem, mrp.plan)
    if not result.valid:
        return CheckResult(False, False, None, None, result.reason or "invalid")
    assert result.cost is not None
    plan_cost = int(result.cost)
    if engine == "fd":
        # Fast Downward on the updated model written as lifted PDDL: it shares nothing
        # with our grounding or search.
        from xaip.planning.engines.fast_downward import fd_solve
        from xaip.planning.pddl import write_domain, write_problem

        answer = fd_solve(write_domain(domain), write_problem(problem),
                          budget=budget or Budget(max_seconds=300))
        if answer.status == "budget_exhausted":
            return CheckResult(None, True, plan_cost, None, "budget exhausted")
        if answer.status == "solved" and answer.cost is not None and answer.cost < plan_cost:
            return CheckResult(False, True, plan_cost, int(answer.cost),
                               f"a plan of cost {answer.cost} beats the plan's {plan_cost}")
        return CheckResult(True, True, plan_cost, plan_cost, "valid and optimal")
    # "Is there a plan cheaper than the plan?" A* under the strict cost bound, on the task
    # grounded afresh (h_max was the first choice but is too weak for logistics-size MRPs;
    # the search core itself is tested against Dijkstra, and brute_force_complete below
    # shares nothing with it).
    cheaper = plan_task(ground(domain, problem), optimal=True, search="astar",
                        heuristic="lmcut", cost_bound=plan_cost,
                        budget=budget or Budget(max_seconds=60))
    if cheaper.status == "budget_exhausted":
        return CheckResult(None, True, plan_cost, None, "budget exhausted")
    if cheaper.status == "solved":
        assert cheaper.cost is not None
        return CheckResult(False, True, plan_cost, int(cheaper.cost),
                           f"a plan of cost {cheaper.cost} beats the plan's {plan_cost}")
    return CheckResult(True, True, plan_cost, plan_cost, "valid and optimal")


def is_monotonic(mrp: MRP, edits: Sequence[Edit], difference: Sequence[Edit],
                 max_checks: int = 4096) -> bool | None:
    """Does every further subset of ``difference`` keep the plan explained (book P3)?

    ``None`` when more than ``max_checks`` subsets would have to be checked.
    """
    rest = [e for e in difference if e not in set(edits)]
    if 2 ** len(rest) > max_checks:
        return None
    for size in range(len(rest) + 1):
        for extra in itertools.combinations(rest, size):
            if is_complete(mrp, [*edits, *extra]).complete is not True:
                return False
    return True


# --------------------------------------------------------------------------- brute force


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
    mrp: MRP, edits: Iterable[Edit], max_states: int = 200_000
) -> CheckResult:
    """The same question as :func:`is_complete`, answered by direct interpretation.

    Lifted edits change schemas; grounded edits (whose parameters are objects) change
    one ground action. Semantics of both follow ``update_features``.
    """
    edits = list(edits)
    lifted = [e for e in edits if not (e.feature.is_action_feature and e.feature.parameters
                                       and not e.feature.is_lifted)]
    grounded = [e for e in edits if e not in lifted]
    uses_costs = mrp.robot_domain.uses_action_costs or mrp.human_domain.uses_action_costs
    default = Fraction(0) if uses_costs else Fraction(1)
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
            return CheckResult(False, False, None, None, f"step {step} ({name}) fails")
        state = (state - op.delete) | op.add
        plan_cost += op.cost
    if not is_goal(state):
        return CheckResult(False, False, None, None, "the goal is not reached")
    best: dict[frozenset[Atom], int] = {init: 0}
    frontier: list[tuple[int, int, frozenset[Atom]]] = [(0, 0, init)]
    tie = itertools.count(1)
    op_list = sorted(ops.values(), key=lambda o: o.name)
    while frontier:
        cost, _, current = heapq.heappop(frontier)
        if cost > best.get(current, cost):
            continue
        if cost >= plan_cost:
            break
        if is_goal(current):
            return CheckResult(False, True, plan_cost, cost,
                               f"a plan of cost {cost} beats the plan's {plan_cost}")
        for op in op_list:
            if applicable(op, current):
                successor = (current - op.delete) | op.add
                new_cost = cost + op.cost
                if new_cost < best.get(successor, new_cost + 1):
                    best[successor] = new_cost
                    if len(best) > max_states:
                        return CheckResult(None, True, plan_cost, None, "too many states")
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
