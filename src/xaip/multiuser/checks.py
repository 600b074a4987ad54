"""The multi-user family's checker: every claim of a :class:`MultiUserResult` re-derived.

Why independent: the searches order edit sets cleverly, reuse witness plans between users
and test conformance by Prop. 7; a bug in any of that must not confirm its own answer.

What the checker **shares** with the search, exactly: the PDDL model classes,
``model_features`` and :func:`~xaip.planning.features.apply.apply_edits` (the definition of
a model's features and of "a model updated by edits"), the lifted plan validator, the
grounder, the planning core's greedy best-first search (h_FF; it only proposes cheaper
plans, each replayed by the validator) and its A* with the reconciliation checker's
heuristic (:func:`xaip.planning.proofs.check_heuristic`): LM-cut as an **untrusted
oracle**, whose cuts the core's certificate checker (``src/xaip/_native/certify.c``, no
code shared with LM-cut) accepts only when each is a landmark of the delete relaxation and
their charges a cost partition (a state whose certificate fails gets h^max, and is counted
by :func:`xaip.planning.engines.compiled.search_counts`); h^max on tasks with conditional
effects and without the compiled core. And the privacy map's parsed rules
(:meth:`Rule.matches`: what a rule names).

What it does **not** share: the users' differences (it derives them from the two feature
sets), the privacy decision (its own reading of the three conditions), the merge (it
recomputes who holds what), the labels of the shared edits, the search order, the
search's witness plans and its A* + LM-cut goal test (LM-cut's values count in the
checker only through verified certificates). Conformance (book Def. 30) is decided
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
optimality proof and for the edit sets examined per user and for the group, as the
searches count them); running out is "unverified: checker
budget" (:func:`xaip.contract.run_checker`).
"""

from __future__ import annotations

import itertools
import math
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
from xaip.planning.features.extract import split_action, split_goal
from xaip.planning.features.feature import FUNCTIONAL_KINDS
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep, format_plan, parse_plan, validate
from xaip.planning.proofs import CHECK_ALGORITHM, check_heuristic
from xaip.runtime import Budget, BudgetClock, Status

Model = tuple[Domain, Problem]
#: Nodes of the greedy search that looks for a cheaper plan before the A* proof.
QUICK_NODES = 5000
#: Conditions that, realised, can only make a plan fail (never make another plan possible).
_BREAKING = frozenset({FeatureKind.PRECONDITION, FeatureKind.DELETE_EFFECT, FeatureKind.GOAL,
                       FeatureKind.NEGATIVE_GOAL})


class _Failed(Exception):
    """A claim that does not hold (the message says which)."""


class _Prover:
    """The checker's own "valid and optimal?": lifted validation, then A* with the
    certified LM-cut (:func:`xaip.planning.proofs.check_heuristic`) on a fresh grounding
    under the strict bound of the plan's cost; cheaper plans it finds are kept and
    replayed on later models."""

    def __init__(self, plan: Sequence[PlanStep], budget: Budget) -> None:
        self.plan = tuple(plan)
        self.budget = budget
        self.clock: BudgetClock = budget.start()
        self.engine = get_engine(DEFAULT_ENGINE, search=CHECK_ALGORITHM,
                                 heuristic=check_heuristic(DEFAULT_ENGINE))
        #: Finds cheaper plans fast where the model is loose (the A* proof then expands
        #: every state below the bound); it only proposes witnesses, each replayed.
        self.greedy = get_engine(DEFAULT_ENGINE, search="gbfs", heuristic="hff")
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

    def _quick_budget(self) -> Budget:
        """The greedy attempt's share: a few thousand nodes (the A* proof decides
        whatever it leaves open, under the user's budget)."""
        whole = self._search_budget()
        nodes = QUICK_NODES if whole.max_nodes is None else min(QUICK_NODES, whole.max_nodes)
        return Budget(nodes, whole.max_seconds)

    def cost(self, model: Model) -> int | None:
        outcome = validate(model[0], model[1], self.plan)
        return int(outcome.cost) if outcome.valid and outcome.cost is not None else None

    def optimal(self, model: Model) -> bool:
        cost = self.cost(model)
        return cost is not None and self.none_cheaper(model, cost)

    def cheaper_found(self, model: Model, cost: int) -> bool:
        """A plan of ``model`` cheaper than ``cost`` is at hand: a kept one, or one the
        greedy search finds; either is replayed by the validator first. ``False`` proves
        nothing."""
        for other in self.found:
            outcome = validate(model[0], model[1], other)
            if outcome.valid and outcome.cost is not None and outcome.cost < cost:
                return True
        task = ground(model[0], model[1], budget=self._search_budget())
        quick = self.greedy.solve(task, optimal=False, cost_bound=cost,
                                  budget=self._quick_budget())
        if str(quick.status) == "solved" and quick.cost is not None and quick.cost < cost:
            plan = tuple(parse_plan(format_plan(quick.plan)))
            replay = validate(model[0], model[1], plan)
            if replay.valid and replay.cost is not None and replay.cost < cost:
                self.found.append(plan)
                return True
        return False

    def none_cheaper(self, model: Model, cost: int) -> bool:
        """No plan of ``model`` costs less than ``cost``."""
        if self.cheaper_found(model, cost):
            return False
        task = ground(model[0], model[1], budget=self._search_budget())
        result = self.engine.solve(task, optimal=True, cost_bound=cost,
                                   budget=self._search_budget())
        if str(result.status) == "budget_exhausted":
            raise BudgetExhausted("the checker's A* proof", phase="check")
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


def _direction(edit: Edit) -> int | None:
    """+1 when the edit can only relax a positive STRIPS model (more plans, none dearer),
    -1 when it can only restrict it, None otherwise (costs, negative conditions)."""
    kind, adds = edit.feature.kind, edit.op == "add"
    if kind in (FeatureKind.ADD_EFFECT, FeatureKind.INIT):
        return 1 if adds else -1
    if kind in _BREAKING - {FeatureKind.NEGATIVE_GOAL}:
        return -1 if adds else 1
    return None


def _positive_strips(models: Iterable[Model]) -> bool:
    """Positive preconditions and goals, no derived, quantified or conditional parts."""
    for domain, problem in models:
        if domain.derived or split_goal(problem.goal).negative or \
                split_goal(problem.goal).rest:
            return False
        for action in domain.actions:
            parts = split_action(action, True)
            if parts.negative_preconditions or parts.precondition_rest or parts.effect_rest:
                return False
    return True


#: Proofs that examine at most this many edit sets try them all directly; larger ones first
#: derive the needed edits (each costs a search, so small proofs are cheaper without).
DIRECT = 256


def _count(allowed: int, withheld: int, below_size: int | None, below_withheld: int) -> int:
    """How many sets :func:`_sets` yields without needed edits."""
    total = 0
    for w in range(min(withheld, below_withheld - 1) + 1):
        top = allowed if below_size is None else min(allowed, below_size - 1 - w)
        total += math.comb(withheld, w) * sum(math.comb(allowed, a) for a in range(top + 1))
    return total


def _sets(allowed: Sequence[Edit], withheld: Sequence[Edit], must: frozenset[Edit],
          below_size: int | None, below_withheld: int) -> Iterator[tuple[Edit, ...]]:
    """Every set holding ``must`` with fewer than ``below_withheld`` withheld edits and
    fewer than ``below_size`` edits (any size when None)."""
    fixed_w = [e for e in withheld if e in must]
    fixed_a = [e for e in allowed if e in must]
    free_w = [e for e in withheld if e not in must]
    free_a = [e for e in allowed if e not in must]
    for extra_w in range(max(0, below_withheld - len(fixed_w))):
        for w in itertools.combinations(free_w, extra_w):
            base = (*fixed_a, *fixed_w, *w)
            room = None if below_size is None else below_size - len(base)
            if room is not None and room <= 0:
                continue
            for a in _subsets(free_a, room):
                yield (*base, *a)


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

    def needed(self, edits: Sequence[Edit], directions: Sequence[tuple[Any, Any]],
               low: Any, high: Any) -> frozenset[Edit]:
        """Edits every explanation holds, by monotonicity (the searches prune with the same
        argument; this is the checker's own reading of it): one that relaxes the model
        where the plan must be valid, without which the plan is invalid even after every
        other edit not restricting it; one that restricts the model where nothing may be
        cheaper, without which a cheaper plan remains after every edit not relaxing it."""
        if any(d is None for pair in directions for d in pair):
            return frozenset()
        cost = self.result.plan_cost
        out = set()
        for i, edit in enumerate(edits):
            if directions[i][0] == 1:
                rest = [e for j, e in enumerate(edits) if j != i and directions[j][0] != -1]
                if self.prover.cost(low(rest)) is None:
                    out.add(edit)
                    continue
            if directions[i][1] == -1:
                rest = [e for j, e in enumerate(edits) if j != i and directions[j][1] != 1]
                # only a cheaper plan at hand marks the edit as needed: a proof that none
                # exists would cost a full search, and leaving an edit out is always sound
                if self.prover.cheaper_found(high(rest), cost):
                    out.add(edit)
        return frozenset(out)

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

        must: frozenset[Edit] = frozenset()
        if answer.status == Status.FOUND:
            work = _count(len(allowed), len(withheld), len(answer.edits), 1)
        else:
            work = _count(len(allowed), len(withheld), None, len(answer.needed))
        if work > DIRECT and _positive_strips([self.robot, model]):
            must = self.needed(edits, [(_direction(e), _direction(e)) for e in edits],
                               lambda rest: self.updated(model, rest),
                               lambda rest: self.updated(model, rest))
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
            if not must <= set(answer.edits):
                raise _Failed(f"{user.name}: the explanation lacks an edit every explanation "
                              "needs")
            smaller = next((s for s in _sets(allowed, withheld, must, len(answer.edits), 1)
                            if explains(s)), None)
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
        fewer = next((s for s in _sets(allowed, withheld, must, None, len(needed))
                      if explains(s)), None)
        if fewer is not None:
            raise _Failed(f"{user.name}: a set with fewer withheld edits explains")
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

        def realised(told: Sequence[Edit], breaking: bool) -> Model:
            """The completion after ``told`` realising the open conditions that can only
            break plans (``breaking``) or the ones that can only help other plans."""
            settled = {e.feature for e in told}
            edits = [e for e in told if labels[e] != "remove-annot"]
            chosen = [f for f in sorted(possible - settled)
                      if (f.kind in _BREAKING) == breaking]
            return self.updated(base, [*edits, *(Edit(f, "add") for f in chosen)])

        def conformant(told: Sequence[Edit]) -> bool:
            self.prover.tick()
            if positive:
                # Two completions decide it (the book's Prop. 7, both ways, with positive
                # preconditions): the plan must stay valid where every open precondition,
                # delete and goal is realised (at the same cost everywhere), and no plan
                # may be cheaper where every open add and initial fact is.
                cost = self.prover.cost(realised(told, True))
                return cost is not None and \
                    self.prover.none_cheaper(realised(told, False), cost)
            settled = {e.feature for e in told}
            edits = [e for e in told if labels[e] != "remove-annot"]
            for chosen in _subsets(sorted(possible - settled)):
                model = self.updated(base, [*edits, *(Edit(f, "add") for f in chosen)])
                if not self.prover.optimal(model):
                    return False
            return True

        def directions(edit: Edit) -> tuple[int | None, int | None]:
            """The edit's effect on the two representative completions."""
            d = _direction(edit)
            if labels[edit].endswith("known"):
                return d, d
            breaking = edit.feature.kind in _BREAKING
            if labels[edit] == "add-annot":  # was open, now certainly present
                return (0, d) if breaking else (d, 0)
            return (d, 0) if breaking else (0, d)  # now certainly absent

        withheld_g = [e for e in candidates if e not in group_ok]
        models = [self.robot, *((u.domain, u.problem) for u in self.users)]
        must: frozenset[Edit] = frozenset()
        if shared.status == Status.FOUND:
            work = _count(len(group_ok), len(withheld_g), len(shared.edits), 1)
        else:
            work = _count(len(group_ok), len(withheld_g), None, len(shared.needed))
        if work > DIRECT and positive and _positive_strips(models):
            must = self.needed(candidates, [directions(e) for e in candidates],
                               lambda rest: realised(rest, True),
                               lambda rest: realised(rest, False))

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
            if not must <= set(told):
                raise _Failed("shared: the explanation lacks an edit every one needs")
            smaller = next((s for s in _sets(group_ok, withheld_g, must, len(told), 1)
                            if conformant(s)), None)
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
            fewer = next((s for s in _sets(group_ok, withheld_g, must, None, len(needed))
                          if conformant(s)), None)
            if fewer is not None:
                raise _Failed("shared: a set with fewer withheld edits is conformant")
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
