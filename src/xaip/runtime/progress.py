"""One shape for progress reports from long work, and the terminal's progress bar.

Why: discovery, explanation search, policy analysis and sampling can run for minutes; the
CLI shows a bar, the workbench streams events, tests count them. Every long-running
function takes ``progress: Progress | None`` and calls it with a :class:`ProgressEvent`
(:func:`report`); it never prints.

Why an ambient listener: the ``xaip`` command opens :func:`command_progress` around every
sub-command, and :func:`report` sends an event to it when the caller passed no listener
of its own. So a phase reported deep inside a family (a summary's "solving", an
explanation search's edit sets) reaches the terminal without every command module
threading a callback through. The bar also watches the budget clocks the work starts
(:func:`clock_started`, called by :class:`~xaip.runtime.budget.BudgetClock`) and shows the
nodes they have counted, so work that reports no events (ILAO* on a large IPPC task, an
A* search) still shows a growing count and the time instead of silence. Outside the CLI
(the library, the workbench) there is no ambient listener and :func:`report` without a
listener does nothing.

What the user sees (:class:`StderrProgress`): on a terminal, one line on stderr redrawn in
place (at most ten times a second, and every second by a heartbeat thread), shown only
once the work has run ``delay`` seconds: the phase, ``done/total`` with a bar and an ETA
when the total is known and counts like units (ten or more; a handful of unlike stages
gets no ETA), the nodes counted and the time. Anything the
command prints on stdout first erases the line. Where stderr is not a terminal it writes
lines instead: one per event at most every ``every`` seconds (a new phase or the last
event of one always), a status line once the delay has passed and then one every
``heartbeat`` seconds after the last line. The CLI shows progress where stderr is a
terminal, as git does (``XAIP_PROGRESS=1`` asks for the lines in a log too,
``XAIP_PROGRESS=0`` for none); ``--quiet`` and ``--json`` open a silent listener instead.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TextIO


@dataclass(frozen=True)
class ProgressEvent:
    """``done`` units of ``phase`` finished (of ``total`` when known)."""

    phase: str
    done: int
    total: int | None = None
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"phase": self.phase, "done": self.done, "total": self.total,
                "message": self.message}


Progress = Callable[[ProgressEvent], None]


class _Listener(Protocol):
    def __call__(self, event: ProgressEvent) -> None: ...
    def watch(self, clock: _Clock) -> None: ...
    def notice(self, text: str) -> None: ...


class _Clock(Protocol):
    nodes: int
    started: float


#: The listener of the running ``xaip`` command (one per process; ``None`` outside the CLI).
_AMBIENT: _Listener | None = None


def report(progress: Progress | None, phase: str, done: int, total: int | None = None,
           message: str = "") -> None:
    """Send one event to ``progress``, or to the command's listener when ``progress`` is
    ``None`` (the common call site)."""
    target = progress if progress is not None else _AMBIENT
    if target is not None:
        target(ProgressEvent(phase, done, total, message))


def clock_started(clock: _Clock) -> None:
    """A budget clock started: the command's bar counts its nodes (no-op outside the CLI)."""
    listener = _AMBIENT
    if listener is not None:
        listener.watch(clock)


def notice(text: str) -> None:
    """Tell the user something once, in one line: ``xaip: note: ...`` on stderr under the
    CLI (unless ``--quiet``), a :class:`RuntimeWarning` for library users."""
    listener = _AMBIENT
    if listener is not None:
        listener.notice(text)
    else:
        warnings.warn(text, RuntimeWarning, stacklevel=3)


def _clock_text(seconds: float) -> str:
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


#: Fewer units than this are stages, not counts: no ETA (a summary's seven phases differ
#: in length by orders of magnitude).
ETA_MIN_TOTAL = 10
#: Clocks kept for counting: the first ones (the command's own budgets) and the latest.
_FIRST_CLOCKS, _LATEST_CLOCKS = 8, 64


class StderrProgress:
    """A progress listener for terminals (see the module docstring).

    ``delay``: show nothing before the work has run this long (the CLI's bar uses 1 s, so
    quick commands print nothing extra). ``every``: at most one line per this many seconds
    where the stream is not a terminal. ``live``: redraw one line in place (default: when
    the stream is a terminal). A listener made while the CLI's own is active forwards to
    it, so one command never draws two bars.
    """

    def __init__(self, stream: TextIO | None = None, every: float = 0.5, *,
                 delay: float = 0.0, live: bool | None = None, label: str = "",
                 heartbeat: float = 10.0) -> None:
        self.stream = stream or sys.stderr
        self.every = every
        self.delay = delay
        self.label = label
        self.heartbeat = heartbeat
        if live is None:
            try:
                live = self.stream.isatty()
            except (AttributeError, ValueError, OSError):
                live = False
        self.live = live
        self.started = time.monotonic()
        self._lock = threading.Lock()
        self._event: ProgressEvent | None = None
        self._event_at = self.started
        self._phase_started = self.started
        self._phase_first: tuple[float, int] | None = None  # (time, done) of its 1st event
        self._last_line = 0.0  # when the last line was written (line mode)
        self._last_draw = 0.0
        self._shown = False  # live: a line is on the screen
        self._clocks_first: list[_Clock] = []
        self._clocks_latest: deque[_Clock] = deque()
        self._retired = 0  # nodes of clocks no longer watched
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._forward: _Listener | None = _AMBIENT if _AMBIENT is not self else None

    # ------------------------------------------------------------------ listener protocol

    def __call__(self, event: ProgressEvent) -> None:
        if self._forward is not None and self._forward is _AMBIENT:
            self._forward(event)
            return
        now = time.monotonic()
        with self._lock:
            previous = self._event
            new_phase = previous is None or previous.phase != event.phase
            if new_phase:
                self._phase_started = now
                self._phase_first = (now, event.done)
            self._event = event
            self._event_at = now
            if now - self.started < self.delay:
                return
            if self.live:
                if new_phase or now - self._last_draw >= 0.1:
                    self._draw_live(now)
                return
            last_of_phase = event.total is not None and event.done == event.total
            if new_phase or last_of_phase or now - self._last_line >= self.every:
                self._write_line(self._line_text(event), now)

    def watch(self, clock: _Clock) -> None:
        """Count ``clock``'s nodes from now on (bounded memory: old clocks are retired)."""
        with self._lock:
            if len(self._clocks_first) < _FIRST_CLOCKS:
                self._clocks_first.append(clock)
                return
            self._clocks_latest.append(clock)
            if len(self._clocks_latest) > _LATEST_CLOCKS:
                self._retired += self._clocks_latest.popleft().nodes

    def notice(self, text: str) -> None:
        with self._lock:
            self._clear()
            with contextlib.suppress(OSError, ValueError):
                print(f"xaip: note: {text}", file=self.stream, flush=True)

    # ------------------------------------------------------------------ drawing

    def nodes(self) -> int:
        """Nodes counted by the watched clocks so far."""
        clocks = {id(c): c for c in (*self._clocks_first, *self._clocks_latest)}
        return self._retired + sum(c.nodes for c in clocks.values())

    def _line_text(self, event: ProgressEvent) -> str:
        of = f"/{event.total}" if event.total is not None else ""
        text = f"[{event.phase}] {event.done}{of}"
        return text + (f" {event.message}" if event.message else "")

    def _eta(self, event: ProgressEvent, now: float) -> float | None:
        if event.total is None or event.total < ETA_MIN_TOTAL or self._phase_first is None:
            return None
        since, first_done = self._phase_first
        done, elapsed = event.done - first_done, now - since
        if done <= 0 or elapsed < 1.0:
            return None
        return max(0.0, (event.total - event.done) * elapsed / done)

    def status_text(self, now: float | None = None, width: int = 100) -> str:
        """The live line: phase, counts, bar, ETA, nodes, time (cut to ``width``)."""
        now = time.monotonic() if now is None else now
        event = self._event
        parts = []
        if event is None:
            parts.append(self.label or "working")
        else:
            same = self.label.split(" ")[-1:] == [event.phase]  # "xaip summarize: summarize"
            head = event.phase if same or not self.label else f"{self.label}: {event.phase}"
            if event.total is not None and event.total >= ETA_MIN_TOTAL:
                share = min(1.0, event.done / event.total) if event.total else 1.0
                filled = int(share * 20)
                head += (f" [{'#' * filled}{'.' * (20 - filled)}] {event.done}/{event.total}"
                         f" {share:4.0%}")
            elif event.total is not None:
                head += f" {event.done}/{event.total}"
            elif event.done:
                head += f" {event.done:,}"
            if event.message:
                head += f": {event.message}" if event.total is not None else f" {event.message}"
            if event.total is not None and event.done >= event.total \
                    and now - self._event_at >= 1.0:
                head = f"{head}; that part is done, the rest is still running"
            parts.append(head)
            eta = self._eta(event, now)
            if eta is not None:
                parts.append(f"ETA {_clock_text(eta)}")
        nodes = self.nodes()
        if nodes:
            parts.append(f"{nodes:,} nodes")
        parts.append(_clock_text(now - self.started))
        text = " | ".join(parts)
        if len(text) <= width:
            return text
        tail = " | ".join(parts[1:])  # counts and time stay; the phase's words are cut
        room = max(8, width - len(tail) - 3 - 3)
        return (parts[0][:room] + "... | " + tail)[:width]

    def _width(self) -> int:
        return max(20, shutil.get_terminal_size((100, 24)).columns - 1)

    def _draw_live(self, now: float) -> None:
        text = self.status_text(now, self._width())
        with contextlib.suppress(OSError, ValueError):
            self.stream.write("\r" + text + "\x1b[K")
            self.stream.flush()
        self._shown = True
        self._last_draw = now

    def _write_line(self, text: str, now: float) -> None:
        with contextlib.suppress(OSError, ValueError):
            print(text, file=self.stream, flush=True)
        self._last_line = now

    def _clear(self) -> None:
        if self._shown:
            with contextlib.suppress(OSError, ValueError):
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            self._shown = False

    def clear(self) -> None:
        """Erase the live line (before something else is printed on the terminal)."""
        with self._lock:
            self._clear()

    # ------------------------------------------------------------------ heartbeat

    def _beat(self) -> None:
        while not self._stop.wait(1.0 if self.live else min(1.0, self.heartbeat)):
            now = time.monotonic()
            with self._lock:
                if now - self.started < self.delay:
                    continue
                if self.live:
                    self._draw_live(now)
                elif not self._last_line or now - self._last_line >= self.heartbeat:
                    self._write_line(self.status_text(now, 200), now)  # first after delay

    def start(self) -> None:
        """Start the heartbeat thread (the CLI's bar; a plain listener needs none)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._beat, name="xaip-progress",
                                            daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the heartbeat and erase the live line."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2.0)
        self.clear()


class _Silent:
    """The listener of ``--quiet`` and ``--json``: swallows events (and, with ``--quiet``,
    notices), so nothing reaches stderr but errors."""

    def __init__(self, notices: bool) -> None:
        self.notices = notices

    def __call__(self, event: ProgressEvent) -> None:
        pass

    def watch(self, clock: _Clock) -> None:
        pass

    def notice(self, text: str) -> None:
        if self.notices:
            with contextlib.suppress(OSError, ValueError):
                print(f"xaip: note: {text}", file=sys.stderr, flush=True)


class _ClearingStdout:
    """stdout that erases the live progress line before each write (a terminal shows
    the answer on clean lines)."""

    def __init__(self, stream: TextIO, bar: StderrProgress) -> None:
        self._stream = stream
        self._bar = bar

    def write(self, text: str) -> int:
        self._bar.clear()
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def wanted(stream: TextIO) -> bool:
    """Whether the CLI shows progress on ``stream``: on a terminal, as git does, or where
    ``XAIP_PROGRESS=1`` asks for lines in a log; ``XAIP_PROGRESS=0`` turns it off."""
    setting = os.environ.get("XAIP_PROGRESS", "").strip()
    if setting in ("0", "1"):
        return setting == "1"
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


@contextlib.contextmanager
def command_progress(label: str, *, show: bool, notices: bool = True,
                     delay: float = 1.0,
                     stream: TextIO | None = None) -> Iterator[StderrProgress | None]:
    """The listener of one ``xaip`` command, for the ``with`` block: a bar on stderr when
    ``show`` and :func:`wanted` (yields it), else a silent listener (``notices``: it still
    prints notices)."""
    global _AMBIENT
    outer = _AMBIENT
    bar: StderrProgress | None = None
    listener: _Listener
    if show and wanted(stream or sys.stderr):
        bar = StderrProgress(stream, delay=delay, label=label)
        bar._forward = None  # the command's own bar draws (an outer one never sees it)
        listener = bar
    else:
        listener = _Silent(notices)
    _AMBIENT = listener
    saved_stdout = sys.stdout
    if bar is not None:
        bar.start()
        if bar.live:
            sys.stdout = _ClearingStdout(saved_stdout, bar)
    try:
        yield bar
    finally:
        _AMBIENT = outer
        if bar is not None:
            if sys.stdout is not saved_stdout and isinstance(sys.stdout, _ClearingStdout):
                sys.stdout = saved_stdout
            bar.close()


def _forget_in_child() -> None:
    """A forked worker draws no bar: its parent does (and its lock may be held)."""
    global _AMBIENT
    _AMBIENT = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
