#!/usr/bin/env python3
"""Fuzz campaign against the ``xaip`` command: mutated PDDL/PPDDL and plan files, for N minutes.

Why a script next to the fuzz tests: CI runs a few hundred seeded examples in-process; a
maintainer runs this for an hour before a release. Each run is a real ``xaip`` subprocess
with a wall-clock limit, so hangs, memory blow-ups and crashes in the interpreter count too.

A run *fails* when it exits with anything but 0, 1 or 2, runs past its time limit, prints
a traceback or "internal error", or (exit 2) prints more than one line or a line longer
than 1,000 characters. Every failing input is saved to ``--out`` (the mutated files, the
command line and its output) so that it can become a regression test.

Usage::

    python scripts/fuzz_campaign.py 60                 # one hour
    python scripts/fuzz_campaign.py 5 --seed 7 --out /tmp/xaip-fuzz --timeout 60
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fuzz.mutations import mutate  # noqa: E402

BUNDLED = ROOT / "src" / "xaip" / "domains"
SHARED = Path(os.environ.get("XAIP_SHARED_DATA", ROOT.parent / "shared" / "data"))


@dataclass(frozen=True)
class Seed:
    """A domain and problem (and a plan for ``validate``) and the commands to try on them."""

    domain: Path
    problem: Path
    commands: tuple[str, ...]
    plan: str = ""


def seeds() -> list[Seed]:
    """Bundled examples plus whatever of the shared data is present."""
    out = [
        Seed(BUNDLED / "blocksworld" / "domain.pddl", BUNDLED / "blocksworld" / "problem-5.pddl",
             ("plan", "validate")),
        Seed(BUNDLED / "usar" / "robot.pddl", BUNDLED / "usar" / "problem.pddl",
             ("plan", "validate")),
        Seed(BUNDLED / "fetch" / "robot.pddl", BUNDLED / "fetch" / "problem.pddl",
             ("plan", "validate")),
        Seed(BUNDLED / "airport" / "domain.pddl", BUNDLED / "airport" / "problem.pddl",
             ("summarize",)),
    ]
    for folder in sorted((SHARED / "mrp").glob("*")):
        domains = sorted(folder.glob("*domain*.pddl"))
        problems = sorted(p for p in folder.glob("*.pddl") if "domain" not in p.name
                          and ("prob" in p.name or "problem" in p.name))
        if domains and problems:
            out.append(Seed(domains[0], problems[0], ("plan", "validate")))
    for folder in sorted((SHARED / "ippc").glob("ippc*/*")):
        if (folder / "domain.pddl").exists() and (folder / "p01.pddl").exists():
            out.append(Seed(folder / "domain.pddl", folder / "p01.pddl", ("summarize",)))
    return [s for s in out if s.domain.exists() and s.problem.exists()]


def _argv(command: str, files: dict[str, str], budget: float) -> list[str]:
    base = [sys.executable, "-m", "xaip.cli", command, files["domain"], files["problem"]]
    if command == "validate":
        return [*base, files["plan"]]
    return [*base, "--max-seconds", str(budget), "--max-nodes", "20000"]


def _reference_plan(seed: Seed, timeout: float) -> str:
    """A plan for the unmutated task (so ``validate`` starts from a valid input)."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder, "plan.txt")
        subprocess.run([sys.executable, "-m", "xaip.cli", "plan", str(seed.domain),
                        str(seed.problem), "-o", str(target), "--max-seconds", "20"],
                       capture_output=True, timeout=timeout, check=False)
        return target.read_text() if target.exists() else "(no-such-action)\n"


def _failure(code: int | None, err: str) -> str | None:
    if code is None:
        return "timeout"
    if code not in (0, 1, 2):
        return f"exit {code}"
    if "Traceback" in err or "internal error" in err:
        return "internal error"
    if code == 2 and (err.count("\n") > 1 or max(map(len, err.splitlines() or [""])) > 1000):
        return "message not one short line"
    return None


def preflight(timeout: float) -> None:
    """Stop at once if ``xaip`` cannot even start (every run would fail the same way)."""
    done = subprocess.run([sys.executable, "-m", "xaip.cli", "--help"], capture_output=True,
                          timeout=timeout, check=False)
    if done.returncode != 0:
        sys.exit("xaip does not start:\n" + done.stderr.decode("utf-8", "replace")[-2000:])


def campaign(minutes: float, seed: int, out: Path, timeout: float, budget: float) -> dict:
    preflight(timeout)
    rng = random.Random(seed)
    pool = seeds()
    plans = {}
    for item in pool:
        if "validate" in item.commands:
            plans[item.domain] = _reference_plan(item, timeout)
    tally: collections.Counter[str] = collections.Counter()
    failures: collections.Counter[str] = collections.Counter()
    runs = 0
    slowest = 0.0
    end = time.monotonic() + minutes * 60
    out.mkdir(parents=True, exist_ok=True)
    while time.monotonic() < end:
        item = rng.choice(pool)
        command = rng.choice(item.commands)
        originals = {"domain": item.domain.read_text(encoding="utf-8", errors="replace"),
                     "problem": item.problem.read_text(encoding="utf-8", errors="replace"),
                     "plan": plans.get(item.domain, "")}
        which = rng.choice(("domain", "problem", "plan") if command == "validate"
                           else ("domain", "problem"))
        with tempfile.TemporaryDirectory() as folder:
            files = {}
            for name, text in originals.items():
                count = rng.choice((1, 1, 2, 3))  # light mutations reach grounding and search
                data = mutate(text, rng, count) if name == which else text
                path = Path(folder, f"{name}.pddl" if name != "plan" else "plan.txt")
                path.write_bytes(data.encode("utf-8", "surrogatepass"))
                files[name] = str(path)
            argv = _argv(command, files, budget)
            started = time.monotonic()
            try:
                done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False,
                                      cwd=folder)
                code: int | None = done.returncode
                err = done.stderr.decode("utf-8", "replace")
            except subprocess.TimeoutExpired:
                code, err = None, ""
            seconds = time.monotonic() - started
            slowest = max(slowest, seconds)
            runs += 1
            tally["timeout" if code is None else f"exit {code}"] += 1
            reason = _failure(code, err)
            if reason is not None:
                failures[reason] += 1
                case = out / f"failure-{runs:05d}"
                shutil.copytree(folder, case)
                (case / "command.txt").write_text(" ".join(argv[2:]) + "\n"
                                                  f"# {reason}, {seconds:.1f} s, seed {seed}\n")
                (case / "stderr.txt").write_text(err)
    return {"runs": runs, "exit_codes": dict(tally), "failures": dict(failures),
            "slowest_seconds": round(slowest, 1), "seeds": len(pool), "saved_to": str(out)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("minutes", type=float, help="how long to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                        help="directory for failing inputs (default ./fuzz-failures)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="wall-clock limit per run in seconds (a longer run is a failure)")
    parser.add_argument("--budget", type=float, default=5.0,
                        help="--max-seconds given to plan and summarize")
    args = parser.parse_args()
    report = campaign(args.minutes, args.seed, args.out, args.timeout, args.budget)
    print(json.dumps(report, indent=2))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
