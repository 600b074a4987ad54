"""The bundled unsolvable example: a delivery map transcribed without the harbour road."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from xaip.planning.pddl.model import Domain, Problem


def bundled_files() -> dict[str, Path]:
    """``domain``, ``problem`` and ``trace`` (the attempted plan) of the example."""
    root = resources.files("xaip") / "domains" / "unsolvable"
    return {key: Path(str(root / name)) for key, name in
            (("domain", "domain.pddl"), ("problem", "problem.pddl"),
             ("trace", "attempt.plan.txt"))}


def bundled_task() -> tuple[Domain, Problem]:
    from xaip.planning.pddl import read_domain, read_problem

    files = bundled_files()
    return read_domain(files["domain"]), read_problem(files["problem"])
