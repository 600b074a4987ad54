"""Run the reference code (AAIR-lab/iCaML) on this machine, as a separate process.

Used by ``benchmarks/capabilities_reference.py --reference-code DIR``. The reference is
GPL-3 research code: none of it is in this project, and it runs only in its own process,
from a checkout the user prepared (``DIR``: its repository with FF compiled --
``make CC="gcc -fcommon"`` in dependencies/FF with flex and bison installed -- and a Python
with numpy, pillow, gym, xlwt, ipython, func_timeout, imageio, matplotlib, scipy, ipdb).

Its traces and random start states were made by a person playing each level (its
simulators ask for key presses when they are missing), so it runs only on the levels it
ships (``gvg_agents/files/<game>/<rows>_<cols>/``); its saved answers and plans
(``<game>_queries``, ``*_plans``) are deleted before each run, so every query is answered
by its agent then. Each run works on a fresh copy of the checkout in a temporary folder.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Our own few lines that call the reference's driver function for one level (its
#: ``main.main``; the module reads the global ``grid``) and print its counts.
DRIVER = """\
import pickle, sys
import main as reference
game, rows, cols, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
reference.grid = [rows, cols]
reference.main(game, False, out, rows, cols, int(rows * cols * 0.1), 0)
with open(out, "rb") as f:
    result = pickle.load(f)[1]
print("XAIP-REFERENCE", result["query_count"], result["time"], result["pal_tuple_count"])
"""

_LINE = re.compile(r"^XAIP-REFERENCE (\d+) ([0-9.eE+-]+) (\d+)$", re.MULTILINE)


@dataclass(frozen=True)
class ReferenceMeasurement:
    """One run of the reference here: its queries, its own clock's seconds (its
    interrogation), PAL tuples fixed, the process's wall seconds, and ``status``
    (``complete``, ``timeout``, ``no level``, ``needs a person (asks for key presses)``
    when its shipped inputs do not cover what it needs, or ``failed: <last line>``)."""

    status: str
    queries: int = 0
    seconds: float = 0.0
    pal_tuples: int = 0
    wall: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "queries": self.queries, "seconds": self.seconds,
                "pal_tuples": self.pal_tuples, "wall": self.wall}


def parse_output(text: str) -> tuple[int, float, int] | None:
    """The driver's counts line (queries, seconds, PAL tuples), or ``None``."""
    found = _LINE.search(text)
    if found is None:
        return None
    return int(found.group(1)), float(found.group(2)), int(found.group(3))


def level_dir(checkout: Path, game: str, rows: int, cols: int) -> Path:
    return checkout / "gvg_agents" / "files" / game / f"{rows}_{cols}"


def has_level(checkout: Path, game: str, rows: int, cols: int) -> bool:
    """Whether the reference ships the person-made inputs of this level."""
    folder = level_dir(checkout, game, rows, cols)
    return all((folder / name).is_file() for name in ("high_traces", "random_states",
                                                      "high_actions_dict"))


class ReferenceCode:
    """A working copy of a prepared reference checkout, made once per benchmark run."""

    def __init__(self, checkout: Path, python: str) -> None:
        if not (checkout / "src" / "main.py").is_file():
            raise ValueError(f"{checkout} is not an iCaML checkout (no src/main.py)")
        if not (checkout / "dependencies" / "FF" / "ff").is_file():
            raise ValueError(f"{checkout}: FF is not compiled (dependencies/FF/ff)")
        self.checkout = checkout
        self.python = python
        self._tmp = tempfile.TemporaryDirectory(prefix="xaip-icaml-")
        self.work = Path(self._tmp.name) / "icaml"
        shutil.copytree(checkout, self.work, ignore=shutil.ignore_patterns(".git", "venv"),
                        symlinks=True)
        for folder in ("domains", "temp_files/results", "random_states"):
            (self.work / folder).mkdir(parents=True, exist_ok=True)
        (self.work / "src" / "xaip_driver.py").write_text(DRIVER)

    def close(self) -> None:
        self._tmp.cleanup()

    def run(self, game: str, rows: int, cols: int, timeout: float) -> ReferenceMeasurement:
        """One level, from its shipped inputs, with no saved answers or plans."""
        if not has_level(self.checkout, game, rows, cols):
            return ReferenceMeasurement("no level")
        target = level_dir(self.work, game, rows, cols)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(level_dir(self.checkout, game, rows, cols), target)
        for cache in [*target.glob("*_queries"), *target.glob("*_plans")]:
            cache.unlink()
        out = Path(self._tmp.name) / f"result-{game}-{rows}x{cols}"
        began = time.perf_counter()
        try:
            done = subprocess.run([self.python, "xaip_driver.py", game, str(rows), str(cols),
                                   str(out)], cwd=self.work / "src", stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return ReferenceMeasurement("timeout", wall=time.perf_counter() - began)
        wall = time.perf_counter() - began
        counts = parse_output(done.stdout)
        if counts is None:
            if "EOF when reading a line" in done.stderr:  # its simulator wants key presses
                return ReferenceMeasurement("needs a person (asks for key presses)",
                                            wall=wall)
            lines = (done.stderr or done.stdout).strip().splitlines()
            return ReferenceMeasurement(f"failed: {lines[-1] if lines else done.returncode}",
                                        wall=wall)
        return ReferenceMeasurement("complete", counts[0], counts[1], counts[2], wall)
