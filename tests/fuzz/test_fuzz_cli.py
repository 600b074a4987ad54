"""Fuzz the command line on mutated bundled files: exit 0, 1 or 2, never an internal error.

In-process through :func:`xaip.cli.main` (fast, and the same code path as the ``xaip``
command); ``scripts/fuzz_campaign.py`` does the same in subprocesses with time limits.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import xaip
from tests.fuzz.mutations import write_files
from xaip.cli import main

BLOCKS = Path(xaip.__file__).parent / "domains" / "blocksworld"
FILES = {
    "domain": (BLOCKS / "domain.pddl").read_text(),
    "problem": (BLOCKS / "problem-5.pddl").read_text(),
    "plan": "(unstack b1 b2)\n(put-down b1)\n(unstack b2 b3)\n(put-down b2)\n",
}
EXAMPLES = settings(max_examples=60, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def _run(command: str, which: str, rng: random.Random,
         capsys: pytest.CaptureFixture[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(folder, FILES, which, rng)
        if command == "validate":
            argv = ["validate", paths["domain"], paths["problem"], paths["plan"]]
        else:
            argv = ["plan", paths["domain"], paths["problem"], "--max-seconds", "5",
                    "--max-nodes", "2000"]
        code = main(argv)
    captured = capsys.readouterr()  # capsys is reset here, so it is safe across examples
    assert code in (0, 1, 2), (argv, captured.err)
    assert "internal error" not in captured.err and "Traceback" not in captured.err
    if code == 2:
        assert captured.err.count("\n") == 1, captured.err  # one line
        assert len(captured.err) < 1000


@EXAMPLES
@given(which=st.sampled_from(("domain", "problem", "plan")),
       rng=st.randoms(use_true_random=False))
def test_validate_on_mutated_files(which: str, rng: random.Random,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    _run("validate", which, rng, capsys)


@EXAMPLES
@given(which=st.sampled_from(("domain", "problem")), rng=st.randoms(use_true_random=False))
def test_plan_on_mutated_files(which: str, rng: random.Random,
                               capsys: pytest.CaptureFixture[str]) -> None:
    _run("plan", which, rng, capsys)
