"""The truck of book §9.2 (Figure 9.3), recreated: one plan legible to a friend, obscure
to an adversary.

Four packages wait at two factories (a1, a2 at A; b1, b2 at B); the candidate goals are
the six pairs (``goals.json``). The cooperative observer C reads barcodes and learns the
factory of each loaded package (token ``load|fa``); the adversary X only learns that a
package was loaded (token ``load``), see ``observers.json``. Loading a1 then a2 leaves C
one goal and X all six: GD = (6 − 1)/5 = 1; loading one package from each factory leaves
C four: GD = 0.4.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
DOMAIN = HERE / "domain.pddl"
PROBLEM = HERE / "problem.pddl"
OBSERVERS = HERE / "observers.json"
GOALS = HERE / "goals.json"


def load(true_goal: str | None = None) -> tuple[Any, Any, Any]:
    """(task, observers, goal set) of the truck; ``true_goal`` names another true goal
    (``"a1-b1"`` for the one-from-each setting)."""
    from xaip.observers import load_goals, load_observers
    from xaip.planning import ground, read_domain, read_problem

    domain = read_domain(DOMAIN)
    task = ground(domain, read_problem(PROBLEM))
    goals = load_goals(GOALS, task)
    if true_goal is not None:
        goals = goals.with_true(true_goal)
    return task, load_observers(OBSERVERS, task, domain), goals
