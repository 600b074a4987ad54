"""The lattice of abstractions the person may hold (U07), and reading a list of levels.

A *level* is the set of predicates the person does not know; the projection without them
(:func:`~xaip.abstraction.projection.project`) is her model. By default the lattice is every
subset of the hideable predicates, ordered by inclusion (the concrete model at the bottom,
the model that knows none of them at the top); a file can instead list the levels that are
plausible (e.g. novice, operator, engineer), one a line.

Why a cap: the lattice doubles with every hideable predicate and localisation looks at each
level, so more than :data:`MAX_HIDEABLE` predicates is refused with one line (list the
plausible levels in a file instead).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from xaip.errors import InputError

#: At most this many hideable predicates for the full subset lattice (1,024 levels).
MAX_HIDEABLE = 10
#: At most this many levels in a levels file.
MAX_LEVELS = 1024

Level = frozenset[str]


def subset_lattice(hideable: Sequence[str]) -> tuple[Level, ...]:
    """Every subset of ``hideable``, smallest first, each size in hide order."""
    if len(hideable) > MAX_HIDEABLE:
        raise InputError(f"{len(hideable)} hideable predicates make {2 ** len(hideable)} "
                         f"levels; at most {MAX_HIDEABLE} (or list the plausible levels in a "
                         "levels file)")
    return tuple(frozenset(c) for k in range(len(hideable) + 1)
                 for c in itertools.combinations(hideable, k))


def parse_levels(text: str, file: str = "<levels>") -> tuple[tuple[str, ...], tuple[Level, ...]]:
    """The hideable predicates (in order of first mention) and the levels of a levels file:
    one level a line, the predicates it hides separated by spaces or commas (``-`` for the
    concrete model); ``;`` and ``#`` start comments."""
    order: dict[str, None] = {}
    levels: list[Level] = []
    seen: dict[Level, int] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = re.split(r"[;#]", raw, maxsplit=1)[0].strip()
        if not line:
            continue
        words = [w.strip("()").lower() for w in re.split(r"[\s,]+", line) if w.strip("()")]
        if words == ["-"]:
            words = []
        bad = [w for w in words if not re.fullmatch(r"[a-z][a-z0-9_\-]*", w)]
        if bad:
            raise InputError(f"{file}:{number}: {bad[0]!r} is not a predicate name")
        level = frozenset(words)
        if level in seen:
            raise InputError(f"{file}:{number}: the same level as line {seen[level]}")
        seen[level] = number
        levels.append(level)
        order.update(dict.fromkeys(words))
        if len(levels) > MAX_LEVELS:
            raise InputError(f"{file}:{number}: more than {MAX_LEVELS} levels")
    if not levels:
        raise InputError(f"{file}: no levels (one a line: the predicates it hides, '-' for "
                         "none)")
    return tuple(order), tuple(levels)
