"""The renderer registry under threads: the workbench renders from worker threads, and the
first renders of a family must all see its renderers (a race once answered "no png
rendering for WhyNot" to one request in fifty)."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import threading
from xaip.concepts import bundled, why_not
from xaip.render import formats

query = bundled("sokoban-switch")
result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
start = threading.Barrier(16)
seen = []

def ask():
    start.wait()
    seen.append(tuple(formats(result)))

threads = [threading.Thread(target=ask) for _ in range(16)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(sorted(set(seen)))
assert len(set(seen)) == 1 and "png" in seen[0], seen
"""


def test_first_renders_from_many_threads_all_find_the_renderers() -> None:
    for _ in range(3):  # a fresh process each time: the family is not loaded yet
        run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                             timeout=120)
        assert run.returncode == 0, run.stderr[-800:] + run.stdout[-300:]
