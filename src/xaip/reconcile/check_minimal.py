"""The checker's proof that no cheaper edit set explains the plan (MCE, contrastive).

Why a proof of its own: an MCE claims *minimality* (no edit set of lower edit cost, or of
equal cost and fewer edits, explains the plan), and a checker must check every claim.
Enumerating every smaller subset of the model difference is hopeless beyond a dozen
differences, so the checker runs a branch-and-bound over edit sets below the answer's
cost, and prunes only with facts that follow from the definitions of plan validity and
optimality on feature sets (book Def. 21, Prop. 4), interpreted here directly:

* **Validity.** Execute the plan's effects step after step from the initial state of
  ``H + S`` (ignoring whether preconditions hold). Whether a fact ``f`` holds before step
  ``i`` depends only on the initial value of ``f`` and the effects on ``f`` of steps
  ``0..i-1``. So if step ``i`` needs ``f`` and it does not hold, every valid ``H + S'``
  with ``S' ⊇ S`` adds an edit of the initial value of ``f``, of an effect on ``f`` of an
  earlier step, or of that precondition of step ``i`` (likewise for negative
  preconditions and the goal). Each unmet condition gives such a *conflict*.
* **Optimality.** If the plan is valid but a cheaper plan ``π'`` exists in ``H + S``,
  ``π'`` stays valid and as cheap, and the plan as costly, in ``H + S'`` unless ``S'``
  adds an edit of an action ``π'`` uses, a cost of an action the plan uses, or the
  problem (book Prop. 4). Without negative preconditions or goals, an edit of an action of
  ``π'`` that only makes states larger or preconditions weaker, adds a precondition that
  holds where ``π'`` runs that action, or takes away a fact no later step needs cannot
  break ``π'`` either (states of ``π'`` then only lose facts nobody needs), so it is left
  out of the conflict.

Every explanation extending ``S`` hits every conflict; pairwise disjoint conflicts give a
lower bound on what it must still cost. The search branches on the smallest conflict,
and the ``i``-th branch excludes the conflict's first ``i - 1`` edits, so no edit set is
visited twice. A node whose plan is valid is decided by the caller's ``explains`` (the
checker's own optimality test: A* + certified LM-cut on the updated task of
:mod:`.check_tasks` or a fresh grounding), never by the model-space search.

Shares with the explainers: the feature semantics (``update_features``) and the direct
interpretation of feature sets of :mod:`.brute_force`. Not shared: the compiled model
space, its conflicts module, the goal tests, the model-space search and LM-cut's values
(the checker's A* is the engines' own, ordered and pruned by the certified LM-cut: LM-cut's
cuts count only once the core's certificate checker has verified them, see
:mod:`.checks`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from xaip.errors import BudgetExhausted
from xaip.planning.features import Edit, Feature, FeatureKind, model_features, update_features
from xaip.planning.pddl.model import Atom
from xaip.planning.semantics import counts_action_costs
from xaip.reconcile.brute_force import _instantiate, _make_op, _Op
from xaip.reconcile.check_tasks import SplitFeatures
from xaip.reconcile.problem import MRP
from xaip.runtime import BudgetClock

_K = FeatureKind

#: ``explains(edits, fast)``: ``(True, None)`` when the plan is explained in ``H + edits``
#: (it is valid there), ``(False, plan)`` with a cheaper plan's step names, ``(None, None)``
#: when the caller's own budget ran out. With ``fast``, the caller may first look for any
#: cheaper plan with a quick search; such a plan is confirmed here by direct simulation
#: before it is trusted (else the call is repeated without ``fast``).
Explains = Callable[[list[Edit], bool], tuple[bool | None, tuple[str, ...] | None]]


@dataclass(frozen=True)
class MinimalityReport:
    """``minimal`` is ``True`` when no cheaper edit set explains the plan, ``False`` with a
    ``counterexample``, ``None`` when the proof ran out of budget."""

    minimal: bool | None
    nodes: int
    counterexample: tuple[Edit, ...] = ()


class _Proof:
    def __init__(self, mrp: MRP, candidates: Sequence[Edit], costs: Sequence[int],
                 explains: Explains, clock: BudgetClock,
                 human: frozenset[Feature] | None = None) -> None:
        self.mrp = mrp
        self.candidates = tuple(candidates)
        self.costs = tuple(costs)
        self.explains = explains
        self.clock = clock
        self.human = human if human is not None else model_features(mrp.human_domain,
                                                                     mrp.human_problem)
        self.default = Fraction(0) if counts_action_costs(mrp.human_domain,
                                                          mrp.human_problem) else Fraction(1)
        self.steps = [(s.name, tuple(s.args)) for s in mrp.plan]
        self.plan_schemas = {name for name, _ in self.steps}
        self.nodes = 0
        self.found: tuple[Edit, ...] | None = None
        # memos: a node differs from its parent by one edit, so most ground actions of the
        # plan are the same as before (the interpretation itself is unchanged)
        self._ground: dict[tuple[Feature, tuple[str, ...]], Feature] = {}
        self.split = SplitFeatures(self.human, self.default)
        self._made: dict[tuple[object, ...], _Op | None] = {}
        negatives = (_K.NEGATIVE_PRECONDITION, _K.NEGATIVE_GOAL)
        self.negative = any(f.kind in negatives for f in self.human) or any(
            e.feature.kind in negatives for e in self.candidates)
        # where each candidate lands in the plan: (step, kind, atom) per step it is about
        self.landing: list[list[tuple[int, FeatureKind, Atom | None]]] = []
        for edit in self.candidates:
            feature = edit.feature
            marks: list[tuple[int, FeatureKind, Atom | None]] = []
            if feature.action:
                ground = _is_ground(edit)
                for number, (name, args) in enumerate(self.steps):
                    if name == feature.action and len(args) == len(feature.parameters) \
                            and (not ground or args == feature.parameters):
                        marks.append((number, feature.kind,
                                      _instantiate(feature, args).atom))
            self.landing.append(marks)

    # ------------------------------------------------------------------ one node

    def _ops(self, subset: Sequence[int], steps: Sequence[tuple[str, tuple[str, ...]]] | None
             = None) -> tuple[list[_Op | None], frozenset[Atom], list[Atom], list[Atom]]:
        """The ground actions of ``steps`` (default: the plan's) in ``H + subset``, and its
        initial state, goal and negative goal."""
        chosen = [self.candidates[i] for i in subset]
        split = self.split.split([e for e in chosen if not _is_ground(e)])
        overrides: dict[tuple[str, tuple[str, ...]], list[Edit]] = {}
        for edit in chosen:
            if _is_ground(edit):
                key = (edit.feature.action, edit.feature.parameters)
                overrides.setdefault(key, []).append(edit)
        problem = self.split.features("", split.get("", frozenset()))
        values = {f.fluent: f.value for f in problem if f.kind is _K.INIT_VALUE}
        ops = []
        value_key = tuple(sorted(values.items(), key=repr))
        for name, args in self.steps if steps is None else steps:
            mine = overrides.get((name, args))
            edits = split.get(name, frozenset())
            made_key = (name, args, edits, tuple(mine or ()), value_key)
            if made_key not in self._made:
                schema = self.split.features(name, edits)
                ground = {self._instance(f, args) for f in schema
                          if len(f.parameters) == len(args)}
                if mine:
                    ground = set(update_features(ground, mine, self.default))
                self._made[made_key] = _make_op(name, args, ground, values) if ground \
                    else None
            ops.append(self._made[made_key])
        init = frozenset(f.atom for f in problem if f.kind is _K.INIT and f.atom is not None)
        goal = [f.atom for f in problem if f.kind is _K.GOAL and f.atom is not None]
        negative = [f.atom for f in problem
                    if f.kind is _K.NEGATIVE_GOAL and f.atom is not None]
        return ops, init, goal, negative

    def _instance(self, feature: Feature, args: tuple[str, ...]) -> Feature:
        key = (feature, args)
        found = self._ground.get(key)
        if found is None:
            found = self._ground[key] = _instantiate(feature, args)
        return found

    def _conflicts(self, subset: Sequence[int]) -> list[set[int]]:
        """One conflict per unmet condition of the plan in ``H + subset`` (none: valid)."""
        ops, state, goal, negative = self._ops(subset)
        out: list[set[int]] = []
        for number, op in enumerate(ops):
            if op is None:  # the action does not exist: only edits of it can create it
                name = self.steps[number][0]
                out.append({i for i, e in enumerate(self.candidates)
                            if (e.feature.action == name and e.op == "add")
                            or e.feature.kind is _K.INIT_VALUE})
                continue
            for atom in op.pre:
                if not _holds(atom, state):
                    out.append(self._fixes(atom, number, _K.PRECONDITION))
            for atom in op.neg:
                if _holds(atom, state):
                    out.append(self._fixes(atom, number, _K.NEGATIVE_PRECONDITION))
            state = (state - op.delete) | op.add
        end = len(self.steps)
        for atom in goal:
            if not _holds(atom, state):
                out.append(self._fixes(atom, end, _K.GOAL))
        for atom in negative:
            if _holds(atom, state):
                out.append(self._fixes(atom, end, _K.NEGATIVE_GOAL))
        return out

    def _fixes(self, atom: Atom, step: int, kind: FeatureKind) -> set[int]:
        """Edits that can change whether ``atom`` holds before ``step``, or the condition
        on it there (see the module docstring)."""
        out = set()
        for index, edit in enumerate(self.candidates):
            feature = edit.feature
            if not feature.action:
                if feature.atom == atom and feature.kind in (_K.INIT, kind):
                    out.add(index)
                continue
            for at, what, landed in self.landing[index]:
                if landed != atom:
                    continue
                if (at < step and what in (_K.ADD_EFFECT, _K.DELETE_EFFECT)) or (
                        at == step and what is kind):
                    out.add(index)
                    break
        return out

    def _cheaper_here(self, subset: Sequence[int], other: tuple[str, ...]) -> bool:
        """Is ``other`` a valid plan of ``H + subset`` cheaper than the plan (by direct
        simulation of the feature sets)?"""
        mine = self._ops(subset)[0]
        if any(op is None for op in mine):
            return False
        steps = [(n.split(" ")[0], tuple(n.split(" ")[1:])) for n in other]
        ops, state, goal, negative = self._ops(subset, steps)
        cost = 0
        for op in ops:
            if op is None or not all(_holds(a, state) for a in op.pre) or any(
                    _holds(a, state) for a in op.neg):
                return False
            state = (state - op.delete) | op.add
            cost += op.cost
        reached = all(_holds(a, state) for a in goal) and not any(
            _holds(a, state) for a in negative)
        return reached and cost < sum(op.cost for op in mine if op is not None)

    def _beaten(self, subset: Sequence[int], other: tuple[str, ...]) -> set[int]:
        """Edits that can break the cheaper plan ``other`` (valid in ``H + subset``), raise
        its cost, or lower the plan's (see :meth:`_harmless` for what cannot)."""
        steps = [(n.split(" ")[0], tuple(n.split(" ")[1:])) for n in other]
        schemas = {name for name, _ in steps}
        harmless = self._harmless(subset, steps) if not self.negative else set()
        out = set()
        for index, edit in enumerate(self.candidates):
            action = edit.feature.action
            problem = not action
            cheaper_plan_cost = action in self.plan_schemas and edit.feature.kind is _K.COST
            breaks = action in schemas and index not in harmless
            if problem or cheaper_plan_cost or breaks:
                out.add(index)
        return out

    def _harmless(self, subset: Sequence[int], steps: list[tuple[str, tuple[str, ...]]]
                  ) -> set[int]:
        """Edits of ``steps``' actions that cannot break that plan in any ``H + S'`` with
        ``S' ⊇ subset`` whose other new edits are harmless too (without negative conditions):
        removing a precondition, adding an effect or removing a delete (states only grow),
        adding a precondition that holds wherever that action runs in the plan, and removing
        an add or adding a delete of a fact no later step (nor the goal) needs -- counting as
        needed every precondition any candidate could add there. Costs are never harmless."""
        ops, state, goal, _ = self._ops(subset, steps)
        states = [state]
        for op in ops:
            if op is None:
                return set()
            state = (state - op.delete) | op.add
            states.append(state)
        needs: list[set[Atom]] = [set(op.pre) for op in ops if op is not None] + [set(goal)]
        touching: dict[int, list[tuple[int, FeatureKind, Atom | None]]] = {}
        for index, edit in enumerate(self.candidates):
            feature = edit.feature
            if not feature.action:
                if feature.kind is _K.GOAL and feature.atom is not None:
                    needs[-1].add(feature.atom)
                continue
            ground = _is_ground(edit)
            for at, (name, args) in enumerate(steps):
                if name == feature.action and len(args) == len(feature.parameters) and (
                        not ground or args == feature.parameters):
                    atom = self._instance(feature, args).atom
                    touching.setdefault(index, []).append((at, feature.kind, atom))
                    if feature.kind is _K.PRECONDITION and edit.op == "add" and atom:
                        needs[at].add(atom)
        later: list[set[Atom]] = [set() for _ in needs]
        for at in range(len(steps) - 1, -1, -1):
            later[at] = later[at + 1] | needs[at + 1]
        out = set()
        for index, marks in touching.items():
            change = self.candidates[index].op
            safe = True
            for at, kind, atom in marks:
                if kind is _K.COST or atom is None:
                    safe = False
                elif kind is _K.PRECONDITION and change == "add":
                    safe = _holds(atom, states[at])
                elif (kind, change) in ((_K.ADD_EFFECT, "remove"),
                                        (_K.DELETE_EFFECT, "add")):
                    safe = atom not in later[at]
                if not safe:
                    break
            if safe:
                out.add(index)
        return out

    # ------------------------------------------------------------------ the search

    def run(self, bound: tuple[int, int]) -> None:
        if bound > (0, 0):  # an empty answer is minimal by definition
            self._search([], set(), bound)

    def _search(self, subset: list[int], excluded: set[int], bound: tuple[int, int]) -> bool:
        """True when a cheaper explanation was found (in :attr:`found`)."""
        if not self.clock.charge():
            raise BudgetExhausted("the minimality proof ran out of budget")
        self.nodes += 1
        conflicts = self._conflicts(subset)
        if not conflicts:
            # (cheaper plans found at other nodes are not retried here: the optimal one
            # uses few actions, so its conflict is small; a retried one often is not)
            edits = [self.candidates[i] for i in subset]
            verdict, cheaper = self.explains(edits, True)
            if verdict is False and cheaper and not self._cheaper_here(subset, cheaper):
                verdict, cheaper = self.explains(edits, False)
                if cheaper and not self._cheaper_here(subset, cheaper):
                    cheaper = None  # unconfirmed: prune with nothing it says
            if verdict is None:
                raise BudgetExhausted("the minimality proof ran out of budget")
            if verdict:
                self.found = tuple(self.candidates[i] for i in sorted(subset))
                return True
            # without a cheaper plan to point at, any edit may be what is missing
            conflicts = [self._beaten(subset, cheaper) if cheaper is not None
                         else set(range(len(self.candidates)))]
        chosen = set(subset)
        open_ = [c - chosen - excluded for c in conflicts]
        if any(not c for c in open_):
            return False  # some condition can no longer be met
        cost = sum(self.costs[i] for i in subset)
        if not self._may_beat(cost, len(subset), open_, bound):
            return False
        smallest = min(open_, key=lambda conflict: len(conflict))
        branch = sorted(smallest, key=lambda i: (self.costs[i], i))
        skipped: set[int] = set()
        for index in branch:
            child_cost = cost + self.costs[index]
            if (child_cost, len(subset) + 1) < bound and self._search(
                    [*subset, index], excluded | skipped, bound):
                return True
            skipped.add(index)
        return False

    def _may_beat(self, cost: int, size: int, conflicts: list[set[int]],
                  bound: tuple[int, int]) -> bool:
        """Can an extension beat ``bound``? Pairwise disjoint conflicts each need one more
        edit, at least as costly as their cheapest."""
        extra_cost = extra = 0
        used: set[int] = set()
        for conflict in sorted(conflicts, key=len):
            if conflict & used:
                continue
            used |= conflict
            extra += 1
            extra_cost += min(self.costs[i] for i in conflict)
        return (cost + extra_cost, size + extra) < bound


def _is_ground(edit: Edit) -> bool:
    """An edit of one ground action (its parameters are objects), not of a schema."""
    feature = edit.feature
    return feature.is_action_feature and bool(feature.parameters) and not feature.is_lifted


def _holds(atom: Atom, state: frozenset[Atom]) -> bool:
    if atom.predicate == "=":
        return atom.args[0] == atom.args[1]
    return atom in state


def prove_minimal(mrp: MRP, answer: Sequence[Edit], candidates: Sequence[Edit],
                  explains: Explains, clock: BudgetClock,
                  costs: Sequence[int] | None = None,
                  human: frozenset[Feature] | None = None) -> MinimalityReport:
    """Is there an edit set of ``candidates`` cheaper than ``answer`` (edit cost, then
    size; ``costs`` per candidate, default 1) after which ``explains`` accepts the plan?
    ``human``: the human model's features, when the caller has read them already.

    Raises :class:`~xaip.errors.BudgetExhausted` when ``clock`` runs out (the caller turns
    that into "unverified: checker budget").
    """
    weights = list(costs) if costs is not None else [1] * len(candidates)
    index = {edit: i for i, edit in enumerate(candidates)}
    answer_cost = sum(weights[index[e]] if e in index else 1 for e in answer)
    proof = _Proof(mrp, candidates, weights, explains, clock, human)
    proof.run((answer_cost, len(answer)))
    if proof.found is not None:
        return MinimalityReport(False, proof.nodes, proof.found)
    return MinimalityReport(True, proof.nodes)
