"""The summary against a brute-force oracle on random records (written from the summary's
definition in docs/studies.md, not from xaip.studies.export)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from xaip.studies.export import summarise

SEEDS = range(300)


def random_records(rng: random.Random) -> tuple[list[dict[str, Any]], list[str]]:
    options = rng.sample(["--a", "--b", "--c"], rng.randint(0, 3))
    values = {o: rng.sample([1, 2, "x", True, False, 2.5], rng.randint(1, 3)) for o in options}
    recs = []
    for _ in range(rng.randint(0, 12)):
        metric = rng.choice([None, 0, 3, -1.5, "text", True, [1, 2], {"k": 1}])
        recs.append({
            "parameters": {o: rng.choice(values[o]) for o in options},
            "verified": rng.random() < 0.6,
            "seconds": rng.choice([None, rng.uniform(0, 5)]),
            "cpu_seconds": rng.uniform(0, 5),
            "status": rng.choice(["solved", "budget_exhausted"]),
            "payload": None if rng.random() < 0.1 else {"m": metric},
        })
    return recs, options


def oracle_group(group: list[dict[str, Any]]) -> dict[str, Any]:
    numbers = []
    for r in group:
        value = (r["payload"] or {}).get("m")
        if isinstance(value, (list, dict)):
            value = len(value)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            numbers.append(float(value))
    seconds = [r["seconds"] for r in group if r["seconds"] is not None]
    verified = sum(1 for r in group if r["verified"])
    return {"cells": len(group), "verified": verified,
            "share": verified / len(group) if group else None,
            "mean_seconds": sum(seconds) / len(seconds) if seconds else None,
            "metric": sum(numbers) / len(numbers) if numbers else None, "n": len(numbers)}


def same(a: float | None, b: float | None) -> bool:
    return a == b if a is None or b is None else a == pytest.approx(b)


@pytest.mark.parametrize("seed", SEEDS)
def test_summary_matches_oracle(seed: int) -> None:
    rng = random.Random(seed)
    recs, options = random_records(rng)
    summary = summarise(recs, options, [("m", "m")])
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in recs:
        groups.setdefault(repr([r["parameters"][o] for o in options]), []).append(r)
    assert len(summary["settings"]) == len(groups)
    for entry in summary["settings"]:
        key = repr([entry["setting"][o] for o in options])
        expected = oracle_group(groups[key])
        assert entry["cells"] == expected["cells"]
        assert entry["verified"] == expected["verified"]
        assert same(entry["verified_share"], expected["share"])
        assert same(entry["mean_seconds"], expected["mean_seconds"])
        assert same(entry["metrics"]["m"]["mean"], expected["metric"])
        assert entry["metrics"]["m"]["n"] == expected["n"]
    overall = oracle_group(recs)
    assert summary["overall"]["cells"] == overall["cells"]
    assert same(summary["overall"]["metrics"]["m"]["mean"], overall["metric"])
    for option in options:
        per_value: dict[str, list[dict[str, Any]]] = {}
        for r in recs:
            per_value.setdefault(repr(r["parameters"][option]), []).append(r)
        got = summary["per_parameter"][option]
        assert sorted(repr(g["value"]) for g in got) == sorted(per_value)
        for g in got:
            assert g["cells"] == len(per_value[repr(g["value"])])
