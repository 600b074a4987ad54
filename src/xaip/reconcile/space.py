"""The model space of a reconciliation problem, compiled for thousands of goal tests.

Why compiled: MEGA-style searches evaluate a model per search node. Writing PDDL and
grounding it per node (what the reference implementation did, with an external planner)
costs milliseconds to seconds; here the whole space is grounded *once* and each model
``H + S`` (the human model plus a subset ``S`` of the candidate edits) is assembled from
precomputed fact bits in well under a millisecond.

How: the candidate edits ``D`` are the feature differences that move the human model
towards the robot's. Every model ``H + S`` has preconditions between the two models'
shared ones and their union, and effects and initial facts within the union. So we ground
a *relaxed union* model (shared positive preconditions only, every add and delete effect,
every initial fact) once: its reachable ground actions and facts contain those of every
model in the space. For a given ``S`` each ground action is rebuilt from the features
``H + S`` gives its schema, instantiated with the action's objects; static facts are
looked up in the model's own initial state, so an edit of a static fact is exact too.

Models whose actions have parts that are not features (disjunctions, quantifiers,
conditional effects) cannot be compiled this way; :class:`ModelSpace` then grounds each
model from PDDL (slower, same answers).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from xaip.errors import InputError, SemanticError, UnsupportedFeature
from xaip.planning.features import (
    Edit,
    Feature,
    FeatureKind,
    apply_edits,
    model_diff,
    model_features,
    update_features,
)
from xaip.planning.features.extract import split_action, split_goal
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import IMPOSSIBLE, Atom, Domain, FunctionTerm, Problem
from xaip.planning.semantics import counts_action_costs
from xaip.planning.task import GroundAction, Task

_K = FeatureKind


@dataclass(frozen=True)
class Candidate:
    """One edit the explainer may communicate.

    ``instance`` is ``None`` for a lifted edit (it applies to every ground instance of the
    schema) and the index of a ground action of :attr:`ModelSpace.instances` for a
    grounded one. ``edit`` is what people are told.
    """

    edit: Edit
    lifted: Edit
    instance: int | None = None

    @property
    def action(self) -> str | None:
        return self.lifted.feature.action or None


@dataclass(frozen=True)
class Instance:
    """A ground action of the relaxed union model: the slots every model fills in."""

    schema: str
    args: tuple[str, ...]

    @property
    def name(self) -> str:
        return " ".join((self.schema, *self.args))


def _is_strips_like(domain: Domain, problem: Problem) -> bool:
    if domain.derived:  # compiled tasks carry no axioms: ground such models whole
        return False
    uses_costs = counts_action_costs(domain, problem)
    for action in domain.actions:
        parts = split_action(action, uses_costs)
        if parts.precondition_rest or parts.effect_rest or parts.cost is None:
            return False
    return not split_goal(problem.goal).rest


class ModelSpace:
    """All models between the human's and the robot's, evaluated fast.

    ``candidates`` are the edits from the human model towards the robot model (lifted by
    default, one per ground action with ``grounded=True``). :meth:`task` returns the
    grounded task of ``H + S`` for a set ``S`` of candidate indices.
    """

    def __init__(
        self,
        robot_domain: Domain,
        robot_problem: Problem,
        human_domain: Domain,
        human_problem: Problem,
        grounded: bool = False,
        edit_costs: dict[Feature, int] | None = None,
    ) -> None:
        difference = model_diff(human_domain, robot_domain, human_problem, robot_problem)
        if difference.mismatches:
            from xaip.reconcile.problem import vocabulary_error

            raise vocabulary_error(difference.mismatches)
        if difference.structural:
            listed = "; ".join(str(s) for s in difference.structural)
            raise UnsupportedFeature(
                "the models differ in parts that are not features (quantified, disjunctive "
                f"or conditional parts), which explanations cannot edit: {listed}")
        self.robot_domain, self.robot_problem = robot_domain, robot_problem
        self.human_domain, self.human_problem = human_domain, human_problem
        self.grounded = grounded
        self.lifted_edits: tuple[Edit, ...] = difference.edits()
        self.human_features = model_features(human_domain, human_problem)
        self.robot_features = model_features(robot_domain, robot_problem)
        # Each model is priced by its own domain *and* problem (declared costs only under
        # the total-cost metric, else 1 per action): the cost features above already say
        # what every action costs in each model. An action that an edit creates in H
        # starts at H's default cost, as apply_edits gives it.
        self.human_counts_costs = counts_action_costs(human_domain, human_problem)
        self.robot_counts_costs = counts_action_costs(robot_domain, robot_problem)
        self.uses_costs = self.human_counts_costs or self.robot_counts_costs
        self.default_cost = Fraction(0) if self.human_counts_costs else Fraction(1)
        self.compiled = _is_strips_like(robot_domain, robot_problem) and _is_strips_like(
            human_domain, human_problem)
        if grounded and not self.compiled:
            raise UnsupportedFeature(
                "grounded explanations need models whose actions are conjunctions of literals "
                "(no or/exists/forall/when); use lifted explanations")
        self._task_cache: dict[tuple[int, ...], Task] = {}
        self._plan_task_cache: dict[tuple[tuple[int, ...], frozenset[str]], Task] = {}
        self._numbers_by_name: dict[str, list[int]] | None = None
        self._human_groups: dict[str, list[Feature]] | None = None
        self._plan_scopes: dict[frozenset[str], tuple[frozenset[int], frozenset[str]]] = {}
        self._group_cache: dict[tuple[str, tuple[int, ...]], frozenset[Feature]] = {}
        self._only_cache: dict[frozenset[int], dict[str, list[int]]] = {}
        self._problem_cache: dict[tuple[int, ...], tuple[
            int, int, int, frozenset[Atom], dict[FunctionTerm, Fraction]]] = {}
        self._ground_cache: dict[tuple[int, tuple[int, ...], tuple[int, ...]],
                                 GroundAction | None] = {}
        if self.compiled:
            self._compile()
        else:
            self.instances: tuple[Instance, ...] = ()
        self.candidates = self._candidates()
        costs = edit_costs or {}
        self.edit_costs: tuple[int, ...] = tuple(
            costs.get(c.lifted.feature, 1) for c in self.candidates)

    # ------------------------------------------------------------------ set-up

    def _compile(self) -> None:
        union_edits = [
            e for e in self.lifted_edits
            if (e.op == "add" and e.feature.kind in (_K.ADD_EFFECT, _K.DELETE_EFFECT, _K.INIT,
                                                     _K.COST, _K.INIT_VALUE))
        ]
        # Drop every negative precondition and every precondition only one side has:
        # the union must enable every ground action any model in the space enables.
        shared = self.human_features & self.robot_features
        union_edits += [
            Edit(f, "remove") for f in self.human_features
            if f.kind is _K.NEGATIVE_PRECONDITION
            or (f.kind is _K.PRECONDITION and f not in shared)
        ]
        union_domain, union_problem = apply_edits(
            self.human_domain, self.human_problem, union_edits,
            source_domain=self.robot_domain, source_problem=self.robot_problem)
        assert union_problem is not None
        union = ground(union_domain, union_problem)
        self.facts: tuple[Atom, ...] = (*union.facts, IMPOSSIBLE)
        self.fact_index = {fact: i for i, fact in enumerate(self.facts)}
        self.impossible_bit = 1 << (len(self.facts) - 1)
        fluent = {a.predicate for a in union.facts}
        self.static_predicates = frozenset(
            p.name for p in (*self.robot_domain.predicates, *self.human_domain.predicates)
            if p.name not in fluent)
        seen: dict[str, int] = {}
        instances: list[Instance] = []
        for action in union.actions:
            if action.name not in seen:
                seen[action.name] = len(instances)
                instances.append(Instance(action.schema, action.args))
        self.instances = tuple(instances)
        self.instance_names = tuple(seen)  # insertion order: instance numbers
        self.instance_index = seen
        self.by_schema: dict[str, list[int]] = {}
        for number, instance in enumerate(self.instances):
            self.by_schema.setdefault(instance.schema, []).append(number)
        self._slot_cache: dict[tuple[Feature, int], tuple[str, int | Atom | None]] = {}

    def _candidates(self) -> tuple[Candidate, ...]:
        if not self.grounded:
            return tuple(Candidate(e, e) for e in self.lifted_edits)
        out: list[Candidate] = []
        for edit in self.lifted_edits:
            feature = edit.feature
            if not feature.is_action_feature or feature.kind is _K.COST and \
                    feature.action not in self.by_schema:
                out.append(Candidate(edit, edit))
                continue
            for number in self.by_schema.get(feature.action, ()):
                instance = self.instances[number]
                ground_feature = self._ground_feature(feature, instance)
                if feature.kind is not _K.COST and not self._matters(feature, number):
                    continue
                out.append(Candidate(Edit(ground_feature, edit.op), edit, number))
        return tuple(out)

    def _ground_feature(self, feature: Feature, instance: Instance) -> Feature:
        mapping = dict(zip(feature.parameters, instance.args, strict=True))
        atom = feature.atom
        if atom is not None:
            atom = Atom(atom.predicate, tuple(mapping.get(a, a) for a in atom.args))
        value = feature.value
        if isinstance(value, FunctionTerm):
            value = FunctionTerm(value.name, tuple(mapping.get(a, a) for a in value.args))
        return Feature(feature.kind, feature.action, instance.args, atom, feature.fluent, value)

    def _matters(self, feature: Feature, number: int) -> bool:
        """False when a ground feature is on a fact that is statically true in both models
        (a precondition nobody needs to hear about)."""
        code, payload = self._slot(feature, number)
        if code != "static" or not isinstance(payload, Atom):
            return True
        true_in = [payload in init for init in (self._static_init(self.human_features),
                                                self._static_init(self.robot_features))]
        if feature.kind is _K.PRECONDITION:
            return not all(true_in)
        if feature.kind is _K.NEGATIVE_PRECONDITION:
            return any(true_in)
        return True

    # ------------------------------------------------------------------ models

    def features(self, subset: Iterable[int]) -> frozenset[Feature]:
        """Γ(H + S) for the lifted edits of ``S`` (grounded edits are per-instance overrides)."""
        return frozenset(self._grouped_features(tuple(sorted(set(subset))), None)[0])

    def _grouped_features(self, subset: tuple[int, ...], actions: frozenset[str] | None) \
            -> tuple[list[Feature], dict[str, tuple[int, ...]]]:
        """Γ(H + S) as :meth:`features`, restricted to the problem's features and (if
        ``actions`` is given) those of the named actions, built one action at a time.

        Why: applying edits is local to an action (a removed cost removes that action,
        an added value replaces that action's slot, a new action gets its own cost), so
        each action's features depend only on the edits about it; model-space nodes share
        most of those, and a cache per action and edit set saves rebuilding the whole
        feature set at every node (the empty-model MCE visits hundreds of thousands).
        Also returns the edits that shaped each action (the key of its cached features)."""
        out: list[Feature] = []
        keys = self._group_keys(subset, actions)
        for group, chosen in keys.items():
            out.extend(self._group_features(group, chosen))
        return out, keys

    def _group_keys(self, subset: tuple[int, ...], actions: frozenset[str] | None) \
            -> dict[str, tuple[int, ...]]:
        """The lifted edits of ``subset`` about each action ("" : the problem)."""
        groups = self._human_groups
        if groups is None:
            groups = {}
            for feature in self.human_features:
                groups.setdefault(_group_of(feature), []).append(feature)
            groups.setdefault("", [])
            self._human_groups = groups
        edits_by_group: dict[str, list[int]] = {}
        for i in subset:
            candidate = self.candidates[i]
            if candidate.instance is None:
                edits_by_group.setdefault(_group_of(candidate.lifted.feature), []).append(i)
        keys: dict[str, tuple[int, ...]] = {}
        for group in {*groups, *edits_by_group}:
            if actions is not None and group and group not in actions:
                continue
            keys[group] = tuple(edits_by_group.get(group, ()))
        return keys

    def _group_features(self, group: str, chosen: tuple[int, ...]) -> frozenset[Feature]:
        key = (group, chosen)
        found = self._group_cache.get(key)
        if found is None:
            assert self._human_groups is not None
            found = update_features(self._human_groups.get(group, ()),
                                    [self.candidates[i].lifted for i in chosen],
                                    self.default_cost)
            if len(self._group_cache) > 200_000:
                self._group_cache.clear()
            self._group_cache[key] = found
        return found

    def edits(self, subset: Iterable[int]) -> tuple[Edit, ...]:
        return tuple(self.candidates[i].edit for i in sorted(subset))

    def cost(self, subset: Iterable[int]) -> int:
        return sum(self.edit_costs[i] for i in subset)

    def model(self, subset: Iterable[int]) -> tuple[Domain, Problem]:
        """``H + S`` as PDDL (lifted edits only)."""
        subset = tuple(subset)
        if any(self.candidates[i].instance is not None for i in subset):
            raise InputError("grounded edits cannot be written as a lifted PDDL model")
        domain, problem = apply_edits(
            self.human_domain, self.human_problem, [self.candidates[i].lifted for i in subset],
            source_domain=self.robot_domain, source_problem=self.robot_problem)
        assert problem is not None
        return domain, problem

    def task(self, subset: Iterable[int]) -> Task:
        """The grounded task of ``H + S``."""
        key = tuple(sorted(set(subset)))
        task = self._task_cache.get(key)
        if task is None:
            task = self._build(key) if self.compiled else self._ground(key)
            if len(self._task_cache) > 50_000:
                self._task_cache.clear()
            self._task_cache[key] = task
        return task

    def plan_task(self, subset: Iterable[int], plan: Sequence[str]) -> Task:
        """``H + S`` restricted to the plan's own actions: enough to simulate the plan.

        Most model-space nodes fail on validity alone, so checking it on this small task
        first saves grounding every action of every node.
        """
        if not self.compiled:
            return self.task(subset)
        names = frozenset(plan)
        scope = self._plan_scopes.get(names)
        if scope is None:
            if self._numbers_by_name is None:
                self._numbers_by_name = {}
                for number, instance in enumerate(self.instances):
                    self._numbers_by_name.setdefault(instance.name, []).append(number)
            only = frozenset(n for name in names for n in self._numbers_by_name.get(name, ()))
            scope = self._plan_scopes[names] = (
                only, frozenset(self.instances[n].schema for n in only))
        only, schemas = scope
        # Only edits about the plan's actions or the problem can change this task (edits
        # apply action by action), so nodes that differ elsewhere share it.
        relevant = []
        for i in sorted(set(subset)):
            candidate = self.candidates[i]
            if candidate.instance is None:
                group = _group_of(candidate.lifted.feature)
                if not group or group in schemas:
                    relevant.append(i)
            elif candidate.instance in only:
                relevant.append(i)
        key = tuple(relevant)
        cache_key = (key, names)
        task = self._plan_task_cache.get(cache_key)
        if task is None:
            task = self._build(key, only, schemas)
            if len(self._plan_task_cache) > 50_000:
                self._plan_task_cache.clear()
            self._plan_task_cache[cache_key] = task
        return task

    def _ground(self, subset: tuple[int, ...]) -> Task:
        domain, problem = self.model(subset)
        return ground(domain, problem)

    # ------------------------------------------------------------------ compiled models

    def _static_init(self, features: Iterable[Feature]) -> frozenset[Atom]:
        return frozenset(
            f.atom for f in features
            if f.kind is _K.INIT and f.atom is not None
            and f.atom.predicate in self.static_predicates)

    def _slot(self, feature: Feature, number: int) -> tuple[str, int | Atom | None]:
        """Where a lifted feature lands in one ground action: ``("bit", i)``,
        ``("static", atom)``, ``("equal", None)``/``("unequal", None)`` for ``=``, or
        ``("never", None)`` for a fluent fact that no model can make true."""
        key = (feature, number)
        found = self._slot_cache.get(key)
        if found is not None:
            return found
        instance = self.instances[number]
        assert feature.atom is not None
        mapping = dict(zip(feature.parameters, instance.args, strict=True))
        atom = Atom(feature.atom.predicate, tuple(mapping.get(a, a) for a in feature.atom.args))
        result: tuple[str, int | Atom | None]
        if atom.predicate == "=":
            result = ("equal" if atom.args[0] == atom.args[1] else "unequal", None)
        elif atom in self.fact_index:
            result = ("bit", self.fact_index[atom])
        elif atom.predicate in self.static_predicates:
            result = ("static", atom)
        else:
            result = ("never", None)
        self._slot_cache[key] = result
        return result

    def _build(self, subset: tuple[int, ...], only: frozenset[int] | None = None,
               schemas: frozenset[str] | None = None) -> Task:
        """The task of ``H + subset``; with ``only``, restricted to those instances (whose
        ``schemas`` the caller knows)."""
        keys = self._group_keys(subset, schemas)
        problem_key = keys.get("", ())
        init, goal, goal_neg, static_true, numeric = self._problem_part(problem_key)
        overrides: dict[int, list[Edit]] = {}
        for i in subset:
            candidate = self.candidates[i]
            if candidate.instance is not None:
                overrides.setdefault(candidate.instance, []).append(candidate.lifted)
        actions: list[GroundAction] = []
        names: list[str] = []
        numbers = self.by_schema if only is None else self._numbers_of(only)
        for schema in sorted(keys):
            schema_features = self._group_features(schema, keys[schema]) if schema else None
            if not schema_features:
                continue
            for number in numbers.get(schema, ()):
                if number in overrides:
                    own = list(update_features(schema_features, overrides[number],
                                               self.default_cost))
                    action = self._ground_action(number, own, static_true, numeric)
                else:
                    # the same action's features and the same problem features ground
                    # to the same action: remember it across nodes
                    ground_key = (number, keys[schema], problem_key)
                    if ground_key in self._ground_cache:
                        action = self._ground_cache[ground_key]
                    else:
                        action = self._ground_action(number, schema_features, static_true,
                                                     numeric)
                        if len(self._ground_cache) > 500_000:
                            self._ground_cache.clear()
                        self._ground_cache[ground_key] = action
                if action is not None:
                    actions.append(action)
                    names.append(self.instance_names[number])
        # the space's fact index and instance names: no index is rebuilt per node
        return Task.sharing_index(self.fact_index, names, name=self.human_problem.name,
                                  facts=self.facts, actions=tuple(actions), init=init,
                                  goal=goal, goal_neg=goal_neg, has_costs=self.uses_costs)

    def _numbers_of(self, only: frozenset[int]) -> dict[str, list[int]]:
        """``by_schema`` restricted to the instances ``only`` (same order), cached: a plan
        task visits its plan's few instances, not every instance of their schemas."""
        found = self._only_cache.get(only)
        if found is None:
            found = {}
            for number in sorted(only):
                found.setdefault(self.instances[number].schema, []).append(number)
            if len(self._only_cache) > 10_000:
                self._only_cache.clear()
            self._only_cache[only] = found
        return found

    def _problem_part(self, key: tuple[int, ...]) -> tuple[
            int, int, int, frozenset[Atom], dict[FunctionTerm, Fraction]]:
        """Initial state, goal, negative goal, true static facts and numbers of the
        problem updated by the problem edits ``key`` (cached: few nodes differ here)."""
        found = self._problem_cache.get(key)
        if found is not None:
            return found
        features = self._group_features("", key)
        static_true = self._static_init(features)
        init = goal = goal_neg = 0
        numeric: dict[FunctionTerm, Fraction] = {}
        for feature in features:
            kind = feature.kind
            if kind is _K.INIT_VALUE:
                assert feature.fluent is not None and isinstance(feature.value, Fraction)
                numeric[feature.fluent] = feature.value
                continue
            assert feature.atom is not None
            index = self.fact_index.get(feature.atom)
            static = feature.atom.predicate in self.static_predicates
            if kind is _K.INIT:
                if index is not None:
                    init |= 1 << index
            elif kind is _K.GOAL:
                if index is not None:
                    goal |= 1 << index
                elif not (static and feature.atom in static_true):
                    goal |= self.impossible_bit
            elif kind is _K.NEGATIVE_GOAL:
                if index is not None:
                    goal_neg |= 1 << index
                elif static and feature.atom in static_true:
                    goal |= self.impossible_bit
        found = (init, goal, goal_neg, static_true, numeric)
        if len(self._problem_cache) > 10_000:
            self._problem_cache.clear()
        self._problem_cache[key] = found
        return found

    def _ground_action(
        self,
        number: int,
        features: Iterable[Feature],
        static_true: frozenset[Atom],
        numeric: dict[FunctionTerm, Fraction],
    ) -> GroundAction | None:
        pre = neg = add = delete = 0
        cost: Fraction | None = None
        instance = self.instances[number]
        for feature in features:
            kind = feature.kind
            if kind is _K.COST:
                cost = self._cost(feature, instance, numeric)
                continue
            code, payload = self._slot(feature, number)
            if kind is _K.PRECONDITION:
                if code == "bit":
                    assert isinstance(payload, int)
                    pre |= 1 << payload
                elif code == "never" or code == "unequal" or (
                        code == "static" and payload not in static_true):
                    return None
            elif kind is _K.NEGATIVE_PRECONDITION:
                if code == "bit":
                    assert isinstance(payload, int)
                    neg |= 1 << payload
                elif code == "equal" or (code == "static" and payload in static_true):
                    return None
            elif code == "bit":
                assert isinstance(payload, int)
                if kind is _K.ADD_EFFECT:
                    add |= 1 << payload
                else:
                    delete |= 1 << payload
        if cost is None:
            return None  # the action does not exist in this model
        if cost.denominator != 1 or cost < 0:
            raise SemanticError(f"action {instance.name} has cost {cost}; explanations need "
                                "non-negative integer costs")
        return GroundAction(instance.schema, instance.args, pre, add, delete & ~add, int(cost),
                            neg)

    def _cost(self, feature: Feature, instance: Instance,
              numeric: dict[FunctionTerm, Fraction]) -> Fraction:
        value = feature.value
        if isinstance(value, Fraction):
            return value
        assert isinstance(value, FunctionTerm)
        mapping = dict(zip(feature.parameters, instance.args, strict=True))
        term = FunctionTerm(value.name, tuple(mapping.get(a, a) for a in value.args))
        if term not in numeric:
            raise SemanticError(f"the cost {term} of {instance.name} is not set in the "
                                "initial state")
        return numeric[term]


def _group_of(feature: Feature) -> str:
    """The action a feature is about ("" for the problem's features): the unit in which
    edits apply independently (see :meth:`ModelSpace._grouped_features`)."""
    return feature.action or ""

