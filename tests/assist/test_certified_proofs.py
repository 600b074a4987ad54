"""The assist checker's optimality proofs run A* with the certified LM-cut (issue 21).

LM-cut is an untrusted oracle there: the core verifies every state's cuts before they
count. These tests fail if the checker goes back to a weaker heuristic (the proofs then
no longer appear in the certified LM-cut's counts) or if a certificate is rejected (a bug
in LM-cut that the answers alone would not show).
"""

from __future__ import annotations

import pytest

from xaip.assist import Assistant
from xaip.assist.check import check
from xaip.assist.registry import EXAMPLE_PREFIX, EXAMPLE_VETOES, bundled_files
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, core_available, search_counts
from xaip.planning.pddl import read_domain, read_problem


@pytest.mark.skipif(not core_available(), reason="needs the compiled core")
@pytest.mark.parametrize("mode", ["complete", "suggest"])
def test_the_checker_proves_optimality_with_certified_lmcut(mode: str) -> None:
    files = bundled_files()
    domain, problem = read_domain(files["domain"]), read_problem(files["problem"])
    helper = Assistant(domain, problem, EXAMPLE_PREFIX, EXAMPLE_VETOES)
    result = helper.complete() if mode == "complete" else helper.suggest()
    assert result.verified
    before = search_counts(CERTIFIED_LMCUT)
    assert check(domain, problem, result).ok is True
    after = search_counts(CERTIFIED_LMCUT)
    # the robot's optimum, the completion's and (suggest) the cost without the suggestion
    # and every landmark: each an A* proof with the certified LM-cut
    assert after["searches"] - before["searches"] >= (2 if mode == "complete" else 3)
    assert after["certified"] > before["certified"]
    assert after["rejected"] == before["rejected"]
