"""Export: CSV and Parquet rows, and the summary's numbers recomputed from the rows."""

from __future__ import annotations

import builtins
import csv
import io
import json
import statistics
from pathlib import Path
from typing import Any

import pytest

from xaip.cli import main
from xaip.errors import EngineUnavailable
from xaip.studies import load_study, run_study
from xaip.studies.export import render_summary, rows, summarise, to_parquet

from .helpers import plan_study, records


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("export")
    path = folder / "plans.sqlite"
    run_study(load_study(plan_study(folder, sizes=[3, 4], repeat=2), store=str(path)))
    return path


def test_csv_has_one_row_per_cell(store: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cells.csv"
    assert main(["study", "export", str(store), "--csv", str(out)]) == 0
    text = capsys.readouterr().out
    assert "8 cells" in text and "wrote 8 rows" in text
    table = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(table) == 8
    assert {"instance", "n", "run", "status", "verified", "optimal", "cost", "length",
            "expanded", "seconds", "key"} <= set(table[0])
    assert {row["instance"]: row["n"] for row in table} == {"blocks 3": "3", "blocks 4": "4"}
    stored = records(store)
    for row in table:
        record = stored[row["key"]]
        assert row["cost"] == str(record["payload"]["cost"])
        assert row["optimal"] == str(record["parameters"]["--optimal"])


def test_summary_numbers(store: Path) -> None:
    stored = list(records(store).values())
    summary = summarise(stored, ["--optimal"], [("cost", "cost")])
    assert summary["overall"]["cells"] == 8 and summary["overall"]["verified"] == 8
    for group in summary["settings"]:
        mine = [r for r in stored if r["parameters"]["--optimal"] is
                group["setting"]["--optimal"]]
        assert group["cells"] == len(mine) == 4
        assert group["metrics"]["cost"]["mean"] == pytest.approx(
            statistics.fmean(r["payload"]["cost"] for r in mine))
        assert group["mean_seconds"] == pytest.approx(
            statistics.fmean(r["seconds"] for r in mine))
        assert group["verified_share"] == 1.0
    text = render_summary(summary)
    assert "--optimal" in text and "8/8" in text


def test_summary_skips_missing_and_non_numbers() -> None:
    recs: list[dict[str, Any]] = [
        {"parameters": {"--k": 1}, "verified": True, "seconds": 1.0, "payload": {"x": 2}},
        {"parameters": {"--k": 1}, "verified": False, "seconds": 3.0, "payload": {"x": "a"}},
        {"parameters": {"--k": 2}, "verified": True, "seconds": 2.0, "payload": None},
    ]
    summary = summarise(recs, ["--k"], [("x", "x")])
    one, two = summary["settings"]
    assert one["metrics"]["x"] == {"mean": 2.0, "n": 1} and one["verified_share"] == 0.5
    assert two["metrics"]["x"] == {"mean": None, "n": 0}
    assert summary["overall"]["median_seconds"] == 2.0


def test_parquet_round_trip(store: Path, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "cells.parquet"
    assert main(["study", "export", str(store), "--parquet", str(out), "--json"]) == 0
    table = pq.read_table(out).to_pylist()
    assert len(table) == 8 and all(row["verified"] is True for row in table)
    assert {row["cost"] for row in table} == {r["payload"]["cost"]
                                             for r in records(store).values()}


def test_parquet_without_pyarrow_is_refused(monkeypatch: pytest.MonkeyPatch,
                                            store: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    real_import = builtins.__import__

    def no_pyarrow(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(EngineUnavailable, match=r"pip install 'xaip\[study\]'"):
        to_parquet(["a"], [{"a": 1}])
    out = tmp_path / "x.parquet"
    csv_out = tmp_path / "x.csv"
    assert main(["study", "export", str(store), "--parquet", str(out), "--csv",
                 str(csv_out)]) == 2
    assert "xaip[study]" in capsys.readouterr().err
    assert not out.exists() and not csv_out.exists()  # refused before writing anything


def test_export_bad_input(store: Path, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["study", "export", str(tmp_path / "none.sqlite")]) == 2
    assert "no such study store" in capsys.readouterr().err
    other = tmp_path / "other.sqlite"
    other.write_text("not sqlite at all")
    assert main(["study", "export", str(other)]) == 2
    assert "not a study store" in capsys.readouterr().err
    assert main(["study", "export", str(store), "--csv", str(store)]) == 2
    assert "refusing to overwrite the input" in capsys.readouterr().err
    assert main(["study", "export"]) == 2
    assert main(["study", "export", str(store), "--executor", "processes"]) == 2
    assert main(["study", "export", str(store), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["cells"] == 8 and payload["summary"]["overall"]["verified"] == 8


def test_rows_name_clashes_get_prefixes() -> None:
    header, table = rows([{"parameters": {"--status": "x"}, "payload": {"a": 1}}],
                         ["--status"], [("seconds", "a")])
    assert "param_status" in header and "metric_seconds" in header
    assert table[0]["param_status"] == "x" and table[0]["metric_seconds"] == 1


def test_summary_groups_by_instance_tags(store: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["study", "export", str(store), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert summary["tags"] == ["n"]
    groups = {g["value"]: g for g in summary["per_tag"]["n"]}
    assert set(groups) == {3, 4} and all(g["cells"] == 4 for g in groups.values())
    stored = records(store).values()
    for n, group in groups.items():
        costs = [r["payload"]["cost"] for r in stored if r["instance"] == f"blocks {n}"]
        assert group["metrics"]["cost"]["mean"] == pytest.approx(statistics.fmean(costs))
    assert "instances by n" in render_summary(summary)
