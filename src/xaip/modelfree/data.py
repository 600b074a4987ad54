"""The inputs of a model-free explanation: messages, labelled plans and the robot's plan.

Why files of their own: with no model of the person, everything xaip knows about her is
data people produced -- which steps of which plans they found explicable after seeing which
explanation messages (book §6.3; book-spec §5.5's record ``(plan, messages_shown,
step_labels)``). The formats:

* **messages**, one a line: ``ID COST TEXT`` (``;`` starts a comment), e.g.
  ``tucked  1  move requires (hand-tucked)``. An id is one word; a cost a finite number
  >= 0; the text is what the robot would say (a true statement about its model).
* **labelled plans**, JSON Lines: ``{"plan": ["tuck", "move loc1 loc2"], "messages":
  ["tucked"], "labels": [true, true]}`` -- one label per step, ``true`` for a step the
  person found explicable; ``messages`` the ids she had been shown (may be empty).
* **the robot's plan**: a plan file (``(action arg ...)`` a line), as everywhere in xaip.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.sidefiles import expect, parse_json, read_text

#: What a message id may be made of (the labeller joins ids with ``+``, ``|`` and ``=``).
_ID = re.compile(r"[A-Za-z0-9._:-]+")


def normalise(step: str) -> str:
    """A step as the labeller sees it: lower case, no parentheses, single spaces."""
    return " ".join(step.strip().strip("()").lower().split())


@dataclass(frozen=True, order=True)
class Message:
    """One explanatory message the robot can give, with what giving it costs."""

    id: str
    cost: float
    text: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "cost": self.cost, "text": self.text}


@dataclass(frozen=True)
class Record:
    """One labelled plan: its steps, the messages shown before, and a label per step."""

    plan: tuple[str, ...]
    messages: frozenset[str]
    labels: tuple[bool, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"plan": list(self.plan), "messages": sorted(self.messages),
                "labels": list(self.labels)}


def parse_messages(text: str, file: str = "<messages>") -> tuple[Message, ...]:
    """Messages from their text format (module docstring)."""
    out: list[Message] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        where = f"{file}:{number}: "
        parts = line.split(None, 2)
        if len(parts) < 3:
            raise InputError(f"{where}expected 'ID COST TEXT', found '{line[:60]}'")
        ident, cost_text, words = parts
        try:
            cost = float(cost_text)
        except ValueError:
            raise InputError(f"{where}'{cost_text[:30]}' is not a cost") from None
        if not math.isfinite(cost) or cost < 0:
            raise InputError(f"{where}a message cost must be a finite number >= 0, not "
                             f"{cost_text[:30]}")
        if not _ID.fullmatch(ident):
            raise InputError(f"{where}a message id is letters, digits and . _ : - only, not "
                             f"'{ident[:40]}'")
        if ident in seen:
            raise InputError(f"{where}message '{ident}' is declared twice (first at line "
                             f"{seen[ident]})")
        seen[ident] = number
        out.append(Message(ident, cost, words.strip()))
    if not out:
        raise InputError(f"{file} declares no messages")
    return tuple(out)


def read_messages(path: str | Path) -> tuple[Message, ...]:
    return parse_messages(read_text(path, "text"), str(path))


def parse_records(text: str, messages: Iterable[Message], file: str = "<labels>"
                  ) -> tuple[Record, ...]:
    """Labelled plans from JSON Lines (module docstring); message ids must be declared."""
    known = {m.id for m in messages}
    out: list[Record] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{file}:{number}"
        value = expect(parse_json(line, where), dict, where)
        plan = [normalise(expect(s, str, f"{where}: a step")) for s in
                expect(value.get("plan"), list, f"{where}: 'plan'")]
        shown = [expect(m, str, f"{where}: a message id") for m in
                 expect(value.get("messages", []), list, f"{where}: 'messages'")]
        labels = [expect(b, bool, f"{where}: a label") for b in
                  expect(value.get("labels"), list, f"{where}: 'labels'")]
        if len(plan) != len(labels):
            raise InputError(f"{where}: {len(plan)} steps but {len(labels)} labels")
        if any(not s for s in plan):
            raise InputError(f"{where}: an empty step")
        unknown = sorted(set(shown) - known)
        if unknown:
            raise InputError(f"{where}: message '{unknown[0]}' is not among the messages")
        out.append(Record(tuple(plan), frozenset(shown), tuple(labels)))
    if not out:
        raise InputError(f"{file} has no labelled plans")
    return tuple(out)


def read_records(path: str | Path, messages: Iterable[Message]) -> tuple[Record, ...]:
    return parse_records(read_text(path, "labels"), messages, str(path))


def records_text(records: Iterable[Record]) -> str:
    """The JSON Lines text of ``records`` (what :func:`parse_records` reads)."""
    import json

    return "".join(json.dumps(r.to_dict(), sort_keys=True) + "\n" for r in records)


def messages_text(messages: Iterable[Message], header: str = "") -> str:
    lines = [f"; {line}" for line in header.splitlines()]
    lines.append("; id  cost  what the robot says")
    lines += [f"{m.id} {m.cost:g} {m.text}" for m in messages]
    return "\n".join(lines) + "\n"


def read_robot_plan(path: str | Path) -> tuple[str, ...]:
    from xaip.planning.plans import read_plan

    return tuple(normalise(str(step)) for step in read_plan(path))


def split(records: Sequence[Record], held_out: float, seed: int
          ) -> tuple[tuple[Record, ...], tuple[Record, ...]]:
    """A seeded split into training and held-out records (``held_out``: the share kept
    out, 0 to below 1; at least one record is always trained on)."""
    if not 0.0 <= held_out < 1.0:
        raise InputError(f"the held-out share must be from 0 to below 1, not {held_out}")
    order = list(range(len(records)))
    random.Random(seed).shuffle(order)
    kept = min(len(records) - 1, round(held_out * len(records)))
    out = set(order[:kept])
    return (tuple(r for i, r in enumerate(records) if i not in out),
            tuple(r for i, r in enumerate(records) if i in out))
