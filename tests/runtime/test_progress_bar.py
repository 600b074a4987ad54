"""The command's progress bar: events and budget clocks reach it, --quiet/--json silence
it, stdout erases it, and the pure-Python fallback is one note, not a warning."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.planning.engines import compiled
from xaip.runtime import Budget, ProgressEvent, StderrProgress, report
from xaip.runtime import progress as progress_module
from xaip.runtime.progress import command_progress, notice

BLOCKS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "blocksworld"


def test_report_without_listener_reaches_the_command_bar(
        monkeypatch: pytest.MonkeyPatch) -> None:
    report(None, "phase", 1)  # no command running: nothing, no error
    stream = io.StringIO()
    monkeypatch.setenv("XAIP_PROGRESS", "1")  # lines, as in a log
    with command_progress("xaip test", show=True, delay=0.0, stream=stream) as bar:
        assert bar is not None and not bar.live
        report(None, "search", 3, 10, "edit sets")
        assert bar._event == ProgressEvent("search", 3, 10, "edit sets")
    assert "[search] 3/10 edit sets" in stream.getvalue()
    assert progress_module._AMBIENT is None  # the block ended: nobody listens
    monkeypatch.setenv("XAIP_PROGRESS", "0")
    with command_progress("xaip test", show=True, stream=stream) as bar:
        assert bar is None


def test_live_line_has_bar_eta_nodes_and_time() -> None:
    bar = StderrProgress(io.StringIO(), live=True, label="xaip explain")
    start = time.monotonic()
    bar(ProgressEvent("mce search", 0, 40, "edit sets"))
    bar._phase_first = (start - 4.0, 0)  # as if the phase began 4 s ago
    bar(ProgressEvent("mce search", 10, 40, "edit sets"))
    clock = Budget().start()
    bar.watch(clock)
    clock.charge(1234)
    text = bar.status_text(width=200)
    assert text.startswith("xaip explain: mce search [#####...............] 10/40")
    assert "ETA 0:1" in text  # 30 units left at 2.5 units a second: about 12 s
    assert "1,234 nodes" in text and text.endswith("0:00")
    stages = StderrProgress(io.StringIO(), live=True, label="xaip summarize")
    stages(ProgressEvent("summarize", 1, 7, "policy graph"))
    stage_text = stages.status_text(width=200)
    assert stage_text.startswith("summarize 1/7: policy graph") and "ETA" not in stage_text
    assert len(bar.status_text(width=40)) <= 40 and "nodes" in bar.status_text(width=40)
    bar(ProgressEvent("queries", 76, 76, "asked"))  # a finished part, then more work
    assert "still running" not in bar.status_text(width=200)
    bar._event_at -= 2.0
    assert "queries [####################] 76/76 100%: asked; that part is done, the rest " \
        "is still running" in bar.status_text(width=200)


def test_clocks_are_counted_with_bounded_memory() -> None:
    bar = StderrProgress(io.StringIO(), live=False)
    clocks = []
    for _ in range(500):
        clock = Budget().start()
        bar.watch(clock)
        clock.charge(2)
        clocks.append(clock)
    assert bar.nodes() == 1000
    assert len(bar._clocks_first) + len(bar._clocks_latest) <= 8 + 64


def test_budget_clocks_report_to_the_command_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XAIP_PROGRESS", "1")
    with command_progress("xaip t", show=True, stream=io.StringIO()) as bar:
        assert bar is not None
        Budget(max_nodes=10).start().charge(7)
        assert bar.nodes() == 7


def test_quiet_and_json_are_silent(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XAIP_PROGRESS", "1")
    with command_progress("xaip t", show=False) as bar:
        assert bar is None
        report(None, "search", 1, 2)
        StderrProgress()(ProgressEvent("queries", 1, 2))  # forwards to the silent one
    assert capsys.readouterr().err == ""


def test_live_line_is_erased_before_stdout() -> None:
    stream = io.StringIO()
    bar = StderrProgress(stream, live=True, label="xaip t")
    bar(ProgressEvent("search", 5))
    assert stream.getvalue().startswith("\rxaip t: search 5 | 0:00")
    guard = progress_module._ClearingStdout(io.StringIO(), bar)
    guard.write("answer\n")
    assert stream.getvalue().endswith("\r\x1b[K")


def test_a_long_command_shows_progress_on_a_log(tmp_path: Path) -> None:
    """With XAIP_PROGRESS=1 (a log), a command that runs past the delay writes a status
    line with the nodes counted; with --quiet it writes none."""
    from xaip.domains import blocksworld

    domain, problem = blocksworld(14, seed=3)
    (tmp_path / "d.pddl").write_text(domain, encoding="utf-8")
    (tmp_path / "p.pddl").write_text(problem, encoding="utf-8")
    env = {**os.environ, "XAIP_PROGRESS": "1"}
    command = [sys.executable, "-m", "xaip.cli", "plan", "d.pddl", "p.pddl", "--optimal",
               "--engine", "builtin", "--max-seconds", "2"]
    shown = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                           timeout=120, check=False)
    assert "plan 1/2: checking the answer" in shown.stderr or "plan 0/2: searching" in \
        shown.stderr, shown.stderr
    assert "Traceback" not in shown.stderr
    quiet = subprocess.run([*command, "--quiet"], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=120, check=False)
    assert quiet.stderr == ""
    assert quiet.returncode == shown.returncode


def test_fallback_is_one_note(monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(compiled, "_CORE", None)
    monkeypatch.setattr(compiled, "_warned", False)
    args = ["plan", str(BLOCKS / "domain.pddl"), str(BLOCKS / "problem-5.pddl")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.startswith("xaip: note: the compiled search core is not built")
    assert len(err.strip().splitlines()) == 1 and "Warning" not in err
    monkeypatch.setattr(compiled, "_warned", False)
    assert main([*args, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(compiled, "_warned", False)
    with pytest.warns(RuntimeWarning, match="compiled search core is not built"):
        compiled.preferred_engine()


def test_notice_outside_the_cli_is_a_warning() -> None:
    with pytest.warns(RuntimeWarning, match="hello"):
        notice("hello")
