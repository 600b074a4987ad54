"""Shared pieces of the browser tests: ``xaip serve`` on a free port and Debian's Chromium
driven by Playwright (never Playwright's own browser download).

Imported by the ``test_*`` browser modules, which skip, not fail, where Chromium or
Playwright is missing.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PHONE = {"width": 390, "height": 844}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def serve(runs: Path, *extra: str, attempts: int = 300, probe_seconds: float = 1.0,
          stop_seconds: float = 10.0) -> Iterator[str]:
    """``xaip serve`` in a child process (its address), stopped afterwards.

    It waits up to ``attempts`` probes of ``/api/models`` (``probe_seconds`` each) for the
    server to answer, and ``stop_seconds`` for it to end before killing it."""
    port = free_port()
    log = runs / "serve.log"
    command = "import sys; from xaip.cli import main; sys.exit(main(sys.argv[1:]))"
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-c", command, "serve", "--port", str(port), "--runs", str(runs),
             *extra], stdout=sink, stderr=sink, cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(attempts):
            if process.poll() is not None:
                raise RuntimeError(f"xaip serve ended: {log.read_text()[-500:]}")
            try:
                if httpx.get(f"{base}/api/models", timeout=probe_seconds).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=stop_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def launch(sync_api: Any) -> Iterator[Any]:
    """Chromium (one per test module: Playwright's sync API runs one at a time)."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


def tab(browser: Any, viewport: dict[str, int]) -> Iterator[Any]:
    """A tab of ``viewport`` size; fails the test on any JavaScript error."""
    context = browser.new_context(viewport=viewport, accept_downloads=True)
    context.set_default_timeout(60_000)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"


def shots_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``docs/images/`` with ``XAIP_SCREENSHOTS=1``, else a temporary directory."""
    if os.environ.get("XAIP_SCREENSHOTS") == "1":
        folder = ROOT / "docs" / "images"
        folder.mkdir(parents=True, exist_ok=True)
        return folder
    return tmp_path_factory.mktemp("screenshots")


def snap(page: Any, shots: Path, name: str, full: bool = False) -> None:
    page.screenshot(path=str(shots / f"workbench-{name}.png"), full_page=full)
