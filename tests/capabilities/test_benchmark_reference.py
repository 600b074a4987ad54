"""The like-for-like benchmark against the reference code and the Fig. 3 sweep
(benchmarks/capabilities_reference.py, benchmarks/capabilities_fig3.py): their pure
functions on hand-made inputs, and one small real run of each."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

from xaip.errors import InputError

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str, alias: str | None = None) -> ModuleType:
    """A benchmark script as a module (under ``alias`` in ``sys.modules``)."""
    key = alias or name
    if key in sys.modules:
        return sys.modules[key]
    spec = importlib.util.spec_from_file_location(key, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[key] = module
    spec.loader.exec_module(module)
    return module


ref = _load("capabilities_reference")
fig3 = _load("capabilities_fig3")


def _cap(**tables: tuple[set[str], set[str]]) -> Any:
    """A capability table: atom -> (precondition modes, effect modes)."""
    return SimpleNamespace(atoms=list(tables), pre={a: p for a, (p, _) in tables.items()},
                           eff={a: e for a, (_, e) in tables.items()})


def test_tuple_counts_one_mode_is_resolved() -> None:
    caps = [_cap(a=({"+"}, {"+", "-"}), b=({"+", "-", "0"}, {"0"})), _cap(c=({"-"}, {"0"}))]
    assert ref.tuple_counts(caps) == (4, 6)
    assert ref.tuple_counts([]) == (0, 0)


def test_first_reaching() -> None:
    P = ref.TracePoint
    points = [P(1, 5, 20, 0.1), P(3, 9, 20, 0.2), P(7, 9, 20, 0.3), P(9, 14, 20, 0.4)]
    assert ref.first_reaching(points, 9) == points[1]
    assert ref.first_reaching(points, 10) == points[3]
    assert ref.first_reaching(points, 15) is None
    assert ref.first_reaching([], 1) is None


def test_reference_at_exact_or_pro_rata() -> None:
    run = ref.ReferenceRun(queries=200, seconds=10.0, pal_tuples=400, capabilities=5)
    assert ref.reference_at(run, 400) == (200.0, 10.0, True)
    assert ref.reference_at(run, 500) == (200.0, 10.0, True)
    assert ref.reference_at(run, 100) == (50.0, 2.5, False)
    assert ref.reference_at(run, 0) == (0.0, 0.0, False)


def _traced(points: list[Any], final: Any, status: str = "complete") -> Any:
    return ref.TracedRun(points, final, 3, status, final.seconds + 1.0)


def test_like_row_stops_at_the_reference_count() -> None:
    """Ours resolves more than the reference: queries and seconds are where ours first
    resolved the reference's count, and the reference's numbers are its published ones."""
    P = ref.TracePoint
    points = [P(2, 10, 100, 0.5), P(6, 40, 100, 1.0), P(12, 60, 100, 2.0)]
    run = ref.ReferenceRun(queries=30, seconds=4.0, pal_tuples=35, capabilities=2)
    row = ref.like_row("zelda", 3, 4, "search", _traced(points, P(12, 70, 100, 2.5)), run)
    assert row["target_tuples"] == 35
    assert (row["queries"], row["seconds"]) == (6, 1.0)
    assert row["reference_exact"] and row["reference_queries"] == 30
    assert row["query_ratio"] == pytest.approx(0.2)
    assert row["speedup"] == pytest.approx(4.0)
    assert row["open"] == 30 and row["resolved_by_traces"] == 3


def test_like_row_estimates_the_reference_below_its_count() -> None:
    """Ours resolves fewer: the target is all ours resolves, the reference is scaled."""
    P = ref.TracePoint
    points = [P(2, 10, 50, 0.5), P(8, 20, 50, 1.0)]
    run = ref.ReferenceRun(queries=80, seconds=8.0, pal_tuples=100, capabilities=2)
    row = ref.like_row("escape", 3, 3, "policy", _traced(points, P(8, 25, 50, 1.2)), run)
    assert row["target_tuples"] == 25
    assert (row["queries"], row["seconds"]) == (8, 1.2)  # settled after the last query
    assert not row["reference_exact"]
    assert row["reference_queries"] == pytest.approx(20.0)
    assert row["reference_seconds"] == pytest.approx(2.0)
    assert "~" in ref.line(row)


def test_reference_tables_agree() -> None:
    """The driver grids are all in the result table, and agree with the older benchmark's
    reference numbers."""
    old = _load("capabilities", "benchmark_capabilities").REFERENCE
    for key in ref.DRIVER_GRIDS:
        run = ref.REFERENCE_RUNS[key]
        assert old[key] == (run.queries, run.seconds, run.pal_tuples, run.capabilities)
    assert set(old) == set(ref.DRIVER_GRIDS)


def test_parse_grids_and_rows() -> None:
    assert ref.parse_grids("3x4, 5X6") == [(3, 4), (5, 6)]
    for bad in ("3by4", "3x", "x4", "3x4x5", "-3x4", ""):
        with pytest.raises(InputError):
            ref.parse_grids(bad)
    assert ref.select_rows(["zelda", "escape"], True) == [("zelda", 3, 4), ("escape", 3, 3)]
    assert len(ref.select_rows(["snowman"], False)) == 3


def test_reference_cli_refuses_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    assert ref.main(["--agents", "robot"]) == 2
    assert ref.main(["--games", "tetris"]) == 2
    assert ref.main(["--repeat", "0"]) == 2
    assert ref.main(["--reference-code", "/nonexistent/icaml"]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 4 and "Traceback" not in err


def test_traced_run_is_real_and_restores_discovery() -> None:
    """A grounded Zelda 3x4 run: the trace never loses resolved tuples or queries, its
    last point is the run's count, and the engine hook is gone afterwards."""
    from xaip.capabilities import discovery

    original = discovery.QueryEngine
    traced = ref.traced_run("zelda", 3, 4, "search", 0, grounded=True)
    assert discovery.QueryEngine is original
    assert traced.status == "complete" and traced.points
    queries = [p.queries for p in traced.points]
    resolved = [p.resolved for p in traced.points]
    assert queries == sorted(queries) and resolved == sorted(resolved)
    assert traced.by_traces <= resolved[0] <= traced.final.resolved <= traced.final.total
    assert traced.final.queries >= queries[-1] > 0
    row = ref.like_row("zelda", 3, 4, "search", traced, ref.REFERENCE_RUNS[("zelda", 3, 4)])
    assert 0 < row["target_tuples"] <= 288 and row["queries"] <= traced.final.queries


def test_spearman() -> None:
    assert fig3.spearman([1, 2, 3], [10, 20, 30]) == pytest.approx(1.0)
    assert fig3.spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # ties take their mean rank: ranks (1, 2, 3.5, 5, 3.5) against 1..5
    assert fig3.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7]) == pytest.approx(8 / 95 ** 0.5)
    assert fig3.spearman([1, 2, 3], [4, 4, 4]) is None
    assert fig3.spearman([1], [2]) is None
    with pytest.raises(ValueError):
        fig3.spearman([1, 2], [1])


def _run(grid: str, agent: str, seed: int, queries: int, agent_seconds: float,
         status: str = "complete") -> dict[str, Any]:
    r, c = (int(x) for x in grid.split("x"))
    return {"game": "zelda", "grid": grid, "cells": r * c, "agent": agent, "seed": seed,
            "status": status, "queries": queries, "failed": 1, "capabilities": 3,
            "seconds": 1.0 + seed, "agent_seconds": agent_seconds,
            "ms_per_query": 1000 * agent_seconds / queries}


def test_aggregate_and_trends() -> None:
    runs = [_run("3x4", "search", 0, 10, 0.1), _run("3x4", "search", 1, 20, 0.2),
            _run("3x4", "policy", 0, 30, 0.03), _run("3x4", "policy", 1, 30, 0.03),
            _run("4x5", "search", 0, 40, 0.4),
            _run("4x5", "policy", 0, 40, 0.8, status="budget_exhausted")]
    rows = fig3.aggregate(runs)
    first = rows[0]
    assert (first["grid"], first["agent"], first["seeds"]) == ("3x4", "search", 2)
    assert first["queries"] == 15 and first["seconds"] == 1.5
    assert first["ms_per_query"] == pytest.approx(10.0)  # 0.3 s over 30 queries
    assert rows[-1]["status"] == "budget_exhausted"
    found = fig3.trends(rows)["zelda"]
    assert found["rho_queries_search"] == pytest.approx(1.0)
    assert found["rho_queries_policy"] == pytest.approx(1.0)
    assert found["grids_compared"] == 2
    assert found["policy_more_queries"] == 1 and found["policy_equal_queries"] == 1
    assert found["policy_faster_per_query"] == 1
    assert found["rho_queries_reference"] == pytest.approx(1.0)  # 235 .. 2423 queries
    assert "more 1/2" in fig3.trend_text(fig3.trends(rows))


def test_reference_series_sorted_by_cells() -> None:
    series = fig3.reference_series("escape")
    assert [c for c, _, _ in series] == sorted(c for c, _, _ in series)
    assert series[0] == (9, 114, pytest.approx(1000 * 13.5 / 114))


def test_plot_writes_a_figure(tmp_path: Path) -> None:
    rows = fig3.aggregate([_run("3x4", "search", 0, 10, 0.1), _run("4x5", "search", 0, 20, 0.2),
                           _run("3x4", "policy", 0, 12, 0.05)])
    target = tmp_path / "fig3.png"
    fig3.plot(rows, str(target), grounded=True)
    assert target.read_bytes()[:4] == b"\x89PNG"


def test_fig3_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fig3.main(["--grids", "3by4"]) == 2
    assert fig3.main(["--grids", "1x4"]) == 2
    assert fig3.main(["--agents", "robot"]) == 2
    assert fig3.main(["--seeds", "a"]) == 2
    assert fig3.main(["--plot", str(tmp_path / "f.txt")]) == 2
    assert fig3.main(["--plot", str(tmp_path / "no" / "f.png")]) == 2
    capsys.readouterr()
    assert fig3.main(["--games", "zelda", "--grids", "3x4", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["mode"] == "grounded" and len(out["runs"]) == 2
    assert {r["agent"] for r in out["rows"]} == {"search", "policy"}
    assert all(r["queries"] > 0 for r in out["runs"])


icaml = _load("capabilities_icaml")


def test_reference_driver_output_is_parsed() -> None:
    text = "noise\nQuery Count:  235\nXAIP-REFERENCE 235 3.75 288\nWALL 3.9\n"
    assert icaml.parse_output(text) == (235, 3.75, 288)
    assert icaml.parse_output("Query Count: 235\n") is None
    assert icaml.parse_output("XAIP-REFERENCE 1 x 2\n") is None


def test_reference_levels_and_checkout_are_checked(tmp_path: Path) -> None:
    """Only levels with the shipped person-made inputs run; a folder that is not a
    prepared checkout is refused with a one-line reason."""
    level = tmp_path / "gvg_agents" / "files" / "zelda" / "3_4"
    level.mkdir(parents=True)
    for name in ("high_traces", "random_states"):
        (level / name).write_bytes(b"")
    assert not icaml.has_level(tmp_path, "zelda", 3, 4)
    (level / "high_actions_dict").write_bytes(b"")
    assert icaml.has_level(tmp_path, "zelda", 3, 4)
    assert not icaml.has_level(tmp_path, "zelda", 4, 5)
    with pytest.raises(ValueError, match="not an iCaML checkout"):
        icaml.ReferenceCode(tmp_path, "python")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("")
    with pytest.raises(ValueError, match="FF is not compiled"):
        icaml.ReferenceCode(tmp_path, "python")


def test_measured_reference_columns() -> None:
    """The reference run here replaces the published numbers at the same target; a run
    that did not complete adds only its status."""
    row = {"target_tuples": 100, "queries": 20, "seconds": 1.0}
    done = icaml.ReferenceMeasurement("complete", 200, 8.0, 400, 9.0)
    cols = ref.measured_columns(row, done)
    assert cols["target_tuples"] == 100 and not cols["reference_exact"]
    assert cols["reference_queries"] == pytest.approx(50.0)
    assert cols["speedup"] == pytest.approx(2.0) and cols["query_ratio"] == pytest.approx(0.4)
    assert ref.measured_columns(row, icaml.ReferenceMeasurement("timeout", wall=5.0)) == {
        "here": {"status": "timeout", "queries": 0, "seconds": 0.0, "pal_tuples": 0,
                 "wall": 5.0}}
