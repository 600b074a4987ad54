"""Capability-discovery runs started from the workbench: threads, progress, and stores.

Why a manager of its own: discovery runs for seconds to minutes, longer than a request
should, so a run is a background thread whose progress events the page polls. Each run
keeps its answers in a :class:`~xaip.capabilities.store.SQLiteStore` (one file per run in
``Settings.runs_dir``, named by the run's identifier, never by anything a request sent),
and an index (a :class:`~xaip.runtime.RunStore`) remembers every run's parameters, state
and final JSON. A run that finished, or was interrupted when the server stopped, therefore
*reloads from its store*: opening it starts the same discovery again against its answer
store, which answers every query already asked at once -- a finished run comes back in a
fraction of a second, an interrupted one continues where it stopped.

A run's identifier is a hash of its parameters, so starting the same discovery twice
opens the same run. At most ``Settings.max_discoveries`` run at once (429 beyond); each
is bounded by ``Settings.discovery_seconds``.

SQLite connections belong to the thread that opened them, so every access to the index
opens it, does one thing and closes it, in the thread that needs it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.runtime import Budget, BudgetClock, ProgressEvent, RunStore
from xaip.web.problems import WebProblem

INDEX_KIND = "xaip-workbench-runs-1"
#: Progress events kept per run (the page shows the last few).
KEPT_EVENTS = 40
#: Largest level the workbench discovers on (the CLI allows more; a browser user waiting
#: for an answer is better served by a level that finishes within the run's budget).
MAX_CELLS = 64


@dataclass(frozen=True)
class RunParams:
    """What a discovery run is: game, grid, seed and agent (checked by :func:`params`)."""

    game: str
    rows: int
    cols: int
    seed: int
    agent: str

    @property
    def id(self) -> str:
        text = json.dumps(self.to_dict(), sort_keys=True)
        return "d-" + hashlib.sha256(text.encode()).hexdigest()[:12]

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "grid": f"{self.rows}x{self.cols}", "seed": self.seed,
                "agent": self.agent}


def params(game: str, grid: str, seed: int, agent: str) -> RunParams:
    """Checked run parameters: a registered game, a grid within the games' bounds."""
    from xaip.capabilities.command import parse_grid
    from xaip.vocab.registry import game_names, get_game

    if game not in game_names():
        raise InputError(f"unknown game '{game[:30]}' (one of {', '.join(game_names())})")
    if agent not in ("search", "policy"):
        raise InputError("the agent is 'search' or 'policy'")
    if not 0 <= seed < 2**31:
        raise InputError("the seed is a whole number from 0 to 2147483647")
    rows, cols = parse_grid(grid)
    if rows * cols > MAX_CELLS:
        raise InputError(f"the workbench discovers on levels of at most {MAX_CELLS} cells "
                         f"(e.g. 8x8), not {rows}x{cols}; use xaip discover for larger ones")
    return RunParams(get_game(game).name, rows, cols, seed, agent)


@dataclass
class Run:
    """One run's live state (shared between its thread and the requests that poll it)."""

    params: RunParams
    state: str = "running"  # running, finished, budget_exhausted, failed, cancelled
    #: What the run's thread is doing: ``discovering`` (asking the agent queries) or
    #: ``checking`` (the independent check of the model found); a cancel stops either.
    phase: str = "discovering"
    cancel_requested: bool = False
    ended: float | None = None
    resumed: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    payload: dict[str, Any] | None = None
    error: str = ""
    started: float = field(default_factory=time.time)
    simulator: Any = field(default=None, repr=False)
    result: Any = field(default=None, repr=False)
    #: Progress events reported so far; ``events`` keeps only the last ``KEPT_EVENTS``.
    reported: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False,
                                  compare=False)

    @property
    def id(self) -> str:
        return self.params.id

    def report(self, event: dict[str, Any]) -> None:
        """Keep one progress event (the run's thread), dropping the oldest beyond
        ``KEPT_EVENTS``."""
        with self._lock:
            self.events.append(event)
            del self.events[:-KEPT_EVENTS]
            self.reported += 1

    def events_since(self, seen: int) -> tuple[list[dict[str, Any]], int]:
        """The events reported after the first ``seen`` that are still kept, and how many
        have been reported in all (the ``seen`` of the next call).

        Why a count and not the list's length: once the list is full it stays
        ``KEPT_EVENTS`` long, so its length cannot tell a follower what is new.
        """
        with self._lock:
            new = min(self.reported - seen, len(self.events))
            return (self.events[len(self.events) - new:] if new > 0 else []), self.reported

    @property
    def done(self) -> bool:
        return self.state != "running"

    def progress(self) -> dict[str, Any]:
        """The run's progress for a person: its phase, the queries asked, and how many of
        the capabilities are settled out of how many (``None`` when not yet known).

        Why parse the message: the discovery reports settled/total capabilities only in
        its event's text (``settled 3/8 capabilities``); the count of queries has no
        known total, so the bar counts capabilities. The library's own ``done`` event
        (discovery over) is not the run's end: the check still follows, so the phase,
        not that event, says when the run is over.
        """
        with self._lock:
            last = next((e for e in reversed(self.events) if e.get("phase") != "done"), None)
        settled = total = None
        if last is not None:
            found = _SETTLED.search(str(last.get("message", "")))
            if found:
                settled, total = int(found.group(1)), int(found.group(2))
        return {"phase": self.phase if not self.done else self.state,
                "queries": 0 if last is None else int(last.get("done") or 0),
                "settled": settled, "capabilities": total,
                "cancellable": not self.done}

    def to_dict(self) -> dict[str, Any]:
        ended = self.ended if self.ended is not None else time.time()
        return {"status": "running" if not self.done else self.state, "run": self.id,
                "params": self.params.to_dict(), "resumed": self.resumed,
                "progress": self.progress(),
                "events": self.events[-10:], "error": self.error or None,
                "seconds": round(ended - self.started, 3), "result": self.payload}


@dataclass(frozen=True)
class CancellableBudget(Budget):
    """The run's budget, which its cancel also ends: every clock started from it (and every
    budget a phase takes from :meth:`BudgetClock.remaining`) reports exhaustion once the
    run is cancelled, so discovery and the check both stop at their next charge."""

    run: Any = field(default=None, compare=False, repr=False)

    def start(self) -> BudgetClock:
        return _CancellableClock(self)


class _CancellableClock(BudgetClock):
    __slots__ = ()

    def _cancelled(self) -> bool:
        run = getattr(self.budget, "run", None)
        if run is not None and run.cancel_requested:
            self.exhausted = True
        return self.exhausted

    def charge(self, nodes: int = 1) -> bool:
        return super().charge(nodes) and not self._cancelled()

    def tick(self) -> bool:
        return super().tick() and not self._cancelled()

    def remaining(self) -> Budget:
        left = super().remaining()
        return CancellableBudget(left.max_nodes, left.max_seconds,
                                 run=getattr(self.budget, "run", None))


class Cancelled(BaseException):
    """Raised in a run's thread, from its progress callback, when the run is cancelled (a
    ``BaseException``, so a library's ``except Exception`` around a step cannot swallow
    it)."""


_SETTLED = re.compile(r"settled (\d+)/(\d+) capabilities")


class Discoveries:
    """The runs of one workbench (see the module docstring)."""

    def __init__(self, folder: Path, max_running: int, seconds: float) -> None:
        self.folder = folder
        self.max_running = max(1, max_running)
        self.seconds = seconds
        self._runs: dict[str, Run] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ the index

    def _index(self) -> RunStore:
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise WebProblem(503, f"cannot create the runs directory: {error.strerror}",
                             kind="unavailable") from None
        try:
            return RunStore(self.folder / "index.sqlite", INDEX_KIND, {"workbench": 1})
        except InputError as error:
            raise WebProblem(503, f"the runs index cannot be used: {error}",
                             kind="unavailable") from None

    def _record(self, run: Run) -> None:
        record = {"params": run.params.to_dict(), "state": run.state,
                  "started": run.started, "payload": run.payload, "error": run.error}
        with self._index() as index:
            index.put("runs", run.id, record)

    def stored(self) -> list[dict[str, Any]]:
        """Every run the index knows, newest first (also those of earlier servers)."""
        with self._index() as index:
            rows = [{"run": key, **value} for key, value in index.items("runs")]
        for row in rows:
            live = self._runs.get(row["run"])
            if live is not None:
                row["state"] = live.state
            elif row.get("state") == "running":
                row["state"] = "interrupted"  # its server stopped before it finished
        return sorted(rows, key=lambda r: -float(r.get("started") or 0))

    # ------------------------------------------------------------------ runs

    def start(self, wanted: RunParams) -> Run:
        """Start (or return) the run of ``wanted``; 429 when too many are running (a
        refusal of this request until a run ends, not a failure of the server)."""
        with self._lock:
            run = self._runs.get(wanted.id)
            if run is not None and run.state not in ("failed", "cancelled"):
                return run
            running = sum(1 for r in self._runs.values() if not r.done)
            if running >= self.max_running:
                raise WebProblem(429, f"{running} discovery run(s) in progress; wait for it "
                                      "to finish", kind="busy")
            resumed = (self.folder / f"{wanted.id}.sqlite").exists()
            run = Run(wanted, resumed=resumed)
            self._runs[wanted.id] = run
        self._record(run)
        threading.Thread(target=self._work, args=(run,), name=f"discovery {run.id}",
                         daemon=True).start()
        return run

    def cancel(self, run_id: str) -> Run:
        """Ask the run ``run_id`` to stop (404 unless it is live): discovery at its next
        query or charge, the check at its next charge (the model found is then kept,
        unverified)."""
        run = self._runs.get(run_id)
        if run is None:
            raise WebProblem(404, f"no running discovery '{run_id[:20]}'", kind="not_found")
        if not run.done:
            run.cancel_requested = True
        return run

    def get(self, run_id: str) -> Run:
        """The run ``run_id``: live, or reloaded from its store when the index has it."""
        run = self._runs.get(run_id)
        if run is not None:
            return run
        with self._index() as index:
            record = index.get("runs", run_id)
        if record is None:
            raise WebProblem(404, f"no discovery run '{run_id[:20]}'", kind="not_found")
        stored = record["params"]
        return self.start(params(stored["game"], stored["grid"], int(stored["seed"]),
                                 stored["agent"]))

    def _work(self, run: Run) -> None:
        """The run's thread: discover with the answer store, check, record."""
        from xaip.capabilities.checks import DiscoveryInputs, check
        from xaip.capabilities.discovery import DiscoveryConfig, discover_game, game_refine
        from xaip.capabilities.store import SQLiteStore
        from xaip.contract import with_check
        from xaip.render import render
        from xaip.vocab.registry import get_game

        p = run.params

        def progress(event: ProgressEvent) -> None:
            if run.cancel_requested:
                raise Cancelled
            run.report(event.to_dict())

        try:
            with SQLiteStore(self.folder / f"{run.id}.sqlite", p.to_dict()) as store:
                config = DiscoveryConfig(seed=p.seed, lifted_types=("cell",))
                result, simulator = discover_game(
                    p.game, p.rows, p.cols, agent=p.agent, seed=p.seed, store=store,
                    config=config, progress=progress,
                    budget=CancellableBudget(max_seconds=self.seconds, run=run))
            if simulator is not None and result.status.finished:
                run.phase = "checking"
                spec = get_game(p.game)
                inputs = DiscoveryInputs(simulator, spec.vocabulary(), game_refine(p.game))
                # the checker under the run's budget, started afresh (and ended by a cancel)
                result = with_check(result, check(inputs, result, CancellableBudget(
                    max_seconds=self.seconds, run=run)))
            payload = result.to_dict()
            payload.update(game=p.game, grid=f"{p.rows}x{p.cols}", agent=p.agent,
                           pddl=render(result, "pddl"))
            run.result, run.simulator, run.payload = result, simulator, payload
            run.state = "finished" if result.status.finished else "budget_exhausted"
            if run.cancel_requested:  # stopped in the check: the model stays, unverified
                run.state = "cancelled"
        except Cancelled:
            run.state = "cancelled"  # the answers asked so far stay in the run's store
        except Exception as error:  # a run's thread must record why it ended, whatever it was
            run.error = str(error)[:300] if isinstance(error, InputError) else (
                f"internal error ({type(error).__name__}); this is a bug in xaip")
            run.state = "failed"
        run.ended = time.time()
        with contextlib.suppress(WebProblem):  # the answer is still shown; only its index
            self._record(run)                  # entry is missing

    def picture(self, run_id: str, index: int, which: str) -> bytes:
        """The PNG of capability ``index``'s example state ``which`` (before/after): the
        same picture as ``xaip discover --pictures`` (titled with the capability and its
        card, the cells its parameters name framed, objects named, a legend), drawn with
        :mod:`xaip.figures` by :func:`~xaip.render.capabilities.capability_png`."""
        from xaip.render.capabilities import capability_png
        from xaip.vocab.registry import get_game

        run = self._runs.get(run_id)
        if run is None or run.result is None or run.simulator is None:
            raise WebProblem(404, "no pictures for this run (yet)", kind="not_found")
        capabilities = run.result.model.capabilities
        if not 0 <= index < len(capabilities) or which not in ("before", "after"):
            raise WebProblem(404, "no such picture", kind="not_found")
        capability = capabilities[index]
        example = capability.example
        if example is None or example[0 if which == "before" else 1] is None:
            raise WebProblem(404, "this capability has no example state", kind="not_found")
        vocabulary = get_game(run.params.game).vocabulary()
        return capability_png(run.simulator, capability, which, vocabulary)


__all__ = ["Discoveries", "Run", "RunParams", "params"]
