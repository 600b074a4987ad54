"""Checking every claim of an :class:`~xaip.reconcile.results.Explanation` (known model).

What each type claims, and how the checker confirms it (each under the same budget as the
search, started afresh: ``max_nodes`` per search, ``max_seconds`` for the whole check):

* every type: the plan's cost in the human model before the explanation, the human's
  optimal cost then (the checker's A*: :func:`~xaip.planning.proofs.cheaper_plan`), and
  the expected plan's cost (validation);
* ``mce``: complete (the plan is valid and optimal in the updated model) and *minimal*
  (no edit set of lower edit cost, or equal cost and fewer edits, is complete:
  :mod:`.check_minimal`);
* ``mme``: complete, *monotonic* (every superset within the model difference is complete,
  all of them checked) and minimal (no set with one edit fewer is monotonic; monotonic
  sets are closed under supersets, so none smaller is either);
* ``contrastive``: the plan is valid and no foil is cheaper in the updated model, and no
  cheaper edit set does that;
* ``ppe``/``mpe``: the edits are the plan patch / the whole difference, and the reported
  completeness is what holds;
* ``approx``: the book's proxies C1 (valid), C2 (the expected plan invalid or no cheaper)
  and C3 (every step supports a causal link), and the reported completeness. Minimality
  is not claimed.

A check that runs out of budget raises :class:`~xaip.errors.BudgetExhausted`, which
:func:`xaip.contract.run_checker` turns into "unverified: checker budget".
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.features import Edit, Feature, diff, model_features
from xaip.planning.plans import PlanStep, validate
from xaip.planning.proofs import OWN_ENGINES, cheaper_plan, proof_method
from xaip.planning.task import Task
from xaip.reconcile.brute_force import CheckResult, brute_force_complete, ground_candidates
from xaip.reconcile.check_minimal import prove_minimal
from xaip.reconcile.check_models import CheckModels, Proof, implied
from xaip.reconcile.check_tasks import (
    FeatureTasks,
    complete_on_task,
    contrastive_on_task,
    run_plan,
    usable,
)
from xaip.reconcile.checks import contrastive_verdict, is_complete, updated_model
from xaip.reconcile.problem import MRP
from xaip.reconcile.results import Explanation
from xaip.runtime import Budget, BudgetClock


class _Session:
    """One check: the user's budget started afresh, handed to each search in turn."""

    def __init__(self, mrp: MRP, result: Explanation, budget: Budget) -> None:
        self.mrp, self.result, self.budget = mrp, result, budget
        self.clock: BudgetClock = budget.start()
        self._tasks: FeatureTasks | None | bool = False  # False: not built yet
        # the checker's own verdicts per edit set: the MME check meets the same supersets
        # again and again (a verdict depends on the edit set alone)
        self._verdicts: dict[frozenset[Edit], CheckResult] = {}
        # ... and per updated task: edit sets whose tasks are the same (an edit that
        # changes no reachable ground action) get the same verdict, a function of the task
        # and the plan alone (a third of the MME check's supersets on small instances)
        self._by_task: dict[tuple[object, ...], CheckResult] = {}
        # proofs made on toggled tasks outside the nodes (the person's optimum before), by
        # task: a node on the same task asks its question of that proof first
        self._proofs: dict[tuple[object, ...], tuple[int | None, Proof]] = {}
        self._candidates: tuple[list[Edit], list[int]] | None = None
        self._human: frozenset[Feature] | None = None
        # each edit set's lifted model built, validated, grounded and searched once: the
        # person's model before is asked about again when the answer is empty
        self.models = CheckModels(mrp, result.engine)

    def human(self) -> frozenset[Feature]:
        """The human model's features, read once per check (the toggled tasks and the
        minimality proof both start from them)."""
        if self._human is None:
            self._human = model_features(self.mrp.human_domain, self.mrp.human_problem)
        return self._human

    def tasks(self) -> FeatureTasks | None:
        """The checker's own updated tasks built by toggling features (:mod:`.check_tasks`),
        when the models allow it and xaip's engines plan; else None (fresh groundings)."""
        if self._tasks is False:
            candidates, _ = self.candidates()
            self._tasks = None
            if not self.result.grounded and self.result.engine in OWN_ENGINES \
                    and usable(self.mrp, candidates):
                try:
                    self._tasks = FeatureTasks(self.mrp, candidates, self.search_budget(),
                                               self.human())
                except InputError:  # the relaxation does not ground: fresh groundings
                    self._tasks = None
        assert self._tasks is not True
        return self._tasks

    def proofs_ahead(self) -> bool:
        """Will a proof ask about many edit sets (so the toggled tasks pay for their one
        grounding)? Not for an empty MCE or contrastive answer, nor the patches."""
        kind = self.result.type
        return kind == "mme" or (kind in ("mce", "contrastive") and bool(self.result.edits))

    def node(self, edits: Sequence[Edit], quick: bool = True) -> CheckResult:
        """Is the plan explained in ``H + edits``? For the proofs' many edit sets: on the
        updated task built by toggling features when possible (else :meth:`complete`)."""
        key = frozenset(edits)
        known = self._verdicts.get(key)
        if known is None:
            known = self._verdicts[key] = self._node(edits, quick)
        return known

    def _node(self, edits: Sequence[Edit], quick: bool) -> CheckResult:
        tasks = self.tasks()
        if tasks is None:
            return self.complete(edits)
        task = tasks.task(edits)
        same = _content(task)
        known = self._by_task.get(same)
        if known is not None:
            return known
        complete, valid, cost, optimum, cheaper = self._proved(task, same) or \
            complete_on_task(task, self.mrp.plan_names, self.search_budget(),
                             self.result.engine, quick)
        if complete is None:
            raise BudgetExhausted("the checker's budget ran out")
        if not valid:
            outcome = CheckResult(False, False, None, None, "invalid")
        else:
            outcome = CheckResult(complete, True, cost, optimum,
                                  "valid and optimal" if complete else
                                  f"a plan of cost {optimum} beats the plan's {cost}",
                                  cheaper)
        self._by_task[same] = outcome
        return outcome

    def _proved(self, task: Task, same: tuple[object, ...]
                ) -> tuple[bool | None, bool, int | None, int | None,
                           tuple[str, ...] | None] | None:
        """:func:`~.check_tasks.complete_on_task`'s answer from a proof already made on
        this task, when that proof decides the plan's cost bound (else None)."""
        kept = self._proofs.get(same)
        if kept is None:
            return None
        cost = run_plan(task, self.mrp.plan_names)
        if cost is None:
            return False, False, None, None, None
        answer = implied(*kept, cost)
        if answer is None:
            return None
        status, found, names = answer
        if status == "solved":
            return False, True, cost, found, names
        return True, True, cost, cost, None

    def toggled_proof(self, edits: Sequence[Edit], bound: int | None) -> Proof:
        """The checker's A* on the toggled task of ``H + edits`` under ``bound``, kept for
        the nodes (:meth:`_proved`)."""
        tasks = self.tasks()
        assert tasks is not None
        task = tasks.task(edits)
        proof = cheaper_plan(None, None, task, bound, self.search_budget(),
                             self.result.engine)
        if proof[0] in ("solved", "unsolvable"):
            self._proofs[_content(task)] = (bound, proof)
        return proof

    def answer(self, edits: Sequence[Edit]) -> CheckResult:
        """Is the plan explained after the answer's own ``edits``? The plan is validated on
        the written lifted PDDL (what the user gets); optimality is proved on the toggled
        task when there is one (a fresh grounding otherwise), whose reading of the plan
        must agree with the PDDL's."""
        tasks = self.tasks() if self.proofs_ahead() else None
        if tasks is None:
            return self.complete(edits)
        lifted = self.models.validation(edits)
        if not lifted.valid:
            return CheckResult(False, False, None, None, lifted.reason or "invalid")
        outcome = self.node(edits, quick=False)  # expected complete: no witness to look for
        if not outcome.valid or lifted.cost is None or outcome.plan_cost != int(lifted.cost):
            return CheckResult(False, False, None, None, "the updated PDDL and the updated "
                               "feature sets disagree about the plan (a checker fault)")
        return outcome

    def search_budget(self) -> Budget:
        """The node limit afresh (each search on its own), the check's seconds left."""
        if self.budget.max_seconds is None:
            return Budget(self.budget.max_nodes)
        left = self.budget.max_seconds - self.clock.elapsed()
        if left <= 0:
            raise BudgetExhausted("the checker's time ran out")
        return Budget(self.budget.max_nodes, left)

    def proof_clock(self) -> BudgetClock:
        return Budget(self.budget.max_nodes, None if self.budget.max_seconds is None else
                      max(0.0, self.budget.max_seconds - self.clock.elapsed())).start()

    def complete(self, edits: Sequence[Edit]) -> CheckResult:
        if self.result.grounded:
            outcome = brute_force_complete(self.mrp, edits, self.search_budget())
        else:
            outcome = is_complete(self.mrp, edits, self.search_budget(), self.result.engine,
                                  models=self.models)
        if outcome.complete is None:
            raise BudgetExhausted(outcome.reason)
        return outcome

    def method(self) -> str:
        if self.result.grounded:
            return "brute force: Dijkstra over sets of atoms"
        if self.result.engine not in OWN_ENGINES:
            return f"{self.result.engine} on the lifted PDDL"
        proof = proof_method(self.result.engine)
        if self.proofs_ahead() and self.tasks() is not None:
            return f"{proof} on the checker's own task (features toggled on one grounding)"
        return f"{proof} on a fresh grounding"

    def candidates(self) -> tuple[list[Edit], list[int]]:
        """The edits an explanation may use (the model difference, or its ground instances)
        and their edit costs (a ground edit costs what its lifted edit costs)."""
        if self._candidates is None:
            self._candidates = self._derive_candidates()
        return self._candidates

    def _derive_candidates(self) -> tuple[list[Edit], list[int]]:
        mrp = self.mrp
        # the feature difference alone (what ``model_diff(...).edits()`` lists, without its
        # report of structural differences), from the human features read once
        lifted = list(diff(self.human(), model_features(mrp.robot_domain,
                                                        mrp.robot_problem)).edits())
        pairs = ground_candidates(mrp, lifted) if self.result.grounded else \
            [(e, e) for e in lifted]
        table = dict(self.result.edit_costs)
        return [edit for edit, _ in pairs], [table.get(source.feature, 1)
                                             for _, source in pairs]


def _content(task: Task) -> tuple[object, ...]:
    """What a toggled task's verdicts depend on: its ground actions (with their masks,
    costs and names), initial state and goal. Fact numbers are stable within one
    :class:`~.check_tasks.FeatureTasks`, so equal masks mean equal facts."""
    return (task.actions, task.init, task.goal, task.goal_neg)


def check_explanation(mrp: MRP, result: Explanation, budget: Budget) -> CheckReport:
    """Check every claim of ``result`` (see the module docstring)."""
    session = _Session(mrp, result, budget)
    before = _check_before(session)
    if before is not None:
        return before
    kind = result.type
    if kind == "contrastive":
        return _contrastive(session)
    outcome = session.answer(result.edits)
    method = session.method()
    if kind in ("ppe", "mpe", "approx"):
        return _patches(session, outcome, method)
    if result.complete is not outcome.complete:
        return CheckReport(False, f"the answer says {_claimed(result.complete)}, but "
                                  f"{outcome.reason} ({method})")
    if not outcome.complete:
        return CheckReport(False, f"{outcome.reason}; {method}")
    if kind == "mme":
        return _monotonic(session, f"{outcome.reason}; {method}")
    return _minimal(session, f"{outcome.reason}; {method}",
                    lambda edits, fast: _optimal_verdict(session, edits, fast))


def _check_before(session: _Session) -> CheckReport | None:
    """The claims about the human model before any explanation."""
    mrp, result = session.mrp, session.result
    before = session.models.validation(())
    claimed = result.human_plan_cost_before
    cost = None if not before.valid or before.cost is None else int(before.cost)
    if cost != claimed:
        return CheckReport(False, f"the plan costs {cost} in the human's model, not "
                                  f"{claimed} as claimed")
    optimum = result.human_optimal_cost_before
    if optimum is not None:
        tasks = session.tasks() if session.proofs_ahead() else None
        if tasks is None:  # (its proof answers an empty answer's optimality too)
            status, found, _ = session.models.cheaper((), optimum + 1,
                                                      session.search_budget())
        else:
            status, found, _ = session.toggled_proof((), optimum + 1)
        if status == "budget_exhausted":
            raise BudgetExhausted("the checker's budget ran out")
        if found != optimum:
            return CheckReport(False, f"the human's optimal cost before is {found}, not "
                                      f"{optimum} as claimed")
    if result.expected_plan:
        steps = [PlanStep(n.split(" ")[0], tuple(n.split(" ")[1:]))
                 for n in result.expected_plan]
        expected = validate(mrp.human_domain, mrp.human_problem, steps)
        if not expected.valid or expected.cost != result.expected_plan_cost:
            return CheckReport(False, "the expected plan does not cost what is claimed in "
                                      "the human's model")
    return None


def _optimal_verdict(session: _Session, edits: list[Edit], fast: bool = False
                     ) -> tuple[bool | None, tuple[str, ...] | None]:
    """One planner call per edit set: the bounded optimal search either proves the plan
    optimal or returns the cheapest cheaper plan (whose few actions give the proof a small
    conflict). ``fast`` is accepted for the proof's interface; a separate quick search
    first would only ground the model twice."""
    del fast
    outcome = session.node(edits)
    if outcome.complete:
        return True, None
    if not outcome.valid:
        return False, ()
    if outcome.cheaper_plan is None:
        return None, None
    return False, outcome.cheaper_plan


def _minimal(session: _Session, complete: str, explains: object) -> CheckReport:
    if not session.result.edits:
        return CheckReport(True, f"{complete}; minimal (no edits)")
    began = time.perf_counter()
    candidates, costs = session.candidates()
    report = prove_minimal(session.mrp, session.result.edits, candidates,
                           explains, session.proof_clock(), costs,  # type: ignore[arg-type]
                           session.human())
    took = time.perf_counter() - began
    if report.minimal is False:
        shown = "; ".join(str(e.feature) if e.op == "add" else f"not {e.feature}"
                          for e in report.counterexample)
        return CheckReport(False, f"{complete}; but a cheaper edit set also explains the "
                                  f"plan: {shown or 'no edits at all'}")
    return CheckReport(True, f"{complete}; minimal (no cheaper edit set explains it: "
                             f"{report.nodes} examined, {took:.2f} s)")


#: The patch explanations' names in words (the JSON keeps ``ppe``/``mpe``).
_PATCH = {"ppe": "plan patch explanation", "mpe": "model patch explanation"}


def _claimed(complete: bool | None) -> str:
    """What an answer's ``complete`` flag claims, in words (the JSON keeps the flag)."""
    return ("the plan is then optimal for the human" if complete else
            "the plan is still not optimal for the human")


def _monotonic(session: _Session, complete: str) -> CheckReport:
    """Every superset (within the difference) is complete, and no set with one edit fewer
    is monotonic (so the MME is the smallest)."""
    result = session.result
    candidates, _ = session.candidates()
    chosen = set(result.edits)
    rest = [e for e in candidates if e not in chosen]
    if not _all_supersets_complete(session, list(result.edits), rest, quick=False):
        return CheckReport(False, f"{complete}, but a superset of the edits leaves the plan "
                                  "unexplained (not monotonic)")
    size = len(result.edits) - 1
    if size >= 0:
        for smaller in itertools.combinations(candidates, size):
            if not session.clock.charge():
                raise BudgetExhausted("the checker's budget ran out")
            others = [e for e in candidates if e not in set(smaller)]
            if _all_supersets_complete(session, list(smaller), others):
                shown = "; ".join(str(e.feature) for e in smaller) or "no edits at all"
                return CheckReport(False, f"{complete}, monotonic; but the smaller set "
                                          f"({shown}) is monotonic too")
    return CheckReport(True, f"{complete}; monotonic over all {2 ** len(rest)} ways of "
                             "adding the other differences (none of them leaves the plan "
                             "unexplained); no smaller monotonic set")


def _all_supersets_complete(session: _Session, base: list[Edit], rest: list[Edit],
                            quick: bool = True) -> bool:
    """``quick``: look for a witness cheaper plan first (where one is expected)."""
    for count in range(len(rest) + 1):
        for extra in itertools.combinations(rest, count):
            if not session.clock.charge():
                raise BudgetExhausted("the checker's budget ran out")
            if not session.node([*base, *extra], quick).complete:
                return False
    return True


def _patches(session: _Session, outcome: CheckResult, method: str) -> CheckReport:
    result, mrp = session.result, session.mrp
    if result.complete is not None and result.complete is not outcome.complete:
        return CheckReport(False, f"the answer says {_claimed(result.complete)}, but "
                                  f"{outcome.reason} ({method})")
    if result.type == "approx":
        from xaip.reconcile.check_approx import proxies_hold

        verdict, why = proxies_hold(mrp, result.edits, result.expected_plan)
        return CheckReport(verdict, f"approximate: {why}; optimality ({method}): "
                                    f"{outcome.reason}")
    candidates, _ = session.candidates()
    if result.type == "mpe":
        wanted = set(candidates)
    else:
        schemas = {step.name for step in mrp.plan}
        names = {" ".join((s.name, *s.args)) for s in mrp.plan}
        wanted = {e for e in candidates if e.feature.action in schemas and (
            not result.grounded or " ".join((e.feature.action, *e.feature.parameters))
            in names)}
    if set(result.edits) != wanted:
        return CheckReport(False, f"the edits are not the {_PATCH[result.type]}'s: "
                                  f"{len(result.edits)} given, {len(wanted)} by definition")
    optimal = "optimal" if outcome.complete else "not optimal"
    return CheckReport(True, f"exactly the {_PATCH[result.type]}'s {len(wanted)} edits; "
                             f"afterwards the plan is {optimal} for the human "
                             f"({outcome.reason}; {method})")


def _contrastive(session: _Session) -> CheckReport:
    """The plan is valid and no foil cheaper after the edits; no cheaper edit set does it."""
    result = session.result
    if result.grounded:
        return CheckReport(None, "contrastive explanations with grounded edits are not "
                                 "checked")

    verdicts: dict[tuple[object, ...], tuple[bool | None, tuple[str, ...] | None]] = {}

    def explains(edits: list[Edit], fast: bool = False
                 ) -> tuple[bool | None, tuple[str, ...] | None]:
        tasks = session.tasks()
        if tasks is not None:  # the proof's many edit sets: toggled, not re-grounded
            task = tasks.task(edits)
            known = verdicts.get(_content(task))  # a function of the task and the foils
            if known is not None:
                return known
            ok, _, cheaper = contrastive_on_task(task, session.mrp.plan_names,
                                                 result.foils, session.search_budget())
            if ok is not None:
                verdicts[_content(task)] = (ok, cheaper)
        else:
            ok, _, cheaper = contrastive_verdict(session.mrp, edits, result.foils,
                                                 session.search_budget(), session.models)
        if ok is None:
            raise BudgetExhausted("the checker's budget ran out")
        return ok, cheaper

    tasks = session.tasks() if session.proofs_ahead() else None
    if tasks is None:
        ok, why, _ = contrastive_verdict(session.mrp, list(result.edits), result.foils,
                                         session.search_budget(), session.models)
    else:  # the toggled task the proof builds anyway, the plan validated on the PDDL too
        ok, why = _contrastive_answer(session, tasks.task(result.edits))
    if ok is None:
        raise BudgetExhausted("the checker's budget ran out")
    if not ok:
        return CheckReport(False, why)
    return _minimal(session, why, explains)


def _contrastive_answer(session: _Session, task: Task) -> tuple[bool | None, str]:
    """The answer's own claim on its toggled task (:func:`.contrastive_on_task`), with the
    plan also validated on the written lifted PDDL of the updated model: as for the other
    types' answers, the two readings must agree."""
    edits = session.result.edits
    lifted = session.models.validation(edits)
    if not lifted.valid or lifted.cost is None:
        return False, f"the plan is invalid in the updated model: {lifted.reason}"
    if run_plan(task, session.mrp.plan_names) != int(lifted.cost):
        return False, ("the updated PDDL and the updated feature sets disagree about the "
                       "plan (a checker fault)")
    ok, why, _ = contrastive_on_task(task, session.mrp.plan_names, session.result.foils,
                                     session.search_budget())
    return ok, f"{why} ({session.method()})"


__all__ = ["check_explanation", "updated_model"]
