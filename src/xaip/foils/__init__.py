"""Partial-plan foils (book ch. 10, RADAR-X; issue 24 item 3, features A04/A07).

A person asks "why not like this?" with several constraints at once -- actions to use or
avoid, orders, prohibitions, a partial plan (:mod:`xaip.foils.language`).
``explain_foils(domain, problem, text)`` compiles them into the task and plans optimally: a
witness plan and its cost gap to the robot's optimal plan, or, when no plan satisfies them
all, the minimal conflict sets and maximal realisable subsets; :func:`check` confirms it by
its own search. ``xaip foil DOMAIN PROBLEM FOILS`` is the command; ``docs/foils.md`` the guide.
"""

from xaip.foils.check import check
from xaip.foils.explain import explain_foils
from xaip.foils.language import Constraint, Pattern, parse_foils
from xaip.foils.results import FoilResult

__all__ = ["Constraint", "FoilResult", "Pattern", "check", "explain_foils", "parse_foils"]
