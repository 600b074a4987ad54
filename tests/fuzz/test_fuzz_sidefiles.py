"""Fuzz every command's side files and number options: exit 0, 1 or 2 with one line, never
an internal error or a hang (issue 22).

Seeded and in-process through :func:`xaip.cli.main`; each trial gets ``--max-seconds 1``.
``scripts/fuzz_campaign.py --mode sidefiles`` runs the same trials in subprocesses for as
long as it is given and reports runs per command, outcome classes and budget overruns.
"""

from __future__ import annotations

import os
import random
import tempfile
from pathlib import Path

import pytest

from tests.fuzz.sidefiles import CASES, Case, trial
from xaip.cli import main

TRIALS_PER_CASE = 6


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are part of the trials")
@pytest.mark.parametrize("case", CASES, ids=[c.command for c in CASES])
def test_hostile_side_files_and_numbers(case: Case, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(f"sidefiles-{case.command}")
    for _ in range(TRIALS_PER_CASE):
        with tempfile.TemporaryDirectory() as folder:
            argv, note = trial(case, Path(folder), rng, budget=1.0)
            code = main(argv)
        captured = capsys.readouterr()
        where = (note, argv, captured.err[-500:])
        assert code in (0, 1, 2), where
        assert "internal error" not in captured.err and "Traceback" not in captured.err, where
        if code == 2:
            assert captured.err.count("\n") == 1, where  # one line
            assert len(captured.err) < 1000, where


# Found by the campaign (scripts/fuzz_campaign.py --mode sidefiles), kept as regressions.
@pytest.mark.parametrize("change", [
    {"library": []},                       # exit 3: unhashable list as a library name
    {"concepts": ["b" + "(or " * 2000]},   # a message of 6,000 characters
])
def test_vocabulary_found_by_the_campaign(change: dict, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from tests.fuzz.sidefiles import SOKOBAN

    data = json.loads((SOKOBAN / "switch.json").read_text())
    path = tmp_path / "v.json"
    path.write_text(json.dumps({**data, **change}))
    code = main(["why-not", "sokoban-switch", "--vocabulary", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and len(err) < 300, err
