"""The work pool's bounds: time limits that stop any work, lanes that keep a worker free,
bounded waiting -- and the upload flood of issue 22 that blocked every worker.

Work that must be stopped is written so it can only end by being stopped (a Python loop
waiting for an event the test never sets), so these tests hang -- caught by the
generous timeouts -- instead of passing by luck when a bound is missing. No test asserts
on time.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.web.conftest import HTML, TestClient, settings
from xaip.web import create_app
from xaip.web.jobs import Job
from xaip.web.problems import WebProblem
from xaip.web.work import Unfinished, WorkPool

DOMAINS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains"
#: How long a test waits for something that must happen (a hang detector, not a timing).
PATIENCE = 120.0


def spin_until(event: threading.Event, started: threading.Event | None = None) -> str:
    """Python work that ends only when ``event`` is set (or the work is interrupted)."""
    if started is not None:
        started.set()
    while not event.is_set():
        sum(range(100))  # Python bytecode: where an interrupt is delivered
    return "released"


def wait_for(condition: Callable[[], bool]) -> None:
    end = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < end, "gave up waiting"
        time.sleep(0.01)


# --------------------------------------------------------------------------- the pool


def test_work_past_its_limit_is_stopped_and_frees_its_worker() -> None:
    never = threading.Event()
    pool = WorkPool(2, 2, grace=0.1)

    async def main() -> Any:
        return await pool.run(spin_until, never, seconds=0.2, phase="parsing")

    result = anyio.run(main)
    assert isinstance(result, Unfinished)
    assert result.to_dict() == {"status": "budget_exhausted", "verified": False,
                                "phase": "parsing", "message": result.message}
    assert "0.2 s" in result.message
    assert pool.busy == 0 and pool.pending == 0 and not any(pool.lanes.values())


def test_a_budget_sets_the_limit_with_room_for_the_checker() -> None:
    from xaip.runtime import Budget

    pool = WorkPool(1, 0, seconds=7.0, work_factor=2.0)
    assert pool.limit_of(Budget(max_seconds=3.0), None) == 6.0
    assert pool.limit_of(Budget(max_seconds=3.0), 1.5) == 1.5
    assert pool.limit_of(None, None) == 7.0

    seen: list[Any] = []

    def takes(x: int, budget: Budget) -> int:
        seen.append(budget)
        return x + 1

    assert anyio.run(lambda: pool.run(takes, 1, budget=Budget(max_seconds=3.0))) == 2
    assert seen == [Budget(max_seconds=3.0)]  # the budget reaches the work


def test_work_stuck_outside_python_is_answered_and_its_worker_stays_counted() -> None:
    """A C call that does not return to Python cannot be interrupted: the request is
    answered anyway, and the worker counts as busy until the thread has really ended."""
    gate = threading.Event()
    pool = WorkPool(2, 2, grace=0.05, abandon=0.1)
    states: list[int] = []

    async def main() -> Any:
        result = await pool.run(gate.wait, PATIENCE, seconds=0.05)
        states.append(pool.busy)
        gate.set()
        while pool.busy:
            await anyio.sleep(0.01)
        return result

    result = anyio.run(main)
    assert isinstance(result, Unfinished) and "did not stop" in result.message
    assert states == [1] and pool.busy == 0


def test_one_lane_never_takes_every_worker() -> None:
    release = threading.Event()
    pool = WorkPool(3, 10)
    order: list[str] = []

    async def main() -> None:
        async def upload(n: int) -> None:
            await pool.run(spin_until, release, lane="upload")
            order.append(f"upload {n}")

        async with anyio.create_task_group() as group:
            for n in range(4):
                group.start_soon(upload, n)
            while pool.lanes["upload"] < 2:
                await anyio.sleep(0.01)
            await anyio.sleep(0.05)
            assert pool.lanes["upload"] == 2 and pool.busy == 2  # the third waits
            assert await pool.run(lambda: "cheap", lane="plan") == "cheap"
            order.append("plan")
            release.set()

    anyio.run(main)
    assert order[0] == "plan" and sorted(order[1:]) == [f"upload {n}" for n in range(4)]
    assert pool.busy == 0 and pool.pending == 0


def test_a_request_that_waits_too_long_is_refused() -> None:
    release = threading.Event()
    pool = WorkPool(1, 5, max_wait=0.05)
    outcomes: list[Any] = []

    async def main() -> None:
        async def hold() -> None:
            outcomes.append(await pool.run(spin_until, release))

        async with anyio.create_task_group() as group:
            group.start_soon(hold)
            while not pool.busy:
                await anyio.sleep(0.01)
            with pytest.raises(WebProblem) as refused:
                await pool.run(lambda: None)
            outcomes.append((refused.value.status_code, refused.value.kind))
            release.set()

    anyio.run(main)
    assert (503, "busy") in outcomes and "released" in outcomes
    assert pool.pending == 0 and pool.busy == 0 and not pool._waiting


def test_a_request_given_up_by_its_client_stops_its_work() -> None:
    never = threading.Event()
    started = threading.Event()
    pool = WorkPool(1, 1)

    async def main() -> None:
        with anyio.move_on_after(PATIENCE) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: pool.run(spin_until, never, started, seconds=PATIENCE))
                while not started.is_set():
                    await anyio.sleep(0.01)
                group.cancel_scope.cancel()  # the client disconnected
            while pool.busy:
                await anyio.sleep(0.01)
        assert not scope.cancelled_caught

    anyio.run(main)
    assert pool.busy == 0 and pool.pending == 0


def test_an_import_is_never_interrupted(tmp_path: Path) -> None:
    """An interrupt is held back while the work imports a module (a half-run module would
    stay broken), and delivered once the import is done."""
    (tmp_path / "xaip_slow_module.py").write_text(
        "import builtins\n"
        "builtins.xaip_importing.set()\n"
        "while not builtins.xaip_imported.is_set():\n"
        "    sum(range(100))\n"
        "DONE = True\n")
    import builtins

    importing, imported, never = threading.Event(), threading.Event(), threading.Event()
    builtins.xaip_importing, builtins.xaip_imported = importing, imported  # type: ignore[attr-defined]
    sys.path.insert(0, str(tmp_path))
    ended = threading.Event()

    def work() -> None:
        import xaip_slow_module  # noqa: F401

        spin_until(never)

    try:
        job = Job(work, (), {}, lambda _: ended.set())
        job.start()
        assert importing.wait(PATIENCE)
        assert job.interrupt() is False  # held back: the thread is importing
        imported.set()
        wait_for(lambda: "xaip_slow_module" in sys.modules)
        wait_for(job.interrupt)  # delivered once the import is over
        assert ended.wait(PATIENCE)
        assert job.interrupted and type(job.error).__name__ == "WorkInterrupted"
        assert sys.modules["xaip_slow_module"].DONE  # the module ran whole
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("xaip_slow_module", None)
        del builtins.xaip_importing, builtins.xaip_imported  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- uploads


def big_problem(objects: int, tag: str = "") -> bytes:
    """A blocksworld problem with ``objects`` blocks (~7 bytes each), as in issue 22."""
    names = " ".join(f"b{i}" for i in range(objects))
    return (f"; {tag}\n(define (problem big) (:domain blocksworld)\n (:objects {names} - block)"
            "\n (:init (handempty) (clear b0) (ontable b0))\n (:goal (and (holding b0))))\n"
            ).encode()


def upload_files(problem: bytes) -> dict[str, tuple[str, bytes, str]]:
    return {"domain": ("d.pddl", (DOMAINS / "blocksworld/domain.pddl").read_bytes(),
                       "text/plain"),
            "problem": ("p.pddl", problem, "text/plain")}


@pytest.fixture
def slow_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """Checking an uploaded problem (``big``) against its domain spins until ``release``
    is set: an upload whose parse takes as long as the test wants (the reader of issue 22
    took ~100 s). Other problems are checked as usual."""
    import xaip.planning.pddl as pddl

    state: dict[str, Any] = {"release": threading.Event(), "spinning": 0,
                             "lock": threading.Lock()}
    real = pddl.check_problem

    def slow(domain: Any, problem: Any) -> None:
        if problem.name != "big":
            return real(domain, problem)
        with state["lock"]:
            state["spinning"] += 1
        try:
            spin_until(state["release"])
        finally:
            with state["lock"]:
                state["spinning"] -= 1
        real(domain, problem)

    monkeypatch.setattr(pddl, "check_problem", slow)
    yield state
    state["release"].set()


def test_slow_uploads_leave_a_worker_for_other_requests(tmp_path: Path,
                                                        slow_checks: dict[str, Any]) -> None:
    """Four uploads that parse for as long as they like hold three of the four workers;
    a plan asked for meanwhile is answered (verified) while all four still parse."""
    app = create_app(settings(tmp_path, workers=4, max_seconds=PATIENCE))
    with TestClient(app) as client, ThreadPoolExecutor(4) as threads:
        uploads = [threads.submit(client.post, "/api/models",
                                  files=upload_files(big_problem(50, f"upload {n}")))
                   for n in range(4)]
        wait_for(lambda: slow_checks["spinning"] == 3)
        assert app.state.bench.pool.lanes["upload"] == 3  # the fourth waits its turn
        plan = client.get("/api/plan", params={"model": "blocksworld"})
        assert plan.status_code == 200 and plan.json()["verified"] is True, plan.text
        assert not any(upload.done() for upload in uploads)  # they were still parsing
        slow_checks["release"].set()
        answers = [upload.result(timeout=PATIENCE) for upload in uploads]
    assert [a.status_code for a in answers] == [200] * 4
    assert len({a.json()["model"]["id"] for a in answers}) == 4


def test_an_upload_that_cannot_be_parsed_in_its_budget_is_refused(
        tmp_path: Path, slow_checks: dict[str, Any]) -> None:
    """Uploads stopped at their budget answer 413 budget_exhausted (JSON for scripts, a page
    for browsers), every worker is free again and nothing of them is kept."""
    app = create_app(settings(tmp_path, workers=2, grace_seconds=0.1))
    with TestClient(app) as client, ThreadPoolExecutor(3) as threads:
        jobs = [threads.submit(client.post, "/api/models", params={"max_seconds": 0.3},
                               files=upload_files(big_problem(50, f"upload {n}")))
                for n in range(3)]
        answers = [job.result(timeout=PATIENCE) for job in jobs]
        page = client.post("/models", params={"max_seconds": 0.3}, headers=HTML,
                           files=upload_files(big_problem(50, "page")))
        pool = app.state.bench.pool
        assert pool.busy == 0 and pool.pending == 0
        wait_for(lambda: slow_checks["spinning"] == 0)  # no thread parses on
        models = client.get("/api/models").json()["models"]
    for answer in answers:
        assert answer.status_code == 413, answer.text
        body = answer.json()
        assert body["status"] == "error" and body["error"] == "budget_exhausted"
        assert "budget of 0.3 s" in body["message"]
    assert page.status_code == 413 and "text/html" in page.headers["content-type"]
    assert "budget exhausted" in page.text
    assert all(m["bundled"] for m in models)


def test_a_flood_of_big_uploads_leaves_the_workbench_answering(tmp_path: Path) -> None:
    """Issue 22's reproducer with the real reader: four uploads of 20,000 objects (~150 kB)
    at once, with a small budget. Each is parsed or refused as budget exhausted -- nothing
    else -- and a cheap request made meanwhile is answered."""
    app = create_app(settings(tmp_path, workers=4, max_seconds=1.0, grace_seconds=0.5,
                              max_file_bytes=256_000, max_body_bytes=1_000_000))
    problem = big_problem(20_000)
    assert 128_000 < len(problem) < 256_000
    with TestClient(app) as client, ThreadPoolExecutor(4) as threads:
        uploads = [threads.submit(client.post, "/api/models",
                                  files=upload_files(problem + f"; {n}\n".encode()))
                   for n in range(4)]
        wait_for(lambda: app.state.bench.pool.busy > 0)
        plan = client.get("/api/plan", params={"model": "blocksworld"})
        answers = [upload.result(timeout=PATIENCE) for upload in uploads]
        assert app.state.bench.pool.busy == 0
    # answered: the plan, or -- when four parsing threads hold the GIL on a busy machine
    # for the whole of its 1 s -- its own budget's verdict, never an error or a hang
    assert plan.status_code == 200
    assert plan.json()["verified"] is True or plan.json()["status"] == "budget_exhausted"
    for answer in answers:
        assert answer.status_code in (200, 413), answer.text
        if answer.status_code == 413:
            assert answer.json()["error"] == "budget_exhausted"


def test_the_limit_is_the_readers_deadline_in_the_work_thread() -> None:
    """A job's limit reaches the PDDL readers' reading deadline (which a new thread does
    not inherit), so a reader stops on its own, before any watchdog."""
    from xaip.runtime.budget import check_reading

    def read_slowly() -> str:
        time.sleep(0.05)
        check_reading("a slow file")
        return "read"

    pool = WorkPool(1, 0, grace=PATIENCE)
    result = anyio.run(lambda: pool.run(read_slowly, seconds=0.01))
    assert isinstance(result, Unfinished) and result.phase == "reading"
    assert "a slow file" in result.message
    assert anyio.run(lambda: pool.run(read_slowly, seconds=PATIENCE)) == "read"


def test_the_reader_itself_stops_an_upload_past_its_budget(tmp_path: Path) -> None:
    """With the watchdog out of reach (a grace longer than the test's patience), a 150 kB
    upload with a 1 ms budget is still refused: the reader checked the deadline."""
    app = create_app(settings(tmp_path, grace_seconds=PATIENCE, max_file_bytes=256_000,
                              max_body_bytes=1_000_000))
    with TestClient(app) as client:
        answer = client.post("/api/models", params={"max_seconds": 0.001},
                             files=upload_files(big_problem(20_000)))
    assert answer.status_code == 413 and answer.json()["error"] == "budget_exhausted"


def test_a_finaliser_is_never_interrupted() -> None:
    """An interrupt is held back while the work runs a finaliser (``__del__``: the
    interpreter would swallow it there and leave the finaliser half done)."""
    inside, leave, never, ended = (threading.Event() for _ in range(4))

    class Finalised:
        def __del__(self) -> None:
            inside.set()
            spin_until(leave)

    def work() -> None:
        thing = Finalised()
        del thing  # runs __del__ here, in the work thread
        spin_until(never)

    job = Job(work, (), {}, lambda _: ended.set())
    job.start()
    assert inside.wait(PATIENCE)
    assert job.interrupt() is False  # held back: the thread is in __del__
    leave.set()
    wait_for(job.interrupt)
    assert ended.wait(PATIENCE) and type(job.error).__name__ == "WorkInterrupted"
