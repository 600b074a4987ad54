"""The checker benchmark (``benchmarks/reconcile.py --checker``) runs and times what it says."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _benchmark():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("reconcile_benchmark",
                                                  ROOT / "benchmarks" / "reconcile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_repeated_timing_keeps_the_fastest_runs_and_the_first_runs_proofs() -> None:
    bench = _benchmark()
    rows = bench.checker_rows(6, ["mce", "contrastive"], 60.0, quick=False, repeat=3,
                              shared=False)
    assert {row["source"] for row in rows} == {"fetch", "random"}
    for row in rows:
        assert row["verified"], row
        assert row["check_seconds"] > 0 and row["search_seconds"] > 0
        assert row["ratio"] == row["check_seconds"] / max(row["search_seconds"], 1e-6)
        assert row["strict_ratio"] >= row["ratio"] * 0.999  # the search alone is shorter
        assert row["proofs"] >= 1  # the first run's proofs: at least the optimum before
    summary = bench.print_checker(rows, show=False)
    assert summary["random mce"]["verified"] == summary["random mce"]["instances"]


def test_repeat_must_be_positive(capsys) -> None:  # type: ignore[no-untyped-def]
    bench = _benchmark()
    if not bench.DATA.is_dir():  # main() refuses to run without the shared data first
        pytest.skip("shared MRP data not found")
    assert bench.main(["--checker", "--repeat", "0", "--random", "0"]) == 2
    assert "--repeat" in capsys.readouterr().err
