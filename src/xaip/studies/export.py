"""A study's records as a table: CSV, Parquet, and a summary (text and JSON).

Why flat rows: a paper's tables and plots are made in pandas, R or a spreadsheet, which
want one row per cell and one column per parameter and measured value. The full JSON
answer of every cell stays in the store (``payload``); the row keeps what the study
file's ``[metrics]`` name, plus the cell's status, verification, exit code and times.

The summary answers the first questions about a study: per setting (combination of
parameter values) and per value of each parameter, how many cells, which share was
verified, mean and median wall-clock seconds and mean CPU seconds, and the mean of every
numeric metric (a metric that is not a number, or missing from a cell's answer, is left
out of that mean; ``n`` says over how many cells each mean is).
"""

from __future__ import annotations

import csv
import io
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from xaip.errors import EngineUnavailable, InputError
from xaip.studies.cells import metric

#: Columns every row has, in this order (then parameters, then metrics).
BASE = ("instance", "run", "status", "verified", "exit", "seconds", "cpu_seconds")
TAIL = ("error", "host", "key")


def _column(option: str, taken: set[str], prefix: str) -> str:
    name = option.lstrip("-").replace("-", "_")
    return f"{prefix}_{name}" if name in taken else name


def columns(parameters: Sequence[str], metrics: Sequence[tuple[str, str]],
            tags: Sequence[str] = ()) -> tuple[list[str], dict[str, str], dict[str, str],
                                               dict[str, str]]:
    """All column names, and the column of each parameter, each metric and each tag (an
    instance's ``vary`` name)."""
    taken = set(BASE) | set(TAIL)
    by_tag = {}
    for tag in tags:
        by_tag[tag] = _column(tag, taken, "tag")
        taken.add(by_tag[tag])
    by_option = {}
    for option in parameters:
        by_option[option] = _column(option, taken, "param")
        taken.add(by_option[option])
    by_metric = {}
    for name, _ in metrics:
        by_metric[name] = _column(name, taken, "metric")
        taken.add(by_metric[name])
    header = [BASE[0], *by_tag.values(), *BASE[1:], *by_option.values(),
              *by_metric.values(), *TAIL]
    return header, by_option, by_metric, by_tag


def rows(records: Iterable[dict[str, Any]], parameters: Sequence[str],
         metrics: Sequence[tuple[str, str]],
         tags: Sequence[str] = ()) -> tuple[list[str], list[dict[str, Any]]]:
    """The header and one flat row per record."""
    header, by_option, by_metric, by_tag = columns(parameters, metrics, tags)
    out = []
    for record in records:
        row = {name: record.get(name) for name in (*BASE, *TAIL)}
        own_tags = record.get("tags") or {}
        for tag, column in by_tag.items():
            row[column] = own_tags.get(tag)
        given = record.get("parameters") or {}
        for option, column in by_option.items():
            row[column] = given.get(option)
        for name, path in metrics:
            row[by_metric[name]] = metric(record.get("payload"), path)
        out.append(row)
    return header, out


def to_csv(header: list[str], table: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    for row in table:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    return buffer.getvalue()


def to_parquet(header: list[str], table: list[dict[str, Any]]) -> bytes:
    """The rows as a Parquet file (needs pyarrow: the ``xaip[study]`` extra). A column
    whose cells mix kinds of values (numbers and text) is written as text."""
    try:
        import pyarrow as pa  # type: ignore[import-untyped,import-not-found,unused-ignore]
        import pyarrow.parquet as pq  # type: ignore[import-untyped,import-not-found,unused-ignore]
    except ImportError:
        raise EngineUnavailable("--parquet needs pyarrow: pip install 'xaip[study]' "
                                "(or export --csv)") from None
    data: dict[str, list[Any]] = {}
    for name in header:
        values = [row.get(name) for row in table]
        kinds = {type(v) for v in values if v is not None}
        if kinds == {int, float}:
            values = [None if v is None else float(v) for v in values]
        elif len(kinds) > 1 or kinds & {dict, list}:
            values = [None if v is None else str(v) for v in values]
        data[name] = values
    buffer = pa.BufferOutputStream()
    pq.write_table(pa.table(data), buffer)
    return bytes(buffer.getvalue().to_pybytes())


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _group(table: list[dict[str, Any]], metric_columns: Sequence[str]) -> dict[str, Any]:
    seconds = [float(r["seconds"]) for r in table if _number(r.get("seconds")) is not None]
    cpu = [float(r["cpu_seconds"]) for r in table
           if _number(r.get("cpu_seconds")) is not None]
    verified = sum(1 for r in table if r.get("verified") is True)
    means: dict[str, Any] = {}
    for name in metric_columns:
        numbers = [n for n in (_number(r.get(name)) for r in table) if n is not None]
        means[name] = {"mean": statistics.fmean(numbers) if numbers else None,
                       "n": len(numbers)}
    return {
        "cells": len(table), "verified": verified,
        "verified_share": verified / len(table) if table else None,
        "statuses": dict(Counter(str(r.get("status")) for r in table)),
        "mean_seconds": statistics.fmean(seconds) if seconds else None,
        "median_seconds": statistics.median(seconds) if seconds else None,
        "total_seconds": sum(seconds),
        "mean_cpu_seconds": statistics.fmean(cpu) if cpu else None,
        "metrics": means,
    }


def _per_value(table: list[dict[str, Any]], column: str,
               metric_columns: Sequence[str]) -> list[dict[str, Any]]:
    values: dict[str, list[dict[str, Any]]] = {}
    for row in table:
        values.setdefault(repr(row[column]), []).append(row)
    return [{"value": group[0][column], **_group(group, metric_columns)}
            for group in values.values()]


def summarise(records: Iterable[dict[str, Any]], parameters: Sequence[str],
              metrics: Sequence[tuple[str, str]], tags: Sequence[str] = ()) -> dict[str, Any]:
    """The summary of ``records`` (see the module docstring), JSON-ready."""
    _, by_option, by_metric, by_tag = columns(parameters, metrics, tags)
    _, table = rows(records, parameters, metrics, tags)
    metric_columns = list(by_metric.values())
    settings: dict[str, list[dict[str, Any]]] = {}
    for row in table:  # by repr: 1 and True are equal keys in Python, not one setting
        settings.setdefault(repr([row[c] for c in by_option.values()]), []).append(row)
    per_parameter = {option: _per_value(table, column, metric_columns)
                     for option, column in by_option.items()}
    per_tag = {tag: _per_value(table, column, metric_columns)
               for tag, column in by_tag.items()}
    return {
        "parameters": list(by_option),
        "tags": list(by_tag),
        "metrics": metric_columns,
        "per_tag": per_tag,
        "overall": _group(table, metric_columns),
        "settings": [{"setting": {option: group[0][column] for option, column in
                                  by_option.items()},
                      **_group(group, metric_columns)} for group in settings.values()],
        "per_parameter": per_parameter,
    }


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return str(value)


def _setting_label(setting: dict[str, Any]) -> str:
    parts = [option if value is True else f"{option}={value}"
             for option, value in setting.items() if value is not False]
    return " ".join(parts) or "defaults"


def render_summary(summary: dict[str, Any]) -> str:
    """The summary as text tables: one row per setting, then one per parameter value."""
    metric_columns = summary["metrics"]
    head = ["cells", "verified", "mean s", "median s", "cpu s", *metric_columns]

    def line(label: str, group: dict[str, Any]) -> list[str]:
        return [label, str(group["cells"]),
                f"{group['verified']}/{group['cells']}",
                _fmt(group["mean_seconds"]), _fmt(group["median_seconds"]),
                _fmt(group["mean_cpu_seconds"]),
                *[_fmt(group["metrics"][m]["mean"]) for m in metric_columns]]

    def table(title: str, body: list[list[str]]) -> list[str]:
        grid = [[title, *head], *body]
        widths = [max(len(r[i]) for r in grid) for i in range(len(grid[0]))]
        return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                          for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
                for r in grid]

    out = table("setting", [line(_setting_label(s["setting"]), s)
                            for s in summary["settings"]])
    out += table("", [line("all cells", summary["overall"])])[1:]
    if len(summary["parameters"]) > 1:
        for option, groups in summary["per_parameter"].items():
            out.append("")
            out += table(option, [line(_fmt(g["value"]), g) for g in groups])
    for tag, groups in summary.get("per_tag", {}).items():
        if len(groups) > 1:
            out.append("")
            out += table(f"instances by {tag}", [line(_fmt(g["value"]), g) for g in groups])
    if metric_columns:
        out.append("")
        out.append("metrics are means over the cells whose answer has a number there")
    return "\n".join(out)


def check_export_names(csv_path: str | None, parquet_path: str | None) -> None:
    if csv_path is not None and csv_path == parquet_path:
        raise InputError("--csv and --parquet name one file; give each its own")
