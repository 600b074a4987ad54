"""The certified LM-cut (``src/xaip/_native/certify.c``): LM-cut's cuts checked before they
count, the reconciliation checker's heuristic.

Three things are tested against oracles written here from the definitions (not from the
core's code): the certificate checker's verdict on random certificates (a cut is a landmark
of the delete relaxation when the goal is not relaxed-reachable without its actions; the
charges are a cost partition), that deliberate mutations of LM-cut's certificates (a cut
counted twice, an over-charge, a cut that is not a landmark, a negative charge, a dead end
that is not one) are all rejected, and that the certified value never exceeds the true
cost-to-go of any reachable state (brute force over explicit state spaces, with negative
preconditions and derived predicates).
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from xaip.planning.axioms import GroundAxiom
from xaip.planning.engines.compiled import (
    CERTIFIED_LMCUT,
    CompiledEngine,
    certify,
    core_available,
    evaluate,
    lmcut_cuts,
    search_counts,
)
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, GroundAction, Task

pytestmark = pytest.mark.skipif(not core_available(), reason="xaip._core was not built")

SEEDS = range(120)
MRP = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp"


def _bits(mask: int) -> Iterator[int]:
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def random_task(seed: int, axioms: bool | None = None) -> Task:
    """A random task: ``basic`` facts changed by actions (negative preconditions and
    zero-cost actions sometimes) and, with ``axioms``, derived facts one stratum each
    (bodies over basic facts and lower derived facts, negated ones included)."""
    rng = random.Random(seed)
    basic = rng.randint(4, 7)
    derived = rng.randint(1, 2) if (rng.random() < 0.4 if axioms is None else axioms) else 0
    n = basic + derived

    def subset(pool: int, lo: int, hi: int) -> int:
        k = min(pool, rng.randint(lo, hi))
        return sum(1 << f for f in rng.sample(range(pool), k))

    actions = []
    for i in range(rng.randint(4, 12)):
        pre = subset(n, 0, 3)
        neg = subset(n, 0, 1) & ~pre if rng.random() < 0.3 else 0
        actions.append(GroundAction(f"a{i}", (), pre=pre, add=subset(basic, 1, 2),
                                    delete=subset(basic, 0, 2), neg_pre=neg,
                                    cost=rng.choice((0, 1, 1, 2, 3))))
    rules = []
    for d in range(derived):
        head = basic + d
        for _ in range(rng.randint(1, 2)):
            lower = basic + d  # basic facts and lower derived facts
            pos = subset(lower, 1, 2)
            neg = subset(lower, 0, 1) & ~pos if rng.random() < 0.3 else 0
            rules.append(GroundAxiom(head, pos, neg, stratum=d))
    derived_mask = sum(1 << (basic + d) for d in range(derived))
    task = Task(name=f"certify-{seed}", facts=tuple(Atom("p", (str(i),)) for i in range(n)),
                actions=tuple(actions), init=0, goal=subset(n, 1, 3),
                goal_neg=subset(n, 0, 1) if rng.random() < 0.2 else 0,
                axioms=tuple(rules), derived=derived_mask)
    return _with_init(task, close(task, subset(basic, 1, 3)))


def _with_init(task: Task, init: int) -> Task:
    return Task(task.name, task.facts, task.actions, init, task.goal, task.goal_neg,
                axioms=task.axioms, derived=task.derived)


# --------------------------------------------------------------------------- the oracle


def close(task: Task, state: int) -> int:
    """Derived facts by the definition: each stratum's rules applied until nothing
    changes, strata in ascending order, from the basic facts alone."""
    state &= ~task.derived
    for stratum in sorted({rule.stratum for rule in task.axioms}):
        changed = True
        while changed:
            changed = False
            for rule in task.axioms:
                if (rule.stratum == stratum and state & rule.pos == rule.pos
                        and not state & rule.neg and not state >> rule.head & 1):
                    state |= 1 << rule.head
                    changed = True
    return state


def children(task: Task, state: int) -> Iterator[tuple[int, int]]:
    for action in task.actions:
        if state & action.pre == action.pre and not state & action.neg_pre:
            yield close(task, (state & ~action.delete) | action.add), action.cost


def cost_to_go(task: Task) -> dict[int, float]:
    """h* of every state reachable from the initial state, by backward Dijkstra."""
    seen, stack, edges = {task.init}, [task.init], []
    while stack:
        state = stack.pop()
        for child, cost in children(task, state):
            edges.append((state, child, cost))
            if child not in seen:
                seen.add(child)
                stack.append(child)
    back: dict[int, list[tuple[int, int]]] = {s: [] for s in seen}
    for state, child, cost in edges:
        back[child].append((state, cost))
    best = {s: (0.0 if s & task.goal == task.goal and not s & task.goal_neg else math.inf)
            for s in seen}
    heap = [(0.0, s) for s, d in best.items() if d == 0]
    while heap:
        d, state = heapq.heappop(heap)
        if d > best[state]:
            continue
        for before, cost in back[state]:
            if d + cost < best[before]:
                best[before] = d + cost
                heapq.heappush(heap, (d + cost, before))
    return best


def relaxed_reaches_goal(task: Task, state: int, without: set[int]) -> bool:
    """Delete relaxation by the definition (negative conditions dropped, every rule fires on
    its positive body): does it reach every goal fact without the actions ``without``?"""
    reached, changed = state, True
    while changed:
        changed = False
        for index, action in enumerate(task.actions):
            if index not in without and reached & action.pre == action.pre \
                    and action.add & ~reached:
                reached |= action.add
                changed = True
        for rule in task.axioms:
            if reached & rule.pos == rule.pos and not reached >> rule.head & 1:
                reached |= 1 << rule.head
                changed = True
    return reached & task.goal == task.goal


def expected_verdict(task: Task, state: int, cuts: list[tuple[tuple[int, ...], int]]
                     ) -> tuple[str, set[int] | int | None]:
    """What a correct checker says: the shape, then the cost partition, then each charged
    cut's landmark property, in that order."""
    for k, (actions, charge) in enumerate(cuts):
        if not actions or charge < 0 or any(not 0 <= a < len(task.actions) for a in actions):
            return "bad cut", k
    charged = [0] * len(task.actions)
    for actions, charge in cuts:
        for a in actions:
            charged[a] += charge
    over = {a for a, total in enumerate(charged) if total > task.actions[a].cost}
    if over:
        return "over-charged", over
    for k, (actions, charge) in enumerate(cuts):
        if charge and relaxed_reaches_goal(task, state, set(actions)):
            return "not a landmark", k
    return "ok", sum(charge for _, charge in cuts)


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("seed", SEEDS)
def test_certified_value_never_exceeds_the_cost_to_go(seed: int) -> None:
    """On every reachable state: LM-cut's certificate is accepted (no fault in LM-cut), its
    value is LM-cut's, and it is at most h* (prune on and off)."""
    task = random_task(seed)
    truth = cost_to_go(task)
    for state, h_star in truth.items():
        for prune in (False, True):
            value = evaluate(task, CERTIFIED_LMCUT, state, prune=prune)
            assert value <= h_star, (seed, task.format_state(state), prune, value, h_star)
            assert value == evaluate(task, "lmcut", state, prune=prune)
            claimed, cuts = lmcut_cuts(task, state, prune=prune)
            verdict = certify(task, state, cuts, dead_end=claimed == math.inf, prune=prune)
            assert verdict == ("ok", None if claimed == math.inf else claimed), verdict


@pytest.mark.parametrize("seed", SEEDS)
def test_the_certified_search_is_optimal_and_rejects_nothing(seed: int) -> None:
    """A* with the certified LM-cut (with the search's complements of negative conditions)
    finds the brute-force optimum or proves there is none; every certificate passes."""
    task = random_task(seed)
    h_star = cost_to_go(task)[task.init]
    before = search_counts()
    result = CompiledEngine("astar", CERTIFIED_LMCUT).solve(task, optimal=True)
    after = search_counts()
    if h_star == math.inf:
        assert result.status == "unsolvable"
    else:
        assert (result.status, result.cost, result.optimal) == ("solved", h_star, True)
    assert result.heuristic == CERTIFIED_LMCUT
    assert after["rejected"] == before["rejected"]
    assert after["searches"] == before["searches"] + 1
    # a cost bound: "no plan cheaper than the optimum" is proved
    if h_star not in (math.inf, 0):
        bounded = CompiledEngine("astar", CERTIFIED_LMCUT).solve(
            task, optimal=True, cost_bound=int(h_star))
        assert bounded.status == "unsolvable"


@pytest.mark.parametrize("seed", range(300))
def test_verdicts_on_random_certificates_follow_the_definitions(seed: int) -> None:
    """Random cuts and charges (most of them wrong): the checker's verdict is the one the
    definitions give (every action kept: ``prune=False``)."""
    rng = random.Random(seed)
    task = random_task(seed)
    state = rng.choice(sorted(cost_to_go(task)))
    n = len(task.actions)
    cuts = []
    for _ in range(rng.randint(0, 4)):
        actions = tuple(rng.sample(range(n), rng.randint(1, min(n, 4))))
        if rng.random() < 0.05:
            actions = (n,)  # not an action of the task
        cuts.append((actions, rng.choice((0, 1, 1, 2, 3, -1 if rng.random() < 0.1 else 1))))
    verdict, where = certify(task, state, cuts, prune=False)
    why, detail = expected_verdict(task, state, cuts)
    assert verdict == why, (seed, cuts, verdict, where, detail)
    if why == "over-charged":
        assert isinstance(detail, set) and where in detail
    else:
        assert where == detail


def test_deliberate_mutations_of_lmcut_certificates_are_rejected() -> None:
    """Each mutation of a correct certificate that makes it wrong is caught; the counts
    show every kind of mutation was tried."""
    tried = dict.fromkeys(("twice", "overcharge", "not a landmark", "negative", "unknown",
                           "false dead end", "true dead end"), 0)
    for seed in SEEDS:
        task = random_task(seed)
        truth = cost_to_go(task)
        for state in sorted(truth)[:20]:
            claimed, cuts = lmcut_cuts(task, state, prune=False)
            if claimed == math.inf:
                assert certify(task, state, [], dead_end=True, prune=False) == ("ok", None)
                tried["true dead end"] += 1
                continue
            # LM-cut found a relaxed plan, so "no relaxed plan exists" is false
            assert certify(task, state, [], dead_end=True, prune=False) == (
                "not a landmark", None)
            tried["false dead end"] += 1
            if not cuts:
                continue
            k = len(cuts) // 2
            actions, charge = cuts[k]
            # the same cut twice: its cheapest action was charged its whole cost already
            assert certify(task, state, [*cuts, cuts[k]], prune=False)[0] == "over-charged"
            tried["twice"] += 1
            cost = max(task.actions[a].cost for a in actions)
            over = [*cuts[:k], (actions, cost + 1), *cuts[k + 1:]]
            assert certify(task, state, over, prune=False)[0] == "over-charged"
            tried["overcharge"] += 1
            negative = [*cuts[:k], (actions, -1), *cuts[k + 1:]]
            assert certify(task, state, negative, prune=False) == ("bad cut", k)
            tried["negative"] += 1
            unknown = [*cuts[:k], ((*actions, len(task.actions)), charge), *cuts[k + 1:]]
            assert certify(task, state, unknown, prune=False) == ("bad cut", k)
            tried["unknown"] += 1
            for drop in actions:  # a cut with an action left out
                smaller = tuple(a for a in actions if a != drop)
                if smaller and relaxed_reaches_goal(task, state, set(smaller)):
                    mutated = [*cuts[:k], (smaller, charge), *cuts[k + 1:]]
                    assert certify(task, state, mutated, prune=False) == ("not a landmark", k)
                    tried["not a landmark"] += 1
            # any action outside every cut, as a cut of its own
            for a in range(len(task.actions)):
                if task.actions[a].cost and relaxed_reaches_goal(task, state, {a}):
                    assert certify(task, state, [((a,), 1)], prune=False) == (
                        "not a landmark", 0)
                    tried["not a landmark"] += 1
                    break
    assert all(tried.values()), tried


def test_conditional_effects_are_not_certified_and_the_search_uses_hmax() -> None:
    effect = ConditionalEffect(cond_pos=0b1, cond_neg=0, add=0b100, delete=0)
    actions = (GroundAction("a", (), pre=0, add=0b1, delete=0, cost=2),
               GroundAction("b", (), pre=0b1, add=0b10, delete=0, cost=1,
                            conditional=(effect,)))
    task = Task("cond", tuple(Atom("p", (str(i),)) for i in range(3)), actions, init=0,
                goal=0b110)
    assert certify(task, 0, [((0,), 2)])[0] == "unsupported"
    assert evaluate(task, CERTIFIED_LMCUT, 0) == evaluate(task, "hmax", 0)
    result = CompiledEngine("astar", CERTIFIED_LMCUT).solve(task, optimal=True)
    assert (result.status, result.cost) == ("solved", 3)


@pytest.mark.skipif(not MRP.is_dir(), reason="shared MRP data not found")
@pytest.mark.parametrize("name", ["logistics", "rover", "blocksworld"])
def test_lmcut_certificates_on_the_shared_tasks(name: str) -> None:
    """Real tasks: along the optimal plan every certificate is accepted with LM-cut's value,
    and A* with the certified LM-cut expands what A* with LM-cut expands."""
    from xaip.planning import ground, read_domain, read_problem

    folder = MRP / name
    task = ground(read_domain(folder / "original_domain.pddl"),
                  read_problem(folder / "prob2.pddl"))
    result = CompiledEngine("astar", CERTIFIED_LMCUT).solve(task, optimal=True)
    assert result.status == "solved" and result.cost is not None
    state = task.init
    for action in (None, *result.plan):
        if action is not None:
            state = action.apply(state)
        claimed, cuts = lmcut_cuts(task, state)
        assert certify(task, state, cuts) == ("ok", claimed)
    plain = CompiledEngine("astar", "lmcut").solve(task, optimal=True)
    assert (plain.cost, plain.expanded) == (result.cost, result.expanded)


def test_the_binding_refuses_malformed_certificates() -> None:
    """The core's ``certify`` answers bad arguments with Python errors, never a crash."""
    from xaip.planning.engines.compiled import compile_task

    task = random_task(3)
    core = compile_task(task)
    state = task.init.to_bytes(8 * (task.num_facts // 64 + 1), "little")
    with pytest.raises(ValueError):  # a state of the wrong width
        core.certify(b"\0", [])
    with pytest.raises(TypeError):  # a cut without its charge
        core.certify(state, [((0,),)])
    with pytest.raises(TypeError):  # actions that are not a sequence
        core.certify(state, [(0, 1)])
    with pytest.raises(OverflowError):
        core.certify(state, [((2**70,), 1)])
    assert core.certify(state, [((-1,), 1)]) == ("bad cut", 0)
    assert core.certify(state, []) == ("ok", 0)
