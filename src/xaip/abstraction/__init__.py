"""Abstraction-based explanations (book §6.3, HELM; issue 25 rows U06 and U07).

The person's model is taken to be a *projection* of the robot's: the robot's PDDL model
without the predicates she does not know or track (:mod:`.projection`).

* :func:`explain_by_abstraction` (U06): the fewest hidden predicates to make concrete so
  that every foil she proposes fails in her model, and how each fails (which step, on
  which fact); :func:`check` confirms it without the search's pruning.
* :func:`localise` (U07): where she sits in a lattice of such abstractions, found by
  showing her plans and asking whether they are valid; :func:`check_localisation`
  confirms the answers and that the remaining levels cannot be told apart.

``xaip abstract-explain`` and ``xaip abstract-locate`` are the commands;
``docs/abstraction.md`` the guide.
"""

from xaip.abstraction.check import check
from xaip.abstraction.explain import explain_by_abstraction
from xaip.abstraction.projection import check_hideable, project
from xaip.abstraction.results import AbstractionResult, LocalisationResult, Query, Refutation

__all__ = ["AbstractionResult", "LocalisationResult", "Query", "Refutation", "check",
           "check_hideable", "explain_by_abstraction", "project"]
