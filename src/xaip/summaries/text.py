"""English for policy summaries: "First get to station 1, then ...".

Why templates: a landmark is a ground atom such as ``(at station1)``; people read
"get to station 1". A phrase is chosen per predicate: from the caller's ``phrases``
(``{"at": "get to {0}"}``, ``{0}``... are the atom's arguments, ``{args}`` all of them),
else from a few built-in rules for common predicate names and arities (``at``, ``on``,
``holding``, ``clear``...), else the atom itself as PDDL writes it,
"make (pred arg ...) true" (:func:`~xaip.planning.semantics.fact_text`). Object names are
made readable: hyphens and underscores become spaces and a number glued to a word is split
off ("station1" → "station 1"); short names such as ``b1`` are kept.

Why :func:`phrasebook`: two different facts must never read alike (the IPPC elevators
summary once said "get to p1 ... get to p1" for ``(at f2 p1)`` and ``(at f3 p1)``). Built-in
templates keep every argument, and a phrasebook gives each fact of a task one phrase; facts
whose phrases coincide anyway (a caller's template that drops an argument, two names that
read alike) are said as their PDDL atoms instead.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from xaip.errors import InputError
from xaip.planning.pddl.model import Atom
from xaip.planning.semantics import fact_text
from xaip.sidefiles import read_json

Phrases = Mapping[str, str]

# (predicate, arity) -> template; every template uses every argument.
_BUILTIN: dict[tuple[str, int], str] = {
    ("at", 1): "get to {0}",
    ("at", 2): "get {0} to {1}",
    ("on", 2): "put {0} on {1}",
    ("on-table", 1): "put {0} on the table",
    ("ontable", 1): "put {0} on the table",
    ("holding", 1): "hold {0}",
    ("clear", 1): "clear {0}",
    ("in", 2): "get {0} into {1}",
    ("have", 1): "have {0}",
    ("has", 1): "have {0}",
}
_GLUED_NUMBER = re.compile(r"^([A-Za-z]{3,})(\d+)$")


def readable(name: str) -> str:
    """An object or predicate name as words: ``shuttle-station`` → ``shuttle station``,
    ``gate10`` → ``gate 10`` (names of fewer than three letters keep their digits)."""
    words = []
    for word in re.split(r"[-_\s]+", name):
        match = _GLUED_NUMBER.match(word)
        words.append(f"{match.group(1)} {match.group(2)}" if match else word)
    return " ".join(w for w in words if w)


def literal_phrase(atom: Atom) -> str:
    """The fallback: the atom exactly as PDDL writes it, "make (pred arg ...) true"
    (injective, since :func:`~xaip.planning.semantics.fact_text` is)."""
    return f"make {fact_text(atom.predicate, atom.args)} true"


def phrase(atom: Atom, phrases: Phrases | None = None) -> str:
    """How to say "achieve ``atom``" as an imperative verb phrase (on its own: a summary
    uses :func:`phrasebook`, which also keeps different facts apart)."""
    args = [readable(a) for a in atom.args]
    template = (phrases or {}).get(atom.predicate)
    if template is None:
        template = _BUILTIN.get((atom.predicate, len(args)))
        if template is None and atom.predicate.endswith("-at") and len(args) in (1, 2):
            template = "get {0} to {1}" if len(args) == 2 else "get to {0}"
    if template is None:
        return literal_phrase(atom)
    try:
        return template.format(*args, args=" ".join(args), last=args[-1] if args else "")
    except (IndexError, KeyError) as error:
        raise InputError(
            f"phrase template {template!r} for '{atom.predicate}' does not fit {atom}: {error}"
        ) from None


def phrasebook(atoms: Iterable[Atom], phrases: Phrases | None = None) -> dict[Atom, str]:
    """One phrase per atom, no two alike: atoms whose phrases coincide are said as their
    PDDL atoms (:func:`literal_phrase`), and so is any atom whose phrase equals such a
    literal one. Give it every fact a text may mention (a summary passes all of its task's
    facts), so that a phrase names one fact of the task."""
    book = {atom: phrase(atom, phrases) for atom in atoms}
    while True:
        holders: dict[str, list[Atom]] = defaultdict(list)
        for atom, said in book.items():
            holders[said].append(atom)
        clashes = [atom for group in holders.values() if len(group) > 1 for atom in group
                   if book[atom] != literal_phrase(atom)]
        if not clashes:
            return book
        for atom in clashes:  # literal phrases are distinct, so this ends
            book[atom] = literal_phrase(atom)


def load_phrases(path: str | Path) -> dict[str, str]:
    """Read a JSON object mapping predicate names to templates (see the module docstring)."""
    data = read_json(path, "text")  # limits, devices, FIFOs, line:column errors
    if not isinstance(data, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in data.items()
    ):
        raise InputError(f"{path}: expected a JSON object of predicate -> template strings")
    return data


def join_clauses(parts: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def sequence_sentence(steps: Sequence[str]) -> str:
    """"First A, then B, then C, and finally D." for a chain of verb phrases."""
    if not steps:
        return ""
    if len(steps) == 1:
        return _capitalise(steps[0]) + "."
    if len(steps) == 2:
        return f"First {steps[0]}, and then {steps[1]}."
    middle = "".join(f", then {s}" for s in steps[1:-1])
    return f"First {steps[0]}{middle}, and finally {steps[-1]}."


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]
