"""What xaip can plan for, in unified-planning's words (``ProblemKind`` features).

Why a list kept by hand and tested: unified-planning's factory picks an engine by comparing
a problem's kind with the engine's ``supported_kind``; claiming too much hands xaip problems
it would refuse, claiming too little hides it. Every feature here is exercised by the tests
(``tests/interop``: unified-planning's own example problems, and the random problems of
``tests/differential/interop.py``). One limit the kind cannot
say: quantified or disjunctive *goals* (xaip supports them in preconditions only), and
real-valued action costs must have whole-number values; such a problem is answered
``UNSUPPORTED_PROBLEM`` with the reason.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SUPPORTED_FEATURES", "supported_kind"]

#: The classical fragment xaip grounds and searches: typed STRIPS with negative,
#: disjunctive, equality and quantified preconditions, conditional and universal effects,
#: and action costs under ``(:metric minimize (total-cost))`` (plan length otherwise).
SUPPORTED_FEATURES = frozenset({
    "ACTION_BASED",
    "FLAT_TYPING", "HIERARCHICAL_TYPING",
    "NEGATIVE_CONDITIONS", "DISJUNCTIVE_CONDITIONS", "EQUALITIES",
    "EXISTENTIAL_CONDITIONS", "UNIVERSAL_CONDITIONS",
    "CONDITIONAL_EFFECTS", "FORALL_EFFECTS",
    "ACTIONS_COST", "PLAN_LENGTH",
    "INT_NUMBERS_IN_ACTIONS_COST", "STATIC_FLUENTS_IN_ACTIONS_COST",
    # unified-planning's PDDL reader types every numeric function as real, so costs read
    # from PDDL files are "real"; xaip takes whole-number values (a fractional cost is
    # refused when grounding, answered UNSUPPORTED_PROBLEM)
    "REAL_NUMBERS_IN_ACTIONS_COST",
})


def supported_kind() -> Any:
    """:data:`SUPPORTED_FEATURES` as a ``unified_planning.model.ProblemKind``."""
    from unified_planning.model import ProblemKind  # type: ignore[import-untyped]
    from unified_planning.model.problem_kind_versioning import LATEST_PROBLEM_KIND_VERSION  # type: ignore[import-untyped]

    return ProblemKind(set(SUPPORTED_FEATURES), version=LATEST_PROBLEM_KIND_VERSION)
