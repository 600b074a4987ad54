"""A faulty LM-cut cannot make the reconciliation checker agree.

The checker's A* takes LM-cut's values only through certificates the core verifies
(``src/xaip/_native/certify.c``). Here the core is built with a deliberately faulty
certificate (``-DXAIP_LMCUT_FAULT``: every cut over-charged by one, or cuts recorded
without one of their actions) and the differential test of the family runs with it: every
answer must still agree with brute force and be verified (the rejected states fall back to
h^max), and the rejections must be counted and reported by the differential test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from xaip.planning.engines.compiled import core_available

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import json, sys, xaip
xaip.__path__.insert(0, sys.argv[1])  # the faulty xaip._core shadows the installed one
import xaip._core
assert xaip._core.__file__.startswith(sys.argv[1]), xaip._core.__file__
sys.path.insert(0, sys.argv[2])
from tests.differential.reconcile import check
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, search_counts
from xaip.reconcile import check as check_answer, explain, load_mrp
found = {seed: (check(seed) or "").split("; ") for seed in range(40)}
# the family's test reports a rejected certificate; every other clause is a wrong answer
bad = [seed for seed, parts in found.items()
       if any(part and not part.endswith("rejected by the checker's A*") for part in parts)]
flagged = sum(1 for parts in found.values() if parts != [""])
fetch = xaip.__path__[1] + "/domains/fetch/"
mrp = load_mrp(fetch + "robot.pddl", fetch + "human.pddl", fetch + "problem.pddl")
answer = explain(mrp, "mce")
counts = search_counts(CERTIFIED_LMCUT)
print(json.dumps({"disagreements": bad, "flagged": flagged, "size": answer.size,
                  "verified": answer.verified,
                  "certified": counts["certified"], "rejected": counts["rejected"]}))
"""


@pytest.mark.skipif(not core_available() or shutil.which("gcc") is None,
                    reason="needs the compiled core and gcc")
@pytest.mark.parametrize("fault", [1, 2])
def test_a_faulty_lmcut_certificate_is_rejected_and_answers_stay_right(
        tmp_path: Path, fault: int) -> None:
    env = {**os.environ, "CFLAGS": f"-DXAIP_LMCUT_FAULT={fault} -O1"}
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "-b", str(tmp_path),
         "-t", str(tmp_path / "tmp")], cwd=ROOT, env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "xaip"), str(ROOT)],
                         cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    assert outcome["disagreements"] == [], outcome
    assert (outcome["size"], outcome["verified"]) == (1, True), outcome
    assert outcome["rejected"] > 0, outcome  # the faulty certificates were caught
    assert outcome["flagged"] > 0, outcome  # and the family's differential test says so
