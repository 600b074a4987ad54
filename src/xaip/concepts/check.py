"""The independent checker of "why not?" answers: exhaustive enumeration, no sampling.

Why exhaustive: on the symbolic Sokoban variants the true rules are known and the levels
are small, so every state reachable from the initial state can be listed. An explanation
is then confirmed exactly where the search only sampled:

* a missing precondition ``c`` of ``a``: ``c`` truly holds in *every* reachable state where
  ``a`` succeeds, and is false in the state where the foil fails;
* "the vocabulary is incomplete" (precondition): every concept false at the failure is
  also false in some reachable state where ``a`` succeeds;
* a cost claim "``a`` where ``C'`` holds costs at least ``k``": ``C'`` truly holds at that
  foil step, and every reachable state where ``C'`` holds and ``a`` succeeds costs ≥ ``k``;
  the bounds add up to more than the plan's cost;
* "incomplete" (cost): even the exact best bounds (subsets of up to the search's concept
  limit, exact minima over all reachable states) do not exceed the plan's cost;
* a foil that runs but misses the goal fails at the paper's extra goal action, which
  succeeds exactly in goal states: its explanation is checked as a missing precondition
  (true in every reachable goal state, false where the foil ends);
* ``not_worse``: by re-running plan and foil.

A simulator with ``enumerable = False`` (Montezuma's Revenge) cannot be listed; there the
same claims are tested on fresh states instead: the checker's own random walks from the
plan's and the foil's states, on a seed the search never uses (a test that can refute,
not a proof).

Labels: every concept is read with its *exact* labels wherever they exist
(:meth:`~xaip.concepts.vocabulary.Concept.exact_label`: the definition of a hand-written
concept, the reference labeller of a learned one), never with the classifier that produced
the answer -- so "the vocabulary is incomplete" caused by a classifier error at the failing
state is refuted, not confirmed. A learned concept without exact labels (one a person
taught by labelling states) can only be read with its classifier; then the checker shares
it with the search, and the answer's ``verification`` says which concepts and what
``verified`` means (:func:`verification`).

What it shares with the search: the simulator's ``step`` and the concepts' definitions (the
exact labels under test), plus the classifiers of concepts without exact labels. It does
not share the sampler, the noisy labels, the posterior computations or the greedy subset
choice; it has its own breadth-first enumeration and its own plan runner. It runs under the
search's budget, started afresh (each enumerated state is one node); running out is
"unverified: checker budget" (:func:`xaip.contract.run_checker`).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import Any

from xaip.concepts.results import (
    COSTLIER,
    GOAL_ACTION,
    INVALID_FOIL,
    NOT_WORSE,
    Query,
    WhyNot,
)
from xaip.concepts.simulator import Invalid
from xaip.contract import CheckReport, checker_budget_report
from xaip.errors import BudgetExhausted
from xaip.planning.semantics import step_number
from xaip.runtime import Budget, BudgetClock, Status

MAX_STATES = 200_000
FRESH_SAMPLES = 200  # fresh states for simulators that say ``enumerable = False``


def _number(index: int | None) -> str:
    return "none" if index is None else str(step_number(index))


def shared_classifiers(vocab: Any) -> tuple[str, ...]:
    """The concepts the checker can only read with the search's own classifier (learned
    concepts without exact labels)."""
    return tuple(c.name for c in vocab.concepts if not c.has_exact_labels)


def verification(vocab: Any) -> str:
    """What ``verified`` means for an answer in ``vocab`` (said in JSON and text)."""
    shared = shared_classifiers(vocab)
    if not shared:
        return "confirmed with exact concept labels"
    return ("confirmed with the search's own classifiers for " + ", ".join(shared) +
            " (no exact labels exist for them): a classifier error is not caught")


def label(concept: Any, state: Hashable) -> bool:
    """The checker's label: exact where it exists, else the concept's classifier."""
    exact = concept.exact_label(state)
    return concept.truth(state) if exact is None else exact


def _all_states(sim: Any, limit: int, clock: BudgetClock | None = None
                ) -> list[Hashable] | None:
    start = sim.initial()
    seen = {start}
    order = [start]
    index = 0
    while index < len(order):
        state = order[index]
        index += 1
        if clock is not None and not clock.charge():
            raise BudgetExhausted(f"the checker enumerated {len(order)} reachable states",
                                  "checking", {"states": len(order)})
        for action in sim.actions:
            outcome = sim.step(state, action)
            if isinstance(outcome, Invalid):
                continue
            following = outcome[0]
            if following not in seen:
                if len(seen) >= limit:
                    return None
                seen.add(following)
                order.append(following)
    return order


def _fresh_states(sim: Any, starts: list[Hashable], count: int = FRESH_SAMPLES,
                  seed: int = 7919, max_depth: int = 15) -> list[Hashable]:
    """For a simulator too large to enumerate (Montezuma): its own random walks from the
    plan's and the foil's states, on a seed the search does not use, so the explanation is
    re-tested on fresh samples."""
    import random

    rng = random.Random(seed)
    out = list(dict.fromkeys(starts))
    for _ in range(count):
        state = starts[rng.randrange(len(starts))]
        for _ in range(rng.randint(0, max_depth)):
            outcome = sim.step(state, sim.actions[rng.randrange(len(sim.actions))])
            if not isinstance(outcome, Invalid):
                state = outcome[0]
        out.append(state)
    return list(dict.fromkeys(out))


def _replay(sim: Any, actions: Sequence[str]) -> tuple[list[Hashable], float, int | None]:
    """States before each step (and the last), total cost, first failing step."""
    state = sim.initial()
    states, total = [state], 0.0
    for index, action in enumerate(actions):
        outcome = sim.step(state, action)
        if isinstance(outcome, Invalid):
            return states, total, index
        state, cost = outcome
        total += cost
        states.append(state)
    return states, total, None


def check(query: Query, result: WhyNot, max_states: int = MAX_STATES,
          budget: Budget | None = None) -> CheckReport:
    """Confirm ``result`` for ``query`` by exhaustive enumeration (module docstring), under
    ``budget`` (started afresh; :class:`~xaip.errors.BudgetExhausted` when it runs out:
    run it through :func:`xaip.contract.run_checker`)."""
    report = _check(query, result, max_states, None if budget is None else budget.start())
    if report.ok is True and shared_classifiers(query.vocabulary):
        return CheckReport(True, f"{report.details}; {verification(query.vocabulary)}")
    return report


def _check(query: Query, result: WhyNot, max_states: int,
           clock: BudgetClock | None) -> CheckReport:
    if not Status(result.status).finished:
        return CheckReport(None, "the search did not finish: nothing to confirm")
    sim, vocab = query.sim, query.vocabulary
    plan_states, plan_cost, plan_fail = _replay(sim, query.plan)
    foil_states, foil_cost, foil_fail = _replay(sim, query.foil)
    if plan_fail is not None:
        return CheckReport(False, f"the plan fails at step {step_number(plan_fail)}")
    if plan_cost != result.plan_cost:
        return CheckReport(False, f"the plan costs {plan_cost}, not {result.plan_cost}")
    if result.foil_outcome == NOT_WORSE:
        ok = foil_fail is None and foil_cost <= plan_cost
        return CheckReport(ok, f"foil cost {foil_cost} against plan cost {plan_cost}")
    if result.foil_outcome == INVALID_FOIL and result.action == GOAL_ACTION and not (
            foil_fail is None and sim.is_goal(plan_states[-1])
            and not sim.is_goal(foil_states[-1])):
        return CheckReport(False, "the foil does not run to a state outside the goal")
    states = _all_states(sim, max_states, clock) if getattr(sim, "enumerable", True) \
        else _fresh_states(sim, plan_states + foil_states)
    if states is None:
        return checker_budget_report(f"more than {max_states} reachable states: too many "
                                     "to enumerate")
    if result.foil_outcome == INVALID_FOIL and result.action == GOAL_ACTION:
        if result.failed_step != len(query.foil):
            return CheckReport(False, f"the foil ends after step {len(query.foil)}, not "
                                      f"{result.failed_step}")
        return _check_precondition(sim, vocab, states, foil_states[-1], result)
    if result.foil_outcome == INVALID_FOIL:
        if foil_fail != result.failed_step or query.foil[foil_fail or 0] != result.action:
            return CheckReport(False, f"the foil fails at step {_number(foil_fail)}, not "
                                      f"{_number(result.failed_step)}")
        return _check_precondition(sim, vocab, states, foil_states[-1], result)
    if result.foil_outcome != COSTLIER or foil_fail is not None or foil_cost <= plan_cost:
        return CheckReport(False, f"the foil is not costlier ({foil_cost} against "
                                  f"{plan_cost})")
    return _check_cost(sim, vocab, states, query.foil, foil_states, plan_cost, result)


def _succeeds(sim: Any, states: list[Hashable], action: str) -> list[tuple[Hashable, float]]:
    """The states where ``action`` succeeds, with its cost (the goal action: goal states)."""
    if action == GOAL_ACTION:
        return [(state, 0.0) for state in states if sim.is_goal(state)]
    out = []
    for state in states:
        outcome = sim.step(state, action)
        if not isinstance(outcome, Invalid):
            out.append((state, outcome[1]))
    return out


def _check_precondition(sim: Any, vocab: Any, states: list[Hashable], failing: Hashable,
                        result: WhyNot) -> CheckReport:
    assert result.action is not None
    good = [s for s, _ in _succeeds(sim, states, result.action)]
    if result.incomplete:
        for concept in vocab.concepts:
            if label(concept, failing):
                continue
            if all(label(concept, s) for s in good):
                mislabelled = concept.learned and concept.truth(failing)
                return CheckReport(False, f"`{concept.name}` explains the failure: the "
                                          "vocabulary is not incomplete" +
                                   (" (its classifier labels the failing state wrongly)"
                                    if mislabelled else ""))
        return CheckReport(True, f"no concept is false at the failure and true in all "
                                 f"{len(good)} reachable states where {result.action} "
                                 f"succeeds ({len(states)} states enumerated)")
    if not result.concepts:
        return CheckReport(False, "no concept named")
    concept = vocab[result.concepts[0]]
    if label(concept, failing):
        return CheckReport(False, f"`{concept.name}` holds where the foil fails")
    for state in good:
        if not label(concept, state):
            return CheckReport(False, f"{result.action} succeeds in a reachable state "
                                      f"without `{concept.name}`")
    return CheckReport(True, f"`{concept.name}` holds in all {len(good)} reachable states "
                             f"where {result.action} succeeds and not where the foil "
                             f"fails ({len(states)} states enumerated)")


def _check_cost(sim: Any, vocab: Any, states: list[Hashable], foil: Sequence[str],
                foil_states: list[Hashable], plan_cost: float, result: WhyNot) -> CheckReport:
    rows: dict[str, list[tuple[Hashable, float]]] = {}

    def table(action: str) -> list[tuple[Hashable, float]]:
        if action not in rows:
            rows[action] = _succeeds(sim, states, action)
        return rows[action]

    if result.incomplete:
        return _check_no_cost_explanation(vocab, foil, foil_states, plan_cost, result, table)
    total = 0.0
    for claim in result.claims:
        concepts = [vocab[name] for name in claim.concepts]
        state = foil_states[claim.step]
        if not all(label(c, state) for c in concepts):
            return CheckReport(False, f"step {step_number(claim.step)}: not all of "
                                      f"{claim.concepts} hold")
        for other, cost in table(claim.action):
            if cost < claim.at_least and all(label(c, other) for c in concepts):
                return CheckReport(False, f"{claim.action} costs {cost} < {claim.at_least} "
                                          f"in a reachable state where {claim.concepts} hold")
        total += claim.at_least
    if len(result.claims) != len(foil_states) - 1 or total <= plan_cost:
        return CheckReport(False, f"the bounds add up to {total}, not more than the plan's "
                                  f"{plan_cost}")
    return CheckReport(True, f"every bound holds in all reachable states ({len(states)}); "
                             f"they add up to {total} > {plan_cost}")


def _check_no_cost_explanation(vocab: Any, foil: Sequence[str], foil_states: list[Hashable],
                               plan_cost: float, result: WhyNot, table: Any) -> CheckReport:
    limit = int(result.stats.get("max_concepts", 3))
    total = 0.0
    for step, action in enumerate(foil):
        labelled = [(tuple(label(c, s) for c in vocab.concepts), cost)
                    for s, cost in table(action)]
        here = [i for i, c in enumerate(vocab.concepts) if label(c, foil_states[step])]
        best = 0.0
        for size in range(min(limit, len(here)) + 1):
            for combo in itertools.combinations(here, size):
                costs = [cost for marks, cost in labelled if all(marks[i] for i in combo)]
                best = max(best, min(costs) if costs else 0.0)
        total += best
    if total > plan_cost:
        return CheckReport(False, f"exact bounds with up to {limit} concepts per step add "
                                  f"up to {total} > {plan_cost}: an explanation exists")
    return CheckReport(True, f"even exact bounds add up to only {total} <= {plan_cost}")
