#!/usr/bin/env python3
"""Fuzz campaign against the ``xaip`` command: mutated PDDL/PPDDL and plan files, and hostile
side files and number options of every command, for N minutes.

Why a script next to the fuzz tests: CI runs a few hundred seeded examples in-process; a
maintainer runs this for an hour before a release. Each run is a real ``xaip`` subprocess
with a wall-clock limit, so hangs, memory blow-ups and crashes in the interpreter count too.

A run *fails* when it exits with anything but 0, 1 or 2, runs past its time limit, prints
a traceback or "internal error", or (exit 2) prints more than one line or a line longer
than 1,000 characters. Every failing input is saved to ``--out`` (the mutated files, the
command line and its output) so that it can become a regression test.

``--mode sidefiles`` runs the trials of ``tests/fuzz/sidefiles.py`` instead: every
command's side files (vocabularies, levels, specs, cost, observation, goal, grid, policy,
label and model files, foils) replaced by ``/dev/zero``, a FIFO with no writer, a directory,
binary junk, Latin-1, mutated text or type-confused JSON, and its number options given
huge, negative, non-finite or non-numeric values. ``--mode all`` alternates both.

The report counts runs per command and outcome classes (exit 0/1/2/3, ``timeout``,
``memory`` for the memory budget, ``signal``) and the largest overrun of a budget: the
wall-clock time of a run minus its ``--max-seconds`` (including the ~0.5 s it takes the
interpreter to start and import xaip; ``startup_seconds`` measures that, and
``largest_overrun_after_startup_seconds`` subtracts it).

Usage::

    python scripts/fuzz_campaign.py 60                 # one hour
    python scripts/fuzz_campaign.py 5 --seed 7 --out /tmp/xaip-fuzz --timeout 60
    python scripts/fuzz_campaign.py 20 --mode sidefiles --budget 3
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
from tests.fuzz.sidefiles import CASES, trial  # noqa: E402

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


def _outcome(code: int | None, err: str) -> str:
    """The outcome class of one run."""
    if code is None:
        return "timeout"
    if code < 0:
        return "signal"
    if code == 1 and "memory budget" in err:
        return "memory"
    return f"exit {code}"


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


def preflight(timeout: float) -> float:
    """Stop at once if ``xaip`` cannot even start (every run would fail the same way);
    return how long starting takes (the fastest of three ``xaip --help``), which every
    run's wall-clock time includes on top of its budget."""
    fastest = float("inf")
    for _ in range(3):
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "xaip.cli", "--help"],
                              capture_output=True, timeout=timeout, check=False)
        fastest = min(fastest, time.monotonic() - started)
        if done.returncode != 0:
            sys.exit("xaip does not start:\n" + done.stderr.decode("utf-8", "replace")[-2000:])
    return fastest


class Tally:
    """Runs per command, outcome classes, failures and the largest budget overrun."""

    def __init__(self, out: Path, seed: int) -> None:
        self.out, self.seed = out, seed
        self.runs = 0
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.per_command: dict[str, collections.Counter[str]] = collections.defaultdict(
            collections.Counter)
        self.failures: collections.Counter[str] = collections.Counter()
        self.slowest = 0.0
        self.overrun = (0.0, "")

    def record(self, command: str, argv: list[str], folder: str, timeout: float,
               budget: float | None, note: str = "") -> None:
        started = time.monotonic()
        try:
            done = subprocess.run(argv, capture_output=True, timeout=timeout, check=False,
                                  cwd=folder, stdin=subprocess.DEVNULL)
            code: int | None = done.returncode
            err = done.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            code, err = None, ""
        seconds = time.monotonic() - started
        self.slowest = max(self.slowest, seconds)
        self.runs += 1
        outcome = _outcome(code, err)
        self.outcomes[outcome] += 1
        self.per_command[command][outcome] += 1
        if budget is not None and seconds - budget > self.overrun[0]:
            self.overrun = (seconds - budget, f"{command} {note}".strip())
        reason = _failure(code, err)
        if reason is not None:
            self.failures[reason] += 1
            case = self.out / f"failure-{self.runs:05d}"
            shutil.copytree(folder, case)
            (case / "command.txt").write_text(" ".join(argv[2:]) + "\n"
                                              f"# {reason}, {seconds:.1f} s, seed {self.seed}"
                                              f", {note}\n")
            (case / "stderr.txt").write_text(err)

    def report(self, seeds: int, startup: float) -> dict:
        return {"runs": self.runs, "outcomes": dict(self.outcomes),
                "per_command": {c: dict(t) for c, t in sorted(self.per_command.items())},
                "failures": dict(self.failures), "slowest_seconds": round(self.slowest, 1),
                "largest_budget_overrun_seconds": round(self.overrun[0], 2),
                "startup_seconds": round(startup, 2),
                "largest_overrun_after_startup_seconds": round(
                    max(0.0, self.overrun[0] - startup), 2),
                "largest_overrun_run": self.overrun[1], "seeds": seeds,
                "saved_to": str(self.out)}


def _pddl_run(tally: Tally, rng: random.Random, item: Seed, plans: dict, timeout: float,
              budget: float) -> None:
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
        tally.record(command, argv, folder, timeout,
                     None if command == "validate" else budget, f"mutated {which}")


def _sidefile_run(tally: Tally, rng: random.Random, timeout: float, budget: float) -> None:
    case = rng.choice(CASES)
    with tempfile.TemporaryDirectory() as folder:
        argv, note = trial(case, Path(folder), rng, budget)
        full = [sys.executable, "-m", "xaip.cli", "--max-memory", "4096", *argv]
        tally.record(case.command, full, folder, timeout, budget if case.budget else None,
                     note)


def campaign(minutes: float, seed: int, out: Path, timeout: float, budget: float,
             mode: str = "all") -> dict:
    startup = preflight(timeout)
    rng = random.Random(seed)
    pool = seeds()
    plans = {}
    if mode != "sidefiles":
        for item in pool:
            if "validate" in item.commands:
                plans[item.domain] = _reference_plan(item, timeout)
    tally = Tally(out, seed)
    end = time.monotonic() + minutes * 60
    out.mkdir(parents=True, exist_ok=True)
    while time.monotonic() < end:
        if mode == "sidefiles" or (mode == "all" and rng.random() < 0.5):
            _sidefile_run(tally, rng, timeout, budget)
        else:
            _pddl_run(tally, rng, rng.choice(pool), plans, timeout, budget)
    return tally.report(len(pool), startup)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("minutes", type=float, help="how long to run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("fuzz-failures"),
                        help="directory for failing inputs (default ./fuzz-failures)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="wall-clock limit per run in seconds (a longer run is a failure)")
    parser.add_argument("--budget", type=float, default=5.0,
                        help="--max-seconds given to every command that takes one")
    parser.add_argument("--mode", choices=("pddl", "sidefiles", "all"), default="all",
                        help="mutated PDDL/plan files, hostile side files and options, or "
                             "both (default)")
    args = parser.parse_args()
    report = campaign(args.minutes, args.seed, args.out, args.timeout, args.budget,
                      args.mode)
    print(json.dumps(report, indent=2))
    return 1 if report["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
