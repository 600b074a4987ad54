"""The multi-user family's checker: every claim of a :class:`MultiUserResult` re-derived.

Why independent: the searches order edit sets cleverly, reuse witness plans between users
and test conformance by Prop. 7; a bug in any of that must not confirm its own answer.

What the checker **shares** with the search, exactly: the PDDL model classes,
``model_features`` and :func:`~xaip.planning.features.apply.apply_edits` (the definition of
a model's features and of "a model updated by edits"), the lifted plan validator, the
grounder and the planning core's uniform-cost search (h^max only prunes), and the privacy
map's parsed rules (:meth:`Rule.matches`: what a rule names).

What it does **not** share: the users' differences (it derives them from the two feature
sets), the privacy decision (its own reading of the three conditions), the merge (it
recomputes who holds what), the labels of the shared edits, the search order, the
search's witness plans and its A* + LM-cut goal test. Conformance (book Def. 30) is decided
by the checker's own two representative completions when every precondition is positive
(the book's Prop. 7 read both ways: those two are completions, and they decide all others),
else by enumerating every completion.

Claims checked: each user's explanation uses only real differences toward the robot's model
that the map lets that user hear, makes the plan valid and optimal in the user's updated
model, and no allowed smaller set does; "no explanation" means no allowed set (of any size)
explains, the reported set with the needed features does, and no set with fewer withheld
edits does. The shared explanation's edits are allowed for every user and conformant, no
smaller such set is, the merged model's holders are right and each user's view lists
exactly the edits that are news to them.

Budget: the user's budget afresh (seconds for the whole check, the node limit for each
uniform-cost search and for the edit sets examined per user and for the group, as the
searches count them); running out is "unverified: checker
budget" (:func:`xaip.contract.run_checker`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from xaip.contract import CheckReport, run_checker
from xaip.errors import BudgetExhausted
from xaip.multiuser.models import User
from xaip.multiuser.privacy import PrivacyMap
from xaip.multiuser.results import UNAVAILABLE, MultiUserResult, SharedExplanation
from xaip.planning.engines import DEFAULT_ENGINE, get_engine
from xaip.planning.features import Edit, Feature, FeatureKind, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.features.feature import FUNCTIONAL_KINDS
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, format_plan, parse_plan, validate
from xaip.runtime import Budget, BudgetClock, Status

Model = tuple[Domain, Problem]
#: Conditions that, realised, can only make a plan fail (never make another plan possible).
_BREAKING = frozenset({FeatureKind.PRECONDITION, FeatureKind.DELETE_EFFECT, FeatureKind.GOAL,
                       FeatureKind.NEGATIVE_GOAL})


class _Failed(Exception):
    """A claim that does not hold (the message says which)."""


class _Prover:
    """The checker's own "valid and optimal?": lifted validation, then uniform-cost search
    on a fresh grounding bounded by the plan's cost; cheaper plans it finds are kept and
    replayed on later models."""

    def __init__(self, plan: Sequence[PlanStep], budget: Budget) -> None:
        self.plan = tuple(plan)
        self.budget = budget
        self.clock: BudgetClock = budget.start()
        self.engine = get_engine(DEFAULT_ENGINE, search="ucs", heuristic="hmax")
        self.found: list[tuple[PlanStep, ...]] = []
        self.examined = 0

    def tick(self) -> None:
        self.examined += 1
        if self.budget.max_nodes is not None and self.examined > self.budget.max_nodes:
            raise BudgetExhausted("edit sets examined", phase="check")
        if self.clock.out_of_time():
            raise BudgetExhausted("time", phase="check")

    def _search_budget(self) -> Budget:
        if self.budget.max_seconds is None:
            return Budget(self.budget.max_nodes)
        left = self.budget.max_seconds - self.clock.elapsed()
        if left <= 0:
            raise BudgetExhausted("time", phase="check")
        return Budget(self.budget.max_nodes, left)

    def cost(self, model: Model) -> int | None:
        outcome = validate(model[0], model[1], self.plan)
        return int(outcome.cost) if outcome.valid and outcome.cost is not None else None

    def optimal(self, model: Model) -> bool:
        cost = self.cost(model)
        return cost is not None and self.none_cheaper(model, cost)

    def none_cheaper(self, model: Model, cost: int) -> bool:
        """No plan of ``model`` costs less than ``cost``."""
        for other in self.found:
            outcome = validate(model[0], model[1], other)
            if outcome.valid and outcome.cost is not None and outcome.cost < cost:
                return False
        task = ground(model[0], model[1], budget=self._search_budget())
        result = self.engine.solve(task, optimal=True, cost_bound=cost,
                                   budget=self._search_budget())
        if str(result.status) == "budget_exhausted":
            raise BudgetExhausted("uniform-cost search", phase="check")
        if str(result.status) == "solved":
            self.found.append(tuple(parse_plan(format_plan(result.plan))))
            return False
        return True


def _may_hear(privacy: PrivacyMap, user: str, feature: Feature) -> bool:
    """The map's three conditions, read afresh (see :mod:`xaip.multiuser.privacy`)."""
    for owner, rules in privacy.private.items():
        if owner != user and any(rule.matches(feature) for rule in rules):
            return False
    own = privacy.users.get(user)
    if own is None:
        return True
    if any(rule.matches(feature) for rule in own.deny):
        return False
    return own.allow is None or any(rule.matches(feature) for rule in own.allow)


def _toward(held: frozenset[Feature], robot: frozenset[Feature]) -> list[Edit]:
    """Every edit that moves a feature set toward the robot's (a changed value is one add)."""
    slots = {f.slot for f in robot if f.kind in FUNCTIONAL_KINDS}
    out = [Edit(f, "add") for f in robot - held]
    out += [Edit(f, "remove") for f in held - robot
            if not (f.kind in FUNCTIONAL_KINDS and f.slot in slots)]
    return sorted(out)


def _subsets(items: Sequence[Any], below: int | None = None) -> Iterator[tuple[Any, ...]]:
    top = len(items) if below is None else min(len(items), below - 1)
    for size in range(top + 1):
        yield from itertools.combinations(items, size)


class _Checker:
    def __init__(self, robot: Model, users: Sequence[User], result: MultiUserResult,
                 privacy: PrivacyMap, budget: Budget) -> None:
        self.robot = robot
        self.users = tuple(users)
        self.result = result
        self.privacy = privacy
        self.robot_features = model_features(*robot)
        steps = [PlanStep(n.split()[0], tuple(n.split()[1:])) for n in result.plan]
        self.prover = _Prover(steps, budget)
        self.held = {u.name: model_features(u.domain, u.problem) for u in users}

    def updated(self, model: Model, edits: Iterable[Edit]) -> Model:
        domain, problem = apply_edits(model[0], model[1], list(edits),
                                      source_domain=self.robot[0],
                                      source_problem=self.robot[1])
        assert problem is not None
        return domain, problem

    # ------------------------------------------------------------------ users

    def user(self, user: User) -> str:
        self.prover.examined = 0  # the node limit counts each proof's edit sets afresh
        answer = self.result.user(user.name)
        model = (user.domain, user.problem)
        edits = _toward(self.held[user.name], self.robot_features)
        allowed = [e for e in edits if _may_hear(self.privacy, user.name, e.feature)]
        withheld = [e for e in edits if e not in allowed]
        if (answer.differences, answer.withheld) != (len(edits), len(withheld)):
            raise _Failed(f"{user.name}: {answer.differences} differences, {answer.withheld} "
                          f"withheld claimed; the checker counts {len(edits)}, "
                          f"{len(withheld)}")
        if answer.plan_cost_before != self.prover.cost(model):
            raise _Failed(f"{user.name}: wrong cost of the plan in their own model")

        def explains(subset: Iterable[Edit]) -> bool:
            self.prover.tick()
            return self.prover.optimal(self.updated(model, subset))

        if answer.status == Status.FOUND:
            unknown = [e for e in answer.edits if e not in edits]
            if unknown:
                raise _Failed(f"{user.name}: '{unknown[0].feature}' is not a difference "
                              "toward the robot's model")
            if any(e not in allowed for e in answer.edits):
                raise _Failed(f"{user.name}: the explanation tells a withheld feature")
            if not explains(answer.edits):
                raise _Failed(f"{user.name}: the plan is not valid and optimal after the "
                              "explanation")
            smaller = next((s for s in _subsets(allowed, len(answer.edits)) if explains(s)),
                           None)
            if smaller is not None:
                raise _Failed(f"{user.name}: a smaller allowed set explains "
                              f"({len(smaller)} edits)")
            return f"{user.name}: valid, optimal, minimal among {len(allowed)} allowed edits"
        # no explanation: nothing allowed explains; the set with the needed edits does
        full = answer.explanation_with_needed
        needed = [e for e in full if e in withheld]
        if not needed or [e for e, _ in answer.needed] != needed or \
                any(e not in edits for e in full):
            raise _Failed(f"{user.name}: the needed features are not withheld differences")
        if not explains(full):
            raise _Failed(f"{user.name}: telling the needed features would not explain it")
        for bad in range(len(needed)):
            for forced in itertools.combinations(withheld, bad):
                for part in _subsets(allowed):
                    if explains(part + forced):
                        raise _Failed(f"{user.name}: {bad} withheld edits suffice, not "
                                      f"{len(needed)}")
        return (f"{user.name}: no allowed set of {len(allowed)} edits explains; "
                f"{len(needed)} withheld needed")

    # ------------------------------------------------------------------ the group

    def group(self, shared: SharedExplanation) -> str:
        self.prover.examined = 0
        names = [u.name for u in self.users]
        held = self.held
        every = frozenset().union(*held.values(), self.robot_features)
        known = frozenset.intersection(*held.values())
        possible = frozenset().union(*held.values()) - known
        merged = self.result.merged
        if merged is not None:
            claimed = {m.feature: (m.holders, m.robot) for m in merged.features}
            truth = {f: (tuple(n for n in names if f in held[n]), f in self.robot_features)
                     for f in every if not (f in known and f in self.robot_features)}
            if claimed != truth:
                raise _Failed("the merged model's holders are wrong")
        clash = [f for f in possible if f.kind in FUNCTIONAL_KINDS]
        if shared.status == UNAVAILABLE:
            if not clash:
                raise _Failed("the merged model was said to be unavailable, but no user "
                               "disagrees on a value")
            return "shared: unavailable (users disagree on a value)"
        if clash:
            raise _Failed("users disagree on a value, yet a shared answer was given")
        first = self.users[0]
        base = self.updated((first.domain, first.problem),
                            [Edit(f, "remove") for f in held[first.name] - known
                             if f.kind not in FUNCTIONAL_KINDS])
        labels = {}
        for edit in _toward(known, self.robot_features):
            if edit.feature not in possible:
                labels[edit] = f"{edit.op}-known"
        for feature in possible:
            if feature in self.robot_features:
                labels[Edit(feature, "add")] = "add-annot"
            else:
                labels[Edit(feature, "remove")] = "remove-annot"
        candidates = sorted(labels)
        group_ok = [e for e in candidates
                    if all(_may_hear(self.privacy, n, e.feature) for n in names)]

        positive = not any(f.kind is FeatureKind.NEGATIVE_PRECONDITION
                           for f in every | self.robot_features)

        def conformant(told: Sequence[Edit]) -> bool:
            self.prover.tick()
            settled = {e.feature for e in told}
            edits = [e for e in told if labels[e] != "remove-annot"]
            open_ = sorted(possible - settled)
            if positive:
                # Two completions decide it (the book's Prop. 7, both ways, with positive
                # preconditions): realising every open condition that can only break the
                # plan (preconditions, deletes, goals) -- it must stay valid there, at the
                # same cost everywhere -- and every one that can only help other plans
                # (adds, initial facts) -- no plan may be cheaper there.
                breaking = [f for f in open_ if f.kind in _BREAKING]
                helping = [f for f in open_ if f.kind not in _BREAKING]
                low = self.updated(base, [*edits, *(Edit(f, "add") for f in breaking)])
                cost = self.prover.cost(low)
                if cost is None:
                    return False
                high = self.updated(base, [*edits, *(Edit(f, "add") for f in helping)])
                return self.prover.none_cheaper(high, cost)
            for realised in _subsets(open_):
                model = self.updated(base, [*edits, *(Edit(f, "add") for f in realised)])
                if not self.prover.optimal(model):
                    return False
            return True

        def labelled(items: Iterable[Any]) -> list[Edit]:
            out = []
            for item in items:
                if labels.get(item.edit) != item.label:
                    raise _Failed(f"shared: '{item.text}' is not a {item.label} edit of the "
                                  "merged model")
                out.append(item.edit)
            return out

        if shared.status == Status.FOUND:
            told = labelled(shared.edits)
            if any(e not in group_ok for e in told):
                raise _Failed("shared: an edit some user may not hear")
            if not conformant(told):
                raise _Failed("shared: the plan is not optimal in every completion")
            smaller = next((s for s in _subsets(group_ok, len(told)) if conformant(s)), None)
            if smaller is not None:
                raise _Failed(f"shared: a smaller allowed set is conformant ({len(smaller)})")
            for user in self.users:
                news = [e for e in told
                        if (e.op == "add") != (e.feature in held[user.name])]
                if list(shared.for_user.get(user.name, ())) != news:
                    raise _Failed(f"shared: {user.name}'s view is not the edits new to them")
            return f"shared: conformant in every completion, minimal among {len(group_ok)}"
        if shared.status == Status.NO_EXPLANATION:
            full = labelled(shared.explanation_with_needed)
            needed = [e for e in full if e not in group_ok]
            if [e.edit for e, _ in shared.needed] != needed:
                raise _Failed("shared: the needed edits are not the withheld ones")
            if not full:  # "none even with every edit": no subset at all is conformant
                if any(conformant(s) for s in _subsets(candidates)):
                    raise _Failed("shared: a conformant explanation exists")
                return "shared: no conformant explanation exists"
            if not conformant(full):
                raise _Failed("shared: the set with the needed edits is not conformant")
            withheld = [e for e in candidates if e not in group_ok]
            for bad in range(len(needed)):
                for forced in itertools.combinations(withheld, bad):
                    for part in _subsets(group_ok):
                        if conformant(part + forced):
                            raise _Failed(f"shared: a set with {bad} withheld edits is "
                                          "conformant")
            return "shared: no conformant explanation every user may hear"
        raise _Failed(f"shared: unexpected status {shared.status}")

    def run(self) -> CheckReport:
        try:
            notes = [self.user(u) for u in self.users]
            if self.result.shared is not None:
                notes.append(self.group(self.result.shared))
        except _Failed as failure:
            return CheckReport(False, str(failure))
        return CheckReport(True, "; ".join(notes))


def check(robot: Model, users: Sequence[User], result: MultiUserResult,
          privacy: PrivacyMap, budget: Budget | None = None) -> CheckReport:
    """Check every claim of ``result`` under ``budget`` afresh (module docstring)."""
    if not result.status.finished:
        return CheckReport(None, "the search did not finish; nothing to check")
    budget = budget or Budget(max_seconds=300)
    return run_checker(lambda: _Checker(robot, users, result, privacy, budget).run())
