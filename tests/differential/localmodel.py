"""Differential test of the localmodel family: learned local models of random Sokoban levels
against the exact local model, by enumeration, from the definition (book 7.2-7.3).

Instance of a seed: a random small level from the concepts family's generator
(:func:`tests.differential.concepts._level_text`: Sokoban-switch with the precondition or
the cost variant, or Sokoban-cells), the whole Sokoban concept library or (one seed in
three) a random half of it, noise-free. The oracle lists every reachable state by its own
breadth-first search over the simulator's steps and labels each with the concepts'
definitions. The exact local model of an action ``a`` over the region R (book 7.2): its
precondition is the set of concepts true in every state of R where ``a`` succeeds, its
add (delete) effects the concepts some such transition makes true (false); an effect on a
concept is inconsistent when two transitions with the same value before disagree after.

Two runs per seed:

* the limit (``samples=None``, radius = the oracle's greatest depth, so every reachable
  state is used): preconditions, effects, consistency and which actions were ever seen
  to succeed must equal the oracle's exactly, and the checker must verify;
* finite samples (5-80 states within that radius, or, for odd seeds when every state is
  within 15 steps, the ends of random walks of 0..15 steps): each learned precondition must be a
  superset of the exact one and each learned effect set a subset; the checker's verdict
  must equal the oracle's own decision of the local-approximation property (every state
  where an action succeeds satisfies its learned precondition, every transition of an
  action called consistent is predicted exactly, a cost called constant is constant), and
  the checker's precision and recall of the preconditions must equal the oracle's.
"""

from __future__ import annotations

import random
from typing import Any

from tests.differential.concepts import _level_text

CI_INSTANCES = 200


def _instance(seed: int) -> tuple[Any, Any]:
    from xaip.concepts.sokoban import Sokoban, parse_level
    from xaip.concepts.vocabulary import Vocabulary, default_vocabulary

    rng = random.Random(seed)
    env = rng.choice(("sokoban-switch", "sokoban-switch", "sokoban-cells"))
    variant = rng.choice(("precondition", "cost")) if env == "sokoban-switch" else "cost"
    level = parse_level(_level_text(rng, env), f"random-{seed}")
    vocabulary = default_vocabulary(level)
    if seed % 3 == 0:
        keep = [c for c in vocabulary.concepts if rng.random() < 0.5] or \
            [vocabulary.concepts[0]]
        vocabulary = Vocabulary(tuple(keep))
    return Sokoban(level, env, variant), vocabulary


def _oracle(sim: Any, vocabulary: Any) -> tuple[int, dict[str, list[Any]]]:
    """Greatest BFS depth and, per action, its transitions (C(s), C(s'), cost)."""
    from xaip.concepts.simulator import Invalid

    start = sim.initial()
    depth = {start: 0}
    queue = [start]
    transitions: dict[str, list[Any]] = {a: [] for a in sim.actions}
    for state in queue:
        before = frozenset(c.name for c in vocabulary.concepts if c.test(state))
        for action in sim.actions:
            outcome = sim.step(state, action)
            if isinstance(outcome, Invalid):
                continue
            nxt, cost = outcome
            after = frozenset(c.name for c in vocabulary.concepts if c.test(nxt))
            transitions[action].append((before, after, float(cost)))
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                queue.append(nxt)
    return max(depth.values()), transitions


def _exact(items: list[Any]) -> tuple[frozenset[str], frozenset[str], frozenset[str], bool]:
    pre = frozenset.intersection(*(b for b, _, _ in items))
    add = frozenset().union(*(a - b for b, a, _ in items))
    delete = frozenset().union(*(b - a for b, a, _ in items))
    consistent = True  # an unconditional STRIPS effect per concept: none, add or delete
    for concept in add | delete:
        pairs = {(concept in b, concept in a) for b, a, _ in items}
        fits = (pairs <= {(False, False), (True, True)} or all(a for _, a in pairs)
                or not any(a for _, a in pairs))
        consistent = consistent and fits
    return pre, add, delete, consistent


def _approximates(model: Any, items: list[Any]) -> bool:
    if not items:
        return True
    if not model.learned:
        return False
    pre = set(model.precondition)
    for before, after, cost in items:
        if not pre <= before:
            return False
        if model.consistent and (before - set(model.delete)) | set(model.add) != after:
            return False
        if not model.cost_state_dependent and cost != model.min_cost:
            return False
    return True


def check(seed: int) -> str | None:
    from xaip.localmodel import learn_and_check

    sim, vocabulary = _instance(seed)
    radius, transitions = _oracle(sim, vocabulary)
    start = (sim.initial(),)
    full = learn_and_check(sim, vocabulary, start, samples=None, radius=radius, seed=seed)
    for model in full.actions:
        items = transitions[model.name]
        if bool(items) != model.learned:
            return f"limit: {model.name} learned={model.learned} but {len(items)} successes"
        if not items:
            continue
        pre, add, delete, consistent = _exact(items)
        got = (set(model.precondition), set(model.add), set(model.delete), model.consistent)
        if got != (set(pre), set(add), set(delete), consistent):
            return f"limit: {model.name} learned {got}, exact {(pre, add, delete, consistent)}"
    if not full.verified:
        return f"limit: the exact model was not verified: {full.check}"
    samples = random.Random(seed + 1).randint(5, 80)
    walks = seed % 2 == 1 and radius <= 15  # random walks of 0..15 steps reach every state
    part = learn_and_check(sim, vocabulary, start, samples=samples,
                           radius=None if walks else radius, seed=seed)
    for model in part.actions:
        items = transitions[model.name]
        if not model.learned:
            continue
        pre, add, delete, _ = _exact(items)
        if not pre <= set(model.precondition):
            missing = pre - set(model.precondition)
            return f"{samples} samples: {model.name} precondition misses {missing}"
        if not (set(model.add) <= add and set(model.delete) <= delete):
            return f"{samples} samples: {model.name} effects beyond the exact ones"
    expected = all(_approximates(m, transitions[m.name]) for m in part.actions)
    if part.verified != expected:
        return f"{samples} samples: checker verified={part.verified}, oracle says {expected}"
    return _accuracy_problem(part, transitions)


def _accuracy_problem(result: Any, transitions: dict[str, list[Any]]) -> str | None:
    """The checker's precision/recall of preconditions against the oracle's, micro-averaged
    over actions (an action never seen to succeed contributes no learned literal)."""
    learned: set[tuple[str, str]] = set()
    exact: set[tuple[str, str]] = set()
    for model in result.actions:
        if model.learned:
            learned |= {(model.name, c) for c in model.precondition}
        if transitions[model.name]:
            exact |= {(model.name, c) for c in _exact(transitions[model.name])[0]}
    hit = len(learned & exact)
    precision = round(hit / len(learned), 4) if learned else 1.0
    recall = round(hit / len(exact), 4) if exact else 1.0
    accuracy = result.check.accuracy
    got = (accuracy["precondition_precision"], accuracy["precondition_recall"])
    if got != (precision, recall):
        return f"precondition precision/recall {got}, oracle {(precision, recall)}"
    return None


