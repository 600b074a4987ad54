"""Explanations for an uncertain human model: conformant, conditional and anytime (ch. 6).

* :meth:`ConformantExplainer.conformant` — the cheapest edit set after which the plan is
  optimal in *every* completion of the annotated human model (book Def. 30). The goal
  test uses the two representative models of Prop. 7: the plan must be optimal in M_max
  (possible adds and init facts realised) and valid in M_min (possible preconditions,
  deletes and goals realised). Where Prop. 7 does not apply (negative preconditions,
  conditional effects), the test enumerates the completions instead.
* :meth:`ConformantExplainer.robustness` — the probability mass of completions in which an
  edit set explains the plan (Def. 29), computed by the checker
  (:func:`xaip.reconcile.checks.robustness`): a conformant explanation has robustness 1.
  :meth:`ConformantExplainer.robustness_estimate` is exact up to ``max_completions``
  completions and a seeded Monte-Carlo estimate with Hoeffding's interval beyond
  (:mod:`xaip.reconcile.robustness`); the robustness a conformant explanation reports comes
  from it.
* :meth:`ConformantExplainer.conditional` — a question-asking policy (Def. 31): ask about a
  possible feature, or tell an edit, until the plan is explained in every completion
  consistent with the answers. Found by exact dynamic programming over the acyclic AND-OR
  graph (what AO* computes, without its heuristic pruning), with the book's discounted
  AND cost ``min + alpha * max``.
* :meth:`ConformantExplainer.anytime` — depth-first search with assumptions about the
  possible features, checked by asking the person only about the assumptions a solution
  relied on (at most one question per possible feature).

Edits carry the book's labels: ``add-known``/``remove-known`` change what the person is
sure of, ``add-annot``/``remove-annot`` settle a possible feature toward the robot's truth.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from xaip.contract import with_check
from xaip.errors import BudgetExhausted, InputError
from xaip.planning.engines import DEFAULT_ENGINE, Engine, get_engine
from xaip.planning.features import Edit, Feature, model_diff, model_features
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import validate
from xaip.reconcile.annotated import (
    RELAXING_KINDS,
    AnnotatedMRP,
    Possible,
    completions,
    read_annotations,
    settle,
)
from xaip.reconcile.checks import check, robustness
from xaip.reconcile.problem import MRP, vocabulary_error
from xaip.reconcile.results import (
    AnytimeExplanation,
    Ask,
    ConditionalExplanation,
    ConformantExplanation,
    Done,
    LabelledEdit,
    PolicyNode,
    Tell,
    expected_statements,
)
from xaip.reconcile.robustness import (
    MAX_COMPLETIONS,
    RobustnessEstimate,
    RobustnessOptions,
    estimate_robustness,
)
from xaip.runtime import Budget, BudgetClock, Progress, Status, report

Answers = frozenset[tuple[Feature, bool]]


class _OutOfBudget(Exception):
    """Raised inside a search when the budget runs out; turned into an unfinished result."""


# --------------------------------------------------------------------------- explainer


@dataclass
class _State:
    """An annotated human model during the dialogue: told edits and answered questions."""

    told: frozenset[LabelledEdit]
    answers: Answers

    def key(self) -> tuple[frozenset[LabelledEdit], Answers]:
        return self.told, self.answers


@dataclass
class ConformantExplainer:
    """Explains ``amrp.mrp.plan`` to a person whose model is only known up to annotations
    (the engine behind :func:`xaip.reconcile.explain` for the uncertain types).

    ``annotation_cost`` is the cost of telling a possible feature (the book suggests more
    than 1 to avoid telling people what they may already believe); ``question_cost`` the
    cost of asking one question in conditional explanations. ``budget``: ``max_nodes``
    bounds the dialogue search and each planner call; ``max_seconds`` one whole call.
    """

    amrp: AnnotatedMRP
    annotation_cost: float = 1.0
    question_cost: float = 0.1
    budget: Budget = field(default_factory=lambda: Budget(max_seconds=300))
    goal_tests: int = 0
    check_budget: Budget | None = None
    engine: str | Engine = DEFAULT_ENGINE
    #: Robustness (U02): exact up to ``max_completions`` completions, sampled beyond.
    robustness_options: RobustnessOptions = field(default_factory=RobustnessOptions)
    _cache: dict[Any, bool] = field(default_factory=dict, repr=False)
    _clock: BudgetClock | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        mrp = self.amrp.mrp
        self._robot = model_features(mrp.robot_domain, mrp.robot_problem)
        self._possible = {p.feature: p for p in self.amrp.possible}
        difference = model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                                mrp.robot_problem)
        if difference.mismatches:
            raise vocabulary_error(difference.mismatches)
        self.known_edits = tuple(sorted(
            LabelledEdit(e, f"{e.op}-known") for e in difference.edits()
            if e.feature not in self._possible))
        self.annotation_edits = tuple(sorted(
            LabelledEdit(Edit(p.feature, "add" if p.feature in self._robot else "remove"),
                         "add-annot" if p.feature in self._robot else "remove-annot")
            for p in self.amrp.possible))
        self.candidates = self.known_edits + self.annotation_edits
        self._prop7 = not _has_negative_preconditions(mrp.human_domain, mrp.robot_domain)
        self._engine = get_engine(self.engine) if isinstance(self.engine, str) else self.engine

    # ------------------------------------------------------------------ the model at a state

    def _ops(self, state: _State) -> tuple[list[Edit], tuple[Possible, ...]]:
        """The edits that turn the known human model into the state's known part, and the
        possible features still open (:func:`~xaip.reconcile.annotated.settle`)."""
        return settle(self.amrp.possible, state.told, state.answers)

    def is_explained(self, state: _State) -> bool:
        """Is the plan optimal in every completion of the state's annotated model?"""
        edits, open_ = self._ops(state)
        key = (frozenset(edits), frozenset(p.feature for p in open_))
        if key not in self._cache:
            self.goal_tests += 1
            if self._prop7:
                self._cache[key] = self._representatives_test(edits, open_)
            else:
                self._cache[key] = all(
                    self._optimal_in(edits, realised)
                    for realised, _ in completions(open_))
        return self._cache[key]

    def _representatives_test(self, edits: list[Edit], open_: tuple[Possible, ...]) -> bool:
        relaxing = [p.feature for p in open_ if p.feature.kind in RELAXING_KINDS]
        stricter = [p.feature for p in open_ if p.feature.kind not in RELAXING_KINDS]
        mrp = self.amrp.mrp
        low = self.amrp.completion(edits, stricter)
        outcome = validate(low.human_domain, low.human_problem, mrp.plan)
        if not outcome.valid or outcome.cost is None:
            return False
        high = self.amrp.completion(edits, relaxing)
        return self._none_cheaper(high.human_domain, high.human_problem, int(outcome.cost))

    def _optimal_in(self, edits: list[Edit], realised: frozenset[Feature]) -> bool:
        model = self.amrp.completion(edits, realised)
        outcome = validate(model.human_domain, model.human_problem, self.amrp.mrp.plan)
        if not outcome.valid or outcome.cost is None:
            return False
        return self._none_cheaper(model.human_domain, model.human_problem, int(outcome.cost))

    def _call_budget(self) -> Budget:
        """The node limit afresh, and the seconds the running call has left."""
        clock = self._clock or self.budget.start()
        if self.budget.max_seconds is None:
            return self.budget
        left = self.budget.max_seconds - clock.elapsed()
        if left <= 0:
            raise _OutOfBudget
        return Budget(self.budget.max_nodes, left)

    def _none_cheaper(self, domain: Domain, problem: Problem, cost: int) -> bool:
        budget = self._call_budget()
        try:  # grounding is part of the budget too (issue 22: RADAR overran it)
            task = ground(domain, problem, budget=budget)
        except BudgetExhausted:
            raise _OutOfBudget from None
        result = self._engine.solve(task, optimal=True, cost_bound=cost,
                                    budget=self._call_budget())
        if result.status == "budget_exhausted":
            raise _OutOfBudget
        return result.status == "unsolvable"

    def _cost(self, edit: LabelledEdit) -> float:
        return self.annotation_cost if edit.label.endswith("annot") else 1.0

    def _start(self) -> tuple[float, BudgetClock]:
        self._clock = self.budget.start()
        return time.perf_counter(), self._clock

    def _checked(self, result: Any) -> Any:
        """``result`` checked by :func:`xaip.reconcile.checks.check` within what is left."""
        began = time.perf_counter()
        # the checker runs under the same budget as the search, started afresh
        outcome = check(self.amrp, result, self.check_budget or self.budget)
        checked = with_check(result, outcome)
        return replace(checked, check=outcome,
                       seconds=result.seconds + time.perf_counter() - began,
                       stats={**result.stats, "check_seconds": time.perf_counter() - began})

    # ------------------------------------------------------------------ robustness (checker)

    def robustness(self, edits: Iterable[LabelledEdit], max_completions: int = MAX_COMPLETIONS
                   ) -> float:
        """Def. 29 by enumeration: the likelihood mass of completions the edits explain.

        Independent of the search: computed by the checker
        (:func:`xaip.reconcile.checks.robustness`). Exact only: above ``max_completions``
        completions it refuses; :meth:`robustness_estimate` samples there.
        """
        edits = tuple(edits)
        _, open_ = self._ops(_State(frozenset(edits), frozenset()))
        if 2 ** len(open_) > max_completions:
            raise InputError(f"{len(open_)} open possible features: too many completions "
                             "to enumerate (robustness_estimate samples them)")
        value = robustness(self.amrp, edits)
        if value is None:
            raise InputError("the robustness check ran out of budget")
        return value

    def robustness_estimate(self, edits: Iterable[LabelledEdit], *,
                            max_completions: int | None = None, precision: float | None = None,
                            confidence: float | None = None, samples: int | None = None,
                            seed: int | None = None, budget: Budget | BudgetClock | None = None,
                            progress: Progress | None = None) -> RobustnessEstimate:
        """Def. 29, exact up to ``max_completions`` completions and a seeded Monte-Carlo
        estimate with Hoeffding's interval beyond (:func:`~xaip.reconcile.robustness.
        estimate_robustness`); defaults from the explainer's settings and budget."""
        options = self.robustness_options
        return estimate_robustness(
            self.amrp, tuple(edits),
            max_completions=options.max_completions if max_completions is None
            else max_completions,
            precision=options.precision if precision is None else precision,
            confidence=options.confidence if confidence is None else confidence,
            samples=options.samples if samples is None else samples,
            seed=options.seed if seed is None else seed,
            budget=budget or self.budget, progress=progress)

    # ------------------------------------------------------------------ conformant

    def conformant(self, progress: Progress | None = None) -> ConformantExplanation:
        """The cheapest conformant explanation (uniform-cost search over edit sets)."""
        start, clock = self._start()
        tests_before = self.goal_tests
        candidates = self.candidates
        frontier: list[tuple[float, int, tuple[int, ...]]] = [(0.0, 0, ())]
        nodes = 0
        total = 2 ** len(self.amrp.possible)

        def unfinished() -> ConformantExplanation:
            return ConformantExplanation(
                edits=(), robustness=None, robustness_before=None,
                status=Status.BUDGET_EXHAUSTED, seconds=time.perf_counter() - start,
                completions=total,
                stats={"nodes": nodes, "goal_tests": self.goal_tests - tests_before})

        try:
            while frontier:
                cost, _, subset = heapq.heappop(frontier)
                if not clock.charge() or clock.out_of_time():
                    return unfinished()
                nodes += 1
                report(progress, "conformant search", nodes)
                state = _State(frozenset(candidates[i] for i in subset), frozenset())
                if self.is_explained(state):
                    edits = tuple(candidates[i] for i in subset)
                    found = ConformantExplanation(
                        edits=edits, robustness=None, robustness_before=None,
                        status=Status.FOUND, seconds=time.perf_counter() - start,
                        completions=total, annotation_cost=self.annotation_cost,
                        stats={"nodes": nodes, "goal_tests": self.goal_tests - tests_before})
                    return self._with_robustness(self._checked(found))
                last = subset[-1] if subset else -1
                for index in range(last + 1, len(candidates)):
                    heapq.heappush(frontier, (cost + self._cost(candidates[index]),
                                              len(subset) + 1, (*subset, index)))
        except _OutOfBudget:
            return unfinished()
        raise InputError("no conformant explanation exists: the plan is not optimal in every "
                         "completion even after every edit")

    def _with_robustness(self, result: ConformantExplanation) -> ConformantExplanation:
        """Fill in the robustness values (Def. 29) within what is left of the budget: exact
        by enumeration up to ``max_completions`` completions, else a sampled estimate whose
        exact-value field stays ``None`` (the estimate, with its interval, is reported in
        ``robustness_estimate``/``robustness_before_estimate``)."""
        clock = self._clock or self.budget.start()
        left = None if self.budget.max_seconds is None else \
            max(0.0, self.budget.max_seconds - clock.elapsed())
        budget = self.check_budget or Budget(max_seconds=left)
        after: RobustnessEstimate | None = None
        value: float | None = 1.0
        if result.check is None or result.check.ok is not True:
            after = self.robustness_estimate(result.edits, budget=budget)
            value = after.value if after.exact else None
        before = self.robustness_estimate((), budget=budget)
        return replace(result, robustness=value,
                       robustness_before=before.value if before.exact else None,
                       robustness_estimate=after, robustness_before_estimate=before)

    # ------------------------------------------------------------------ conditional

    def _options(self, state: _State) -> list[LabelledEdit]:
        """Edits that can still be told: known differences (including those revealed by
        answers) and unresolved possible features."""
        told = {t.edit.feature for t in state.told}
        answered = dict(state.answers)
        out = [e for e in self.known_edits if e not in state.told]
        for item in self.annotation_edits:
            feature = item.edit.feature
            if feature in told:
                continue
            if feature not in answered:
                out.append(item)
            elif answered[feature] != (feature in self._robot):
                edit = Edit(feature, "add") if feature in self._robot else Edit(feature, "remove")
                out.append(LabelledEdit(edit, f"{edit.op}-known"))
        return out

    def conditional(self, alpha: float = 1.0, max_states: int | None = None,
                    progress: Progress | None = None) -> ConditionalExplanation:
        """The cheapest question-asking policy (Def. 31) under the discounted AND cost.

        The budget bounds the search (one node per dialogue state); ``max_states`` is an
        optional extra cap (none by default: a hidden cap reported as "budget exhausted"
        would claim a budget the user did not set)."""
        if not 0.0 <= alpha <= 1.0:
            raise InputError("alpha must be in [0, 1]")
        start, clock = self._start()
        tests_before = self.goal_tests
        memo: dict[Any, tuple[float, PolicyNode]] = {}

        def value(state: _State) -> tuple[float, PolicyNode]:
            key = state.key()
            if key in memo:
                return memo[key]
            full = max_states is not None and len(memo) >= max_states
            if full or not clock.charge() or clock.out_of_time():
                raise _OutOfBudget
            report(progress, "conditional search", len(memo))
            if self.is_explained(state):
                memo[key] = (0.0, Done())
                return memo[key]
            best: tuple[float, PolicyNode] | None = None
            for item in self._options(state):
                cost, node = value(_State(state.told | {item}, state.answers))
                total = self._cost(item) + cost
                if best is None or total < best[0] - 1e-12:
                    best = (total, Tell(item, node))
            settled = {t.edit.feature for t in state.told} | {f for f, _ in state.answers}
            for possible in self.amrp.possible:
                if possible.feature in settled:
                    continue
                yes = value(_State(state.told, state.answers | {(possible.feature, True)}))
                no = value(_State(state.told, state.answers | {(possible.feature, False)}))
                low, high = sorted((yes[0], no[0]))
                total = self.question_cost + low + alpha * high
                if best is None or total < best[0] - 1e-12:
                    best = (total, Ask(possible, yes[1], no[1]))
            if best is None:
                raise InputError("no conditional explanation exists: the plan is not optimal "
                                 "in every completion even after every edit")
            memo[key] = best
            return best

        stats = {"states": 0, "goal_tests": 0}
        try:
            cost, policy = value(_State(frozenset(), frozenset()))
        except _OutOfBudget:
            stats = {"states": len(memo), "goal_tests": self.goal_tests - tests_before}
            return ConditionalExplanation(None, None, None, Status.BUDGET_EXHAUSTED,
                                          time.perf_counter() - start, stats=stats)
        stats = {"states": len(memo), "goal_tests": self.goal_tests - tests_before}
        return self._checked(ConditionalExplanation(
            policy=policy, cost=cost, expected_statements=expected_statements(policy),
            status=Status.FOUND, seconds=time.perf_counter() - start, stats=stats))

    def verify_policy(self, policy: PolicyNode) -> bool:
        """Every leaf explains the plan in every completion consistent with its answers
        (the checker's :func:`~xaip.reconcile.checks.policy_explains`)."""
        from xaip.reconcile.checks import policy_explains

        return policy_explains(self.amrp, policy) is True

    # ------------------------------------------------------------------ anytime

    def anytime(self, oracle: Callable[[Feature], bool] | Mapping[Feature, bool],
                progress: Progress | None = None) -> AnytimeExplanation:
        """Depth-first search with assumptions, confirmed by asking ``oracle`` (ch. 6.4).

        ``oracle(feature)`` answers whether the person believes a possible feature.
        Each question is asked once, so at most one per possible feature.
        """
        ask = oracle.__getitem__ if isinstance(oracle, Mapping) else oracle
        start, clock = self._start()
        tests_before = self.goal_tests
        answers: dict[Feature, bool] = {}
        asked: list[tuple[Possible, bool]] = []
        tried = 0
        while True:
            try:
                found = self._dfs(frozenset(answers.items()), clock)
            except _OutOfBudget:
                return AnytimeExplanation(
                    (), tuple(asked), Status.BUDGET_EXHAUSTED, time.perf_counter() - start,
                    stats={"solutions_tried": tried,
                           "goal_tests": self.goal_tests - tests_before})
            if found is None:
                raise InputError("no explanation exists under the answers given")
            told, assumptions = found
            tried += 1
            report(progress, "anytime search", tried)
            consistent = True
            for feature, assumed in sorted(assumptions):
                if feature in answers:
                    continue
                answer = bool(ask(feature))
                answers[feature] = answer
                asked.append((self._possible[feature], answer))
                consistent &= answer == assumed
            if consistent:
                return self._checked(AnytimeExplanation(
                    tuple(sorted(told)), tuple(asked), Status.FOUND,
                    time.perf_counter() - start,
                    stats={"solutions_tried": tried,
                           "goal_tests": self.goal_tests - tests_before}))

    def _dfs(self, answers: Answers, clock: BudgetClock
             ) -> tuple[frozenset[LabelledEdit], Answers] | None:
        """A first (not minimal) explanation: edits plus assumed answers."""
        fixed = {f for f, _ in answers}
        seen: set[Any] = set()

        def go(told: frozenset[LabelledEdit], assumed: Answers
               ) -> tuple[frozenset[LabelledEdit], Answers] | None:
            state = _State(told, answers | assumed)
            if state.key() in seen:
                return None
            seen.add(state.key())
            if not clock.charge() or clock.out_of_time():
                raise _OutOfBudget
            if self.is_explained(state):
                return told, assumed
            for item in self._options(state):
                if item.label.endswith("annot"):
                    continue  # open features are assumed, not told
                found = go(told | {item}, assumed)
                if found is not None:
                    return found
            settled = fixed | {f for f, _ in assumed}
            for possible in self.amrp.possible:
                if possible.feature in settled:
                    continue
                # Assume the likelier answer first.
                for answer in sorted((True, False),
                                     key=lambda a: -(possible.probability if a
                                                     else 1 - possible.probability)):
                    found = go(told, assumed | {(possible.feature, answer)})
                    if found is not None:
                        return found
            return None

        return go(frozenset(), frozenset())


def _has_negative_preconditions(*domains: Domain) -> bool:
    from xaip.planning.features import FeatureKind

    return any(f.kind == FeatureKind.NEGATIVE_PRECONDITION
               for d in domains for f in model_features(d))


def explain_uncertain(
    mrp: MRP | AnnotatedMRP,
    kind: str,
    *,
    budget: Budget | None = None,
    progress: Progress | None = None,
    annotations: Sequence[Possible] | str | Path | None = None,
    answers: Callable[[Feature], bool] | Mapping[Feature, bool] | None = None,
    alpha: float = 1.0,
    question_cost: float = 0.1,
    annotation_cost: float = 1.0,
    check_budget: Budget | None = None,
    engine: str | Engine = DEFAULT_ENGINE,
    robustness: RobustnessOptions | None = None,
) -> ConformantExplanation | ConditionalExplanation | AnytimeExplanation:
    """:func:`xaip.reconcile.explain` for ``conformant``, ``conditional`` and ``anytime``
    (``robustness``: how a conformant answer's robustness values are computed)."""
    if isinstance(mrp, AnnotatedMRP):
        if annotations is not None:
            raise InputError("give the annotations once: in the AnnotatedMRP or as "
                             "annotations=")
        amrp = mrp
    else:
        if annotations is None:
            raise InputError(f"{kind} explanations need annotations (possible features of "
                             "the human model)")
        possible = read_annotations(annotations, mrp.human_domain) \
            if isinstance(annotations, (str, Path)) else tuple(annotations)
        amrp = AnnotatedMRP(mrp, possible)
    explainer = ConformantExplainer(amrp, annotation_cost=annotation_cost,
                                    question_cost=question_cost,
                                    budget=budget or Budget(max_seconds=300),
                                    check_budget=check_budget, engine=engine,
                                    robustness_options=robustness or RobustnessOptions())
    if kind == "conformant":
        return explainer.conformant(progress)
    if kind == "conditional":
        return explainer.conditional(alpha=alpha, progress=progress)
    if kind == "anytime":
        if answers is None:
            raise InputError("anytime explanations ask the person: pass answers= (a callable "
                             "or a mapping from possible features to yes/no)")
        return explainer.anytime(answers, progress)
    raise InputError(f"unknown explanation type '{kind}'")
