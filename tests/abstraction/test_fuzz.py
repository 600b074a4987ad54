"""Both commands on mutated bundled files: exit 0, 1 or 2 with one line, never a traceback."""

from __future__ import annotations

import random
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.mutations import write_files
from xaip.abstraction.bundled import bundled_files
from xaip.cli import main

FILES = {key: path.read_text() for key, path in bundled_files().items()}
EXAMPLES = settings(max_examples=40, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])


def _run(command: str, which: str, rng: random.Random,
         capsys: pytest.CaptureFixture[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        paths = write_files(folder, FILES, which, rng)
        budget = ["--max-seconds", "10", "--max-nodes", "20000"]
        hide = ["--hide", "clear", "handempty", "holding"]
        if command == "abstract-explain":
            argv = [command, paths["domain"], paths["problem"], *hide, "--foil",
                    paths["lift-a"], paths["keep-c"], *budget]
        else:
            argv = [command, paths["domain"], paths["problem"], *hide, "--simulate",
                    "clear", *budget]
        code = main(argv)
    captured = capsys.readouterr()
    assert code in (0, 1, 2), (argv, captured.err)
    assert "internal error" not in captured.err and "Traceback" not in captured.err
    if code == 2:
        assert captured.err.count("\n") == 1, captured.err


@EXAMPLES
@given(which=st.sampled_from(("domain", "problem", "lift-a", "keep-c")),
       rng=st.randoms(use_true_random=False))
def test_abstract_explain_on_mutated_files(which: str, rng: random.Random,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    _run("abstract-explain", which, rng, capsys)


@EXAMPLES
@given(which=st.sampled_from(("domain", "problem")), rng=st.randoms(use_true_random=False))
def test_abstract_locate_on_mutated_files(which: str, rng: random.Random,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    _run("abstract-locate", which, rng, capsys)
