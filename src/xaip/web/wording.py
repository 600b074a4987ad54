"""Plain words on the pages: the library's text as a person reads it.

Why: the library's text output is shared with the terminal, where `name` in backticks
marks a literal; on a page the backticks showed as they are. And some JSON fields are
named for scripts (``score_name: max_distance``); a page says what the number means.
These are Jinja filters (registered in :func:`xaip.web.app.create_app`); the JSON is
never changed.
"""

from __future__ import annotations

import re

from markupsafe import Markup, escape

_TICKED = re.compile(r"`([^`\n]+)`")

#: The observers' score names (``xaip.observers.analysis``) in words.
SCORE_WORDS = {
    "goals": "goals the observer still considers at the end",
    "max_distance": "largest action distance between plans the observer cannot tell apart",
    "min_distance": "smallest action distance between the plans offered",
}


#: Explanation types (``--type``) in words; the abbreviation follows in brackets where the
#: book uses one, so a reader can find it there (the JSON and the URLs keep ``mce`` ...).
EXPLANATION_TYPES = {
    "mce": "minimally complete", "mme": "minimally monotonic", "ppe": "plan patch",
    "mpe": "model patch", "approx": "approximate minimally complete",
    "contrastive": "contrastive", "conformant": "conformant (for an uncertain model)",
    "conditional": "conditional (questions first)", "anytime": "anytime (best so far)",
}
_ABBREVIATED = ("mce", "mme", "ppe", "mpe")


def explanation_type(kind: object) -> str:
    """An explanation type as words, e.g. ``minimally complete (MCE)``."""
    key = str(kind)
    words = EXPLANATION_TYPES.get(key, key)
    return f"{words} ({key.upper()})" if key in _ABBREVIATED else words


def ticks(text: object) -> Markup:
    """``text`` escaped, each `literal` in backticks shown as code (no backticks left)."""
    escaped = str(escape("" if text is None else str(text)))
    return Markup(_TICKED.sub(r"<code>\1</code>", escaped).replace("`", ""))


def score_words(name: object) -> str:
    """A score's name as words (an unknown name: its underscores as spaces)."""
    key = str(name)
    return SCORE_WORDS.get(key, key.replace("_", " "))


def score_value(value: object) -> str:
    """A score without a float's trailing ``.0`` (``1.0`` goals reads as 1)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
