"""Start-up cost of the ``xaip`` command: CPU seconds and modules loaded per command.

Why: on small tasks a planner's whole run is shorter than Python loading a large package
(issue 26), so the CPU a command spends before it does any work decides how xaip compares
with Fast Downward on most of a public benchmark sample. This runs each command in a fresh
process several times and prints the median CPU time (user + system of the child, from
``resource.getrusage(RUSAGE_CHILDREN)``), the wall time, and how many modules the command
imported (all of them, and xaip's own) together with the heavy third-party packages among
them (matplotlib, numpy, highspy, ...: none of them should load for these commands).

Commands measured: ``xaip --help``, ``xaip plan DOMAIN PROBLEM`` and ``xaip validate DOMAIN
PROBLEM PLAN`` on the bundled 5-block blocksworld task, ``python -c "import xaip.cli"``,
and the bare interpreter (``python -c pass``) as the floor nothing can go under. When Fast
Downward is installed (``xaip.planning.engines.fast_downward.fd_command``), its whole run on
the same task is measured too, for comparison (it is optional).

    python benchmarks/startup.py [--repeat N] [--json] [--importtime] [--src DIR]

``--src DIR`` measures another checkout's ``src`` (put first on ``PYTHONPATH`` of every
child), for before/after comparisons: ``git archive REV src | tar -x -C /tmp/old``, copy
the built ``xaip/_core*.so`` beside it, then ``--src /tmp/old/src``.

Bytecode: an installed xaip runs from cached ``.pyc`` files, so the children here run with
a bytecode cache of their own (``PYTHONPYCACHEPREFIX`` in a temporary directory, filled by
an untimed first run; the checkout is left untouched) even where the environment sets
``PYTHONDONTWRITEBYTECODE``. ``--cold`` measures without any cache instead: every run
compiles every module it imports from source (much slower, and not what users see).

``--importtime`` also prints the 15 slowest imports of ``xaip --help`` (cumulative
microseconds, from ``python -X importtime``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: Third-party packages a plain planning command must not load (each costs tens of ms).
HEAVY = ("matplotlib", "numpy", "highspy", "pycrfsuite", "ale_py", "fastapi", "ray",
         "sklearn", "torch", "scipy", "jinja2", "uvicorn", "PIL")

_DOMAINS = Path(__file__).resolve().parents[1] / "src" / "xaip" / "domains" / "blocksworld"
DOMAIN = _DOMAINS / "domain.pddl"
PROBLEM = _DOMAINS / "problem-5.pddl"

#: Prints, as JSON on its last line, the modules loaded after running ``xaip.cli.main``.
_PROBE = (
    "import sys, json\n"
    "from xaip.cli import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "sys.stdout.flush()\n"
    "sys.stderr.write('\\n' + json.dumps(sorted(sys.modules)) + '\\n')\n"
)


def _cpu_of(command: list[str]) -> tuple[float, float, int]:
    """CPU seconds (user + system) and wall seconds of one run of ``command``, and its
    exit code."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.returncode


def modules_loaded(args: list[str]) -> list[str]:
    """The modules a fresh interpreter holds after ``xaip ARGS`` (run in-process by
    :func:`xaip.cli.main` in a child)."""
    done = subprocess.run([sys.executable, "-c", _PROBE, *args], capture_output=True,
                          text=True, check=False)
    last = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "[]"
    try:
        return list(json.loads(last))
    except json.JSONDecodeError:
        return []


def measure(name: str, command: list[str], repeat: int,
            xaip_args: list[str] | None) -> dict[str, Any]:
    """Median CPU and wall seconds of ``repeat`` runs, plus the modules loaded."""
    _cpu_of(command)  # warm the file cache: the first run reads .pyc files from disk
    runs = [_cpu_of(command) for _ in range(repeat)]
    row: dict[str, Any] = {
        "command": name,
        "cpu_seconds": round(statistics.median(r[0] for r in runs), 4),
        "wall_seconds": round(statistics.median(r[1] for r in runs), 4),
        "exit_code": runs[-1][2],
    }
    if xaip_args is not None:
        modules = modules_loaded(xaip_args)
        row["modules"] = len(modules)
        row["xaip_modules"] = sum(1 for m in modules if m == "xaip" or m.startswith("xaip."))
        row["heavy"] = sorted({m.split(".")[0] for m in modules} & set(HEAVY))
    return row


def _slowest_imports(args: list[str], top: int = 15) -> list[tuple[int, str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", _PROBE, *args],
                          capture_output=True, text=True, check=False)
    rows = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _self, cumulative, name = (part.strip() for part in
                                   line.removeprefix("import time:").split("|"))
        rows.append((int(cumulative), name))
    return sorted(rows, reverse=True)[:top]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per command (median)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    parser.add_argument("--importtime", action="store_true",
                        help="also print the slowest imports of `xaip --help`")
    parser.add_argument("--cold", action="store_true",
                        help="no bytecode cache: every run compiles from source")
    parser.add_argument("--src", default=None, metavar="DIR",
                        help="measure the xaip package under DIR instead (before/after)")
    args = parser.parse_args(argv)
    if args.src is not None:
        if not (Path(args.src) / "xaip" / "cli.py").is_file():
            parser.error(f"--src {args.src}: no xaip/cli.py there")
        os.environ["PYTHONPATH"] = os.pathsep.join(
            [str(Path(args.src).resolve()), *filter(None, [os.environ.get("PYTHONPATH")])])
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    cache = tempfile.TemporaryDirectory(prefix="xaip-pycache-")
    if args.cold:
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
        os.environ.pop("PYTHONPYCACHEPREFIX", None)
    else:
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
        os.environ["PYTHONPYCACHEPREFIX"] = cache.name
    script = Path(sys.executable).with_name("xaip")  # the console script users run
    xaip = [str(script)] if script.is_file() else [sys.executable, "-m", "xaip.cli"]
    with tempfile.TemporaryDirectory() as scratch:
        plan_file = os.path.join(scratch, "plan.txt")
        subprocess.run([*xaip, "plan", str(DOMAIN), str(PROBLEM), "-o", plan_file, "--quiet"],
                       stdout=subprocess.DEVNULL, check=False)
        if not os.path.exists(plan_file):
            print("startup: could not make the plan file for `xaip validate`", file=sys.stderr)
            return 1
        cases: list[tuple[str, list[str], list[str] | None]] = [
            ("python -c pass", [sys.executable, "-c", "pass"], None),
            ("python -c 'import xaip.cli'", [sys.executable, "-c", "import xaip.cli"], None),
            ("xaip --help", [*xaip, "--help"], ["--help"]),
            ("xaip plan (blocksworld, 5 blocks)",
             [*xaip, "plan", str(DOMAIN), str(PROBLEM), "--quiet"],
             ["plan", str(DOMAIN), str(PROBLEM), "--quiet"]),
            ("xaip validate (same task)",
             [*xaip, "validate", str(DOMAIN), str(PROBLEM), plan_file, "--quiet"],
             ["validate", str(DOMAIN), str(PROBLEM), plan_file, "--quiet"]),
        ]
        from xaip.planning.engines.fast_downward import fd_command

        fd = fd_command()
        if fd is not None:
            cases.append(("Fast Downward (lama-first, same task)",
                          [*fd, "--plan-file", os.path.join(scratch, "fd-plan"),
                           "--sas-file", os.path.join(scratch, "output.sas"),
                           "--alias", "lama-first", str(DOMAIN), str(PROBLEM)], None))
        rows = [measure(name, command, args.repeat, xaip_args)
                for name, command, xaip_args in cases]

    cache.cleanup()
    if args.json:
        print(json.dumps({"repeat": args.repeat, "bytecode_cache": not args.cold,
                          "cpu_count": os.cpu_count(), "rows": rows}, indent=2))
    else:
        print(f"median of {args.repeat} runs each (CPU = user + system of the child; "
              f"{'no bytecode cache' if args.cold else 'bytecode cached'})")
        print(f"{'command':40} {'CPU s':>7} {'wall s':>7} {'modules':>8} {'xaip':>5}  heavy")
        for row in rows:
            print(f"{row['command']:40} {row['cpu_seconds']:7.3f} {row['wall_seconds']:7.3f} "
                  f"{row.get('modules', ''):>8} {row.get('xaip_modules', ''):>5}  "
                  f"{', '.join(row.get('heavy', [])) or ('-' if 'heavy' in row else '')}")
    if args.importtime:
        print("\nslowest imports of `xaip --help` (cumulative microseconds):")
        for micros, name in _slowest_imports(["--help"]):
            print(f"{micros:9d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
