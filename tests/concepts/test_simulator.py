"""Samplers are deterministic for a seed, local, and independent of the executor."""

from __future__ import annotations

import pickle

from xaip.concepts import INVALID, bundled, random_walks, reachability_samples, reachable
from xaip.concepts.sampling import SampleJob, draw_batch, sample_stream
from xaip.runtime import get_executor


def test_invalid_is_one_picklable_value() -> None:
    assert pickle.loads(pickle.dumps(INVALID)) is INVALID


def test_random_walks_are_deterministic_and_reachable() -> None:
    sim = bundled("sokoban-switch").sim
    start = (sim.initial(),)
    a = random_walks(sim, start, 50, seed=3)
    assert a == random_walks(sim, start, 50, seed=3)
    assert a != random_walks(sim, start, 50, seed=4)
    everything = set(reachable(sim, start))
    assert set(a) <= everything


def test_reachability_sampling_stays_within_the_radius() -> None:
    sim = bundled("sokoban-switch").sim
    start = (sim.initial(),)
    near = set(reachable(sim, start, radius=2))
    samples = reachability_samples(sim, start, 40, seed=1, radius=2)
    assert set(samples) <= near and len(samples) == 40
    assert samples == reachability_samples(sim, start, 40, seed=1, radius=2)


def test_batches_are_the_same_on_any_executor() -> None:
    sim = bundled("sokoban-cells").sim
    starts = (sim.initial(),)
    serial = sample_stream(sim, starts, ("push-right",), 7, get_executor("serial"))
    first = [next(serial) for _ in range(60)]
    with get_executor("processes", 2) as pool:  # type: ignore[attr-defined]
        parallel = sample_stream(sim, starts, ("push-right",), 7, pool)
        assert [next(parallel) for _ in range(60)] == first
    job = SampleJob(sim, starts, ("push-right",), 7, 0)
    assert draw_batch(job) == first[:25]
