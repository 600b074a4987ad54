"""Running a study: every cell not yet in its store, on the chosen executor.

Why a store per study (:class:`xaip.runtime.store.RunStore`, SQLite): each cell's record
is committed the moment the cell's answer reaches this process, so killing a study loses
at most the cells in flight, and running it again skips every cell already answered
(records are keyed by :func:`xaip.studies.cells.make_cells`' keys). The executor hands
answers back as they come (``Executor.completed``), not at the end of the whole map.

The study's own ``--max-seconds`` bounds the whole run: once it has passed no new cell
starts, the answers in hand are kept, and the run reports ``budget_exhausted`` (the
cells' own budgets are the study file's ``[budget]``).
"""

from __future__ import annotations

import time
from typing import Any

from xaip.runtime.executors import check_ray_address, get_executor
from xaip.runtime.progress import report
from xaip.runtime.status import Status
from xaip.runtime.store import RunStore
from xaip.studies.cells import make_cells, run_cell
from xaip.studies.export import summarise
from xaip.studies.spec import Study

#: The store format (a store of another kind is refused).
STORE_KIND = "xaip-study-1"
#: Namespaces of a study store: one record per cell; the study file's definition.
CELLS, DEFINITION = "cells", "study"


def open_store(study: Study) -> RunStore:
    """The study's store (created when missing; another study's store is refused)."""
    store = RunStore(study.store, STORE_KIND, {"study": study.name, "command": study.command})
    store.put(DEFINITION, "definition", study.to_dict())
    return store


def run_study(study: Study, executor: str = "serial", workers: int | None = None,
              address: str | None = None, max_seconds: float | None = None) -> dict[str, Any]:
    """Run every cell of ``study`` missing from its store; the run's report (JSON-ready).

    ``status`` is ``complete`` when every cell has a record, ``budget_exhausted`` when
    ``max_seconds`` stopped the run first; ``verified`` is true when the study is complete
    and every cell's command verified its answer.
    """
    began = time.perf_counter()
    cells = make_cells(study)
    if address is not None:  # a bad address is refused before the store is made
        check_ray_address(address)
    with open_store(study) as store:
        done = {key for key, _ in store.items(CELLS)}
        todo = [cell for cell in cells if cell.key not in done]
        total, before = len(cells), len(cells) - len(todo)
        report(None, "cells", before, total, f"{before} done in an earlier run" if before
               else "starting")
        ran, stopped, used_workers, nodes = 0, False, 1, 1
        if todo:
            pool = get_executor(executor, workers, address=address)
            used_workers = pool.workers
            nodes = pool.nodes() if hasattr(pool, "nodes") else 1
            try:
                answers = pool.completed(run_cell, todo)
                try:
                    for index, record in answers:
                        store.put(CELLS, todo[index].key, record)
                        ran += 1
                        report(None, "cells", before + ran, total,
                               f"{todo[index].instance}: {record['status']}")
                        if max_seconds is not None and ran < len(todo) and \
                                time.perf_counter() - began >= max_seconds:
                            stopped = True
                            break
                finally:
                    answers.close()  # type: ignore[attr-defined]
            finally:
                pool.close()
        tags = {cell.key: dict(cell.tags) for cell in cells}  # the study's own, always
        records = [{**record, "tags": tags[key]} for key, record in store.items(CELLS)
                   if key in tags]
    summary = summarise(records, [name for name, _ in study.parameters], study.metrics,
                        study.tag_names())
    finished = len(records) == total
    verified_cells = sum(1 for r in records if r.get("verified") is True)
    status = Status.COMPLETE if finished else Status.BUDGET_EXHAUSTED
    return {
        "status": status.value,
        "verified": finished and verified_cells == total,
        "study": study.name, "command": study.command, "store": str(study.store),
        "executor": executor, "workers": used_workers, "nodes": nodes,
        "address": address,
        "cells": total, "done_before": before, "ran": ran, "remaining": total - len(records),
        "verified_cells": verified_cells,
        "unverified_cells": len(records) - verified_cells,
        "failed_cells": sum(1 for r in records if r.get("status") in
                            ("bad_input", "internal_error", "no_answer")),
        "stopped_by_budget": stopped,
        "seconds": round(time.perf_counter() - began, 3),
        "summary": summary,
    }
