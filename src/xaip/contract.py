"""The one shape every explainer follows: result, checker, registration.

Why one contract: a user learns it once and uses it everywhere; a contributor knows where a
new explainer goes; the conformance tests (``tests/test_conformance.py``, in the manner of
scikit-learn's ``parametrize_with_checks``) hold every family to it.

An explainer is a function (or small class) taking its inputs plus ``budget``, ``seed``
where it samples, and ``progress`` (:mod:`xaip.runtime.progress`), returning a **frozen
dataclass** with at least

* ``status`` — a :class:`~xaip.runtime.Status` (``found``, ``budget_exhausted``, ...);
* ``verified`` — ``True`` only when the family's independent checker confirmed the answer;
  an unfinished answer (budget exhausted) is never verified;
* ``seconds`` — wall-clock time of the call;
* ``stats`` — a mapping of effort counters (nodes, planner calls, queries, samples ...);
* ``to_dict()`` — JSON-safe, without arguments.

Each family has one checker, ``check(inputs, result) -> CheckReport``, and sets
``verified`` through :func:`with_check`. Results never print or format themselves; text,
JSON, DOT, SVG, PDDL and PNG come from :mod:`xaip.render`.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol, TypeVar, runtime_checkable

from xaip.runtime import Budget, Status


@dataclass(frozen=True)
class CheckReport:
    """What an independent checker found. ``ok`` is ``None`` when the checker itself could
    not decide (its own budget ran out); only ``ok is True`` verifies an answer."""

    ok: bool | None
    details: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "details": self.details}


@runtime_checkable
class ExplainerResult(Protocol):
    """The fields every explainer result has (see the module docstring)."""

    @property
    def status(self) -> Status: ...

    @property
    def verified(self) -> bool: ...

    @property
    def seconds(self) -> float: ...

    @property
    def stats(self) -> Mapping[str, Any]: ...

    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R")


#: The words every family uses when its checker ran out of budget before confirming an answer.
CHECKER_BUDGET = "unverified: checker budget"


def checker_budget_report(detail: str = "") -> CheckReport:
    """The report of a checker that ran out of its budget: undecided, never verified, and
    said in the same words by every family (the CLI then exits 1)."""
    return CheckReport(None, CHECKER_BUDGET + (f" ({detail})" if detail else ""))


def run_checker(check: Callable[[], CheckReport]) -> CheckReport:
    """Run ``check`` and turn a :class:`~xaip.errors.BudgetExhausted` it raises into
    :func:`checker_budget_report`.

    Why here: a checker runs under the same budget as the search it checks (the user's
    ``--max-seconds``/``--max-nodes``, started afresh), so running out is an expected
    outcome, reported alike by every family, not an internal error.
    """
    from xaip.errors import BudgetExhausted

    try:
        return check()
    except BudgetExhausted as stop:
        return checker_budget_report(str(stop))


def with_check(result: R, report: CheckReport) -> R:
    """``result`` with ``verified`` set from ``report``: true only when the checker confirmed
    it *and* the work finished (an unfinished answer is never verified)."""
    status = Status(getattr(result, "status"))  # noqa: B009 - any result type
    ok = report.ok is True and status.finished
    return dataclasses.replace(result, verified=ok)  # type: ignore[type-var]


# ---------------------------------------------------------------------- registration


@dataclass(frozen=True)
class ExplainerSpec:
    """How the conformance tests (and the workbench) run one explainer.

    ``example(budget)`` runs the explainer on a small bundled example within ``budget`` and
    returns its result; ``check(result)`` runs the family's checker on that example's
    inputs. A one-node budget must leave the example unfinished.
    """

    name: str
    family: str
    example: Callable[[Budget], Any]
    check: Callable[[Any], CheckReport]
    description: str = ""


_SPECS: dict[str, ExplainerSpec] = {}

#: Modules that register explainers when imported; a new family adds one line here.
FAMILY_MODULES = (
    "xaip.reconcile.registry",
    "xaip.summaries.registry",
    "xaip.capabilities.registry",
    "xaip.explicable.registry",
    "xaip.concepts.registry",
    "xaip.balanced.registry",
    "xaip.observers.registry",
    "xaip.unsolvable.registry",
    "xaip.foils.registry",
    "xaip.assist.registry",
    "xaip.multiuser.registry",
    "xaip.abstraction.registry",
    "xaip.modelfree.registry",
    "xaip.localmodel.registry",
)


def register_explainer(spec: ExplainerSpec) -> ExplainerSpec:
    """Add ``spec`` to the registry (idempotent per name)."""
    _SPECS[spec.name] = spec
    return spec


def import_family(module: str) -> ModuleType | None:
    """``module`` imported, or ``None`` when it or its family's package is absent from this
    checkout (a family still being built). Any other missing module is a real error and
    propagates. Shared by the registry below and the CLI's command modules."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name not in (module, module.rsplit(".", 1)[0]):
            raise
        return None


def explainers() -> list[ExplainerSpec]:
    """Every registered explainer, after importing the families that register them."""
    for module in FAMILY_MODULES:
        import_family(module)
    return [_SPECS[name] for name in sorted(_SPECS)]
