"""Lies through model reconciliation (book §9.3): explanations that may say false things.

**Off by default.** :func:`lie` refuses to run without ``allow_untruthful=True``, and every
result carries ``untruthful``, a per-edit ``true`` flag and a warning sentence, so nothing
downstream can mistake it for an explanation.

How: the same model-space search as the minimally complete explanation (MCE,
:func:`xaip.reconcile.search.mce_search` with the optimality goal test of
:mod:`xaip.reconcile.goals`), over a larger space of edits. An MCE may only move the human's
model towards the robot's (the features of ``Γ(M^R) Δ Γ(M^R_h)``); a lie may also

* remove any feature of the human's model (a precondition, an effect, an initial or goal
  fact) — with ``omission_only=True`` these removals are the *only* edits allowed (lies by
  omission, book §9.3.2), truthful removals included;
* add a precondition, add effect or delete effect to any action, over the action's own
  parameters with compatible types (no new fluents, actions or objects, so the space is
  finite, as the book notes).

Why reuse :class:`~xaip.reconcile.space.ModelSpace`: it compiles every model between two
models for fast goal tests. We hand it a *target* model built so that its difference from
the human's model is exactly the allowed edits (the truthful edits plus every toggle above),
so the MCE machinery searches the lie space unchanged. Because the truthful edits are part
of the space (outside omission-only mode) and the search is uniform-cost by edit count, a
lie is never larger than the MCE.
"""

from __future__ import annotations

import dataclasses
import itertools
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from xaip.contract import CheckReport, with_check
from xaip.errors import InputError
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.features import Edit, Feature, FeatureKind, model_diff, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.pddl.model import Atom, Domain
from xaip.reconcile.problem import MRP
from xaip.runtime import Budget, Status

_K = FeatureKind
WARNING = ("UNTRUTHFUL: this 'explanation' may state things the agent knows to be false "
           "(generated only because untruthful answers were explicitly allowed).")
_OMITTABLE = (_K.PRECONDITION, _K.NEGATIVE_PRECONDITION, _K.ADD_EFFECT, _K.DELETE_EFFECT,
              _K.INIT, _K.GOAL, _K.NEGATIVE_GOAL)


@dataclass(frozen=True)
class Lie:
    """A (possibly) untruthful explanation: edits, which of them are true, and the MCE's
    size for comparison (``None`` when not computed)."""

    edits: tuple[Edit, ...]
    true: tuple[bool, ...]
    omission_only: bool
    plan: tuple[str, ...]
    mce_size: int | None
    space_size: int
    status: Status
    seconds: float
    stats: Mapping[str, int | float]
    verified: bool = False
    check: CheckReport | None = None

    @property
    def untruthful(self) -> bool:
        """True when at least one edit is false about the robot's model."""
        return not all(self.true)

    @property
    def false_statements(self) -> int:
        return sum(1 for t in self.true if not t)

    def to_dict(self) -> dict[str, Any]:
        # ``label`` is "untruthful" for every output of the lie search, even when this
        # answer happens to need no false edit: what may be said is what is labelled.
        return {
            "mode": "lie", "label": "untruthful", "warning": WARNING, "untruthful": self.untruthful,
            "false_statements": self.false_statements,
            "omission_only": self.omission_only,
            "edits": [{**e.to_dict(), "true": t} for e, t in
                      zip(self.edits, self.true, strict=True)],
            "size": len(self.edits), "mce_size": self.mce_size,
            "space_size": self.space_size, "plan": [f"({p})" for p in self.plan],
            "status": str(self.status), "verified": self.verified,
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "check": None if self.check is None else self.check.to_dict(),
        }


def _ancestors(domain: Domain) -> dict[str, set[str]]:
    parents = dict(domain.types)
    out: dict[str, set[str]] = {}
    for name in {*parents, *parents.values(), "object"}:
        seen, node = {name, "object"}, name
        while node in parents and parents[node] not in seen:
            node = parents[node]
            seen.add(node)
        out[name] = seen
    return out


def invented_features(domain: Domain, limit: int) -> list[Feature]:
    """Every precondition, add and delete effect an action could have over its own
    parameters (type-compatible); InputError beyond ``limit`` (the space would explode)."""
    ancestors = _ancestors(domain)
    out = []
    for action in domain.actions:
        names = tuple(p.name for p in action.parameters)
        for predicate in domain.predicates:
            choices = []
            for slot in predicate.parameters:
                fits = [p.name for p in action.parameters
                        if slot.type in ancestors.get(p.type, {p.type, "object"})]
                choices.append(fits)
            for args in itertools.product(*choices):
                atom = Atom(predicate.name, tuple(args))
                out += [Feature.precondition(action.name, names, atom),
                        Feature.add_effect(action.name, names, atom),
                        Feature.delete_effect(action.name, names, atom)]
                if len(out) > limit:
                    raise InputError(f"more than {limit} possible lies about the actions; "
                                     "use omission_only=True or raise max_candidates")
    return out


def lie_edits(mrp: MRP, omission_only: bool, limit: int = 5_000) -> list[Edit]:
    """The edits a lie may use (see the module docstring)."""
    human = model_features(mrp.human_domain, mrp.human_problem)
    truthful = list(model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                               mrp.robot_problem).edits())
    removals = [Edit(f, "remove") for f in sorted(human) if f.kind in _OMITTABLE]
    if omission_only:
        return removals
    additions = [Edit(f, "add") for f in invented_features(mrp.human_domain, limit)
                 if f not in human]
    by_feature: dict[Feature, Edit] = {}
    for edit in (*truthful, *removals, *additions):
        by_feature.setdefault(edit.feature, edit)
    return sorted(by_feature.values())


def _is_true(edit: Edit, robot: frozenset[Feature]) -> bool:
    return (edit.feature in robot) == (edit.op == "add")


def lie(mrp: MRP, *, allow_untruthful: bool = False, omission_only: bool = False,
        compare_mce: bool = True, budget: Budget | None = None,
        engine: str = DEFAULT_ENGINE, max_candidates: int = 5_000) -> Lie:
    """The smallest set of edits — true or false — after which ``mrp.plan`` is optimal in
    the human's model. Refuses without ``allow_untruthful=True``; checked by
    :func:`check_lie` (the reconciliation family's own optimality check). When no subset
    of the allowed edits works (often so with ``omission_only``) the status is
    ``no_explanation`` with no edits."""
    if not allow_untruthful:
        raise InputError("lies are disabled: pass allow_untruthful=True to allow explanations "
                         "that state false things (they are labelled untruthful)")
    from xaip.reconcile.explain import remaining
    from xaip.reconcile.goals import OptimalityTest, _Planner
    from xaip.reconcile.search import mce_search
    from xaip.reconcile.space import ModelSpace

    started = time.perf_counter()
    budget = budget or Budget(max_seconds=300)
    clock = budget.start()
    allowed = lie_edits(mrp, omission_only, max_candidates)
    target_domain, target_problem = apply_edits(
        mrp.human_domain, mrp.human_problem, allowed,
        source_domain=mrp.robot_domain, source_problem=mrp.robot_problem)
    assert target_problem is not None
    space = ModelSpace(target_domain, target_problem, mrp.human_domain, mrp.human_problem)
    planner = _Planner(budget, engine, clock)
    test = OptimalityTest(space, mrp.plan_names, planner)
    outcome = mce_search(space, test, mrp.plan_names, remaining(budget, clock))
    status = Status(outcome.status)
    edits = space.edits(outcome.subset) if status == Status.FOUND else ()
    robot = model_features(mrp.robot_domain, mrp.robot_problem)
    mce_size = None
    stats: dict[str, int | float] = {"nodes": outcome.nodes, "goal_tests": outcome.goal_tests,
                                     "planner_calls": planner.calls}
    if compare_mce and status == Status.FOUND:
        from xaip.reconcile.explain import explain

        mce = explain(mrp, "mce", budget=remaining(budget, clock), engine=engine)
        mce_size = len(mce.edits) if mce.status.finished else None
        stats["mce_nodes"] = mce.stats.get("nodes", 0)
    result = Lie(tuple(edits), tuple(_is_true(e, robot) for e in edits), omission_only,
                 mrp.plan_names, mce_size, len(space.candidates), status,
                 time.perf_counter() - started, stats)
    report = check_lie(mrp, result)
    return with_check(dataclasses.replace(result, check=report), report)


def check_lie(mrp: MRP, result: Lie, budget: Budget | None = None) -> CheckReport:
    """Rebuild the lied-to model as PDDL and prove the plan valid and optimal in it with
    :func:`xaip.reconcile.checks.is_complete` (uniform-cost search on a fresh grounding;
    shares the PDDL model classes, ``apply_edits``, the grounder and validator, not the
    compiled model space or the search); in omission-only mode, also that every edit is a
    removal of a feature the human's model has."""
    from xaip.reconcile.checks import is_complete

    if not result.status.finished:
        return CheckReport(None, "the search did not finish")
    if result.status == Status.NO_EXPLANATION:
        return CheckReport(None, "that no lie exists is not re-checked (the search "
                                 "enumerated every subset of the allowed edits)")
    if result.omission_only:
        human = model_features(mrp.human_domain, mrp.human_problem)
        bad = [e for e in result.edits if e.op != "remove" or e.feature not in human]
        if bad:
            return CheckReport(False, f"omission-only lie adds or invents: {bad[0].feature}")
    outcome = is_complete(mrp, result.edits, budget or Budget(max_seconds=60))
    if outcome.complete is not True:
        return CheckReport(outcome.complete, f"plan not optimal after the lie: "
                                             f"{outcome.reason}")
    return CheckReport(True, f"plan valid and optimal in the lied-to model "
                             f"({len(result.edits)} edits)")
