"""Statuses are strings on the wire; progress reaches its listener."""

from __future__ import annotations

import io
import json

from xaip.runtime import ProgressEvent, Status, StderrProgress, report


def test_status_is_a_string() -> None:
    assert Status.SOLVED == "solved" and json.dumps({"s": Status.BUDGET_EXHAUSTED}) == \
        '{"s": "budget_exhausted"}'
    assert Status.FOUND.finished and not Status.BUDGET_EXHAUSTED.finished


def test_progress_events() -> None:
    seen: list[ProgressEvent] = []
    report(seen.append, "queries", 3, 10, "zelda")
    report(None, "queries", 4)  # nobody listens: nothing happens
    assert seen == [ProgressEvent("queries", 3, 10, "zelda")]
    stream = io.StringIO()
    printer = StderrProgress(stream, every=0.0)
    printer(seen[0])
    assert stream.getvalue() == "[queries] 3/10 zelda\n"
