"""The bundled studies: every one reads, and the quick forms run to the end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.errors import InputError
from xaip.studies import bundled_studies, load_study, run_study

from .helpers import records

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def test_bundled_names_and_list(capsys: pytest.CaptureFixture[str]) -> None:
    names = bundled_studies()
    for base in ("mce", "discovery", "tldr"):
        assert base in names and f"{base}-quick" in names
    assert main(["study", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["studies"]
    assert {s["name"] for s in listed} == set(names)
    assert all(s["cells"] > 0 and s["description"] for s in listed)


@pytest.mark.parametrize("name", ["mce", "tldr"])
def test_full_studies_need_data(name: str) -> None:
    with pytest.raises(InputError, match="give --data DIR"):
        load_study(name)


@pytest.mark.skipif(not (DATA / "mrp").is_dir() or not (DATA / "ippc").is_dir(),
                    reason="the benchmark data (../shared/data) is not in this checkout")
def test_full_studies_read_with_data() -> None:
    assert load_study("mce", data=str(DATA)).cell_count() == 38
    assert load_study("tldr", data=str(DATA)).cell_count() == 19


@pytest.mark.parametrize("name", ["mce-quick", "tldr-quick"])
def test_quick_studies_run_verified(name: str, tmp_path: Path) -> None:
    store = tmp_path / f"{name}.sqlite"
    result = run_study(load_study(name, store=str(store)))
    assert result["status"] == "complete" and result["verified"] is True
    assert result["verified_cells"] == result["cells"] == len(records(store))
    metrics = result["summary"]["metrics"]
    assert metrics and all(result["summary"]["overall"]["metrics"][m]["n"] > 0
                           for m in metrics)


def test_discovery_quick_runs_on_processes(tmp_path: Path) -> None:
    store = tmp_path / "d.sqlite"
    result = run_study(load_study("discovery-quick", store=str(store)), "processes",
                       workers=2)
    assert result["status"] == "complete" and result["cells"] == 6
    for record in records(store).values():
        assert record["exit"] in (0, 1) and record["status"] == "complete"
        assert record["payload"]["queries"] > 0 and record["payload"]["check"]["details"]
