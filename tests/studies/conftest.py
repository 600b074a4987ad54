"""Study tests run in their own temporary folder: a study without a ``store`` writes
``./NAME.sqlite`` in the working directory, which must never be the checkout.

The loopback Ray cluster's worker nodes import the test functions by module name from the
checkout, so that module keeps the working directory (its studies name their stores).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _work_in_a_temporary_folder(request: pytest.FixtureRequest, tmp_path: Path,
                                monkeypatch: pytest.MonkeyPatch) -> None:
    if request.module.__name__.endswith("test_ray_cluster"):
        return
    monkeypatch.chdir(tmp_path)
