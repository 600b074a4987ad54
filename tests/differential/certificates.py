"""Rejected LM-cut certificates as a disagreement, for families whose checker proves
optimality with the certified LM-cut (assist, foils, multiuser, generate, unsolvable).

Why: those checkers call LM-cut as an untrusted oracle whose cuts the core verifies
(``src/xaip/_native/certify.c``); a rejected certificate cannot make an answer wrong (the
state gets h^max), so the brute-force comparison would never see it, yet it is a bug in
LM-cut. The reconciliation family's module counts them inline; this wraps a family's
``check`` so the others report them too.
"""

from __future__ import annotations

from collections.abc import Callable

from xaip.planning.engines.compiled import CERTIFIED_LMCUT, search_counts


def counting_rejections(check: Callable[[int], str | None]) -> Callable[[int], str | None]:
    """``check`` that also reports LM-cut certificates rejected while it ran."""

    def checked(seed: int) -> str | None:
        before = search_counts(CERTIFIED_LMCUT)["rejected"]
        found = check(seed)
        failed = search_counts(CERTIFIED_LMCUT)["rejected"] - before
        if not failed:
            return found
        rejected = f"{failed} LM-cut certificate(s) rejected by the checker's A*"
        return rejected if found is None else f"{found}; {rejected}"

    checked.__doc__ = check.__doc__
    checked.__name__ = getattr(check, "__name__", "check")
    return checked
