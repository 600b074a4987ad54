"""The reconciliation explainers, registered for the conformance tests and the workbench.

Why bundled examples: each spec runs its explainer on a model small enough to finish,
verified, in well under a second (the book's Fetch robot for the known-model types, its
search-and-rescue robot with four annotated possible features for the uncertain ones),
yet large enough that a one-node budget (``Budget(max_nodes=1)``) leaves it unfinished.
The MRPs are read once, without a budget; only the explanation runs under the spec's.
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.contract import CheckReport, ExplainerSpec, register_explainer
from xaip.reconcile.annotated import AnnotatedMRP, read_annotations
from xaip.reconcile.checks import check
from xaip.reconcile.explain import explain
from xaip.reconcile.goals import parse_foil
from xaip.reconcile.problem import MRP, load_mrp
from xaip.runtime import Budget


def _folder(name: str) -> Path:
    return Path(str(resources.files("xaip") / "domains" / name))


@cache
def fetch_mrp() -> MRP:
    """The book's Fetch example: the robot tucks its hand before moving (ch. 5)."""
    folder = _folder("fetch")
    return load_mrp(folder / "robot.pddl", folder / "human.pddl", folder / "problem.pddl")


@cache
def usar_mrp() -> AnnotatedMRP:
    """The book's search-and-rescue example with four possible features (ch. 6)."""
    folder = _folder("usar")
    mrp = load_mrp(folder / "robot.pddl", folder / "human.pddl", folder / "problem.pddl",
                   folder / "plan.txt", folder / "human-problem.pddl")
    return AnnotatedMRP(mrp, read_annotations(folder / "annotations.txt", mrp.human_domain))


def _known(kind: str, **options: Any) -> ExplainerSpec:
    def example(budget: Budget) -> Any:
        return explain(fetch_mrp(), kind, budget=budget, **options)

    def checker(result: Any) -> CheckReport:
        return check(fetch_mrp(), result)

    return ExplainerSpec(name=f"reconcile.{kind}", family="reconcile", example=example,
                         check=checker,
                         description=f"{kind.upper()} model-reconciliation explanation of "
                                     "the Fetch robot's plan")


def _uncertain(kind: str, **options: Any) -> ExplainerSpec:
    def example(budget: Budget) -> Any:
        return explain(usar_mrp(), kind, budget=budget, **options)

    def checker(result: Any) -> CheckReport:
        return check(usar_mrp(), result)

    return ExplainerSpec(name=f"reconcile.{kind}", family="reconcile", example=example,
                         check=checker,
                         description=f"{kind} explanation for an annotated (uncertain) human "
                                     "model: the search-and-rescue robot")


for _spec in (
    _known("mce"),
    _known("mme"),
    _known("approx"),
    _known("contrastive", foils=(parse_foil("avoid:tuck"),)),
    _uncertain("conformant"),
    _uncertain("conditional", alpha=0.0),
    _uncertain("anytime", answers=lambda feature: False),
):
    register_explainer(_spec)
