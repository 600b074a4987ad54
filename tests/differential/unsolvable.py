"""Differential test of the unsolvable family against brute force from the definitions.

Each seed makes a random propositional STRIPS task: 3-6 facts, 1-6 actions with random
preconditions (sometimes negative), adds and deletes, a goal of 1-4 literals (sometimes a
negated fact, sometimes a fact no action adds), so most tasks have no plan; every third
seed, every action deletes something and the goal has 2-4 literals, so that cores of
several goal facts appear. Action costs
are absent, declared without a metric (every action then costs 1) or counted under
``(:metric minimize (total-cost))``. Every other seed adds a random attempted plan of 0-4
steps. xaip's :func:`~xaip.unsolvable.explain_unsolvable` (search and checker, ``repair=1``)
runs with no budget; the answer must be verified.

The oracle never calls xaip's planning code: it keeps its own Python sets, explores every
reachable state (a goal subset has a plan iff some reachable state satisfies it), prices a
cheapest plan by Dijkstra, enumerates goal subsets by size in goal order for the first
minimum unsolvable core and the first single fact whose addition to the initial state
gives a plan (candidates in predicate order), replays the attempted plan, and checks the
reported landmark from its definition: a fact no reachable state contains that every
plan for the core needs -- a core goal fact, or a fact without whose achievers the core's
goal literals are unreachable even ignoring deletions (a negative precondition then holds
once the fact was false initially or deleted by a reachable action). Whenever some core goal
fact is unreachable ignoring deletions, a landmark must be reported, with the chain of facts
that every adding action needs and that never hold, ending with every adding action and its
preconditions that never hold.
"""

from __future__ import annotations

import heapq
import itertools
import random
from collections import deque
from dataclasses import dataclass, replace

from tests.differential.certificates import counting_rejections
from tests.differential.strips_text import Action, State, domain_text, price, problem_text

CI_INSTANCES = 300



@dataclass(frozen=True)
class Instance:
    facts: tuple[str, ...]
    actions: tuple[Action, ...]
    init: State
    goal: tuple[tuple[str, bool], ...]
    costs: str  # "none", "ignored", "counted"
    trace: tuple[str, ...] | None

    def price(self, action: Action) -> int:
        return price(action, self.costs)

    def domain_text(self) -> str:
        return domain_text(f"d{len(self.facts)}", self.facts, self.actions, self.costs)

    def problem_text(self) -> str:
        return problem_text(f"d{len(self.facts)}", self.init, self.goal, self.costs)


def instance(seed: int) -> Instance:
    rng = random.Random(seed)
    facts = tuple(f"p{i}" for i in range(rng.randint(3, 6)))
    actions = []
    deleting = seed % 3 == 0  # mutually exclusive facts: cores of several goal facts
    for i in range(rng.randint(1, 6)):
        pre = frozenset(rng.sample(facts, rng.randint(0 if i else 1, 2)))
        rest = [f for f in facts if f not in pre]
        neg = frozenset(rng.sample(rest, 1)) if rest and rng.random() < 0.2 else frozenset()
        add = frozenset(rng.sample(facts, rng.randint(1, 2)))
        delete = frozenset(rng.sample(facts, rng.randint(1 if deleting else 0, 2))) - add
        actions.append(Action(f"a{i}", pre, neg, add, delete, rng.randint(1, 3)))
    init = frozenset(f for f in facts if rng.random() < 0.35)
    goal_facts = rng.sample(facts, rng.randint(2 if deleting else 1, min(4, len(facts))))
    goal = tuple((f, rng.random() > 0.15) for f in goal_facts)
    costs = rng.choice(("none", "ignored", "counted"))
    trace = None
    if seed % 2:
        trace = tuple(rng.choice(actions).name for _ in range(rng.randint(0, 4)))
    return Instance(facts, tuple(actions), init, goal, costs, trace)


def _holds(goal: tuple[tuple[str, bool], ...], state: State) -> bool:
    return all((f in state) == pos for f, pos in goal)


def reachable(inst: Instance) -> list[State]:
    seen = {inst.init}
    order = [inst.init]
    queue = deque([inst.init])
    while queue:
        state = queue.popleft()
        for a in inst.actions:
            if a.applies(state):
                child = a.apply(state)
                if child not in seen:
                    seen.add(child)
                    order.append(child)
                    queue.append(child)
    return order


def cheapest(inst: Instance) -> int | None:
    best = {inst.init: 0}
    heap = [(0, sorted(inst.init))]
    while heap:
        cost, names = heapq.heappop(heap)
        state = frozenset(names)
        if cost > best[state]:
            continue
        if _holds(inst.goal, state):
            return cost
        for a in inst.actions:
            if a.applies(state):
                child = a.apply(state)
                price = cost + inst.price(a)
                if price < best.get(child, price + 1):
                    best[child] = price
                    heapq.heappush(heap, (price, sorted(child)))
    return None


def relaxed(inst: Instance, without: str | None) -> tuple[set[str], set[str]]:
    """Facts that can be made true, and made false, ignoring deletions' harm: a negative
    precondition needs the fact false initially or deleted by a reachable action; actions
    adding ``without`` removed."""
    reached = set(inst.init)
    false = set(inst.facts) - inst.init
    changed = True
    while changed:
        changed = False
        for a in inst.actions:
            if without in a.add or not a.pre <= reached or not a.neg <= false:
                continue
            if not a.add <= reached or not a.delete <= false:
                reached |= a.add
                false |= a.delete
                changed = True
    return reached, false


def _text(fact: str, positive: bool = True) -> str:
    return f"({fact})" if positive else f"(not ({fact}))"


@counting_rejections
def check(seed: int) -> str | None:
    from xaip.planning.pddl.reader import parse_domain, parse_problem
    from xaip.planning.plans import parse_plan
    from xaip.unsolvable import explain_unsolvable

    inst = instance(seed)
    domain, problem = parse_domain(inst.domain_text()), parse_problem(inst.problem_text())
    trace = None if inst.trace is None else parse_plan("\n".join(f"({n})" for n in inst.trace))
    result = explain_unsolvable(domain, problem, trace, repair=1)
    if not result.verified:
        return f"not verified: {result.check}"
    states = reachable(inst)
    best = cheapest(inst)
    if (best is not None) != result.solvable:
        return f"solvable: oracle {best is not None}, xaip {result.solvable}"
    if best is not None:
        state = inst.init
        by_name = {f"({a.name})": a for a in inst.actions}
        cost = 0
        for step in result.plan or ():
            action = by_name[step]
            if not action.applies(state):
                return f"plan step {step} does not apply"
            state, cost = action.apply(state), cost + inst.price(action)
        if not _holds(inst.goal, state) or cost != best:
            return f"plan {result.plan} (cost {cost}) is not a cheapest plan (cost {best})"
    else:
        problem_ = _core_problem(inst, states, result)
        if problem_:
            return problem_
    return _trace_problem(inst, result)


def _core_problem(inst: Instance, states: list[State], result: object) -> str | None:
    from xaip.unsolvable.results import UnsolvableResult

    assert isinstance(result, UnsolvableResult)
    size = len(inst.goal)
    expected: tuple[int, ...] | None = None
    for k in range(1, size + 1):
        for combo in itertools.combinations(range(size), k):
            sub = tuple(inst.goal[p] for p in combo)
            if not any(_holds(sub, s) for s in states):
                expected = combo
                break
        if expected is not None:
            break
    if result.core_kind != "minimum" or tuple(result.core_positions) != expected:
        return f"core: oracle {expected}, xaip {result.core_positions} ({result.core_kind})"
    repair = next((f for f in inst.facts if f not in inst.init
                   and cheapest(replace(inst, init=inst.init | {f})) is not None), None)
    got = result.repair
    if got is None or got.facts != (None if repair is None else (_text(repair),)):
        return f"repair: oracle {repair}, xaip {got}"
    core = [inst.goal[p] for p in expected]
    needed = {f for f, pos in core if pos}
    needed_false = {f for f, pos in core if not pos}
    unreachable_goal = [f for f in needed if f not in relaxed(inst, None)[0]]
    if result.landmark is None:
        return f"no landmark though {unreachable_goal} is relaxed-unreachable" \
            if unreachable_goal else None
    fact = result.landmark.fact.strip("()")
    if any(fact in s for s in states):
        return f"landmark {fact} is reachable"
    if result.landmark.kind in ("never-true", "relaxed-unreachable"):
        expected_chain = _chain(inst, fact, states)
        got_chain = result.landmark.chain
        got = None if got_chain is None else (
            got_chain.facts, [(b.action, b.unmet) for b in got_chain.blocked])
        if got != expected_chain:
            return f"chain: oracle {expected_chain}, xaip {got}"
    true, false = relaxed(inst, fact)
    if fact in needed or not needed <= true or not needed_false <= false:
        return None
    return f"{fact} is not a landmark of the core {core}"


def _chain(inst: Instance, start: str, states: list[State]
           ) -> tuple[tuple[str, ...], list[tuple[str, tuple[str, ...]]]]:
    """From ``start``: while every action adding the last fact needs one same fact that
    never holds (first in the first adder's precondition order, sorted), follow it (at most
    6 facts); then every adder with its preconditions that never hold."""
    ever = set().union(*states)
    chain = [start]
    while True:
        adders = [a for a in inst.actions if chain[-1] in a.add]
        shared = [f for f in (sorted(adders[0].pre) if adders else [])
                  if all(f in a.pre for a in adders) and f not in chain and f not in ever]
        if shared and len(chain) < 6:
            chain.append(shared[0])
            continue
        return (tuple(_text(f) for f in chain),
                [(f"({a.name})", tuple(_text(f) for f in sorted(a.pre) if f not in ever))
                 for a in adders])


def _trace_problem(inst: Instance, result: object) -> str | None:
    from xaip.unsolvable.results import UnsolvableResult

    assert isinstance(result, UnsolvableResult)
    if inst.trace is None:
        return None
    by_name = {a.name: a for a in inst.actions}
    state = inst.init
    for number, name in enumerate(inst.trace, 1):
        action = by_name[name]
        if not action.applies(state):
            unmet = sorted([_text(f) for f in action.pre - state]
                           + [_text(f, False) for f in action.neg & state])
            got = result.trace
            if got is None or got.step != number or sorted(got.unmet) != unmet:
                return f"trace: oracle fails at step {number} on {unmet}, xaip {got}"
            return None
        state = action.apply(state)
    false = sorted(_text(f, pos) for f, pos in inst.goal if (f in state) != pos)
    if not false:
        return None if result.trace_valid else "trace: oracle valid, xaip not"
    got = result.trace
    if got is None or got.step is not None or sorted(got.unmet) != false:
        return f"trace: oracle goal unmet {false}, xaip {got}"
    return None
