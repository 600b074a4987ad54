"""Learning the whole local symbolic model of a black box (book ch. 8, 7.1-7.3; V03).

Where "why not?" (:mod:`xaip.concepts`) answers one foil at a time, this family learns, from
samples of the region around the plan and the foil, a STRIPS model of every action over the
user's concepts: preconditions (intersection of the concept sets of states where the action
succeeds), add/delete effects (union of the changes), costs (least and greatest observed),
and says which assumptions failed. The independent checker
(:func:`check_local_model`) tests the local-approximation property on states the learner did
not use. Front door: :func:`learn_local_model` (unchecked) or :func:`learn_and_check`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Hashable, Sequence

from xaip.concepts.simulator import BlackBox
from xaip.concepts.vocabulary import Vocabulary
from xaip.contract import run_checker, with_check
from xaip.localmodel.check import LocalCheckReport, check_local_model
from xaip.localmodel.learn import learn_local_model
from xaip.localmodel.results import ActionModel, EffectConflict, LocalModel
from xaip.runtime import Budget
from xaip.runtime.budget import UNLIMITED
from xaip.runtime.progress import Progress

__all__ = ["ActionModel", "EffectConflict", "LocalCheckReport", "LocalModel",
           "check_local_model", "learn_and_check", "learn_local_model"]


def learn_and_check(sim: BlackBox, vocabulary: Vocabulary, starts: Sequence[Hashable],
                    samples: int | None = 1000, radius: int | None = None, seed: int = 0,
                    budget: Budget = UNLIMITED,
                    progress: Progress | None = None) -> LocalModel:
    """:func:`learn_local_model`, then its checker under the same budget started afresh;
    ``verified`` is true only when the checker confirmed the model and learning finished."""
    result = learn_local_model(sim, vocabulary, starts, samples=samples, radius=radius,
                               seed=seed, budget=budget, progress=progress)
    began = time.perf_counter()
    report = run_checker(lambda: check_local_model(sim, vocabulary, starts, result, budget,
                                                       progress))
    stats = {**result.stats, "check_seconds": round(time.perf_counter() - began, 4)}
    return dataclasses.replace(with_check(result, report), check=report, stats=stats)
