"""Explanations for an uncertain human model: conformant, conditional and anytime (ch. 6).

* :meth:`ConformantExplainer.conformant` — the cheapest edit set after which the plan is
  optimal in *every* completion of the annotated human model (book Def. 30). The goal
  test uses the two representative models of Prop. 7: the plan must be optimal in M_max
  (possible adds and init facts realised) and valid in M_min (possible preconditions,
  deletes and goals realised). Where Prop. 7 does not apply (negative preconditions,
  conditional effects), the test enumerates the completions instead.
* :meth:`ConformantExplainer.robustness` — the probability mass of completions in which an
  edit set explains the plan (Def. 29), computed by checking every completion with the
  independent :func:`~xaip.reconcile.checks.is_complete`. It is the checker of the other
  two: a conformant explanation has robustness 1.
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
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.errors import InputError
from xaip.planning.features import Edit, Feature, model_diff, model_features
from xaip.planning.features.sentences import sentence
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.planner import plan_task
from xaip.planning.plans import validate
from xaip.reconcile.annotated import (
    RELAXING_KINDS,
    AnnotatedMRP,
    Possible,
    completions,
)
from xaip.reconcile.checks import is_complete
from xaip.runtime import Budget

Answers = frozenset[tuple[Feature, bool]]


@dataclass(frozen=True, order=True)
class LabelledEdit:
    """An edit with its book label (``add-known``, ``remove-annot``, ...)."""

    edit: Edit
    label: str

    @property
    def text(self) -> str:
        return sentence(self.edit.feature, negated=self.edit.op == "remove")

    def to_dict(self) -> dict[str, Any]:
        return {**self.edit.to_dict(), "label": self.label}


@dataclass(frozen=True)
class ConformantExplanation:
    edits: tuple[LabelledEdit, ...]
    robustness: float
    robustness_before: float
    verified: bool
    nodes: int
    goal_tests: int
    seconds: float
    completions: int

    @property
    def size(self) -> int:
        return len(self.edits)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "conformant", "edits": [e.to_dict() for e in self.edits],
                "size": self.size, "robustness": self.robustness,
                "robustness_before": self.robustness_before, "verified": self.verified,
                "nodes": self.nodes, "goal_tests": self.goal_tests, "seconds": self.seconds,
                "completions": self.completions}

    def describe(self) -> str:
        lines = [f"Conformant explanation ({self.size} edit(s); robustness "
                 f"{self.robustness_before:.3g} -> {self.robustness:.3g}, "
                 f"{'verified' if self.verified else 'NOT verified'}):"]
        lines += [f"  [{e.label}] {e.text}" for e in self.edits]
        return "\n".join(lines)


# --------------------------------------------------------------------------- policies


@dataclass(frozen=True)
class Done:
    """The plan is explained in every completion consistent with the answers so far."""

    def to_dict(self) -> dict[str, Any]:
        return {"node": "done"}


@dataclass(frozen=True)
class Tell:
    edit: LabelledEdit
    then: PolicyNode

    def to_dict(self) -> dict[str, Any]:
        return {"node": "tell", "edit": self.edit.to_dict(), "then": self.then.to_dict()}


@dataclass(frozen=True)
class Ask:
    question: Possible
    yes: PolicyNode
    no: PolicyNode

    def to_dict(self) -> dict[str, Any]:
        return {"node": "ask", "question": self.question.to_dict(),
                "yes": self.yes.to_dict(), "no": self.no.to_dict()}


PolicyNode = Done | Tell | Ask


def expected_statements(node: PolicyNode) -> float:
    """Expected number of ``Tell`` statements, answers drawn from the annotations' p."""
    if isinstance(node, Done):
        return 0.0
    if isinstance(node, Tell):
        return 1.0 + expected_statements(node.then)
    p = node.question.probability
    return p * expected_statements(node.yes) + (1 - p) * expected_statements(node.no)


def policy_lines(node: PolicyNode, indent: str = "") -> list[str]:
    """The policy as an indented dialogue script."""
    if isinstance(node, Done):
        return [f"{indent}done"]
    if isinstance(node, Tell):
        return [f"{indent}tell: {node.edit.text}", *policy_lines(node.then, indent)]
    return [f"{indent}ask: do you think that {node.question.text[0].lower()}"
            f"{node.question.text[1:].rstrip('.')}?",
            f"{indent}  if yes:", *policy_lines(node.yes, indent + "    "),
            f"{indent}  if no:", *policy_lines(node.no, indent + "    ")]


@dataclass(frozen=True)
class ConditionalExplanation:
    policy: PolicyNode
    cost: float
    expected_statements: float
    verified: bool
    states: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"type": "conditional", "policy": self.policy.to_dict(), "cost": self.cost,
                "expected_statements": self.expected_statements, "verified": self.verified,
                "states": self.states, "seconds": self.seconds}

    def describe(self) -> str:
        return "\n".join([f"Conditional explanation (expected statements "
                          f"{self.expected_statements:.3g}, "
                          f"{'verified' if self.verified else 'NOT verified'}):",
                          *policy_lines(self.policy, "  ")])


@dataclass(frozen=True)
class AnytimeExplanation:
    edits: tuple[LabelledEdit, ...]
    questions: tuple[tuple[Possible, bool], ...]
    solutions_tried: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"type": "anytime", "edits": [e.to_dict() for e in self.edits],
                "questions": [{**p.to_dict(), "answer": a} for p, a in self.questions],
                "solutions_tried": self.solutions_tried, "seconds": self.seconds}


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
    """Explains ``amrp.mrp.plan`` to a person whose model is only known up to annotations.

    ``annotation_cost`` is the cost of telling a possible feature (the book suggests more
    than 1 to avoid telling people what they may already believe); ``question_cost`` the
    cost of asking one question in conditional explanations.
    """

    amrp: AnnotatedMRP
    annotation_cost: float = 1.0
    question_cost: float = 0.1
    budget: Budget = field(default_factory=lambda: Budget(max_seconds=300))
    goal_tests: int = 0
    _cache: dict[Any, bool] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        mrp = self.amrp.mrp
        self._robot = model_features(mrp.robot_domain, mrp.robot_problem)
        self._possible = {p.feature: p for p in self.amrp.possible}
        difference = model_diff(mrp.human_domain, mrp.robot_domain, mrp.human_problem,
                                mrp.robot_problem)
        difference.raise_for_mismatches()
        self.known_edits = tuple(sorted(
            LabelledEdit(e, f"{e.op}-known") for e in difference.edits()
            if e.feature not in self._possible))
        self.annotation_edits = tuple(sorted(
            LabelledEdit(Edit(p.feature, "add" if p.feature in self._robot else "remove"),
                         "add-annot" if p.feature in self._robot else "remove-annot")
            for p in self.amrp.possible))
        self.candidates = self.known_edits + self.annotation_edits
        self._prop7 = not _has_negative_preconditions(mrp.human_domain, mrp.robot_domain)

    # ------------------------------------------------------------------ the model at a state

    def _ops(self, state: _State) -> tuple[list[Edit], tuple[Possible, ...]]:
        """The edits that turn the known human model into the state's known part, and the
        possible features still open."""
        told = {t.edit.feature: t for t in state.told}
        edits: list[Edit] = []
        for feature, answer in sorted(state.answers):
            if answer and feature not in told:
                edits.append(Edit(feature, "add"))
        for feature, item in sorted(told.items()):
            answered = dict(state.answers).get(feature)
            if item.edit.op == "add" or item.label == "remove-known" and answered is None:
                edits.append(item.edit)
        settled = set(told) | {f for f, _ in state.answers}
        open_ = tuple(p for p in self.amrp.possible if p.feature not in settled)
        return edits, open_

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
        check = validate(low.human_domain, low.human_problem, mrp.plan)
        if not check.valid or check.cost is None:
            return False
        high = self.amrp.completion(edits, relaxing)
        return self._none_cheaper(high.human_domain, high.human_problem, int(check.cost))

    def _optimal_in(self, edits: list[Edit], realised: frozenset[Feature]) -> bool:
        model = self.amrp.completion(edits, realised)
        check = validate(model.human_domain, model.human_problem, self.amrp.mrp.plan)
        if not check.valid or check.cost is None:
            return False
        return self._none_cheaper(model.human_domain, model.human_problem, int(check.cost))

    def _none_cheaper(self, domain: Domain, problem: Problem, cost: int) -> bool:
        result = plan_task(ground(domain, problem), optimal=True, cost_bound=cost,
                           budget=Budget(max_seconds=self.budget.max_seconds))
        if result.status == "budget_exhausted":
            raise InputError("the optimality test ran out of budget")
        return result.status == "unsolvable"

    def _cost(self, edit: LabelledEdit) -> float:
        return self.annotation_cost if edit.label.endswith("annot") else 1.0

    # ------------------------------------------------------------------ robustness (checker)

    def robustness(self, edits: Iterable[LabelledEdit], max_completions: int = 4096) -> float:
        """Def. 29 by enumeration: the likelihood mass of completions the edits explain.

        Independent of the search: each completion is rebuilt and checked with
        :func:`is_complete`.
        """
        edits = tuple(edits)
        state = _State(frozenset(edits), frozenset())
        known_edits, open_ = self._ops(state)
        if 2 ** len(open_) > max_completions:
            raise InputError(f"{len(open_)} open possible features: too many completions "
                             "to enumerate")
        total = 0.0
        for realised, weight in completions(open_):
            mrp = self.amrp.completion(known_edits, realised)
            if is_complete(mrp, ()).complete:
                total += weight
        return total

    # ------------------------------------------------------------------ conformant

    def conformant(self) -> ConformantExplanation:
        """The cheapest conformant explanation (uniform-cost search over edit sets)."""
        start, clock = time.perf_counter(), self.budget.start()
        tests_before = self.goal_tests
        candidates = self.candidates
        frontier: list[tuple[float, int, tuple[int, ...]]] = [(0.0, 0, ())]
        nodes = 0
        while frontier:
            cost, _, subset = heapq.heappop(frontier)
            nodes += 1
            if not clock.charge():
                raise InputError("no conformant explanation found within the budget")
            state = _State(frozenset(candidates[i] for i in subset), frozenset())
            if self.is_explained(state):
                edits = tuple(candidates[i] for i in subset)
                robustness = self.robustness(edits)
                return ConformantExplanation(
                    edits=edits, robustness=robustness, robustness_before=self.robustness(()),
                    verified=abs(robustness - 1.0) < 1e-9, nodes=nodes,
                    goal_tests=self.goal_tests - tests_before,
                    seconds=time.perf_counter() - start,
                    completions=2 ** len(self.amrp.possible))
            last = subset[-1] if subset else -1
            for index in range(last + 1, len(candidates)):
                heapq.heappush(frontier, (cost + self._cost(candidates[index]),
                                          len(subset) + 1, (*subset, index)))
        raise InputError("no conformant explanation exists: the plan is not optimal in every "
                         "completion even after every edit")

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

    def conditional(self, alpha: float = 1.0, max_states: int = 20000
                    ) -> ConditionalExplanation:
        """The cheapest question-asking policy (Def. 31) under the discounted AND cost."""
        if not 0.0 <= alpha <= 1.0:
            raise InputError("alpha must be in [0, 1]")
        start, clock = time.perf_counter(), self.budget.start()
        memo: dict[Any, tuple[float, PolicyNode]] = {}

        def value(state: _State) -> tuple[float, PolicyNode]:
            key = state.key()
            if key in memo:
                return memo[key]
            if len(memo) >= max_states or not clock.charge():
                raise InputError("the conditional explanation needs more states than the "
                                 "budget allows")
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

        cost, policy = value(_State(frozenset(), frozenset()))
        return ConditionalExplanation(
            policy=policy, cost=cost, expected_statements=expected_statements(policy),
            verified=self.verify_policy(policy), states=len(memo),
            seconds=time.perf_counter() - start)

    def verify_policy(self, policy: PolicyNode) -> bool:
        """Every leaf explains the plan in every completion consistent with its answers,
        checked by enumeration with :func:`is_complete` (not by the search's test)."""

        def walk(node: PolicyNode, told: frozenset[LabelledEdit], answers: Answers) -> bool:
            if isinstance(node, Tell):
                return walk(node.then, told | {node.edit}, answers)
            if isinstance(node, Ask):
                feature = node.question.feature
                return (walk(node.yes, told, answers | {(feature, True)})
                        and walk(node.no, told, answers | {(feature, False)}))
            edits, open_ = self._ops(_State(told, answers))
            return all(is_complete(self.amrp.completion(edits, realised), ()).complete
                       for realised, _ in completions(open_))

        return walk(policy, frozenset(), frozenset())

    # ------------------------------------------------------------------ anytime

    def anytime(self, oracle: Callable[[Feature], bool] | Mapping[Feature, bool]
                ) -> AnytimeExplanation:
        """Depth-first search with assumptions, confirmed by asking ``oracle`` (ch. 6.4).

        ``oracle(feature)`` answers whether the person believes a possible feature.
        Each question is asked once, so at most one per possible feature.
        """
        ask = oracle.__getitem__ if isinstance(oracle, Mapping) else oracle
        start, clock = time.perf_counter(), self.budget.start()
        answers: dict[Feature, bool] = {}
        asked: list[tuple[Possible, bool]] = []
        tried = 0
        while True:
            found = self._dfs(frozenset(answers.items()), clock)
            if found is None:
                raise InputError("no explanation exists under the answers given")
            told, assumptions = found
            tried += 1
            consistent = True
            for feature, assumed in sorted(assumptions):
                if feature in answers:
                    continue
                answer = bool(ask(feature))
                answers[feature] = answer
                asked.append((self._possible[feature], answer))
                consistent &= answer == assumed
            if consistent:
                return AnytimeExplanation(tuple(sorted(told)), tuple(asked), tried,
                                          time.perf_counter() - start)

    def _dfs(self, answers: Answers, clock: Any
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
            if not clock.charge():
                raise InputError("no anytime explanation found within the budget")
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
