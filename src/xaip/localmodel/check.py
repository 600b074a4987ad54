"""The independent checker of a learned local model (book 7.2's local-approximation property).

What it checks, on states the learner did not use: when the region is small enough
(:func:`enumeration_limit` states within the learner's depth), every state of it, found by
its own breadth-first search; otherwise as many fresh random walks from the same starts as
the learner drew, on a seed the learner never uses. For every checked state ``s`` and
action ``a`` that succeeds there:

* ``a`` has a learned rule and its precondition holds in C(s) (no literal is too strong);
* if the result calls ``a`` consistent, the rule applied to C(s) yields exactly
  C(T(s, a)) (the local-approximation property);
* if the result calls ``a``'s cost constant, ``a`` costs that there.

Each effect the result calls inconsistent is confirmed by re-running its two witness
states in the simulator. Labels are exact (``Concept.exact_label``) wherever the concept
has them, never the learner's noisy readings; a learned classifier without exact labels is
read as it is (``details`` says so).

What it shares with the learner: the simulator, the vocabulary's concept definitions and,
in the fresh-walk mode, the random-walk sampler (:func:`xaip.concepts.simulator.
random_walks`) with another seed. Where it enumerates, it also computes the exact local
model from its definition (intersection and union over *every* state of the region) and
reports the precision and recall of the learned preconditions and effects against it.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.concepts.simulator import BlackBox, Invalid, random_walks
from xaip.concepts.vocabulary import Vocabulary
from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted
from xaip.localmodel.learn import WALK_DEPTH
from xaip.localmodel.results import LocalModel, short
from xaip.runtime import Budget
from xaip.runtime.budget import UNLIMITED
from xaip.runtime.progress import Progress, report

ENUMERATION_LIMIT = 20_000
FRESH_SEED = 0x5EED_C4EC
MAX_LISTED = 8


@dataclass(frozen=True)
class LocalCheckReport(CheckReport):
    """The checker's verdict with its evidence: mode (``enumerated`` or ``fresh-walks``),
    states checked, violations (at most a few listed, all counted) and, where it
    enumerated, precision/recall against the exact local model."""

    mode: str = ""
    states: int = 0
    violations: tuple[str, ...] = ()
    violation_count: int = 0
    accuracy: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "mode": self.mode, "states": self.states,
                "violations": list(self.violations), "violation_count": self.violation_count,
                "accuracy": self.accuracy}


def _labeller(vocabulary: Vocabulary) -> tuple[Any, bool]:
    concepts = vocabulary.concepts
    exact = all(c.has_exact_labels for c in concepts)

    def label(state: Hashable) -> frozenset[str]:
        out = set()
        for c in concepts:
            value = c.exact_label(state)
            if value is None:
                value = c.observe(state)
            if value:
                out.add(c.name)
        return frozenset(out)

    return label, exact


def enumeration_limit(samples: int) -> int:
    """The most states the checker enumerates before switching to fresh walks: three times
    the learner's samples (at least 1,000, at most ``ENUMERATION_LIMIT``), so checking
    costs about what learning did even on a slow simulator (Montezuma through ale-py)."""
    return min(ENUMERATION_LIMIT, max(1_000, 3 * samples))


def _enumerate(sim: BlackBox, starts: Sequence[Hashable], depth: int, clock: Any,
               limit: int) -> list[Hashable] | None:
    seen = dict.fromkeys(starts)
    frontier = list(seen)
    for _ in range(depth):
        following = []
        for state in frontier:
            if not clock.charge():
                raise BudgetExhausted("checker: enumerating the region")
            for action in sim.actions:
                outcome = sim.step(state, action)
                if not isinstance(outcome, Invalid) and outcome[0] not in seen:
                    seen[outcome[0]] = None
                    following.append(outcome[0])
                    if len(seen) > limit:
                        return None
        if not following:
            break
        frontier = following
    return list(seen)


def check_local_model(sim: BlackBox, vocabulary: Vocabulary, starts: Sequence[Hashable],
                      result: LocalModel, budget: Budget = UNLIMITED,
                      progress: Progress | None = None) -> LocalCheckReport:
    """Check ``result`` as the module docstring says; raises BudgetExhausted when out of
    budget (wrap in :func:`xaip.contract.run_checker`)."""
    clock = budget.start()
    depth = WALK_DEPTH if result.radius is None else result.radius
    label, exact_labels = _labeller(vocabulary)
    region = _enumerate(sim, starts, depth, clock, enumeration_limit(result.samples))
    mode = "enumerated"
    if region is None:
        mode = "fresh-walks"
        region = random_walks(sim, starts, max(result.samples, 1),
                              result.seed * 31 + FRESH_SEED, depth)
    models = {a.name: a for a in result.actions}
    problems: list[str] = []
    exact: dict[str, list[Any]] = {}  # action -> [pre, add, delete] over the region
    for index, state in enumerate(region):
        if not clock.charge():
            raise BudgetExhausted("checker: checking the region's states")
        if index % 50 == 0:
            report(progress, "checking", index, len(region))
        before = label(state)
        for action in sim.actions:
            outcome = sim.step(state, action)
            if isinstance(outcome, Invalid):
                continue
            after = label(outcome[0])
            record = exact.setdefault(action, [set(before), set(), set()])
            record[0] &= before
            record[1] |= after - before
            record[2] |= before - after
            model = models.get(action)
            if model is None or not model.learned:
                problems.append(f"{action} has no learned rule but succeeds in {short(state)}")
                continue
            missing = [c for c in model.precondition if c not in before]
            if missing:
                problems.append(f"{action}: precondition {', '.join(missing)} is false in "
                                f"{short(state)}, where {action} succeeds")
            if model.consistent:
                predicted = (before - set(model.delete)) | set(model.add)
                if predicted != after:
                    wrong = sorted(predicted ^ after)
                    problems.append(f"{action}: the learned effects predict {', '.join(wrong)} "
                                    f"wrongly from {short(state)}")
            if not model.cost_state_dependent and float(outcome[1]) != model.min_cost:
                problems.append(f"{action}: costs {outcome[1]:g} in {short(state)}, not the "
                                f"constant {model.min_cost:g} learned")
    for model in result.actions:
        for conflict in model.conflicts:
            problem = _witness_problem(sim, label, model.name, conflict)
            if problem:
                problems.append(problem)
    accuracy = _accuracy(result, exact) if mode == "enumerated" else {}
    ok = not problems
    details = (f"{'every' if mode == 'enumerated' else 'fresh'} {len(region)} states of the "
               f"region checked ({mode}): "
               + ("the learned model is a local approximation where it claims consistency"
                  if ok else f"{len(problems)} violations, first: {problems[0]}"))
    if not exact_labels:
        details += "; concepts without exact labels were read with their own classifiers"
    return LocalCheckReport(ok, details, mode, len(region), tuple(problems[:MAX_LISTED]),
                            len(problems), accuracy)


def _witness_problem(sim: BlackBox, label: Any, action: str, conflict: Any) -> str | None:
    """``None`` when re-running the witnesses shows the claimed inconsistency."""
    values = []
    for state in (conflict.changed_in, conflict.unchanged_in):
        outcome = sim.step(state, action)
        if isinstance(outcome, Invalid):
            return f"{action}: a witness of the {conflict.concept} conflict fails on re-run"
        values.append((conflict.concept in label(state), conflict.concept in label(outcome[0])))
    (b1, a1), (b2, a2) = values
    if conflict.kind == "toggle":
        if (b1, a1, b2, a2) == (False, True, True, False):
            return None
    else:
        was = conflict.kind == "delete"
        if b1 == was and b2 == was and a1 != was and a2 == was:
            return None
    return (f"{action}: the claimed {conflict.kind} conflict on {conflict.concept} is not "
            "confirmed by exact labels on re-run")


def _pr(learned: set[str], exact: set[str]) -> tuple[float, float]:
    hit = len(learned & exact)
    return (hit / len(learned) if learned else 1.0, hit / len(exact) if exact else 1.0)


def _accuracy(result: LocalModel, exact: dict[str, list[Any]]) -> dict[str, Any]:
    """Precision/recall of learned preconditions and (signed) effects against the exact
    local model, summed over actions (micro-averaged), plus exact per-action agreement."""
    pre_l: set[str] = set()
    pre_e: set[str] = set()
    eff_l: set[str] = set()
    eff_e: set[str] = set()
    exact_actions = 0
    for model in result.actions:
        record = exact.get(model.name)
        lp = {f"{model.name}:{c}" for c in model.precondition} if model.learned else set()
        le = ({f"{model.name}:+{c}" for c in model.add}
              | {f"{model.name}:-{c}" for c in model.delete})
        ep = {f"{model.name}:{c}" for c in record[0]} if record else set()
        ee = ({f"{model.name}:+{c}" for c in record[1]}
              | {f"{model.name}:-{c}" for c in record[2]}) if record else set()
        exact_actions += lp == ep and le == ee and model.learned == bool(record)
        pre_l |= lp
        pre_e |= ep
        eff_l |= le
        eff_e |= ee
    pp, pr = _pr(pre_l, pre_e)
    ep_, er = _pr(eff_l, eff_e)
    return {"precondition_precision": round(pp, 4), "precondition_recall": round(pr, 4),
            "effect_precision": round(ep_, 4), "effect_recall": round(er, 4),
            "actions_exact": exact_actions, "actions": len(result.actions)}
