"""Mutations of PDDL and plan text, shared by the fuzz tests and ``scripts/fuzz_campaign.py``.

Why these: each kind of mutation reproduces a class of failures found by hand in issue 16 --
cut or doubled spans (unbalanced or deep nesting), hostile tokens (huge numbers and
exponents, NUL bytes, byte-order marks, bidi overrides, ``either``, ``:derived``, ``?``
glued to names), and long runs of one character (quadratic parsers).
"""

from __future__ import annotations

import random
from pathlib import Path

#: Tokens that once broke, or could break, a reader.
HOSTILE = (
    "(", ")", "()", "(and", "(not", "(or", "(either a b)", "- (either t u)", "?", "??x",
    "?x?y", "-", "- object", ":derived", "(:derived (p) (q))", ":requirements", ":action",
    "(increase (total-cost) 1e999999999)", "1e999999999", "1e100000", "9" * 5000, "-0",
    "1/0", "0.0000001", "nan", "inf", "1_000", "\x00", "\ufeff", "\u202e", "\u200f",
    "\r", "\t", ";", "; comment", "\n", "=", "(=", "(= (total-cost) 5)", "(probabilistic",
    "0.5", "1.5", "(when", "(forall (?v)", "(exists (?v - t)", "(imply", "define",
    "(:domain", "(:objects", "(:init", "(:goal", "(:metric minimize (total-cost))",
    "\xed\xb3\xbf", "\xe9", "é",
)


def mutate(text: str, rng: random.Random, count: int | None = None) -> str:
    """``text`` with ``count`` (default 1-4) random mutations applied."""
    for _ in range(count if count is not None else rng.randint(1, 4)):
        text = _one(text, rng)
    return text


def _one(text: str, rng: random.Random) -> str:
    size = len(text)
    at = rng.randint(0, size)
    kind = rng.randrange(9)
    if kind == 0 and size:  # delete a span
        return text[:at] + text[at + rng.randint(1, 40):]
    if kind == 1 and size:  # duplicate a span
        span = text[at:at + rng.randint(1, 200)]
        return text[:at] + span * rng.randint(2, 4) + text[at:]
    if kind == 2:  # insert a hostile token
        return text[:at] + f" {rng.choice(HOSTILE)} " + text[at:]
    if kind == 3:  # nest deeply
        depth = rng.choice((50, 199, 201, 500, 1000))
        head = rng.choice(("(and ", "(not ", "(", "(or "))
        return text[:at] + head * depth + ")" * depth * rng.randint(0, 1) + text[at:]
    if kind == 4:  # a long run of one character
        return text[:at] + rng.choice(" (\n)?-;x0") * rng.choice((1000, 20_000)) + text[at:]
    if kind == 5 and size:  # swap two characters
        other = rng.randrange(size)
        chars = list(text)
        low, high = sorted((min(at, size - 1), other))
        chars[low], chars[high] = chars[high], chars[low]
        return "".join(chars)
    if kind == 6 and size:  # change a character
        code = rng.choice((0, 9, 40, 41, 63, 0x202E, 0xFEFF, rng.randrange(1, 0x3000)))
        return text[:at] + chr(code) + text[at + 1:]
    if kind == 7:  # a number somewhere
        return text[:at] + " " + rng.choice(("1e15", "1e16", "123456789" * 5, "3/7",
                                            "1e-40", "0e99999")) + " " + text[at:]
    return text.upper() if rng.random() < 0.5 else text.replace("?", "? ", 1)


def write_files(folder: str, files: dict[str, str], which: str,
                rng: random.Random) -> dict[str, str]:
    """Write ``files`` (name -> text) into ``folder``, mutating the one named ``which``;
    the written paths by name. Lone surrogates survive, as a hostile file's bytes would."""
    paths = {}
    for name, text in files.items():
        path = Path(folder, f"{name}.txt")
        data = mutate(text, rng) if name == which else text
        path.write_bytes(data.encode("utf-8", "surrogatepass"))
        paths[name] = str(path)
    return paths
