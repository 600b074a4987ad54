"""A bounded load test on loopback: ``xaip serve`` in a child process, many clients at once
over HTTP, a mix of cheap requests, real work, uploads (small, broken and 150 kB ones) and
requests that exhaust their budget (issue 22).

What it asserts is correctness under load, never time: every request gets an answer (none
lost, none hangs past the client's generous timeout), none is a 5xx, and each answer is
the one its request calls for -- a verified result or an honest ``budget_exhausted``, the
upload's identifier or its 400/413, JSON for scripts and a page for the browser. It prints
the numbers (requests, outcomes, latencies) for the record (``pytest -s``).

The server listens on 127.0.0.1 only, the request count is fixed, and the server is
stopped at the end.
"""

from __future__ import annotations

import collections
import statistics
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")
pytest.importorskip("fastapi")

from tests.web.browser import serve  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = ROOT / "src" / "xaip" / "domains"
#: Clients at once, and rounds of the request mix each sends.
CLIENTS = 24
ROUNDS = 2
#: A request unanswered after this long counts as lost (a hang detector, not a timing).
TIMEOUT = 180.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``xaip serve`` (4 workers, 2 s budgets) in a child process; its address."""
    yield from serve(tmp_path_factory.mktemp("load-runs"), "--max-seconds", "2",
                     "--workers", "4", attempts=600, probe_seconds=2, stop_seconds=20)


def _files(problem: bytes, plan: bytes | None = None) -> dict[str, Any]:
    files = {"domain": ("d.pddl", (DOMAINS / "blocksworld/domain.pddl").read_bytes()),
             "problem": ("p.pddl", problem)}
    if plan is not None:
        files["plan"] = ("plan.txt", plan)
    return files


def _big_problem(objects: int) -> bytes:
    names = " ".join(f"b{i}" for i in range(objects))
    return (f"(define (problem big) (:domain blocksworld) (:objects {names} - block)\n"
            " (:init (handempty) (clear b0) (ontable b0)) (:goal (holding b0)))\n").encode()


BIG = _big_problem(20_000)  # ~150 kB, issue 22's upload
SMALL = (DOMAINS / "blocksworld/problem-5.pddl").read_bytes()


def _honest(body: dict[str, Any]) -> bool:
    """A result is verified, or says plainly why not (never unverified and 'ok')."""
    return body["verified"] is True or body["status"] in (
        "budget_exhausted", "unsolvable", "invalid", "truncated", "not_found")


@dataclass(frozen=True)
class Kind:
    """One kind of request and what its answer must be."""

    name: str
    send: Callable[[Any, str, int], Any]  # (client, base, n) -> response
    expect: Callable[[Any], bool]


def _json_ok(response: Any) -> bool:
    return response.status_code == 200 and _honest(response.json())


def _exhausted(response: Any) -> bool:
    body = response.json()
    return (response.status_code == 200 and body["status"] == "budget_exhausted"
            and body["verified"] is False)


def _refused(code: int, kind: str | None = None) -> Callable[[Any], bool]:
    def check(response: Any) -> bool:
        if response.status_code != code:
            return False
        body = response.json()
        return bool(body["status"] == "error" and body["message"]
                    and (kind is None or body["error"] == kind))
    return check


def _big_upload_answer(response: Any) -> bool:
    """Parsed within its budget, or refused as budget exhausted: nothing else."""
    if response.status_code == 200:
        return bool(response.json()["model"]["id"].startswith("u-"))
    return bool(_refused(413, "budget_exhausted")(response))


KINDS = [
    Kind("models list", lambda c, b, n: c.get(f"{b}/api/models"),
         lambda r: r.status_code == 200 and len(r.json()["models"]) >= 5),
    Kind("home page", lambda c, b, n: c.get(f"{b}/", headers={"accept": "text/html"}),
         lambda r: r.status_code == 200 and "<main" in r.text),
    Kind("plan", lambda c, b, n: c.get(f"{b}/api/plan", params={"model": "blocksworld"}),
         _json_ok),
    Kind("explain", lambda c, b, n: c.get(f"{b}/api/explain", params={"model": "fetch"}),
         _json_ok),
    Kind("summary", lambda c, b, n: c.get(f"{b}/api/summaries"), _json_ok),
    Kind("plan, 1 node", lambda c, b, n: c.get(f"{b}/api/plan", params={
        "model": "blocksworld", "max_nodes": 1}), _exhausted),
    Kind("explain, 1 node", lambda c, b, n: c.get(f"{b}/api/explain", params={
        "model": "fetch", "max_nodes": 1}), _exhausted),
    Kind("upload", lambda c, b, n: c.post(f"{b}/api/models", files=_files(
        SMALL + f"; client {n}\n".encode())),
         lambda r: r.status_code == 200 and r.json()["model"]["id"].startswith("u-")),
    Kind("upload, broken", lambda c, b, n: c.post(f"{b}/api/models", files=_files(
        SMALL[:-40])), _refused(400, "pddl_syntax")),
    Kind("upload, 150 kB", lambda c, b, n: c.post(
        f"{b}/api/models", params={"max_seconds": 0.5},
        files=_files(BIG + f"; client {n}\n".encode())), _big_upload_answer),
    Kind("unknown model page", lambda c, b, n: c.get(
        f"{b}/plan", params={"model": "nope"}, headers={"accept": "text/html"}),
         lambda r: r.status_code == 404 and "<main" in r.text),
]


def test_many_clients_at_once_get_every_answer(server: str) -> None:
    def client_session(n: int) -> list[tuple[str, int, float, bool]]:
        out = []
        with httpx.Client(timeout=TIMEOUT) as client:
            for round_ in range(ROUNDS):
                for i in range(len(KINDS)):
                    kind = KINDS[(i + n + round_) % len(KINDS)]  # clients interleave kinds
                    began = time.perf_counter()
                    response = kind.send(client, server, n)
                    seconds = time.perf_counter() - began
                    out.append((kind.name, response.status_code, seconds,
                                kind.expect(response)))
        return out

    began = time.perf_counter()
    with ThreadPoolExecutor(CLIENTS) as pool:
        sessions = list(pool.map(client_session, range(CLIENTS)))
    wall = time.perf_counter() - began
    answers = [answer for session in sessions for answer in session]

    assert len(answers) == CLIENTS * ROUNDS * len(KINDS)  # nothing lost
    codes = collections.Counter(code for _, code, _, _ in answers)
    assert not [code for code in codes if code >= 500], codes
    wrong = [(name, code) for name, code, _, right in answers if not right]
    assert not wrong, wrong
    after = httpx.get(f"{server}/api/plan", params={"model": "blocksworld"}, timeout=TIMEOUT)
    assert after.status_code == 200 and after.json()["verified"] is True

    latencies = sorted(seconds for _, _, seconds, _ in answers)
    print(f"\nload: {len(answers)} requests from {CLIENTS} clients in {wall:.1f} s; "
          f"status codes {dict(sorted(codes.items()))}; latency median "
          f"{statistics.median(latencies):.2f} s, p95 "
          f"{latencies[int(0.95 * (len(latencies) - 1))]:.2f} s, max {latencies[-1]:.2f} s")
    for kind in KINDS:
        mine = sorted(s for name, _, s, _ in answers if name == kind.name)
        kinds = collections.Counter(code for name, code, _, _ in answers if name == kind.name)
        print(f"  {kind.name:20} {dict(kinds)}  median {statistics.median(mine):.2f} s, "
              f"max {mine[-1]:.2f} s")
