"""The foil checker's product searches run A* with the certified LM-cut (issue 21).

LM-cut is an untrusted oracle there: the core verifies every state's cuts (on the
checker's own product of task and automata) before they count. The test fails if the
checker goes back to a weaker heuristic or if a certificate is rejected.
"""

from __future__ import annotations

import pytest

from xaip.foils import explain_foils
from xaip.foils.bundled import EXAMPLE_FOILS, bundled_task
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, core_available, search_counts


@pytest.mark.skipif(not core_available(), reason="needs the compiled core")
@pytest.mark.parametrize("foils", [EXAMPLE_FOILS, "use (put-down b2)"])
def test_the_checker_proves_with_certified_lmcut(foils: str) -> None:
    domain, problem = bundled_task()
    unchecked = explain_foils(domain, problem, foils, check=False)
    before = search_counts(CERTIFIED_LMCUT)
    checked = explain_foils(domain, problem, foils)
    after = search_counts(CERTIFIED_LMCUT)
    assert checked.verified and checked.realisable == unchecked.realisable
    # the search uses plain LM-cut: every certified search here is the checker's
    assert after["searches"] > before["searches"]
    assert after["rejected"] == before["rejected"]
