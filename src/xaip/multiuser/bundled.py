"""The bundled firefighting example (``xaip/domains/multiuser``): a robot, a fire commander
and a police chief, and a privacy map that keeps the police's road rules private.

Why this example: it is small (five actions), so every explanation and its check take well
under a second, and the map makes a real difference: without it every user gets an
explanation; with it the commander cannot be told why the robot clears the road first.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

USERS = ("commander", "police")


def bundled_files() -> dict[str, Path]:
    """``robot``, ``problem``, ``commander``, ``police`` and ``privacy`` file paths."""
    root = resources.files("xaip") / "domains" / "multiuser"
    names = {"robot": "robot.pddl", "problem": "problem.pddl", "commander": "commander.pddl",
             "police": "police.pddl", "privacy": "privacy.json"}
    return {key: Path(str(root / name)) for key, name in names.items()}
