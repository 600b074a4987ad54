"""What the reconciliation explainers return: plain frozen data, one class per answer kind.

Why a module of its own: the searches (:mod:`.explain`, :mod:`.conformant`), the checker
(:mod:`.checks`) and the renderers (:mod:`xaip.render.reconcile`) all read these types, and
none of them should import the others to do so. Every result follows
:mod:`xaip.contract`: ``status`` (a :class:`~xaip.runtime.Status`), ``verified`` (set only
by :func:`xaip.contract.with_check`), ``seconds``, ``stats`` (effort counters) and a
JSON-safe ``to_dict()``. Results never format themselves: see :func:`xaip.render.render`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from xaip.contract import CheckReport
from xaip.planning.engines import DEFAULT_ENGINE
from xaip.planning.features import Edit, Feature
from xaip.planning.features.sentences import sentence
from xaip.planning.semantics import STEP_NUMBERING
from xaip.reconcile.annotated import Possible
from xaip.reconcile.goals import Foil
from xaip.reconcile.robustness import RobustnessEstimate
from xaip.runtime import Status


def edit_text(edit: Edit) -> str:
    """The sentence that tells a person this edit of their model."""
    return sentence(edit.feature, negated=edit.op == "remove")


def _estimate_dict(estimate: RobustnessEstimate | None) -> dict[str, Any] | None:
    return None if estimate is None else estimate.to_dict()


def _check_dict(report: CheckReport | None) -> dict[str, Any] | None:
    return None if report is None else report.to_dict()


@dataclass(frozen=True)
class Explanation:
    """A set of model edits that explains the robot's plan to the human (book ch. 5).

    ``complete`` is what the search established about the updated human model: ``True``
    (the plan is valid and optimal there), ``False``, or ``None`` when the budget ran out
    before it could tell. ``verified`` is ``True`` only when the independent checker
    (:func:`xaip.reconcile.checks.check`) confirmed a *finished* answer.
    """

    type: str
    edits: tuple[Edit, ...]
    plan: tuple[str, ...]
    plan_cost: int
    human_plan_cost_before: int | None  # the robot plan's cost in the human model (None: invalid)
    human_optimal_cost_before: int | None
    complete: bool | None
    status: Status
    seconds: float
    verified: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    difference_size: int = 0
    grounded: bool = False
    foils: tuple[Foil, ...] = ()
    engine: str = DEFAULT_ENGINE
    updated_domain: str | None = field(default=None, repr=False)
    #: A plan the human model found cheaper than the robot's before the explanation (the
    #: plan the person expects), and what becomes of it in the updated model.
    expected_plan: tuple[str, ...] = ()
    expected_plan_cost: int | None = None
    expected_plan_after: str = ""
    check: CheckReport | None = None
    #: The edit costs the search minimised (lifted feature -> cost; others cost 1), so the
    #: checker proves minimality under the same costs.
    edit_costs: tuple[tuple[Feature, int], ...] = field(default=(), repr=False)

    @property
    def size(self) -> int:
        return len(self.edits)

    def sentences(self) -> list[str]:
        return [edit_text(e) for e in self.edits]

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "status": str(self.status),
            "verified": self.verified,
            "complete": self.complete,
            "edits": [{"op": e.op, "feature": e.feature.to_dict(), "text": edit_text(e)}
                      for e in self.edits],
            "size": self.size,
            "plan": [f"({step})" for step in self.plan],
            "plan_cost": self.plan_cost,
            "human_plan_cost_before": self.human_plan_cost_before,
            "human_optimal_cost_before": self.human_optimal_cost_before,
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "difference_size": self.difference_size,
            "grounded": self.grounded,
            "engine": self.engine,
            "foils": [f.text for f in self.foils],
            "updated_domain": self.updated_domain,
            "expected_plan": [f"({step})" for step in self.expected_plan],
            "expected_plan_cost": self.expected_plan_cost,
            "expected_plan_after": self.expected_plan_after,
            "check": _check_dict(self.check),
            **STEP_NUMBERING,
        }


# --------------------------------------------------------------------------- uncertain models


@dataclass(frozen=True, order=True)
class LabelledEdit:
    """An edit with its book label (``add-known``, ``remove-annot``, ...)."""

    edit: Edit
    label: str

    @property
    def text(self) -> str:
        return edit_text(self.edit)

    def to_dict(self) -> dict[str, Any]:
        return {**self.edit.to_dict(), "label": self.label}


@dataclass(frozen=True)
class ConformantExplanation:
    """Edits after which the plan is optimal in every completion (book Def. 30).

    ``robustness`` (Def. 29) is recomputed by the checker by enumerating completions;
    ``None`` when the search did not finish.
    """

    edits: tuple[LabelledEdit, ...]
    robustness: float | None
    robustness_before: float | None
    status: Status
    seconds: float
    completions: int
    verified: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    check: CheckReport | None = None
    #: What telling a possible feature costs (a known edit costs 1): what was minimised.
    annotation_cost: float = 1.0
    #: How the robustness values were obtained (U02): exact, or a sampled estimate with its
    #: Hoeffding interval (then ``robustness``/``robustness_before`` stay ``None``).
    robustness_estimate: RobustnessEstimate | None = None
    robustness_before_estimate: RobustnessEstimate | None = None

    @property
    def size(self) -> int:
        return len(self.edits)

    def to_dict(self) -> dict[str, Any]:
        return {"type": "conformant", "status": str(self.status), "verified": self.verified,
                "edits": [e.to_dict() for e in self.edits], "size": self.size,
                "robustness": self.robustness, "robustness_before": self.robustness_before,
                "robustness_estimate": _estimate_dict(self.robustness_estimate),
                "robustness_before_estimate": _estimate_dict(self.robustness_before_estimate),
                "completions": self.completions, "seconds": round(self.seconds, 6),
                "stats": dict(self.stats), "check": _check_dict(self.check)}


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


@dataclass(frozen=True)
class ConditionalExplanation:
    """A question-asking policy (book Def. 31); ``policy`` is ``None`` when unfinished."""

    policy: PolicyNode | None
    cost: float | None
    expected_statements: float | None
    status: Status
    seconds: float
    verified: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    check: CheckReport | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": "conditional", "status": str(self.status), "verified": self.verified,
                "policy": None if self.policy is None else self.policy.to_dict(),
                "cost": self.cost, "expected_statements": self.expected_statements,
                "seconds": round(self.seconds, 6), "stats": dict(self.stats),
                "check": _check_dict(self.check)}


@dataclass(frozen=True)
class AnytimeExplanation:
    """Edits found by depth-first search with assumptions, and the questions asked."""

    edits: tuple[LabelledEdit, ...]
    questions: tuple[tuple[Possible, bool], ...]
    status: Status
    seconds: float
    verified: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    check: CheckReport | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"type": "anytime", "status": str(self.status), "verified": self.verified,
                "edits": [e.to_dict() for e in self.edits],
                "questions": [{**p.to_dict(), "answer": a} for p, a in self.questions],
                "seconds": round(self.seconds, 6), "stats": dict(self.stats),
                "check": _check_dict(self.check)}


# --------------------------------------------------------------------------- dialogues


@dataclass(frozen=True)
class Round:
    """One exchange: the explanation given, and the edit the person vetoed (if any)."""

    explanation: Explanation
    vetoed: Edit | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "explanation": self.explanation.to_dict(),
            "vetoed": None if self.vetoed is None else edit_text(self.vetoed),
        }


@dataclass(frozen=True)
class Dialogue:
    """A decision-support dialogue with vetoes (book ch. 10): its rounds so far.

    ``status`` and ``verified`` are those of the last round; a dialogue that stopped because
    a round ran out of budget says so and is not verified.
    """

    rounds: tuple[Round, ...]
    status: Status
    seconds: float
    verified: bool = False
    stats: Mapping[str, int | float] = field(default_factory=dict)
    stopped: str = ""  # why the dialogue ended early (a round ran out of budget)

    @property
    def current(self) -> Explanation:
        return self.rounds[-1].explanation

    def to_dict(self) -> dict[str, Any]:
        return {"type": "dialogue", "status": str(self.status), "verified": self.verified,
                "rounds": [r.to_dict() for r in self.rounds], "stopped": self.stopped,
                "seconds": round(self.seconds, 6), "stats": dict(self.stats)}


#: Every result type of the reconciliation family.
RESULT_TYPES = (Explanation, ConformantExplanation, ConditionalExplanation,
                AnytimeExplanation, Dialogue)
