"""``why_not``: classify the foil, then explain it by sampling the black box.

Why this order (Definition 34 of the book, §4 of the paper): the simulator itself says
whether the foil fails or costs more, so only one kind of explanation is ever searched —
the missing precondition of the first failing action, or the cost abstraction.
"""

from __future__ import annotations

import random
import time
from collections.abc import Hashable, Sequence
from typing import Any

from xaip.concepts.results import (
    COSTLIER,
    GOAL_ACTION,
    INVALID_FOIL,
    NOT_WORSE,
    WhyNot,
    sentence,
)
from xaip.concepts.sampling import sample_stream
from xaip.concepts.search import Claim, find_cost_explanation, find_precondition
from xaip.concepts.simulator import BlackBox, Trace, run_trace
from xaip.concepts.vocabulary import Vocabulary
from xaip.errors import InputError
from xaip.planning.semantics import step_number
from xaip.runtime import Budget, BudgetClock, Executor, Status, get_executor
from xaip.runtime.budget import as_clock
from xaip.runtime.progress import Progress, report

PRECONDITION_SAMPLES = 500  # the paper's sampling budget for preconditions
COST_SAMPLES = 750          # ... and for cost functions
PRIOR_SAMPLES = 100         # the authors' SAMPLING_PRIOR_BUDGET


def classify(sim: BlackBox, plan: Sequence[str], foil: Sequence[str]) -> tuple[str, Trace,
                                                                              Trace]:
    """``(outcome, plan_trace, foil_trace)``; a failing plan or a foil equal to the plan is
    bad input."""
    if tuple(plan) == tuple(foil):
        raise InputError("the foil is the plan itself: give a different action sequence")
    plan_trace = run_trace(sim, plan)
    if not plan_trace.valid:
        raise InputError(f"the plan fails at step {step_number(plan_trace.failed_step or 0)} "
                         f"({plan[plan_trace.failed_step or 0]}): explain a working plan")
    foil_trace = run_trace(sim, foil)
    if not foil_trace.valid:
        return INVALID_FOIL, plan_trace, foil_trace
    if sim.is_goal(plan_trace.final) and not sim.is_goal(foil_trace.final):
        return INVALID_FOIL, plan_trace, foil_trace
    if foil_trace.cost > plan_trace.cost:
        return COSTLIER, plan_trace, foil_trace
    return NOT_WORSE, plan_trace, foil_trace


def why_not(sim: BlackBox, plan: Sequence[str], foil: Sequence[str], vocabulary: Vocabulary,
            *, samples: int | None = None, budget: Budget | None = None, seed: int = 0,
            workers: int = 1, executor: Executor | None = None,
            prior_samples: int = PRIOR_SAMPLES, cutoff: float = 0.01,
            target: float | None = 0.99, max_concepts: int = 3, max_depth: int = 15,
            progress: Progress | None = None, verify: bool = True) -> WhyNot:
    """Why is ``plan`` preferred over ``foil`` in ``sim``, in ``vocabulary``'s concepts?

    ``samples`` is the paper's sampling budget (default 500 for a failing foil, 750 for a
    costlier one); ``budget`` is the hard limit (each sample is one node), which ends the
    work as ``budget_exhausted``. ``workers > 1`` draws samples on a process pool (or pass
    any ``executor``); the answer is the same for a seed either way. ``target``: stop the
    precondition search once one candidate is left with at least this confidence
    (``None``: use the whole sampling budget). ``verify`` runs the independent checker
    (:func:`xaip.concepts.check`, exhaustive enumeration) and sets ``verified``.
    """
    result = _why_not(sim, plan, foil, vocabulary, samples, budget, seed, workers, executor,
                      prior_samples, cutoff, target, max_concepts, max_depth, progress)
    if not verify:
        return result
    from dataclasses import replace

    from xaip.concepts.check import check, verification
    from xaip.concepts.results import Query
    from xaip.contract import run_checker, with_check

    query = Query(sim, tuple(plan), tuple(foil), vocabulary)
    report = run_checker(lambda: check(query, result, budget=budget))
    checked = with_check(result, report)
    meaning = verification(vocabulary) if checked.verified else \
        f"not verified: {report.details}"
    return replace(checked, verification=meaning)


def _why_not(sim: BlackBox, plan: Sequence[str], foil: Sequence[str], vocabulary: Vocabulary,
             samples: int | None, budget: Budget | None, seed: int, workers: int,
             executor: Executor | None, prior_samples: int, cutoff: float,
             target: float | None, max_concepts: int, max_depth: int,
             progress: Progress | None) -> WhyNot:
    started = time.perf_counter()
    clock = as_clock(budget)
    outcome, plan_trace, foil_trace = classify(sim, plan, foil)
    report(progress, "classify", 1, 1, outcome)
    env, _, variant = getattr(sim, "name", "simulator").partition("/")
    base: dict[str, Any] = {"env": env, "variant": variant, "foil_outcome": outcome,
            "plan_cost": plan_trace.cost}
    if outcome == NOT_WORSE:
        return _finish(WhyNot(**base, foil_cost=foil_trace.cost, failed_step=None,
                              action=None, concepts=(), confidence=None, incomplete=False,
                              claims=(), candidates=(), samples=0,
                              status=Status.NO_EXPLANATION, seconds=0.0,
                              stats={"samples": 0}), started)
    starts = tuple(dict.fromkeys((*plan_trace.states, *foil_trace.states)))
    noise = random.Random(f"concept-noise:{seed}")
    own = executor is None
    pool = get_executor("processes" if workers > 1 else "serial", workers) if own else executor
    assert pool is not None
    try:
        if outcome == INVALID_FOIL:
            result = _precondition(sim, vocabulary, foil_trace, starts, pool, clock, noise,
                                   base, seed, samples or PRECONDITION_SAMPLES, prior_samples,
                                   cutoff, target, max_depth)
        else:
            result = _cost(sim, vocabulary, foil_trace, plan_trace.cost, starts, pool, clock,
                           noise, base, seed, samples or COST_SAMPLES, max_concepts,
                           max_depth)
    finally:
        if own:
            pool.close()
    return _finish(result, started)


def _finish(result: WhyNot, started: float) -> WhyNot:
    from dataclasses import replace

    seconds = time.perf_counter() - started
    stats = dict(result.stats)
    drawn = int(stats.get("samples", 0)) + int(stats.get("prior_samples", 0))
    stats["samples_per_second"] = round(drawn / seconds, 1) if seconds > 0 else 0.0
    result = replace(result, seconds=seconds, stats=stats)
    return replace(result, text=sentence(result))


def _precondition(sim: BlackBox, vocab: Vocabulary, trace: Trace,
                  starts: tuple[Hashable, ...], pool: Executor, clock: BudgetClock,
                  noise: random.Random, base: dict[str, Any], seed: int, samples: int,
                  prior_samples: int, cutoff: float, target: float | None,
                  max_depth: int) -> WhyNot:
    # A foil that runs but misses the goal fails at the paper's extra goal action, after
    # its last step: the search is the same, for the goal's "precondition".
    failed_step = len(trace.actions) if trace.failed_step is None else trace.failed_step
    action = GOAL_ACTION if trace.failed_step is None else trace.actions[failed_step]
    failing = trace.final
    fail_mask = vocab.observe_mask(failing, noise)
    stream = sample_stream(sim, starts, (action,), seed, pool, max_depth)
    found = find_precondition(vocab, fail_mask, stream, clock, noise, samples=samples,
                              prior_samples=prior_samples, cutoff=cutoff, target=target)
    if found.exhausted:
        status = Status.BUDGET_EXHAUSTED
    elif found.candidates:
        status = Status.FOUND
    else:
        status = Status.NO_EXPLANATION
    best = found.candidates[:1]
    show = getattr(sim, "show", None)
    uncertain = tuple((c.name, bool(fail_mask >> i & 1), c.error_rate(bool(fail_mask >> i & 1)))
                      for i, c in enumerate(vocab.concepts) if c.noisy)
    return WhyNot(**base, foil_cost=trace.cost, failed_step=failed_step,
                  action=action, concepts=tuple(n for n, _ in best),
                  confidence=best[0][1] if best else None,
                  incomplete=status == Status.NO_EXPLANATION, claims=(),
                  candidates=found.candidates[:5], samples=found.samples, status=status,
                  seconds=0.0,
                  stats={"samples": found.samples, "prior_samples": found.prior_samples,
                         "executable": found.executable,
                         "samples_to_target": found.samples_to_target,
                         "candidates_left": len(found.candidates)},
                  failing_state=failing,
                  failing_picture="" if show is None else show(failing),
                  uncertain_labels=uncertain)


def _cost(sim: BlackBox, vocab: Vocabulary, trace: Trace, plan_cost: float,
          starts: tuple[Hashable, ...], pool: Executor, clock: BudgetClock, noise: random.Random,
          base: dict[str, Any], seed: int, samples: int, max_concepts: int,
          max_depth: int) -> WhyNot:
    probe = tuple(dict.fromkeys(trace.actions))
    steps = list(zip(trace.actions, trace.states[:-1], strict=True))
    stream = sample_stream(sim, starts, probe, seed, pool, max_depth)
    found = find_cost_explanation(vocab, steps, plan_cost, stream, probe, clock, noise,
                                  samples=samples, max_concepts=max_concepts)
    claims: tuple[Claim, ...] = found.claims or ()
    if found.exhausted:
        status = Status.BUDGET_EXHAUSTED
    elif found.claims is None:
        status = Status.NO_EXPLANATION
    else:
        status = Status.FOUND
    named = [c for c in claims if c.concepts]
    confidence = None
    if found.claims is not None:
        confidence = 1.0
        for claim in named:
            confidence *= claim.confidence if claim.confidence is not None else 1.0
    concepts = tuple(dict.fromkeys(n for c in named for n in c.concepts))
    shown = steps[named[0].step][1] if named else None
    show = getattr(sim, "show", None)
    return WhyNot(**base, foil_cost=trace.cost, failed_step=None,
                  action=named[0].action if named else None, concepts=concepts,
                  confidence=confidence, incomplete=status == Status.NO_EXPLANATION,
                  claims=claims, candidates=(), samples=found.samples, status=status,
                  seconds=0.0,
                  stats={"samples": found.samples, "executable": found.executable,
                         "subsets": found.subsets, "claims": len(named),
                         "max_concepts": max_concepts},
                  failing_state=shown,
                  failing_picture="" if shown is None or show is None else show(shown))
