"""Properties of interest: discovery asks queries only about the capabilities a user cares
about (issue 25; ``xaip discover ... --focus NAME[,NAME]``).

Why: most of a run's queries settle capabilities nobody asked about (every "walk from a
cell to the next" of a grid); a user who wants to know when the agent can take the key
should not pay for them.

What is examined. The user names capabilities (``c3``: the names a run gives, which are
the same for the same game, level, seed and settings) or predicates of the vocabulary
(``has_key``). After the traces, a capability is examined when it is named or its effects
(what it was seen to change) mention a named predicate. The capabilities *needed to reach*
them are exercised, not examined: every query asks the agent to reach its start state and
waypoints itself, as in a full run, so the agent does whatever those need. Following the
predicates a precondition may need instead examines the whole model: after the traces
almost every atom may be needed (every wall, every empty cell); measured: Zelda 4x5
focused on ``has_key`` examined 8 of 8 capabilities, Cook-Me-Pasta 4x5 on
``pasta_cooked`` 62 of 62, and following only the literals the traces settled still 7 of
8 in Zelda, where 2 of them then came out differently from the full run.

Every other capability is *not examined*: no query is asked about it, it is kept in the
model with its effects and no precondition, marked ``examined = False`` with a note, and
the checker makes no claim about it (it still explains the trace transitions it was lifted
from, Def. 5). The answers for the examined capabilities come from the same agent, store
and engine as in a full run; ``tests/capabilities/test_focus.py`` compares them with the
unfocused run's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from xaip.capabilities.model import Capability, CapabilityModel
from xaip.capabilities.pal import CapState
from xaip.errors import InputError
from xaip.vocab.core import Vocabulary

_CAP_NAME = re.compile(r"^c\d+[a-z0-9]*$")


def parse_focus(text: str | Sequence[str] | None, vocabulary: Vocabulary) -> tuple[str, ...]:
    """``"c3,has_key"`` -> ``("c3", "has_key")``: predicate names of ``vocabulary`` or
    capability names (checked after the traces); a one-line :class:`InputError` otherwise."""
    if text is None:
        return ()
    parts = text.split(",") if isinstance(text, str) else list(text)
    names = tuple(dict.fromkeys(p.strip() for p in parts if p.strip()))
    if not names:
        raise InputError("--focus needs at least one capability or predicate name")
    predicates = {p.name for p in vocabulary.predicates}
    for name in names:
        if name not in predicates and not _CAP_NAME.match(name):
            raise InputError(f"--focus: '{name[:40]}' is neither a predicate of the "
                             f"vocabulary ({', '.join(sorted(predicates))}) nor a "
                             "capability name (c1, c2, ...)")
    return names


def _root(name: str) -> str:
    match = re.match(r"c\d+", name)
    return match.group() if match else name


def _changed(cap: CapState) -> set[str]:
    return {a.predicate for a in (*cap.signature.add, *cap.signature.delete)}


def select(caps: Sequence[CapState], focus: Iterable[str]) -> tuple[list[CapState],
                                                                    list[CapState]]:
    """``(examined, not examined)`` (module docstring), each in the run's order."""
    wanted = set(focus)
    # c2g1 or c1a (re-grounded or split at the end of a run) is examined through c2 / c1
    roots = {_root(n) for n in wanted if _CAP_NAME.match(n)}
    names = {c.name for c in caps}
    unknown = sorted(n for n in wanted if _CAP_NAME.match(n) and _root(n) not in names)
    if unknown:
        raise InputError(f"--focus: no capability {', '.join(unknown)} in this run (its "
                         f"capabilities are {', '.join(c.name for c in caps) or 'none'})")
    examined = {c.name for c in caps if c.name in roots or _changed(c) & wanted}
    return ([c for c in caps if c.name in examined],
            [c for c in caps if c.name not in examined])


def not_examined(model: CapabilityModel, skipped: Sequence[CapState],
                 focus: Sequence[str]) -> CapabilityModel:
    """``model`` with the skipped capabilities appended: their effects as the traces
    showed them, no precondition, ``examined = False`` and a note (no claim is made)."""
    from xaip.capabilities.model import Literal

    note = f"not examined: --focus {','.join(focus)} asks about other capabilities"
    extra = []
    for cap in skipped:
        effects = tuple(sorted(
            [Literal(a, True) for a in cap.signature.add] +
            [Literal(a, False) for a in cap.signature.delete],
            key=lambda lit: (not lit.positive, str(lit.atom))))
        changes = ", ".join(str(lit) for lit in effects)
        extra.append(Capability(
            cap.name, cap.params, (), effects,
            f"Not examined (--focus): seen in the traces to make {changes}.",
            cap.instances, (), False, (note,), cap.example, examined=False))
    return CapabilityModel(model.name, model.predicates, model.types, model.constants,
                           (*model.capabilities, *extra))
