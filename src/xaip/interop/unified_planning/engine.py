"""xaip as a unified-planning engine: ``OneshotPlanner`` and ``PlanValidator``.

Two engines, named as unified-planning names its planners: ``xaip`` (satisficing: GBFS with
h_FF and preferred operators) and ``xaip-opt`` (optimal: A* with LM-cut). Both validate plans.

Every answer is checked as ``xaip plan`` checks its own (:func:`xaip.planning.check.check_plan`:
the plan replayed on the lifted model, optimality and unsolvability proved by uniform-cost
search on a fresh grounding, never the search that found the answer), under the same
budget (``timeout`` seconds, ``max_nodes``) started afresh. The status claims only what the
checker confirmed: ``SOLVED_OPTIMALLY`` needs the optimality proof; when the checker's
budget runs out first the answer is ``SOLVED_SATISFICING`` (the plan was replayed) and the
log says "unverified: checker budget". The metrics say ``verified`` and what was checked.
The check shares the converted model with the search (:mod:`.convert`), so every plan is
also validated by unified-planning's own ``SequentialPlanValidator`` on the UP problem
itself (a refusal or another price is ``INTERNAL_ERROR``); optimality and unsolvability
proofs rest on the converted model, whose conversion the tests compare with UP's validator.
"""

from __future__ import annotations

import warnings
from typing import IO, Any, ClassVar

from unified_planning.engines import (  # type: ignore[import-untyped]
    Engine,
    LogLevel,
    LogMessage,
    PlanGenerationResult,
    PlanGenerationResultStatus,
    ValidationResult,
    ValidationResultStatus,
)
from unified_planning.engines.mixins import (  # type: ignore[import-untyped]
    OneshotPlannerMixin,
    OptimalityGuarantee,
    PlanValidatorMixin,
)
from unified_planning.engines.results import FailedValidationReason  # type: ignore[import-untyped]
from unified_planning.model import ProblemKind  # type: ignore[import-untyped]
from unified_planning.model.metrics import MinimizeActionCosts, MinimizeSequentialPlanLength  # type: ignore[import-untyped]
from unified_planning.plans import PlanKind  # type: ignore[import-untyped]

from xaip.errors import InputError, UnsupportedFeature
from xaip.interop.unified_planning.convert import (
    UPModel,
    _drop_place,
    as_up_plan,
    from_up,
    from_up_plan,
)
from xaip.interop.unified_planning.kind import supported_kind
from xaip.planning.check import check_plan
from xaip.planning.engines import DEFAULT_ENGINE, engine_names
from xaip.planning.engines.builtin import choose
from xaip.planning.planner import plan_model
from xaip.planning.plans import validate
from xaip.planning.search.result import PlanResult
from xaip.runtime import Budget, Status

__all__ = ["XaipOptimalPlanner", "XaipPlanner"]

_RESULT = PlanGenerationResultStatus


class XaipPlanner(Engine, OneshotPlannerMixin, PlanValidatorMixin):
    """xaip's satisficing planner and plan validator, for unified-planning's factory.

    Parameters (``OneshotPlanner(name="xaip", params={...})``): ``search`` and
    ``heuristic`` (xaip's names, as ``xaip plan --search/--heuristic``), ``engine``
    (``default``, ``builtin`` or ``compiled``) and ``max_nodes`` (a node budget for the
    search and, afresh, for its checker).
    """

    OPTIMAL: ClassVar[bool] = False
    NAME: ClassVar[str] = "xaip"

    def __init__(self, search: str | None = None, heuristic: str | None = None,
                 engine: str = DEFAULT_ENGINE, max_nodes: int | None = None) -> None:
        Engine.__init__(self)
        OneshotPlannerMixin.__init__(self)
        if max_nodes is not None and (not isinstance(max_nodes, int) or max_nodes < 1):
            raise InputError(f"max_nodes must be a positive integer, not {max_nodes!r}")
        # wrong parameters are refused when the planner is made, not at its first solve
        if engine not in engine_names():
            raise InputError(f"unknown xaip engine {engine!r}; use one of "
                             f"{', '.join(engine_names())}")
        if engine in ("builtin", "compiled", DEFAULT_ENGINE):
            choose(self.OPTIMAL, search, heuristic)
        elif search is not None or heuristic is not None:
            raise InputError(f"search and heuristic configure xaip's own engines, not "
                             f"{engine!r}")
        self._search, self._heuristic = search, heuristic
        self._engine, self._max_nodes = engine, max_nodes

    @property
    def name(self) -> str:
        return self.NAME

    @staticmethod
    def supported_kind() -> ProblemKind:
        return supported_kind()

    @staticmethod
    def supports(problem_kind: ProblemKind) -> bool:
        return bool(problem_kind <= supported_kind())

    @staticmethod
    def supports_plan(plan_kind: PlanKind) -> bool:
        return bool(plan_kind == PlanKind.SEQUENTIAL_PLAN)

    @classmethod
    def satisfies(cls, optimality_guarantee: OptimalityGuarantee) -> bool:
        return cls.OPTIMAL or optimality_guarantee == OptimalityGuarantee.SATISFICING

    # -- OneshotPlanner ------------------------------------------------------------------

    def _solve(self, problem: Any, heuristic: Any = None, timeout: float | None = None,
               output_stream: IO[str] | None = None) -> PlanGenerationResult:
        if heuristic is not None:
            warnings.warn("xaip uses its own heuristics; the given heuristic is ignored",
                          stacklevel=3)
        if timeout is not None and timeout <= 0:
            raise InputError(f"timeout must be positive, not {timeout!r}")
        budget = Budget(max_nodes=self._max_nodes, max_seconds=timeout)
        try:
            model = from_up(problem)
            result = plan_model(model.domain, model.problem, optimal=self.OPTIMAL,
                                search=self._search, heuristic=self._heuristic,
                                engine=self._engine, budget=budget)
        except UnsupportedFeature as error:  # found in the model or while grounding it
            message = f"unified-planning problem '{problem.name}': {_drop_place(str(error))}"
            return self._result(_RESULT.UNSUPPORTED_PROBLEM, None, message, LogLevel.ERROR)
        answer = self._checked(model, result, budget)
        if output_stream is not None:
            output_stream.write(f"xaip: {answer.status.name}; "
                                f"{answer.metrics.get('check', '')}\n")
        return answer

    def _checked(self, model: UPModel, result: PlanResult, budget: Budget
                 ) -> PlanGenerationResult:
        metrics = {"engine": result.engine, "search": result.search,
                   "heuristic": result.heuristic, "expanded": str(result.expanded),
                   "seconds": f"{result.seconds:.3f}"}
        if result.status == Status.BUDGET_EXHAUSTED:
            return self._result(_RESULT.TIMEOUT, None, "budget exhausted (timeout or "
                                "max_nodes) before an answer", LogLevel.INFO, metrics)
        report = check_plan(model.domain, model.problem, result, None, budget)
        metrics.update(verified=str(report.ok is True).lower(), check=report.details)
        if report.ok is False:
            return self._result(_RESULT.INTERNAL_ERROR, None, "xaip's checker refuted the "
                                f"answer (a bug, please report it): {report.details}",
                                LogLevel.ERROR, metrics)
        if result.status == Status.UNSOLVABLE:
            status = _RESULT.UNSOLVABLE_PROVEN if report.ok else _RESULT.UNSOLVABLE_INCOMPLETELY
            return self._result(status, None, report.details, LogLevel.INFO, metrics)
        metrics["cost"] = str(result.cost)
        plan = as_up_plan(result, model)
        refuted = _refuted_by_up(model.source, plan, result.cost)
        if refuted:
            metrics["verified"] = "false"
            return self._result(_RESULT.INTERNAL_ERROR, None, "unified-planning's own "
                                f"validator refutes the plan (a conversion bug, please report "
                                f"it): {refuted}", LogLevel.ERROR, metrics)
        metrics["check"] += "; valid for unified-planning's own validator"
        # the optimal status only when the checker proved it
        status = (_RESULT.SOLVED_OPTIMALLY if result.optimal and report.ok
                  else _RESULT.SOLVED_SATISFICING)
        level = LogLevel.INFO if report.ok else LogLevel.WARNING
        return self._result(status, plan, report.details, level, metrics)

    def _result(self, status: PlanGenerationResultStatus, plan: Any, message: str,
                level: LogLevel, metrics: dict[str, str] | None = None
                ) -> PlanGenerationResult:
        return PlanGenerationResult(status, plan, self.name, metrics=metrics or {},
                                    log_messages=[LogMessage(level, message)])

    # -- PlanValidator -------------------------------------------------------------------

    def _validate(self, problem: Any, plan: Any) -> ValidationResult:
        try:
            model = from_up(problem)
        except UnsupportedFeature as error:
            return ValidationResult(ValidationResultStatus.UNKNOWN, self.name,
                                    [LogMessage(LogLevel.ERROR, str(error))])
        steps = from_up_plan(plan, model)
        replay = validate(model.domain, model.problem, steps)
        log = [LogMessage(LogLevel.INFO, replay.reason or "valid")]
        if replay.valid:
            return ValidationResult(ValidationResultStatus.VALID, self.name, log,
                                    metric_evaluations=_metrics(problem, replay.cost,
                                                                len(steps)))
        failed = replay.failed_step
        if failed is not None and failed < len(steps):
            return ValidationResult(ValidationResultStatus.INVALID, self.name, log,
                                    reason=FailedValidationReason.INAPPLICABLE_ACTION,
                                    inapplicable_action=plan.actions[failed])
        return ValidationResult(ValidationResultStatus.INVALID, self.name, log,
                                reason=FailedValidationReason.UNSATISFIED_GOALS)


def _refuted_by_up(problem: Any, plan: Any, cost: int | None) -> str:
    """Why unified-planning's own sequential validator rejects ``plan`` (or prices it other
    than ``cost``); empty when it agrees. It reads the UP problem directly, so it checks
    the conversion that xaip's own checker shares with the search."""
    from unified_planning.engines.plan_validator import (  # type: ignore[import-untyped]
        SequentialPlanValidator,
    )

    validator = SequentialPlanValidator(environment=problem.environment)
    validator.skip_checks = True  # the kind was checked when the problem was converted
    verdict = validator.validate(problem, plan)
    if verdict.status != ValidationResultStatus.VALID:
        return f"{verdict.status.name} ({verdict.reason.name if verdict.reason else ''})"
    values = list((verdict.metric_evaluations or {}).values())
    if cost is not None and values and values != [cost]:
        return f"it prices the plan {values[0]}, xaip {cost}"
    return ""


def _metrics(problem: Any, cost: int, length: int) -> dict[Any, int]:
    """The value of each quality metric xaip prices (action costs, plan length)."""
    out: dict[Any, int] = {}
    for metric in problem.quality_metrics:
        if isinstance(metric, MinimizeActionCosts):
            out[metric] = cost
        elif isinstance(metric, MinimizeSequentialPlanLength):
            out[metric] = length
    return out


class XaipOptimalPlanner(XaipPlanner):
    """xaip's optimal planner (A* with LM-cut by default), checked by uniform-cost search."""

    OPTIMAL = True
    NAME = "xaip-opt"
