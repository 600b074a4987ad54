"""Landmarks and orderings: checked against the real state space of tiny tasks.

Oracles:

* brute force over the reachable states of random tasks (seeded, 6-10 facts, 6-15 actions,
  with negative preconditions and conditional effects): a landmark must hold somewhere on
  every plan (no path from the initial state to a goal state avoids it); each
  greedy-necessary / natural ordering is checked by searching for a plan that violates it;
  reasonable orderings by the property they promise (the later landmark has to become
  true at or after the first time the earlier one holds). Searches run on the explicit
  state graph, so they cover every plan, not only short ones; a cross-check against
  explicit enumeration of simple paths guards the searches themselves.
* :func:`is_landmark` (exact for the delete relaxation): ``zg`` must report exactly the
  facts it accepts, its label part exactly the causal ones, and ``rhw`` a subset.
* hand-made logistics and blocksworld (Sussman anomaly) tasks with known landmarks.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import pytest

from xaip.errors import InputError
from xaip.planning.landmarks import (
    BudgetExhausted,
    LandmarkGraph,
    Ordering,
    find_landmarks,
    is_landmark,
)
from xaip.planning.landmarks.negations import compile_negations
from xaip.planning.landmarks.orderings import h2_pairs
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, GroundAction, Task, bits, mask_of
from xaip.render import render
from xaip.runtime import Budget

# --------------------------------------------------------------------------- building tasks


def atom(text: str) -> Atom:
    """``"on a b"`` -> ``Atom("on", ("a", "b"))``."""
    name, *args = text.split()
    return Atom(name, tuple(args))


class Builder:
    """Hand-made tasks by fact names."""

    def __init__(self, facts: Sequence[str]) -> None:
        self.facts = tuple(atom(f) for f in facts)
        self.index = {f: i for i, f in enumerate(facts)}
        self.actions: list[GroundAction] = []

    def mask(self, names: Iterable[str]) -> int:
        return mask_of(self.index[n] for n in names)

    def action(
        self,
        name: str,
        pre: Iterable[str],
        add: Iterable[str],
        delete: Iterable[str] = (),
    ) -> None:
        schema, *args = name.split()
        self.actions.append(
            GroundAction(schema, tuple(args), self.mask(pre), self.mask(add), self.mask(delete))
        )

    def task(self, name: str, init: Iterable[str], goal: Iterable[str]) -> Task:
        return Task(name, self.facts, tuple(self.actions), self.mask(init), self.mask(goal))


def logistics() -> tuple[Task, Builder]:
    """Truck t on a road A - B - C; package p from A to C."""
    places = ("A", "B", "C")
    facts = [f"at t {x}" for x in places] + [f"at p {x}" for x in places] + ["in p t"]
    b = Builder(facts)
    for x, y in (("A", "B"), ("B", "A"), ("B", "C"), ("C", "B")):
        b.action(f"drive t {x} {y}", [f"at t {x}"], [f"at t {y}"], [f"at t {x}"])
    for x in places:
        b.action(f"load p t {x}", [f"at t {x}", f"at p {x}"], ["in p t"], [f"at p {x}"])
        b.action(f"unload p t {x}", [f"at t {x}", "in p t"], [f"at p {x}"], ["in p t"])
    return b.task("logistics", ["at t A", "at p A"], ["at p C"]), b


def blocksworld(
    blocks: Sequence[str], init: Iterable[str], goal: Iterable[str], name: str = "bw"
) -> tuple[Task, Builder]:
    facts = ["handempty"]
    for x in blocks:
        facts += [f"clear {x}", f"ontable {x}", f"holding {x}"]
        facts += [f"on {x} {y}" for y in blocks if y != x]
    b = Builder(facts)
    for x in blocks:
        b.action(
            f"pick-up {x}",
            [f"clear {x}", f"ontable {x}", "handempty"],
            [f"holding {x}"],
            [f"clear {x}", f"ontable {x}", "handempty"],
        )
        b.action(
            f"put-down {x}",
            [f"holding {x}"],
            [f"clear {x}", f"ontable {x}", "handempty"],
            [f"holding {x}"],
        )
        for y in blocks:
            if y == x:
                continue
            b.action(
                f"stack {x} {y}",
                [f"holding {x}", f"clear {y}"],
                [f"on {x} {y}", f"clear {x}", "handempty"],
                [f"holding {x}", f"clear {y}"],
            )
            b.action(
                f"unstack {x} {y}",
                [f"on {x} {y}", f"clear {x}", "handempty"],
                [f"holding {x}", f"clear {y}"],
                [f"on {x} {y}", f"clear {x}", "handempty"],
            )
    return b.task(name, init, goal), b


def sussman() -> tuple[Task, Builder]:
    """C on A; A, B on the table; goal A on B on C."""
    return blocksworld(
        ("a", "b", "c"),
        ["on c a", "ontable a", "ontable b", "clear c", "clear b", "handempty"],
        ["on a b", "on b c"],
        "sussman",
    )


def random_task(seed: int) -> Task:
    """A small random task with negative preconditions and conditional effects."""
    rng = random.Random(seed)
    n = rng.randint(6, 10)
    facts = tuple(Atom(f"p{i % 3}", (f"o{i}",)) for i in range(n))

    def some(low: int, high: int, pool: Sequence[int] = range(n)) -> int:
        return mask_of(rng.sample(list(pool), min(len(pool), rng.randint(low, high))))

    actions = []
    for k in range(rng.randint(6, 15)):
        pre = some(0, 3)
        add = some(1, 2)
        delete = some(0, 2, [i for i in range(n) if pre >> i & 1] or range(n)) & ~add
        if rng.random() < 0.3:
            delete |= some(0, 1) & ~add
        neg_pre = some(1, 1) & ~pre if rng.random() < 0.2 else 0
        conditional: tuple[ConditionalEffect, ...] = ()
        if rng.random() < 0.3:
            conditional = tuple(
                ConditionalEffect(
                    cond_pos=some(1, 1),
                    cond_neg=some(1, 1) if rng.random() < 0.3 else 0,
                    add=some(1, 1),
                    delete=some(0, 1),
                )
                for _ in range(rng.randint(1, 2))
            )
        actions.append(GroundAction("a", (str(k),), pre, add, delete, 1, neg_pre, conditional))
    init = some(1, 4)
    goal = some(1, 3)
    goal_neg = some(1, 1) & ~goal & ~init if rng.random() < 0.1 else 0
    return Task(f"random-{seed}", facts, tuple(actions), init, goal, goal_neg)


# --------------------------------------------------------------------------- brute force


@dataclass
class Space:
    """The reachable state graph of a task (real semantics, negative conditions included)."""

    task: Task

    @cached_property
    def successors(self) -> dict[int, list[int]]:
        graph: dict[int, list[int]] = {}
        queue = deque([self.task.init])
        graph[self.task.init] = []
        while queue:
            state = queue.popleft()
            nexts = sorted({a.apply(state) for a in self.task.applicable(state)})
            graph[state] = nexts
            for successor in nexts:
                if successor not in graph:
                    graph[successor] = []
                    queue.append(successor)
        return graph

    @cached_property
    def coreach(self) -> set[int]:
        """States from which a goal state is reachable."""
        parents: dict[int, list[int]] = {s: [] for s in self.successors}
        for state, nexts in self.successors.items():
            for successor in nexts:
                parents[successor].append(state)
        found = {s for s in self.successors if self.task.is_goal(s)}
        queue = deque(found)
        while queue:
            state = queue.popleft()
            for parent in parents[state]:
                if parent not in found:
                    found.add(parent)
                    queue.append(parent)
        return found

    @property
    def solvable(self) -> bool:
        return self.task.init in self.coreach

    def region(self, starts: Iterable[int], allowed: int) -> set[int]:
        """States reachable from ``starts`` through states disjoint from ``~allowed`` bits,
        i.e. states ``s`` with ``s & blocked == 0`` where ``blocked = ~allowed``."""
        blocked = ~allowed
        seen = {s for s in starts if not s & blocked}
        queue = deque(seen)
        while queue:
            state = queue.popleft()
            for successor in self.successors[state]:
                if successor not in seen and not successor & blocked:
                    seen.add(successor)
                    queue.append(successor)
        return seen

    # ---- properties over all plans (a plan: a path from init to a goal state)

    def is_landmark(self, mask: int) -> bool:
        """Every plan visits a state with a fact of ``mask``."""
        if self.task.init & mask:
            return True
        free = self.region([self.task.init], ~mask)
        return not any(self.task.is_goal(s) for s in free)

    def first_time_violations(self, before: int, after: int, strict_region: bool) -> bool:
        """Is there a plan on which ``after`` first becomes true while ``before`` was false
        in the previous state (``strict_region=False``: greedy-necessary) or in every
        earlier state (``strict_region=True``: natural)?"""
        assert not self.task.init & after
        allowed = ~(after | before) if strict_region else ~after
        for state in self.region([self.task.init], allowed):
            if state & before:
                continue
            for successor in self.successors[state]:
                if successor & after and successor in self.coreach:
                    return True
        return False

    def greedy_necessary(self, before: int, after: int) -> bool:
        return not self.first_time_violations(before, after, strict_region=False)

    def natural(self, before: int, after: int) -> bool:
        if self.task.init & before:
            return True
        return not self.first_time_violations(before, after, strict_region=True)

    def reachieved_after(self, first: int, then: int) -> bool:
        """On every plan, ``then`` becomes true (false -> true) at a step t >= t(first)."""
        assert not self.task.init & first
        phase1: set[int] = set()
        for state in self.region([self.task.init], ~first):
            for successor in self.successors[state]:
                if successor & first and not (not state & then and successor & then):
                    phase1.add(successor)
        seen = set(phase1)
        queue = deque(phase1)
        while queue:
            state = queue.popleft()
            if self.task.is_goal(state):
                return False
            for successor in self.successors[state]:
                turns_on = not state & then and successor & then
                if not turns_on and successor not in seen:
                    seen.add(successor)
                    queue.append(successor)
        return True

    def simple_plans(self, limit: int = 20_000) -> Iterator[list[int]] | None:
        """All simple state paths from init to a goal state; ``None`` if there are too many."""
        plans: list[list[int]] = []
        path = [self.task.init]
        on_path = {self.task.init}

        def walk() -> bool:
            state = path[-1]
            if self.task.is_goal(state):
                plans.append(list(path))
                if len(plans) > limit:
                    return False
            for successor in self.successors[state]:
                if successor in on_path or successor not in self.coreach:
                    continue
                path.append(successor)
                on_path.add(successor)
                ok = walk()
                path.pop()
                on_path.discard(successor)
                if not ok:
                    return False
            return True

        if self.task.init not in self.coreach or not walk():
            return None
        return iter(plans)


def mask_of_landmark(graph: LandmarkGraph, index: int) -> int:
    return mask_of(graph.landmarks[index].facts)


def check_graph(task: Task, graph: LandmarkGraph, space: Space) -> None:
    """Every claim in ``graph`` holds on every plan of ``task``."""
    for i, landmark in enumerate(graph.landmarks):
        mask = mask_of(landmark.facts)
        assert space.is_landmark(mask), (task.name, graph.method, landmark)
        assert landmark.is_initial == bool(mask & task.init)
        assert landmark.is_goal == bool(mask & task.goal)
        assert len(landmark.facts) >= 2 if landmark.disjunctive else len(landmark.facts) == 1
        assert set(landmark.first_achievers) <= set(landmark.achievers)
        if landmark.is_initial:
            assert landmark.first_achievers == ()
        else:
            assert landmark.first_achievers, (task.name, i)
    pairs = set()
    for ordering in graph.orderings:
        a, b = mask_of_landmark(graph, ordering.before), mask_of_landmark(graph, ordering.after)
        lm_a, lm_b = graph.landmarks[ordering.before], graph.landmarks[ordering.after]
        assert ordering.before != ordering.after
        assert (ordering.before, ordering.after) not in pairs, "one ordering per pair"
        pairs.add((ordering.before, ordering.after))
        assert not lm_b.is_initial, ordering
        if ordering.kind == "greedy-necessary":
            assert space.greedy_necessary(a, b), (task.name, graph.method, ordering)
            assert space.natural(a, b), (task.name, graph.method, ordering)
        elif ordering.kind == "natural":
            assert not lm_a.is_initial
            assert space.natural(a, b), (task.name, graph.method, ordering)
        else:
            assert ordering.kind == "reasonable"
            assert not lm_a.is_initial and not lm_a.disjunctive and not lm_b.disjunctive
            assert space.reachieved_after(a, b), (task.name, graph.method, ordering)
    for before, after in pairs:
        kinds = {o.kind for o in graph.orderings if (o.before, o.after) == (after, before)}
        assert not kinds & {"greedy-necessary", "natural"}, "no cycles of sound orderings"


# --------------------------------------------------------------------------- the oracle itself


def test_brute_force_checks_agree_with_enumerated_plans() -> None:
    """The graph searches used as oracles agree with explicit simple-path enumeration."""
    checked = 0
    for seed in range(300):
        task = random_task(seed)
        if task.num_facts > 8:
            continue
        space = Space(task)
        plans = space.simple_plans(limit=2000)
        if plans is None:
            continue
        plan_list = list(plans)
        for f in range(task.num_facts):
            mask = 1 << f
            visits = all(any(s & mask for s in plan) for plan in plan_list)
            assert space.is_landmark(mask) == visits, (seed, f)
        for f in range(task.num_facts):
            for g in range(task.num_facts):
                if f == g or task.init >> g & 1 or not space.is_landmark(1 << g):
                    continue
                # On simple plans, "f held in the state before g first held" must hold
                # whenever the graph search says greedy-necessary.
                if space.greedy_necessary(1 << f, 1 << g):
                    for plan in plan_list:
                        t = next(k for k, s in enumerate(plan) if s >> g & 1)
                        assert plan[t - 1] >> f & 1, (seed, f, g)
        checked += 1
    assert checked >= 40


def test_brute_force_catches_wrong_claims() -> None:
    """The checks fail on false claims (so the tests below can fail)."""
    task, b = logistics()
    space = Space(task)
    assert not space.is_landmark(b.mask(["at p B"]))
    assert space.is_landmark(b.mask(["at t B"]))
    at_tb, at_tc, in_p = b.mask(["at t B"]), b.mask(["at t C"]), b.mask(["in p t"])
    at_pc = b.mask(["at p C"])
    assert space.greedy_necessary(at_tb, at_tc)
    assert not space.greedy_necessary(at_tc, at_tb)
    assert not space.greedy_necessary(at_tb, at_pc)  # the truck is at C, not B, then
    assert space.natural(at_tb, at_pc)
    assert not space.natural(in_p, at_tc)  # the truck may reach C before loading
    assert not space.natural(at_pc, at_tc)
    wrong = LandmarkGraph(find_landmarks(task).landmarks, ())
    index = {lm.facts: i for i, lm in enumerate(wrong.landmarks)}
    bad = Ordering(index[(b.index["at t C"],)], index[(b.index["at t B"],)], "natural")
    with pytest.raises(AssertionError):
        check_graph(task, LandmarkGraph(wrong.landmarks, (bad,)), space)


# --------------------------------------------------------------------------- random tasks


CHUNK = 500


@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.parametrize("method", ["rhw", "zg"])
def test_random_tasks_sound(method: str, chunk: int) -> None:
    solvable = 0
    for seed in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        task = random_task(seed)
        space = Space(task)
        graph = find_landmarks(task, method=method)
        assert graph.complete
        if not is_landmark_free_goal_reachable(compile_negations(task)):
            assert not graph.solvable and graph.landmarks == ()
            assert not space.solvable  # the relaxation with negations proves no plan
            continue
        assert graph.solvable
        check_graph(task, graph, space)
        solvable += space.solvable
    assert solvable >= 150  # the sample exercises real plans, not only vacuous cases


def is_landmark_free_goal_reachable(task: Task) -> bool:
    """Relaxed solvability by a naive fixpoint (independent of the package's exploration)."""
    reached = task.init
    changed = True
    while changed:
        changed = False
        for action in task.actions:
            if action.pre & ~reached:
                continue
            add = action.add
            for effect in action.conditional:
                if not effect.cond_pos & ~reached:
                    add |= effect.add
            if add & ~reached:
                reached |= add
                changed = True
    return task.goal & ~reached == 0


def naive_relaxed_reachable(task: Task, without: int, causal: bool) -> bool:
    """Goal reachability with ``without`` never true: adders removed (or only the facts
    suppressed when ``causal``). A second, naive implementation of the oracle."""
    reached = task.init & ~without
    changed = True
    while changed:
        changed = False
        for action in task.actions:
            if action.pre & ~reached:
                continue
            effects = [(0, action.add)] + [(e.cond_pos, e.add) for e in action.conditional]
            for cond, add in effects:
                if cond & ~reached or not add:
                    continue
                if add & without and not causal:
                    continue
                new = add & ~without & ~reached
                if new:
                    reached |= new
                    changed = True
    return task.goal & ~reached == 0


@pytest.mark.parametrize("chunk", range(4))
def test_zg_is_complete_and_rhw_a_subset(chunk: int) -> None:
    compared = 0
    for seed in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        task = random_task(seed)
        zg = find_landmarks(task, method="zg")
        rhw = find_landmarks(task, method="rhw")
        if not zg.solvable:
            assert all(is_landmark(task, f) for f in range(task.num_facts))
            continue
        oracle = {f for f in range(task.num_facts) if is_landmark(task, f)}
        causal = {f for f in range(task.num_facts) if is_landmark(task, f, causal=True)}
        positive = compile_negations(task)  # the oracles reason about negations as facts
        for f in range(task.num_facts):
            assert (f in oracle) == (not naive_relaxed_reachable(positive, 1 << f, False)), seed
            assert (f in causal) == (not naive_relaxed_reachable(positive, 1 << f, True)), seed
        assert causal <= oracle
        zg_facts = {lm.facts[0] for lm in zg.landmarks}
        assert not any(lm.disjunctive for lm in zg.landmarks)
        assert zg_facts == oracle, seed
        assert {lm.facts[0] for lm in zg.landmarks if lm.causal} == causal, seed
        rhw_facts = {lm.facts[0] for lm in rhw.landmarks if not lm.disjunctive}
        assert rhw_facts <= causal, seed
        assert all(lm.causal for lm in rhw.landmarks)
        for lm in rhw.landmarks:
            if lm.disjunctive:
                assert is_landmark(task, lm.facts, causal=True)
        compared += 1
    assert compared >= 250


def test_h2_mutexes_are_sound() -> None:
    found = 0
    for seed in range(200):
        task = random_task(seed)
        pairs = h2_pairs(task)
        assert pairs is not None
        for state in Space(task).successors:
            for p in bits(state):
                assert pairs[p] & state == state, (seed, p)
        found += sum(
            1 for p in range(task.num_facts) for q in range(p)
            if pairs[p] >> p & 1 and pairs[q] >> q & 1 and not pairs[p] >> q & 1
        )
    assert found > 0


def test_options_do_not_change_soundness() -> None:
    for seed in range(40):
        task = random_task(seed)
        space = Space(task)
        for graph in (
            find_landmarks(task, "rhw", disjunctive=False, reasonable=False),
            find_landmarks(task, "zg", causal_only=True),
        ):
            if graph.solvable:
                check_graph(task, graph, space)
                assert all(lm.causal and not lm.disjunctive for lm in graph.landmarks)
            assert all(o.kind != "reasonable" for o in graph.orderings) or graph.method == "zg"


# --------------------------------------------------------------------------- hand-made tasks


def facts_of(graph: LandmarkGraph, task: Task) -> dict[str, int]:
    return {
        " or ".join(lm.names(task)): i for i, lm in enumerate(graph.landmarks)
    }


def kinds_between(graph: LandmarkGraph, task: Task, before: str, after: str) -> set[str]:
    index = facts_of(graph, task)
    return {
        o.kind for o in graph.orderings
        if (o.before, o.after) == (index[before], index[after])
    }


@pytest.mark.parametrize("method", ["rhw", "zg"])
def test_logistics_landmarks(method: str) -> None:
    task, _ = logistics()
    graph = find_landmarks(task, method=method)
    names = set(facts_of(graph, task))
    assert names == {
        "(at t A)", "(at p A)", "(in p t)", "(at t B)", "(at t C)", "(at p C)",
    }
    check_graph(task, graph, Space(task))
    assert kinds_between(graph, task, "(at t B)", "(at t C)") == {"greedy-necessary"}
    assert kinds_between(graph, task, "(in p t)", "(at p C)") == {"greedy-necessary"}
    assert kinds_between(graph, task, "(at t C)", "(at p C)") == {"greedy-necessary"}
    assert kinds_between(graph, task, "(at t B)", "(at p C)") == {"natural"}
    assert kinds_between(graph, task, "(at t A)", "(in p t)") == {"greedy-necessary"}
    # Not natural (the truck may reach C first), but reasonable: it would have to return.
    assert kinds_between(graph, task, "(in p t)", "(at t C)") == {"reasonable"}
    assert kinds_between(graph, task, "(at t C)", "(in p t)") == set()
    by_name = {" or ".join(lm.names(task)): lm for lm in graph.landmarks}
    assert by_name["(at t A)"].is_initial and by_name["(at p C)"].is_goal
    first = [task.actions[a].name for a in by_name["(in p t)"].first_achievers]
    assert first == ["load p t A"]
    assert len(by_name["(in p t)"].achievers) == 3
    # sorted by relaxed layer: initial facts first, the goal last
    assert graph.landmarks[-1].is_goal and graph.landmarks[0].is_initial


def test_sussman_landmarks_and_orderings() -> None:
    task, _ = sussman()
    space = Space(task)
    zg = find_landmarks(task, method="zg")
    rhw = find_landmarks(task, method="rhw")
    for graph in (zg, rhw):
        check_graph(task, graph, space)
    needed = {
        "(on a b)", "(on b c)", "(holding a)", "(holding b)", "(clear a)",
        "(on c a)", "(clear c)", "(clear b)", "(handempty)", "(ontable a)", "(ontable b)",
    }
    assert set(facts_of(rhw, task)) >= needed - {"(ontable a)", "(ontable b)"}
    assert set(facts_of(zg, task)) == needed | {"(holding c)"}
    side = [lm for lm in zg.landmarks if not lm.causal]
    assert [lm.names(task) for lm in side] == [["(holding c)"]]
    assert kinds_between(zg, task, "(holding b)", "(on b c)") == {"greedy-necessary"}
    assert kinds_between(zg, task, "(clear a)", "(holding a)") == {"greedy-necessary"}
    assert kinds_between(zg, task, "(clear a)", "(on a b)") == {"natural"}
    # The classic reasonable ordering: stack b on c before a on b.
    assert kinds_between(zg, task, "(on b c)", "(on a b)") == {"reasonable"}
    assert kinds_between(rhw, task, "(on b c)", "(on a b)") == {"reasonable"}
    assert kinds_between(zg, task, "(on a b)", "(on b c)") == set()


def test_disjunctive_landmark() -> None:
    """Two trucks at the depot; either must drive to the package: (at t1 P) or (at t2 P)."""
    facts = ["at t1 D", "at t1 P", "at t2 D", "at t2 P", "at p P", "in p t1", "in p t2",
             "delivered p"]
    b = Builder(facts)
    for t in ("t1", "t2"):
        b.action(f"drive {t} D P", [f"at {t} D"], [f"at {t} P"], [f"at {t} D"])
        b.action(f"drive {t} P D", [f"at {t} P"], [f"at {t} D"], [f"at {t} P"])
        b.action(f"load p {t} P", [f"at {t} P", "at p P"], [f"in p {t}"], ["at p P"])
        b.action(f"deliver p {t} D", [f"at {t} D", f"in p {t}"], ["delivered p"],
                 [f"in p {t}"])
    task = b.task("two-trucks", ["at t1 D", "at t2 D", "at p P"], ["delivered p"])
    graph = find_landmarks(task, method="rhw")
    check_graph(task, graph, Space(task))
    names = facts_of(graph, task)
    assert "(at t1 P) or (at t2 P)" in names
    assert "(in p t1) or (in p t2)" in names
    assert kinds_between(graph, task, "(in p t1) or (in p t2)", "(delivered p)") == {
        "greedy-necessary"
    }
    assert kinds_between(graph, task, "(at t1 P) or (at t2 P)", "(in p t1) or (in p t2)") == {
        "greedy-necessary"
    }
    disjunctive = [lm for lm in graph.landmarks if lm.disjunctive]
    assert all(is_landmark(task, lm.facts) for lm in disjunctive)
    assert not is_landmark(task, b.index["at t1 P"])
    plain = find_landmarks(task, method="rhw", disjunctive=False)
    assert not any(lm.disjunctive for lm in plain.landmarks)


def test_conditional_effect_counts_only_through_its_condition() -> None:
    """``go`` adds g only when k holds; k comes from ``get-k``: k is a landmark."""
    b = Builder(["s", "k", "g", "x"])
    b.action("get-k", ["s"], ["k"])
    b.action("noise", ["s"], ["x"])
    b.actions.append(
        GroundAction("go", (), b.mask(["s"]), 0, 0, 1, b.mask(["x"]),
                     (ConditionalEffect(b.mask(["k"]), 0, b.mask(["g"]), 0),))
    )
    task = b.task("cond", ["s"], ["g"])
    for method in ("rhw", "zg"):
        graph = find_landmarks(task, method=method)
        assert set(facts_of(graph, task)) == {"(s)", "(k)", "(g)"}
        assert kinds_between(graph, task, "(k)", "(g)") == {"greedy-necessary"}
        # the negative precondition "not x" is ignored: x is no landmark, go is achiever
        assert [task.actions[a].name for a in graph.landmarks[-1].first_achievers] == ["go"]
        check_graph(task, graph, Space(task))


def test_unsolvable_relaxation_gives_flagged_empty_graph() -> None:
    b = Builder(["a", "b", "g"])
    b.action("ab", ["a"], ["b"])
    b.action("never", ["g"], ["b"])
    task = b.task("dead", ["a"], ["g"])
    for method in ("rhw", "zg"):
        graph = find_landmarks(task, method=method)
        assert not graph.solvable and graph.landmarks == () and graph.orderings == ()
        assert graph.to_dict(task)["solvable"] is False
    assert is_landmark(task, 0) and is_landmark(task, [1, 2])


def test_unknown_method() -> None:
    task, _ = logistics()
    with pytest.raises(InputError, match="unknown landmark method"):
        find_landmarks(task, method="hm")


def test_budget() -> None:
    task, _ = sussman()
    for method in ("rhw", "zg"):
        graph = find_landmarks(task, method=method, budget=Budget(max_nodes=5))
        assert not graph.complete and graph.solvable
        full = find_landmarks(task, method=method)
        got = {lm.facts for lm in graph.landmarks}
        assert got <= {lm.facts for lm in full.landmarks}
        check_graph(task, graph, Space(task))
    with pytest.raises(BudgetExhausted):
        is_landmark(task, 0, budget=Budget(max_nodes=1))


# --------------------------------------------------------------------------- rendering


def test_to_dict_and_dot() -> None:
    task, _ = sussman()
    graph = find_landmarks(task)
    payload = graph.to_dict(task)
    assert set(payload) >= {"landmarks", "orderings"}
    assert len(payload["landmarks"]) == len(graph.landmarks)
    for entry, lm in zip(payload["landmarks"], graph.landmarks, strict=True):
        assert set(entry) >= {"facts", "disjunctive", "is_initial", "is_goal", "first_achievers"}
        assert all(f.startswith("(") and f.endswith(")") for f in entry["facts"])
        assert entry["facts"] == [str(task.facts[f]) for f in lm.facts]
        assert entry["first_achievers"] == [task.actions[a].name for a in lm.first_achievers]
    assert "(pick-up a)" not in str(payload)  # action names are plan-file spellings
    assert {"pick-up a"} <= {
        a for entry in payload["landmarks"] for a in entry["first_achievers"]
    }
    kinds = {o["kind"] for o in payload["orderings"]}
    assert kinds == {"greedy-necessary", "natural", "reasonable"}
    for o in payload["orderings"]:
        assert set(o) == {"before", "after", "kind"}
        assert 0 <= o["before"] < len(graph.landmarks) and 0 <= o["after"] < len(graph.landmarks)

    dot = render(graph, "dot")
    assert dot.startswith("digraph ") and dot.rstrip().endswith("}")
    graph_part, legend = dot.split('subgraph "cluster_legend"')  # the legend comes last
    assert graph_part.count(" -> ") == len(graph.orderings)
    # the legend explains every edge style the graph uses, in words
    assert legend.count(" -> ") == len(kinds) and "gn: A holds right before B" in legend
    assert sum(1 for line in dot.splitlines()
               if line.strip().lstrip('"').startswith("L") and "label=" in line
               and "->" not in line) == len(graph.landmarks)
    assert '"(on a b)"' in dot and 'peripheries="2"' in dot
    assert 'style="dashed"' in dot and 'style="dotted"' in dot and 'style="solid"' in dot
