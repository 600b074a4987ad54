"""A silent HiGHS solver, for the families that solve 0/1 programs (observers' mixed
behaviour, reconciliation against an empty model).

Why here: HiGHS prints a banner on file descriptor 1 when its first instance is made,
which would corrupt ``--json`` output; every user needs the same guard, so it lives once.
"""

from __future__ import annotations

import os
import sys
from typing import Any


def quiet_highs() -> Any:
    """A ``highspy.Highs`` with output off, its creation banner sent to /dev/null."""
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as sink:
            os.dup2(sink.fileno(), 1)
            solver = highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    solver.setOptionValue("output_flag", False)
    return solver
