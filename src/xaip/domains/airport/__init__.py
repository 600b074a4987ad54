"""The travel-to-the-airport example of the TLdR paper, bundled for ``xaip summarize``.

Why bundled: it is the paper's running example (figure 1), small enough to read whole,
and its good policy has subgoals (station 1, the shuttle station) that are not forced by
the task, which is what policy summaries are for. ``PHRASES`` says its facts in English.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

#: How to say each predicate as an imperative ("get to station 1").
PHRASES: dict[str, str] = {
    "at": "get to {0}",
    "boarded": "board {0}",
    "passed-security": "pass security",
    "taxi-waiting": "have a taxi waiting",
}


def airport_paths() -> tuple[Path, Path]:
    """Paths of the bundled domain and problem files."""
    folder = Path(str(resources.files("xaip") / "domains" / "airport"))
    return folder / "domain.pddl", folder / "problem.pddl"
