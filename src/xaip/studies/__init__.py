"""Studies: explainers x instances x parameters, run as resumable cells (issue 26).

A study file (TOML, :mod:`xaip.studies.spec`) names an ``xaip`` command, the instances
(files, bundled examples or generators) and the parameter values; every combination is a
cell, one run of the command with ``--json``, kept in the study's SQLite store as soon as
it is answered (:mod:`xaip.studies.runner`), on the serial, process or Ray executor.
:mod:`xaip.studies.export` turns a store into CSV, Parquet and a summary.

    >>> from xaip.studies import load_study, run_study     # doctest: +SKIP
    >>> result = run_study(load_study("mce-quick"), "processes", workers=2)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from xaip.errors import InputError
from xaip.sidefiles import read_text
from xaip.studies.runner import run_study
from xaip.studies.spec import Study, parse_study

__all__ = ["Study", "bundled_studies", "load_study", "run_study"]


def bundled_studies() -> list[str]:
    """The names of the studies that ship with xaip (``xaip study list``)."""
    folder = resources.files("xaip.studies") / "bundled"
    return sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir()
                  if entry.name.endswith(".toml"))


def load_study(name_or_path: str | Path, *, data: str | None = None,
               store: str | None = None, check: bool = True) -> Study:
    """A study from a file, or a bundled study by name; ``data`` and ``store`` override
    the file's ``study.data`` and ``study.store``. ``check=False`` skips reading the
    instance files' templates that need ``--data`` (for listing)."""
    path = Path(name_or_path)
    if path.exists() or path.suffix == ".toml" or "/" in str(name_or_path):
        if not path.exists():
            raise InputError(f"no such study file: {path}")
        text = read_text(path, "text")
        return parse_study(text, str(path), path.parent, data=data, store=store)
    name = str(name_or_path)
    if name not in bundled_studies():
        raise InputError(f"no study file or bundled study named {name!r} (bundled: "
                         f"{', '.join(bundled_studies())})")
    entry = resources.files("xaip.studies") / "bundled" / f"{name}.toml"
    text = entry.read_text(encoding="utf-8")
    if not check:
        return parse_study(text, f"{name}.toml", Path("."), data=data or "<data>",
                           store=store, bundled_folder=True, read_files=False)
    return parse_study(text, f"{name}.toml", Path("."), data=data, store=store,
                       bundled_folder=True)
