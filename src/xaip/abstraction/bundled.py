"""The bundled abstraction example: a one-armed robot stacking blocks, explained to a person
who does not track which blocks are clear, whether the hand is empty or what it holds."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import PlanStep

#: The predicates the person of the example does not know.
HIDDEN = ("clear", "handempty", "holding")


def bundled_files() -> dict[str, Path]:
    """``domain``, ``problem`` and the person's two foils, ``lift-a`` and ``keep-c``."""
    root = resources.files("xaip") / "domains" / "abstraction"
    return {key: Path(str(root / name)) for key, name in
            (("domain", "domain.pddl"), ("problem", "problem.pddl"),
             ("lift-a", "lift-a.plan.txt"), ("keep-c", "keep-c.plan.txt"))}


def bundled_task() -> tuple[Domain, Problem, dict[str, tuple[PlanStep, ...]]]:
    """The robot's model and the person's foils, by name."""
    from xaip.planning.pddl import read_domain, read_problem
    from xaip.planning.plans import read_plan

    files = bundled_files()
    foils = {name: read_plan(files[name]) for name in ("lift-a", "keep-c")}
    return read_domain(files["domain"]), read_problem(files["problem"]), foils
