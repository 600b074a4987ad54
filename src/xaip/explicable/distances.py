"""Distances between two plans (book ch. 3, Def. 4–6): action, causal-link, state, composite.

States are the definitions' states, subsets of *all* facts: the grounded state plus the
true static facts grounding leaves out, and causal links count static preconditions too
(producer ``init``), for every task registered by :func:`register_statics` (every task of
an explicable problem and of ``xaip distance``).

Why a *trace* first: the person compares the robot's plan with plans of *their* model, so
the two plans may come from different grounded tasks (different static facts, different
fact numbering). Each plan is therefore turned once into a model-neutral
:class:`PlanTrace` (action names, states as sets of atom strings, causal links as
``(producer, fact, consumer)`` names), and every distance works on traces only.

All four distances lie in ``[0, 1]``, are 0 on identical plans and are symmetric:

* action distance: 1 − Jaccard similarity of the *sets* of actions (order ignored);
* causal-link distance: 1 − Jaccard similarity of the causal-link sets, a link naming its
  producer (``init`` for the initial state) and consumer (``goal`` for the goal) by action
  name, not by position, so that equal links in plans of different lengths match;
* state-sequence distance: states after each step compared position by position
  (1 − Jaccard), steps beyond the shorter plan counting 1 each, divided by the longer
  length;
* composite distance: a weighted *average* of the three ([D]: the book's Def. 4 adds them,
  which leaves [0, 1]; the average keeps the range and the weights stay configurable).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace

from xaip.errors import InputError
from xaip.planning.pddl.model import And, Atom, Domain, Problem
from xaip.planning.plans import causal_links, simulate
from xaip.planning.semantics import fact_text
from xaip.planning.task import GroundAction, Task

#: The distances in [0, 1]; ``cost`` (the cost difference, :mod:`xaip.explicable.measures`)
#: is the fifth distance an inexplicability score can use.
TRACE_DISTANCES = ("action", "causal", "state", "composite")

Link = tuple[str, str, str]

#: The parameters of a distance: composite weights, or for ``learned`` the fitted model
#: (:class:`xaip.explicable.learned.LearnedDistance`, a function of the feature vector).
DistanceParams = Mapping[str, float] | Callable[[Mapping[str, float]], float] | None


@dataclass(frozen=True)
class PlanTrace:
    """A plan as the distances see it: names, states and causal links, model-neutral."""

    actions: tuple[str, ...]
    states: tuple[frozenset[str], ...]  # s_0 .. s_n (fluent atoms)
    links: frozenset[Link]


_NO_GOAL: dict[int, Task] = {}


@dataclass(frozen=True)
class Statics:
    """What grounding leaves out of a task's states: the true atoms of predicates no
    action of the model changes, the ones each ground action's precondition needs, and the
    goal's. A state of the definitions (book ch. 2: a subset of *all* facts) is the
    grounded state plus ``true``."""

    true: frozenset[str]
    needs: Mapping[str, frozenset[str]]
    goal: frozenset[str]


#: Statics of the tasks built for explicable problems (by ``id``; dropped with the task).
_STATICS: dict[int, Statics] = {}


def register_statics(task: Task, domain: Domain, problem: Problem) -> None:
    """Make :func:`trace_of` count ``task``'s static facts (states, causal links).

    Why: two models can differ in which predicates are static (the robot's actions change
    a fact the person believes nobody changes); a trace of grounded states only would then
    compare different fact sets, and two identical plans would be at a distance > 0.
    """
    true = frozenset(str(atom) for atom in task.static_facts)
    schemas = {action.name: action for action in domain.actions}
    needs: dict[str, frozenset[str]] = {}
    for action in task.actions:
        schema = schemas.get(action.schema)
        if schema is None or action.name in needs:
            continue
        binding = dict(zip((p.name for p in schema.parameters), action.args, strict=False))
        atoms = _positive_atoms(schema.precondition)
        needs[action.name] = frozenset(
            text for atom in atoms
            if (text := fact_text(atom.predicate, (binding.get(a, a) for a in atom.args)))
            in true)
    goal = frozenset(str(a) for a in _positive_atoms(problem.goal) if str(a) in true) \
        if problem.goal is not None else frozenset()
    key = id(task)
    _STATICS[key] = Statics(true, needs, goal)
    weakref.finalize(task, _STATICS.pop, key, None)


def _positive_atoms(condition: object) -> list[Atom]:
    """The atoms a conjunctive condition requires true (others are not 'needed')."""
    if isinstance(condition, Atom):
        return [] if condition.predicate == "=" else [condition]
    if isinstance(condition, And):
        return [a for part in condition.operands for a in _positive_atoms(part)]
    return []


def trace_of(task: Task, plan: Sequence[GroundAction], prefix: bool = False) -> PlanTrace:
    """The trace of ``plan``, executable in ``task`` (raises ``ValueError`` if it is not).

    With ``prefix`` the plan need not reach the goal and has no links to the goal (the
    reconciliation search compares plan prefixes).
    """
    if prefix:
        task = _without_goal(task)
    states = simulate(task, plan)
    if states is None:
        raise ValueError("a plan distance needs a plan executable in its task")
    names = tuple(action.name for action in plan)

    def step_name(index: int) -> str:
        if index < 0:
            return "init"
        return "goal" if index >= len(plan) else names[index]

    links = {(step_name(link.producer), str(task.facts[link.fact]), step_name(link.consumer))
             for link in causal_links(task, plan)}
    statics = _STATICS.get(id(task)) or _STATICS.get(_ORIGINAL.get(id(task), -1))
    always: frozenset[str] = frozenset()
    if statics is not None:
        always = statics.true
        for index, action in enumerate(plan):
            links |= {("init", fact, names[index]) for fact in statics.needs.get(action.name, ())}
        if not prefix:
            links |= {("init", fact, "goal") for fact in statics.goal}
    return PlanTrace(names, tuple(frozenset(map(str, task.true_facts(s))) | always
                                  for s in states), frozenset(links))


def _without_goal(task: Task) -> Task:
    """``task`` with an empty goal (cached: building a task indexes its actions)."""
    bare = _NO_GOAL.get(id(task))
    if bare is None or bare.actions is not task.actions:
        bare = replace(task, goal=0, goal_neg=0)
        if len(_NO_GOAL) > 64:
            _NO_GOAL.clear()
            _ORIGINAL.clear()
        _NO_GOAL[id(task)] = bare
        _ORIGINAL[id(bare)] = id(task)
    return bare


#: The task a goal-less copy (:func:`_without_goal`) was made from, for its statics.
_ORIGINAL: dict[int, int] = {}


def _jaccard_distance(a: frozenset[str] | frozenset[Link], b: frozenset[str] | frozenset[Link]
                      ) -> float:
    union = len(a | b)
    return 0.0 if union == 0 else 1.0 - len(a & b) / union


def action_distance(a: PlanTrace, b: PlanTrace) -> float:
    """1 − |A(a) ∩ A(b)| / |A(a) ∪ A(b)| over the distinct actions (0 for two empty plans)."""
    return _jaccard_distance(frozenset(a.actions), frozenset(b.actions))


def causal_link_distance(a: PlanTrace, b: PlanTrace) -> float:
    """1 − Jaccard similarity of the two causal-link sets."""
    return _jaccard_distance(a.links, b.links)


def state_distance(a: PlanTrace, b: PlanTrace) -> float:
    """Aligned states after each step compared by 1 − Jaccard; the longer plan's extra steps
    count 1 each; the sum divided by the longer plan's length (0 for two empty plans)."""
    longer = max(len(a.actions), len(b.actions))
    if longer == 0:
        return 0.0
    shorter = min(len(a.actions), len(b.actions))
    total = sum(_jaccard_distance(a.states[i], b.states[i]) for i in range(1, shorter + 1))
    return (total + (longer - shorter)) / longer


DEFAULT_WEIGHTS: Mapping[str, float] = {"action": 1.0, "causal": 1.0, "state": 1.0}


def composite_distance(a: PlanTrace, b: PlanTrace,
                       weights: Mapping[str, float] | None = None) -> float:
    """The weighted average of the action, causal-link and state distances."""
    w = check_weights(weights)
    parts = feature_vector(a, b)
    return sum(w[name] * parts[name] for name in w) / sum(w.values())


def check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """Weights for ``action``, ``causal`` and ``state``: non-negative, not all zero."""
    w = dict(DEFAULT_WEIGHTS if weights is None else weights)
    unknown = set(w) - set(DEFAULT_WEIGHTS)
    if unknown:
        raise InputError(f"unknown distance weight(s) {sorted(unknown)}; "
                         "use action, causal and state")
    if any(value < 0 for value in w.values()) or sum(w.values()) <= 0:
        raise InputError("composite distance weights must be >= 0 and not all 0")
    return w


def feature_vector(a: PlanTrace, b: PlanTrace) -> dict[str, float]:
    """The explicability feature vector ⟨δ_A, δ_C, δ_S⟩ of a pair of plans (Def. 6)."""
    return {"action": action_distance(a, b), "causal": causal_link_distance(a, b),
            "state": state_distance(a, b)}


def trace_distance(name: str, a: PlanTrace, b: PlanTrace,
                   weights: DistanceParams = None) -> float:
    """The distance called ``name`` (one of :data:`TRACE_DISTANCES`, or ``learned`` with
    the fitted model as ``weights``)."""
    if name == "learned":
        if weights is None or isinstance(weights, Mapping):
            raise InputError("the learned distance needs a fitted model")
        return weights(feature_vector(a, b))
    if weights is not None and not isinstance(weights, Mapping):
        raise InputError(f"the {name} distance takes weights, not a model")
    if name == "action":
        return action_distance(a, b)
    if name == "causal":
        return causal_link_distance(a, b)
    if name == "state":
        return state_distance(a, b)
    if name == "composite":
        return composite_distance(a, b, weights)
    raise InputError(f"unknown plan distance {name!r}; use one of "
                     f"{', '.join(TRACE_DISTANCES)} or cost")
