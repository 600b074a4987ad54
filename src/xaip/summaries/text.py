"""English for policy summaries: "First get to station 1, then ...".

Why templates: a landmark is a ground atom such as ``(at station1)``; people read
"get to station 1". A phrase is chosen per predicate: from the caller's ``phrases``
(``{"at": "get to {0}"}``, ``{0}``... are the atom's arguments, ``{args}`` all of them),
else from a few built-in rules for common predicate names (``at``, ``on``, ``holding``,
``clear``...), else the neutral "make (pred args) true". Object names are made readable:
hyphens and underscores become spaces and a number glued to a word is split off
("station1" → "station 1"); short names such as ``b1`` are kept.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from xaip.errors import InputError
from xaip.planning.pddl.model import Atom
from xaip.sidefiles import read_json

Phrases = Mapping[str, str]

_BUILTIN: dict[str, str] = {
    "at": "get to {last}",
    "on": "put {0} on {1}",
    "on-table": "put {0} on the table",
    "ontable": "put {0} on the table",
    "holding": "hold {0}",
    "clear": "clear {0}",
    "in": "get {0} into {1}",
    "have": "have {args}",
    "has": "have {args}",
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


def phrase(atom: Atom, phrases: Phrases | None = None) -> str:
    """How to say "achieve ``atom``" as an imperative verb phrase."""
    args = [readable(a) for a in atom.args]
    template = (phrases or {}).get(atom.predicate)
    if template is None:
        template = _BUILTIN.get(atom.predicate)
        if template is None and atom.predicate.endswith("-at") and args:
            template = "get {0} to {last}" if len(args) > 1 else "get to {0}"
        if template is not None and _needs(template) > len(args):
            template = None
    if template is None:
        inner = " ".join([readable(atom.predicate), *args])
        return f"make ({inner}) true"
    try:
        return template.format(*args, args=" ".join(args), last=args[-1] if args else "")
    except (IndexError, KeyError) as error:
        raise InputError(
            f"phrase template {template!r} for '{atom.predicate}' does not fit {atom}: {error}"
        ) from None


def _needs(template: str) -> int:
    """How many positional arguments a template uses (``{last}`` needs one)."""
    numbers = [int(n) + 1 for n in re.findall(r"\{(\d+)\}", template)]
    if "{last}" in template or "{args}" in template:
        numbers.append(1)
    return max(numbers, default=0)


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
