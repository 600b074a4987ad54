"""Drawing samples through the runtime executor, deterministically for a seed.

Why batches with their own seeds: the explainers stop as soon as the confidence passes,
so samples are drawn lazily, a round of batches at a time. Batch ``b`` is always the same
states (its seed is derived from the run's seed and ``b``) whichever executor draws it, so
``--workers 4`` gives the same answer as the serial default, only sooner. A worker returns
states and the outcomes of the probed actions (the simulator's part, the expensive one);
the concepts, which may be arbitrary user functions, are evaluated in the calling process.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass

from xaip.concepts.simulator import GOAL_ACTION, BlackBox, Invalid, random_walks
from xaip.runtime import Executor

Sample = tuple[Hashable, tuple[float | None, ...]]

BATCH = 25


@dataclass(frozen=True)
class SampleJob:
    """One batch: ``count`` random-walk states from ``starts`` with the outcomes (cost, or
    ``None`` for ⊥) of each of ``probe`` in them."""

    sim: BlackBox
    starts: tuple[Hashable, ...]
    probe: tuple[str, ...]
    seed: int
    batch: int
    count: int = BATCH
    max_depth: int = 15


def batch_seed(seed: int, batch: int) -> int:
    return (seed * 1_000_003 + batch * 7_919 + 17) & 0xFFFFFFFF


def draw_batch(job: SampleJob) -> list[Sample]:
    """Run one batch (a module-level function, so process pools can pickle it)."""
    states = random_walks(job.sim, job.starts, job.count, batch_seed(job.seed, job.batch),
                          job.max_depth)
    out: list[Sample] = []
    for state in states:
        outcomes: list[float | None] = []
        for action in job.probe:
            if action == GOAL_ACTION:  # succeeds, at no cost, exactly in goal states
                outcomes.append(0.0 if job.sim.is_goal(state) else None)
                continue
            result = job.sim.step(state, action)
            outcomes.append(None if isinstance(result, Invalid) else result[1])
        out.append((state, tuple(outcomes)))
    return out


def sample_stream(sim: BlackBox, starts: Sequence[Hashable], probe: Sequence[str], seed: int,
                  executor: Executor, max_depth: int = 15) -> Iterator[Sample]:
    """Samples without end, in batch order; the caller stops when it has enough."""
    batch = 0
    round_size = max(1, executor.workers)
    while True:
        jobs = [SampleJob(sim, tuple(starts), tuple(probe), seed, batch + i,
                          max_depth=max_depth) for i in range(round_size)]
        for result in executor.map(draw_batch, jobs):
            yield from result
        batch += round_size
