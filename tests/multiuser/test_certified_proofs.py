"""The multi-user checker's optimality proofs run A* with the certified LM-cut (issue 21).

LM-cut is an untrusted oracle there: the core verifies every state's cuts before they
count. The test fails if the checker goes back to a weaker heuristic or if a certificate
is rejected (a bug in LM-cut that the answers alone would not show).
"""

from __future__ import annotations

import pytest

from xaip.multiuser import User, explain_to_users
from xaip.multiuser.bundled import USERS, bundled_files
from xaip.multiuser.checks import check
from xaip.multiuser.privacy import OPEN
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, core_available, search_counts
from xaip.planning.pddl import read_domain, read_problem


@pytest.mark.skipif(not core_available(), reason="needs the compiled core")
def test_the_checker_proves_optimality_with_certified_lmcut() -> None:
    files = bundled_files()
    robot = (read_domain(files["robot"]), read_problem(files["problem"]))
    users = tuple(User(name, read_domain(files[name]), robot[1]) for name in USERS)
    result = explain_to_users(robot, users)
    assert result.verified
    before = search_counts(CERTIFIED_LMCUT)
    assert check(robot, users, result, OPEN).ok is True
    after = search_counts(CERTIFIED_LMCUT)
    assert after["searches"] > before["searches"]
    assert after["rejected"] == before["rejected"]
