"""Reading a study file (TOML): which command, which instances, which parameter values.

Why a file: an evaluation for a paper is explainers x instances x parameters, run for
hours and re-run after every fix; written down, it is reviewable and repeatable. Every
mistake in it (an unknown key, a list where a table belongs, a missing instance file, an
option the command does not have) is one line of bad input *before* any cell runs, so an
overnight run never dies on its last instance.

The format (every key but ``study.command`` and ``instances`` optional)::

    [study]
    name = "mce"                  # default: the file's stem
    command = "explain"           # an xaip sub-command; each cell runs it with --json
    description = "..."
    store = "mce.sqlite"          # relative to this file; default ./<name>.sqlite
    repeat = 1                    # runs per cell (for timings)
    data = "../data"              # the folder {data} names in file templates
    options = ["--grounded"]      # passed to every cell

    [budget]                      # per cell, passed as --max-seconds / --max-nodes
    max_seconds = 60
    max_nodes = 100000

    [parameters]                  # the grid: every combination of these values
    "--type" = ["mce", "mme"]
    "--optimal" = [true, false]   # a flag: given or not

    [metrics]                     # column -> dotted path in the command's JSON answer
    size = "size"
    nodes = "stats.nodes"

    [[instances]]
    name = "{domain} p{problem}"  # {names} from vary (and {data})
    files = ["{data}/{domain}/domain.pddl", "{data}/{domain}/p{problem}.pddl"]
    args = []                     # plain arguments after the files (a game name ...)
    vary = {domain = ["a", "b"], problem = [1, 2]}

    [[instances]]
    name = "blocks {n}"
    generator = "blocksworld"     # files made by a generator (xaip.studies.generators)
    arguments = ["{n}", 0]
    vary = {n = [4, 5]}

``example:NAME/FILE`` names a file of a bundled example (``xaip examples``). Instance
files are read here, under :mod:`xaip.sidefiles`' limits, and travel with each cell, so a
cell runs the same on a Ray node that does not share this machine's disk.
"""

from __future__ import annotations

import hashlib
import itertools
import string
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.sidefiles import decode, expect, read_bytes

#: A parameter's value: a string, a number, or a flag's on/off.
Value = str | int | float | bool

#: The most cells one study may have (a typo in a vary list must not ask for 10**9).
MAX_CELLS = 100_000
#: Commands a study cannot run: the workbench serves forever and a study in a study loops.
NOT_IN_STUDIES = ("study", "serve")

_SECTIONS = {"study", "budget", "parameters", "metrics", "instances"}
_STUDY_KEYS = {"name", "command", "description", "store", "repeat", "data", "options"}
_BUDGET_KEYS = {"max_seconds": "--max-seconds", "max_nodes": "--max-nodes"}
_INSTANCE_KEYS = {"name", "files", "args", "generator", "arguments", "vary"}


@dataclass(frozen=True)
class Instance:
    """One input of the command: files (name, bytes) in command order, then ``args``;
    ``tags`` are the ``vary`` values it was made from (columns and summary groups: the
    TLdR table's per-domain averages are the groups of the ``domain`` tag)."""

    name: str
    files: tuple[tuple[str, bytes], ...]
    args: tuple[str, ...]
    tags: tuple[tuple[str, Value], ...] = ()

    def digest(self) -> str:
        """A short hash of the contents: a changed file is a new cell, never a stale one."""
        sha = hashlib.sha256()
        for name, content in self.files:
            sha.update(name.encode() + b"\0" + hashlib.sha256(content).digest())
        sha.update("\0".join(self.args).encode())
        return sha.hexdigest()[:12]


@dataclass(frozen=True)
class Study:
    """A parsed, checked study file."""

    name: str
    command: str
    description: str
    source: str
    store: Path
    repeat: int
    options: tuple[str, ...]
    budget: tuple[tuple[str, int | float], ...]  # (option, value)
    parameters: tuple[tuple[str, tuple[Value, ...]], ...]
    metrics: tuple[tuple[str, str], ...]
    instances: tuple[Instance, ...]

    def settings(self) -> list[tuple[tuple[str, Value], ...]]:
        """Every combination of parameter values (one empty setting without parameters)."""
        names = [name for name, _ in self.parameters]
        return [tuple(zip(names, values, strict=True))
                for values in itertools.product(*(vals for _, vals in self.parameters))]

    def cell_count(self) -> int:
        return len(self.instances) * len(self.settings()) * self.repeat

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "command": self.command, "description": self.description,
                "source": self.source, "store": str(self.store), "repeat": self.repeat,
                "options": list(self.options), "budget": dict(self.budget),
                "parameters": {name: list(values) for name, values in self.parameters},
                "metrics": dict(self.metrics),
                "instances": [i.name for i in self.instances], "tags": self.tag_names(),
                "cells": self.cell_count()}

    def tag_names(self) -> list[str]:
        """Every ``vary`` name of the instances, in first-seen order."""
        return list(dict.fromkeys(name for i in self.instances for name, _ in i.tags))


def _where(source: str, *path: object) -> str:
    return f"{source}: " + ".".join(str(part) for part in path)


def _known(table: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise InputError(f"{where}: unknown key {unknown[0]!r} (known: "
                         f"{', '.join(sorted(allowed))})")


def parse_study(text: str, source: str, folder: Path, *, data: str | None = None,
                store: str | None = None, bundled_folder: bool = False,
                read_files: bool = True) -> Study:
    """Check and read the study ``text`` (from ``source``; relative paths from ``folder``).

    ``data`` overrides ``study.data``; ``store`` overrides ``study.store``.
    ``bundled_folder``: the file ships with xaip, so its default store and data are not
    next to it (the package may be read-only) but in the current folder / ``--data``.
    ``read_files=False`` (listing studies) reads no instance file and checks no command.
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not a TOML study file ({exc})") from None
    _known(raw, _SECTIONS, source)
    head = expect(raw.get("study", {}), dict, _where(source, "study"))
    _known(head, _STUDY_KEYS, _where(source, "study"))
    if "command" not in head:
        raise InputError(f"{source}: study.command is missing (an xaip sub-command, e.g. "
                         f"'explain')")
    command = expect(head["command"], str, _where(source, "study", "command"))
    name = expect(head.get("name", Path(source).stem), str, _where(source, "study", "name"))
    if not name.strip():
        raise InputError(f"{source}: study.name must not be empty")
    description = expect(head.get("description", ""), str,
                         _where(source, "study", "description"))
    repeat = expect(head.get("repeat", 1), int, _where(source, "study", "repeat"))
    if not 1 <= repeat <= 1000:
        raise InputError(f"{source}: study.repeat must be from 1 to 1000, not {repeat}")
    options = tuple(expect(o, str, _where(source, "study", "options", i)) for i, o in
                    enumerate(expect(head.get("options", []), list,
                                     _where(source, "study", "options"))))
    data_dir = data if data is not None else head.get("data")
    if data_dir is not None:
        data_dir = expect(data_dir, str, _where(source, "study", "data"))
        if data is None and not bundled_folder:
            data_dir = str(folder / data_dir)
    store_path = _store_path(head, source, folder, store, name, bundled_folder)
    budget = _budget(raw.get("budget", {}), source)
    parameters = _parameters(raw.get("parameters", {}), source)
    metrics = _metrics(raw.get("metrics", {}), source)
    instances = _instances(raw.get("instances"), source, folder, data_dir, read_files)
    study = Study(name, command, description, source, store_path, repeat, options, budget,
                  parameters, metrics, instances)
    if study.cell_count() > MAX_CELLS:
        raise InputError(f"{source}: {study.cell_count()} cells, more than the "
                         f"{MAX_CELLS} a study may have")
    if read_files:
        from xaip.studies.validate import check_command

        check_command(study)
    return study


def _store_path(head: dict[str, Any], source: str, folder: Path, store: str | None,
                name: str, bundled: bool) -> Path:
    if store is not None:
        return Path(store)
    if "store" in head:
        given = Path(expect(head["store"], str, _where(source, "study", "store")))
        return given if given.is_absolute() or bundled else folder / given
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in name)
    return Path(f"{safe}.sqlite")


def _budget(table: Any, source: str) -> tuple[tuple[str, int | float], ...]:
    table = expect(table, dict, _where(source, "budget"))
    _known(table, set(_BUDGET_KEYS), _where(source, "budget"))
    out: list[tuple[str, int | float]] = []
    for key, option in _BUDGET_KEYS.items():
        if key not in table:
            continue
        kind: type = int if key == "max_nodes" else float
        value: int | float = expect(table[key], kind, _where(source, "budget", key))
        if value < 0 or value != value or value == float("inf"):
            raise InputError(f"{source}: budget.{key} must be a finite number >= 0, "
                             f"not {value}")
        out.append((option, value))
    return tuple(out)


def _parameters(table: Any, source: str) -> tuple[tuple[str, tuple[Value, ...]], ...]:
    table = expect(table, dict, _where(source, "parameters"))
    out = []
    for option, values in table.items():
        where = _where(source, "parameters", repr(option))
        if not option.startswith("--") or len(option) < 3:
            raise InputError(f"{where}: a parameter is a long option such as '--type'")
        if not isinstance(values, list):
            values = [values]
        if not values:
            raise InputError(f"{where}: give at least one value")
        checked: tuple[Value, ...] = tuple(expect(v, (str, int, float, bool), f"{where}[{i}]")
                        for i, v in enumerate(values))
        if len(set(map(repr, checked))) != len(checked):
            raise InputError(f"{where}: a value is listed twice")
        out.append((option, checked))
    return tuple(out)


def _metrics(table: Any, source: str) -> tuple[tuple[str, str], ...]:
    table = expect(table, dict, _where(source, "metrics"))
    out = []
    for column, path in table.items():
        path = expect(path, str, _where(source, "metrics", column))
        if not path or any(not part for part in path.split(".")):
            raise InputError(f"{source}: metrics.{column}: expected a dotted path such as "
                             f"'stats.nodes', not {path!r}")
        out.append((column, path))
    return tuple(out)


def _instances(entries: Any, source: str, folder: Path, data: str | None,
               read_files: bool = True) -> tuple[Instance, ...]:
    if entries is None:
        raise InputError(f"{source}: no [[instances]] (give at least one)")
    entries = expect(entries, list, _where(source, "instances"))
    if not entries:
        raise InputError(f"{source}: no [[instances]] (give at least one)")
    out: list[Instance] = []
    for number, entry in enumerate(entries, start=1):
        where = f"{source}: instances[{number}]"
        entry = expect(entry, dict, where)
        _known(entry, _INSTANCE_KEYS, where)
        out.extend(_expand(entry, where, folder, data, read_files))
    names = [i.name for i in out]
    for name in names:
        if names.count(name) > 1:
            raise InputError(f"{source}: two instances are named {name!r} (give each a "
                             f"distinct name, e.g. with {{vary}} fields)")
    return tuple(out)


def _expand(entry: dict[str, Any], where: str, folder: Path, data: str | None,
            read_files: bool = True) -> list[Instance]:
    vary = expect(entry.get("vary", {}), dict, f"{where}.vary")
    for key, values in vary.items():
        values = expect(values, list, f"{where}.vary.{key}")
        if not values:
            raise InputError(f"{where}.vary.{key}: give at least one value")
        for i, value in enumerate(values):
            expect(value, (str, int, float, bool), f"{where}.vary.{key}[{i}]")
    if "generator" in entry and "files" in entry:
        raise InputError(f"{where}: give files or a generator, not both")
    if "arguments" in entry and "generator" not in entry:
        raise InputError(f"{where}: 'arguments' are for a generator; plain command "
                         f"arguments go in 'args'")
    name = expect(entry.get("name", ""), str, f"{where}.name")
    if not name:
        raise InputError(f"{where}: name is missing")
    files = [expect(f, str, f"{where}.files[{i}]")
             for i, f in enumerate(expect(entry.get("files", []), list, f"{where}.files"))]
    args: list[Any] = [expect(a, (str, int, float), f"{where}.args[{i}]")
            for i, a in enumerate(expect(entry.get("args", []), list, f"{where}.args"))]
    arguments = expect(entry.get("arguments", []), list, f"{where}.arguments")
    keys = list(vary)
    out = []
    for values in itertools.product(*(vary[k] for k in keys)):
        names: dict[str, Any] = dict(zip(keys, values, strict=True))
        if data is not None:
            names.setdefault("data", data)
        fill = _Filler(names, where)
        contents: list[tuple[str, bytes]] = []
        if "generator" in entry and read_files:
            from xaip.studies.generators import generate

            generator = expect(entry["generator"], str, f"{where}.generator")
            contents = generate(generator, [fill.value(a) for a in arguments], where)
        for template in files:
            path_text = fill.text(template)
            contents.append(_read(path_text, folder, where) if read_files
                            else (Path(path_text).name, b""))
        out.append(Instance(fill.text(name), tuple(contents),
                            tags=tuple(zip(keys, values, strict=True)),
                            args=tuple(fill.text(str(a)) for a in args)))
    return out


class _Filler:
    """``{name}`` fields of templates, from an instance's ``vary`` values (and ``data``)."""

    def __init__(self, names: dict[str, Any], where: str) -> None:
        self.names = names
        self.where = where

    def _fields(self, template: str) -> list[str]:
        try:
            return [f for _, f, _, _ in string.Formatter().parse(template) if f is not None]
        except ValueError as exc:
            raise InputError(f"{self.where}: bad template {template!r} ({exc})") from None

    def text(self, template: str) -> str:
        for field in self._fields(template):
            if field not in self.names:
                hint = (" (give --data DIR or study.data)" if field == "data" else
                        " (not a name in vary)")
                raise InputError(f"{self.where}: {{{field}}} in {template!r} is unknown"
                                 f"{hint}")
        return template.format_map(self.names)

    def value(self, item: Any) -> Any:
        """A generator argument: a template that is one whole field keeps its value's
        type (``"{n}"`` with ``n = 5`` is the number 5)."""
        if isinstance(item, str):
            fields = self._fields(item)
            if len(fields) == 1 and item == "{" + fields[0] + "}" and fields[0] in self.names:
                return self.names[fields[0]]
            return self.text(item)
        return item


def _read(path_text: str, folder: Path, where: str) -> tuple[str, bytes]:
    """One instance file's (name, bytes): a bundled example's or a file on disk."""
    if path_text.startswith("example:"):
        from xaip.domains.catalogue import example

        name, _, file_name = path_text.removeprefix("example:").partition("/")
        entry = example(name)
        if file_name not in entry.files():
            raise InputError(f"{where}: the example {name!r} has no file {file_name!r} "
                             f"(it has {', '.join(entry.files())})")
        return file_name, (entry.root() / file_name).read_bytes()
    path = Path(path_text)
    if not path.is_absolute():
        path = folder / path
    if not path.exists():
        raise InputError(f"{where}: no such file: {path}")
    kind = "pddl" if path.suffix == ".pddl" else "text"
    content = read_bytes(path, kind)
    decode(content, path)  # a binary file is refused here, not in every cell
    return path.name, content
