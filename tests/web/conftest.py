"""Shared fixtures of the workbench tests: an application with small limits.

The whole directory is skipped (not failed) without the ``web`` extra, which the base
install does not have.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("jinja2")
pytest.importorskip("multipart")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # Starlette announces its next test-client dependency
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from xaip.web import create_app  # noqa: E402
from xaip.web.settings import Settings  # noqa: E402

#: Limits small enough that the tests can pass them cheaply.
SMALL = {"max_body_bytes": 200_000, "max_file_bytes": 50_000, "max_models": 4,
         "max_seconds": 20.0}


def settings(tmp: Path, **changes: Any) -> Settings:
    return Settings(runs_dir=tmp / "runs", **{**SMALL, **changes})


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """A test client of a fresh workbench whose discovery runs live in ``tmp_path``."""
    with TestClient(create_app(settings(tmp_path)), raise_server_exceptions=True) as test:
        yield test


HTML = {"accept": "text/html"}


# ------------------------------------------------------------- the browser tests' defaults
# A browser test module overrides any of these by defining a fixture of the same name.


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``xaip serve`` in a child process for the module; its address."""
    from tests.web.browser import serve

    yield from serve(tmp_path_factory.mktemp("runs"))


@pytest.fixture(scope="module")
def page(server: str) -> Iterator[Any]:
    """A desktop-sized Chromium tab for the module (the server is started first)."""
    from tests.web.browser import launch, tab

    sync_api = pytest.importorskip("playwright.sync_api")
    for browser in launch(sync_api):
        yield from tab(browser, {"width": 1280, "height": 900})


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: docs/images with XAIP_SCREENSHOTS=1, else a temporary folder."""
    from tests.web.browser import shots_folder

    return shots_folder(tmp_path_factory)
