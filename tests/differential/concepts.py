"""Differential test of the concepts family: "why not my foil?" answers on random Sokoban
levels against exhaustive labelling of every reachable state, from the definitions.

Instance of a seed: a random small level (3-5 by 2-3 floor cells inside walls, a box, a
target, a few inner walls; a switch for Sokoban-switch, pink cells for Sokoban-cells), the
variant (switch: precondition or cost; cells: cost), the agent's plan (a cheapest plan,
by an own Dijkstra over the simulator's steps) and a foil (a prefix of the plan plus random
steps, a random walk, or a plan cheapest in steps rather than cost, so that it fails or
costs more). The vocabulary is the Sokoban library, whole or (three seeds in ten) with a
random third to two thirds of its concepts removed, noise-free or (one seed in four)
with 2% simulated classifier noise. xaip answers with :func:`xaip.concepts.why_not`, which runs
its checker.

The oracle lists every reachable state with its own breadth-first search over the
simulator's steps (the environment's rules, the definition of the black box) and labels
each with the concepts' definitions (``Concept.test``):

* failing foil (book Def. 34/35): the failing action ``a`` at ``s_fail``; a concept
  explains the failure iff it is false at ``s_fail`` and true in every reachable state
  where ``a`` succeeds. A named concept is right iff it explains; "incomplete" is right iff
  none does;
* costlier foil (book Def. 36): ``C_abs(a, C') = min {C(s, a) : s reachable, a succeeds,
  C' holds in s}``; a claim is right iff its concepts hold at its foil step and its bound
  is at most ``C_abs``; the answer iff every claim is right, there is one per foil step and
  the bounds add up to more than the plan's cost. "Incomplete" is right iff even the best
  exact bounds with up to ``max_concepts`` concepts per step add up to no more than the
  plan's cost;
* a foil that runs but misses the goal fails at the paper's extra goal action (§4), which
  succeeds exactly in goal states: the failing-foil rule with ``a`` = the goal action;
* a foil that does not fail and costs no more is classified by replay.

Disagreement: the classification differs, or the checker's verdict (``verified``)
differs from the oracle's (a wrong answer verified, or a right one refuted). A wrong answer
the checker refutes is an agreement: the search samples and may err, the command then
exits 1 and says "not verified".
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections.abc import Hashable, Sequence
from typing import Any

CI_INSTANCES = 200


def _level_text(rng: random.Random, env: str) -> str:
    cols, rows = rng.randint(3, 5), rng.randint(2, 3)
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    rng.shuffle(cells)
    marks: dict[tuple[int, int], str] = {}
    marks[cells.pop()] = "@"
    marks[cells.pop()] = "$"
    marks[cells.pop()] = "."
    if env == "sokoban-switch":
        marks[cells.pop()] = "s"
    else:
        for _ in range(rng.randint(1, min(3, len(cells) - 1))):
            marks[cells.pop()] = "c"
    for _ in range(rng.randint(0, min(2, len(cells)))):
        marks[cells.pop()] = "#"
    lines = ["#" * (cols + 2)]
    for r in range(rows):
        lines.append("#" + "".join(marks.get((r, c), " ") for c in range(cols)) + "#")
    lines.append("#" * (cols + 2))
    return "\n".join(lines)


def _replay(sim: Any, actions: Sequence[str]) -> tuple[list[Hashable], float, int | None]:
    from xaip.concepts.simulator import Invalid

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


def _cheapest(sim: Any, unit: bool) -> tuple[str, ...] | None:
    """A cheapest plan to the goal (in cost, or in steps with ``unit``), own Dijkstra."""
    from xaip.concepts.simulator import Invalid

    start = sim.initial()
    best = {start: 0.0}
    queue: list[tuple[float, int, Hashable, tuple[str, ...]]] = [(0.0, 0, start, ())]
    tie = 0
    while queue:
        cost, _, state, plan = heapq.heappop(queue)
        if cost > best.get(state, float("inf")):
            continue
        if sim.is_goal(state):
            return plan
        for action in sim.actions:
            outcome = sim.step(state, action)
            if isinstance(outcome, Invalid):
                continue
            nxt, step = outcome
            total = cost + (1.0 if unit else step)
            if total < best.get(nxt, float("inf")):
                best[nxt] = total
                tie += 1
                heapq.heappush(queue, (total, tie, nxt, (*plan, action)))
    return None


def _reachable(sim: Any) -> list[Hashable]:
    from xaip.concepts.simulator import Invalid

    start = sim.initial()
    seen = {start}
    order = [start]
    for state in order:
        for action in sim.actions:
            outcome = sim.step(state, action)
            if not isinstance(outcome, Invalid) and outcome[0] not in seen:
                seen.add(outcome[0])
                order.append(outcome[0])
    return order


def _instance(seed: int) -> tuple[Any, tuple[str, ...], tuple[str, ...], Any] | None:
    from xaip.concepts.sokoban import ACTIONS, Sokoban, parse_level
    from xaip.concepts.vocabulary import default_vocabulary

    rng = random.Random(f"concepts-differential:{seed}")
    for _ in range(30):
        env = rng.choice(("sokoban-switch", "sokoban-switch", "sokoban-cells"))
        variant = rng.choice(("precondition", "cost")) if env == "sokoban-switch" else "cost"
        level = parse_level(_level_text(rng, env), f"random-{seed}")
        sim = Sokoban(level, env, variant)
        plan = _cheapest(sim, unit=False)
        if not plan:
            continue
        kind = rng.random()
        if variant == "cost" and rng.random() < 0.5:
            kind = 0.9  # a plan cheapest in steps: often costlier in cost
        if kind < 0.4:
            foil = plan[:rng.randrange(len(plan))] + tuple(
                rng.choice(ACTIONS) for _ in range(rng.randint(1, 4)))
        elif kind < 0.7 or variant == "precondition":
            foil = tuple(rng.choice(ACTIONS) for _ in range(rng.randint(1, 8)))
        else:
            foil = _cheapest(sim, unit=True) or ()
        if not foil or foil == plan:
            continue
        vocab = default_vocabulary(level)
        if rng.random() < 0.3:  # a partial vocabulary: explanations may be missing
            names = list(vocab.names)
            dropped = rng.sample(names, rng.randint(len(names) // 3, 2 * len(names) // 3))
            vocab = vocab.without(*dropped)
        if rng.random() < 0.25:
            vocab = vocab.with_noise(0.02, 0.02)
        return sim, plan, foil, vocab
    return None


def _best_bounds(vocab: Any, rows: dict[str, list[tuple[int, float]]], foil: Sequence[str],
                 states: Sequence[Hashable], limit: int) -> float:
    """The largest sum of exact bounds with up to ``limit`` concepts per foil step."""
    total = 0.0
    for step, action in enumerate(foil):
        here = [i for i, c in enumerate(vocab.concepts) if c.test(states[step])]
        best = 0.0
        for size in range(min(limit, len(here)) + 1):
            for combo in itertools.combinations(here, size):
                mask = sum(1 << i for i in combo)
                costs = [cost for m, cost in rows[action] if m & mask == mask]
                best = max(best, min(costs) if costs else float("inf"))
        total += best
    return total


def check(seed: int) -> str | None:
    """Run instance ``seed`` (module docstring)."""
    from xaip.concepts import why_not
    from xaip.concepts.results import COSTLIER, INVALID_FOIL, NOT_WORSE
    from xaip.concepts.simulator import Invalid

    made = _instance(seed)
    if made is None:
        return None  # no solvable level in 30 tries: nothing to compare (2% of seeds)
    sim, plan, foil, vocab = made
    result = why_not(sim, plan, foil, vocab, seed=seed)
    plan_states, plan_cost, _ = _replay(sim, plan)
    foil_states, foil_cost, failed = _replay(sim, foil)
    where = f"{sim.name} plan {' '.join(plan)} foil {' '.join(foil)}"
    if failed is not None:
        expected = INVALID_FOIL
    elif sim.is_goal(plan_states[-1]) and not sim.is_goal(foil_states[-1]):
        expected, failed = INVALID_FOIL, len(foil)
    elif foil_cost > plan_cost:
        expected = COSTLIER
    else:
        expected = NOT_WORSE
    if result.foil_outcome != expected or result.failed_step != failed or \
            result.plan_cost != plan_cost:
        return (f"{where}: classified {result.foil_outcome} at {result.failed_step}, "
                f"expected {expected} at {failed}")
    if not result.status.finished:
        return f"{where}: unfinished without a budget ({result.status})"
    states = _reachable(sim)
    masks = {s: sum(1 << i for i, c in enumerate(vocab.concepts) if c.test(s)) for s in states}
    right: bool
    if expected == NOT_WORSE:
        right = True
    elif expected == INVALID_FOIL:
        s_fail = foil_states[-1]
        if failed == len(foil):  # the paper's goal action: it succeeds in goal states only
            good = [s for s in states if sim.is_goal(s)]
        else:
            good = [s for s in states if not isinstance(sim.step(s, foil[failed]), Invalid)]
        explains = {c.name for c in vocab.concepts
                    if not c.test(s_fail) and all(c.test(s) for s in good)}
        right = (result.concepts[0] in explains) if result.concepts else \
            (result.incomplete and not explains)
    else:
        rows: dict[str, list[tuple[int, float]]] = {}
        for action in set(foil):
            rows[action] = []
            for s in states:
                outcome = sim.step(s, action)
                if not isinstance(outcome, Invalid):
                    rows[action].append((masks[s], outcome[1]))
        if result.incomplete:
            limit = int(result.stats.get("max_concepts", 3))
            right = _best_bounds(vocab, rows, foil, foil_states, limit) <= plan_cost
        else:
            right = len(result.claims) == len(foil) and \
                sum(c.at_least for c in result.claims) > plan_cost
            for claim in result.claims:
                mask = sum(1 << vocab.names.index(n) for n in claim.concepts)
                holds = masks.get(foil_states[claim.step], 0) & mask == mask
                exact = min((cost for m, cost in rows[claim.action] if m & mask == mask),
                            default=float("inf"))
                right = right and holds and claim.at_least <= exact
    if result.verified != right:
        verdict = "verified a wrong answer" if result.verified else "refuted a right answer"
        return f"{where}: the checker {verdict} ({result.text})"
    return None
