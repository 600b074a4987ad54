"""Small study files for the tests (written into a temporary folder)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

PLAN_STUDY = """
[study]
name = "plans"
command = "plan"
description = "blocksworld plans, optimal or not"
repeat = {repeat}

[budget]
max_seconds = 60

[parameters]
"--optimal" = [true, false]

[metrics]
cost = "cost"
length = "length"
expanded = "expanded"

[[instances]]
name = "blocks {{n}}"
generator = "blocksworld"
arguments = ["{{n}}", 0]
vary = {{n = {sizes}}}
"""


def plan_study(folder: Path, sizes: list[int] = (3, 4), repeat: int = 1,  # type: ignore[assignment]
               name: str = "plans.toml") -> Path:
    path = folder / name
    path.write_text(PLAN_STUDY.format(repeat=repeat, sizes=list(sizes)))
    return path


def records(store: Path) -> dict[str, dict[str, Any]]:
    """Every cell record of a study store, by key (read with sqlite, not the runner)."""
    db = sqlite3.connect(str(store))
    try:
        rows = db.execute("SELECT key, value FROM records WHERE namespace = 'cells'").fetchall()
    finally:
        db.close()
    return {key: json.loads(value) for key, value in rows}
