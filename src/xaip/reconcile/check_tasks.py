"""The checker's grounded tasks of ``H + S`` for many edit sets ``S``, without re-grounding.

Why: the minimality and monotonicity proofs ask for the optimal cost in hundreds of
updated models that differ by one or two features. Writing each as PDDL and grounding it
afresh made grounding most of the checker's time. Here the human model is grounded
**once**, as a relaxation that over-approximates every updated model, and each ``H + S``
is then built by interpreting its feature set (``update_features``, the definition of an
updated model) on those ground instances: toggling features, not re-reading PDDL.

* The relaxation ``U``: ``H`` with every edit applied that removes a precondition, adds an
  add or delete effect, adds an initial fact or creates an action, and none that adds a
  precondition or removes an effect or fact. Relaxed reachability (which the grounder
  computes, ignoring negative conditions) of ``U`` then contains that of every ``H + S``,
  and every predicate some ``H + S`` changes is changed in ``U``; so the ground instances
  of ``U`` (plus the plan's own steps) contain every instance that can ever apply in
  ``H + S``. Extra instances are real actions of ``H + S`` too (their conditions are
  evaluated here), so they change nothing.
* Each instance's preconditions, effects and cost in ``H + S`` come from the features,
  parameters replaced by objects (the direct interpretation of :mod:`.brute_force` and
  :mod:`.check_minimal`, written here over bit masks); ``=`` is evaluated here, static
  facts are evaluated as a grounder does.

Shares with the explainers only the grounder's relaxed reachability
(:func:`~xaip.planning.grounding.ground_skeleton`: which instances of ``U`` are reachable;
their preconditions and effects are never taken from it) and the feature
semantics; not the compiled model space, its goal tests or planner cache. Used only when
both models are wholly features (:func:`usable`): no remainder (quantifiers, disjunctions,
conditional effects, costs that are not one feature), no derived predicates, lifted edits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from xaip.planning.engines import DEFAULT_ENGINE, get_engine
from xaip.planning.features import Edit, Feature, FeatureKind, model_features, update_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.features.extract import split_action, split_goal
from xaip.planning.grounding import ground_skeleton
from xaip.planning.pddl.model import Atom, Domain, FunctionTerm, Problem
from xaip.planning.semantics import counts_action_costs
from xaip.planning.task import GroundAction, Task
from xaip.reconcile.problem import MRP
from xaip.runtime import Budget

_K = FeatureKind

#: Edits that can only enlarge relaxed reachability or the set of changed predicates.
_RELAXING = {(_K.PRECONDITION, "remove"), (_K.NEGATIVE_PRECONDITION, "remove"),
             (_K.ADD_EFFECT, "add"), (_K.DELETE_EFFECT, "add"), (_K.INIT, "add"),
             (_K.COST, "add"), (_K.INIT_VALUE, "add")}


def _pure(domain: Domain, problem: Problem) -> bool:
    if domain.derived or split_goal(problem.goal).rest:
        return False
    uses = counts_action_costs(domain, problem)
    for action in domain.actions:
        parts = split_action(action, uses)
        if parts.precondition_rest or parts.effect_rest or parts.cost is None:
            return False
    return True


def usable(mrp: MRP, candidates: Sequence[Edit]) -> bool:
    """Can updated models of ``mrp`` be built here (both models wholly features, every
    candidate a lifted edit)?"""
    if any(e.feature.is_action_feature and e.feature.parameters and not e.feature.is_lifted
           for e in candidates):
        return False
    return _pure(mrp.human_domain, mrp.human_problem) and _pure(mrp.robot_domain,
                                                                  mrp.robot_problem)


class SplitFeatures:
    """``update_features(H, edits)`` one action at a time, memoised.

    Applying edits is local: an edit changes only the features of its own action (or of
    the problem), a removed cost removes only its action (``update_features``' rules). So
    the features of ``H + S`` are, per action, ``H``'s features of that action updated by
    the edits of ``S`` about it -- computed once per (action, edits about it) instead of
    re-hashing the whole model for every edit set."""

    def __init__(self, human: frozenset[Feature], default: Fraction) -> None:
        self.default = default
        self.by_action: dict[str, frozenset[Feature]] = {}
        grouped: dict[str, set[Feature]] = {}
        for feature in human:
            grouped.setdefault(feature.action or "", set()).add(feature)
        self.by_action = {name: frozenset(found) for name, found in grouped.items()}
        self._memo: dict[tuple[str, frozenset[Edit]], frozenset[Feature]] = {}

    def split(self, edits: Sequence[Edit]) -> dict[str, frozenset[Edit]]:
        """The edits per action name (``""``: the problem's)."""
        out: dict[str, set[Edit]] = {}
        for edit in edits:
            out.setdefault(edit.feature.action or "", set()).add(edit)
        return {name: frozenset(found) for name, found in out.items()}

    def features(self, action: str, edits: frozenset[Edit]) -> frozenset[Feature]:
        """The features of ``action`` (``""``: the problem) after ``edits`` about it."""
        base = self.by_action.get(action, frozenset())
        if not edits:
            return base
        key = (action, edits)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = update_features(
                base, edits, self.default if action else None)
        return found


class FeatureTasks:
    """Grounded tasks of ``H + S`` for subsets ``S`` of ``candidates`` (module docstring)."""

    def __init__(self, mrp: MRP, candidates: Sequence[Edit], budget: Budget,
                 human: frozenset[Feature] | None = None) -> None:
        self.mrp = mrp
        self.human = human if human is not None else model_features(mrp.human_domain,
                                                                     mrp.human_problem)
        self.default = Fraction(0) if counts_action_costs(mrp.human_domain,
                                                          mrp.human_problem) else Fraction(1)
        self.split = SplitFeatures(self.human, self.default)
        relaxing = [e for e in candidates if (e.feature.kind, e.op) in _RELAXING]
        domain, problem = apply_edits(mrp.human_domain, mrp.human_problem, relaxing,
                                      source_domain=mrp.robot_domain,
                                      source_problem=mrp.robot_problem)
        assert problem is not None
        # only which instances are reachable in the relaxation (not the grounder's masks,
        # which the toggled tasks build themselves from the features)
        relaxed = ground_skeleton(domain, problem, budget)
        instances = {(i.action.name, i.args) for i in relaxed.instances}
        instances |= {(s.name, tuple(s.args)) for s in mrp.plan}
        self.by_schema: dict[str, list[tuple[str, ...]]] = {}
        for schema, args in sorted(instances):
            self.by_schema.setdefault(schema, []).append(args)
        self.has_costs = counts_action_costs(mrp.human_domain, mrp.human_problem)
        self._keys: dict[tuple[str, tuple[str, ...]], int] = {}
        self._templates: dict[Feature, tuple[FeatureKind, str, tuple[int | str, ...], int,
                                             object]] = {}
        self._facts: list[Atom] = []
        self._made: dict[tuple[object, ...], tuple[GroundAction, ...]] = {}
        self._changes: dict[int, int] = {}  # id of a made tuple -> what its actions change
        self._kept: dict[tuple[int, int, int], tuple[GroundAction, ...]] = {}
        # the tasks' indexes built once (as the task constructor would per task): the
        # names per kept tuple, the fact index per number of facts (facts only grow)
        self._names: dict[int, list[str]] = {}
        self._index: tuple[tuple[Atom, ...], dict[Atom, int]] = ((), {})

    def _bit(self, atom: Atom) -> int:
        key = (atom.predicate, atom.args)
        index = self._keys.get(key)
        if index is None:
            index = self._keys[key] = len(self._facts)
            self._facts.append(Atom(atom.predicate, atom.args))
        return 1 << index

    def _mask(self, atoms: frozenset[Atom] | list[Atom]) -> int:
        mask = 0
        for atom in atoms:
            mask |= self._bit(atom)
        return mask

    def task(self, edits: Sequence[Edit]) -> Task:
        """The grounded task of ``H + edits`` (lifted edits of the candidates)."""
        split = self.split.split(edits)
        problem = self.split.features("", split.get("", frozenset()))
        values = {f.fluent: f.value for f in problem if f.kind is _K.INIT_VALUE}
        value_key = tuple(sorted(values.items(), key=repr))
        groups: list[tuple[GroundAction, ...]] = []
        for schema, instances in self.by_schema.items():
            mine = split.get(schema, frozenset())
            key = (schema, mine, value_key)
            made = self._made.get(key)
            if made is None:
                made = self._made[key] = tuple(self._ground_schema(
                    schema, instances, self.split.features(schema, mine), values))
                changes = 0
                for action in made:
                    changes |= action.add | action.delete
                self._changes[id(made)] = changes
            groups.append(made)
        features = problem
        init = self._mask([f.atom for f in features if f.kind is _K.INIT and f.atom])
        goal = neg_goal = 0
        unreachable = False
        for feature in features:
            atom = feature.atom
            if atom is None or feature.kind not in (_K.GOAL, _K.NEGATIVE_GOAL):
                continue
            if atom.predicate == "=":
                holds = atom.args[0] == atom.args[1]
                unreachable |= holds != (feature.kind is _K.GOAL)
                continue
            if feature.kind is _K.GOAL:
                goal |= self._bit(atom)
            else:
                neg_goal |= self._bit(atom)
        if unreachable:  # a statically false goal literal: a fact nothing adds
            goal |= self._bit(Atom("xaip-check-unreachable", ()))
        return self._simplified(groups, init, goal, neg_goal)

    def _simplified(self, groups: list[tuple[GroundAction, ...]], init: int, goal: int,
                    neg_goal: int) -> Task:
        """The task with its static facts evaluated, as a grounder does: a fact no action
        adds or deletes keeps its initial value, so an action needing it false-valued is
        dropped and a condition it satisfies is dropped from the action (the states still
        carry it: nothing else changes). Each schema's simplified actions are memoised per
        (its ground actions, what all actions change, the initial state): the proofs' edit
        sets mostly differ in one schema, so the others are not simplified again."""
        changed = 0
        for made in groups:
            changed |= self._changes[id(made)]
        kept: list[GroundAction] = []
        names: list[str] = []
        for made in groups:
            key = (id(made), changed, init)
            simple = self._kept.get(key)
            if simple is None:
                simple = self._kept[key] = tuple(_simplify(made, changed, init))
                self._names[id(simple)] = [action.name for action in simple]
            kept.extend(simple)
            names.extend(self._names[id(simple)])
        facts, index = self._index
        if len(facts) != len(self._facts):
            facts = tuple(self._facts)
            index = {fact: number for number, fact in enumerate(facts)}
            self._index = (facts, index)
        return Task.sharing_index(index, names, name="check", facts=facts,
                                  actions=tuple(kept), init=init, goal=goal,
                                  goal_neg=neg_goal, has_costs=self.has_costs)

    def _ground_schema(self, schema: str, instances: Sequence[tuple[str, ...]],
                       features: frozenset[Feature],
                       values: Mapping[FunctionTerm | None, object]
                       ) -> list[GroundAction]:
        """The ground actions of one schema with these features: each feature's atom with
        the action's parameters replaced by the instance's objects (the meaning of
        ``brute_force._instantiate`` and ``_make_op``, without building Feature objects):
        deletes that are also added do not delete, ``=`` is evaluated, and an action
        without a cost feature (or whose cost fluent has no value) does not exist."""
        templates = [self._template(f) for f in features]
        out = []
        for args in instances:
            pre = neg = add = delete = 0
            cost: object = None
            exists = True
            for kind, predicate, slots, arity, value in templates:
                if arity != len(args):
                    continue
                if kind is _K.COST:
                    if isinstance(value, FunctionTerm):
                        term = FunctionTerm(value.name, tuple(
                            args[i] if isinstance(i, int) else i for i in slots))
                        value = values.get(term)
                        if not isinstance(value, Fraction):
                            exists = False
                            break
                    cost = value
                    continue
                ground = tuple(args[i] if isinstance(i, int) else i for i in slots)
                if predicate == "=":
                    equal = ground[0] == ground[1]
                    if (kind is _K.PRECONDITION and not equal) or (
                            kind is _K.NEGATIVE_PRECONDITION and equal):
                        exists = False  # statically false: never applicable
                        break
                    continue
                bit = self._bit_of(predicate, ground)
                if kind is _K.PRECONDITION:
                    pre |= bit
                elif kind is _K.NEGATIVE_PRECONDITION:
                    neg |= bit
                elif kind is _K.ADD_EFFECT:
                    add |= bit
                elif kind is _K.DELETE_EFFECT:
                    delete |= bit
            if exists and cost is not None:
                assert isinstance(cost, Fraction)
                out.append(GroundAction(schema, args, pre, add, delete & ~add, int(cost), neg))
        return out

    def _template(self, feature: Feature) -> tuple[FeatureKind, str, tuple[int | str, ...],
                                                   int, object]:
        """(kind, predicate, argument slots -- a parameter's position or a constant --,
        arity, cost value) of a lifted feature, computed once."""
        found = self._templates.get(feature)
        if found is None:
            position = {name: i for i, name in enumerate(feature.parameters)}
            atom = feature.atom
            value = feature.value
            if atom is not None:
                slots = tuple(position.get(a, a) for a in atom.args)
                predicate = atom.predicate
            else:
                term_args = value.args if isinstance(value, FunctionTerm) else ()
                slots = tuple(position.get(a, a) for a in term_args)
                predicate = ""
            found = self._templates[feature] = (feature.kind, predicate, slots,
                                                len(feature.parameters), value)
        return found

    def _bit_of(self, predicate: str, args: tuple[str, ...]) -> int:
        key = (predicate, args)
        index = self._keys.get(key)
        if index is None:
            return self._bit(Atom(predicate, args))
        return 1 << index


def _simplify(actions: Sequence[GroundAction], changed: int, init: int
              ) -> list[GroundAction]:
    """``actions`` with the facts outside ``changed`` (static: they keep their value in
    ``init``) evaluated: an action whose condition on one is false is dropped, a condition
    that holds is removed."""
    static_false = ~changed & ~init
    static_true = ~changed & init
    kept = []
    for action in actions:
        if action.pre & static_false or action.neg_pre & static_true:
            continue
        if action.pre & ~changed or action.neg_pre & ~changed:
            action = GroundAction(action.schema, action.args, action.pre & changed,
                                  action.add, action.delete, action.cost,
                                  action.neg_pre & changed)
        kept.append(action)
    return kept


def run_plan(task: Task, plan: Sequence[str]) -> int | None:
    """The cost of ``plan`` (step names) in ``task``, None when it is invalid there."""
    state, cost = task.init, 0
    for name in plan:
        action = next((task.actions[i] for i in task.action_index.get(name, ())
                       if task.actions[i].applicable(state)), None)
        if action is None:
            return None
        state = action.apply(state)
        cost += action.cost
    return cost if task.is_goal(state) else None


def contrastive_on_task(task: Task, plan: Sequence[str], foils: Sequence[Any],
                        budget: Budget) -> tuple[bool | None, str, tuple[str, ...] | None]:
    """:func:`~xaip.reconcile.checks.contrastive_verdict` on an updated task built here:
    the plan valid and no foil cheaper (the checker's A* on the foil's compilation)."""
    from xaip.planning.proofs import cheaper_plan
    from xaip.reconcile.checks import _foil_task

    cost = run_plan(task, plan)
    if cost is None:
        return False, "the plan is invalid in the updated model", None
    for foil in foils:
        if foil.kind == "plan":
            other = run_plan(task, [" ".join(step.lower().split()) for step in foil.steps])
            if other is not None and other < cost:
                return False, f"{foil.text} costs {other}, less than {cost}", foil.steps
            continue
        status, found, names = cheaper_plan(None, None, _foil_task(task, foil.kind,
                                                                   foil.action), cost, budget)
        if status == "budget_exhausted":
            return None, "the checker's budget ran out", None
        if status == "solved":
            real = None if names is None else tuple(n for n in names
                                                    if not n.startswith("xaip-check-used"))
            return False, f"{foil.text}: a plan of cost {found} beats {cost}", real
    return True, "the plan is valid and no foil is cheaper", None


def complete_on_task(task: Task, plan: Sequence[str], budget: Budget, engine: str,
                     quick: bool = True) -> tuple[bool | None, bool, int | None, int | None,
                                                  tuple[str, ...] | None]:
    """(complete, valid, plan cost, cheaper cost, cheaper plan) of ``plan`` (step names) in
    ``task``: simulated step by step; then, with ``quick``, greedy best-first search with
    h_FF under the cost bound looks for *some* cheaper plan (a witness, not a proof); only
    when it finds none does :func:`~xaip.planning.proofs.cheaper_plan`'s A* (certified
    LM-cut) prove optimality (``complete`` None: the budget ran out)."""
    from xaip.planning.proofs import cheaper_plan

    cost = run_plan(task, plan)
    if cost is None:
        return False, False, None, None, None
    if quick:
        result = get_engine(DEFAULT_ENGINE, search="gbfs", heuristic="hff").solve(
            task, cost_bound=cost, budget=budget)
        if str(result.status) == "solved" and result.cost is not None and result.cost < cost:
            return False, True, cost, int(result.cost), tuple(a.name for a in result.plan)
    status, found, names = cheaper_plan(None, None, task, cost, budget, engine)
    if status == "budget_exhausted":
        return None, True, cost, None, None
    if status == "solved":
        return False, True, cost, found, names
    return True, True, cost, cost, None
