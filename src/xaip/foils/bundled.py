"""The bundled foil example: the 5-block blocksworld and a person's four requests."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from xaip.planning.pddl.model import Domain, Problem

#: Four requests on ``blocksworld/problem-5.pddl``; 1 and 2, and 2 and 4, cannot hold together.
EXAMPLE_FOILS = """\
use (put-down b2)                                     ; b2 goes on the table at some point
never (pick-up ?x) after (put-down b2)                ; and after that, nothing is picked up
sequence (unstack b1 b2) (put-down b1) (unstack b2 b3) ; start by taking the tower apart
(stack b4 b3) then (put-down b2)                      ; b2 is put down after b4 is on b3
"""


def bundled_files() -> dict[str, Path]:
    """``domain`` and ``problem`` of the example (the bundled 5-block blocksworld)."""
    root = resources.files("xaip") / "domains" / "blocksworld"
    return {key: Path(str(root / name)) for key, name in
            (("domain", "domain.pddl"), ("problem", "problem-5.pddl"))}


def bundled_task() -> tuple[Domain, Problem]:
    from xaip.planning.pddl import read_domain, read_problem

    files = bundled_files()
    return read_domain(files["domain"]), read_problem(files["problem"])
