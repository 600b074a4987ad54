"""Policy landmarks and orderings against brute force over the policy's executions.

Oracles (written here, sharing nothing with the extraction code):

* every simple path of the policy's execution graph from the initial state to a goal
  state. A fact is on every goal-reaching execution iff it is on every simple one (erasing
  the loops of an execution leaves a simple execution whose states are a subset);
* an ordering ``a → b`` is violated iff some simple path reaches a state with ``b``
  through states without ``b`` — and without ``a`` (natural) or with ``a`` missing from
  the last one (greedy-necessary) — and that state can still reach the goal: loop
  erasure of a violating execution's prefix keeps both properties;
* Monte-Carlo: thousands of sampled runs (fixed seeds) on the bundled example and IPPC
  instances; every reported landmark and ordering must hold on every run that reaches
  the goal.

Policies are random (TLdR does not assume optimal policies) on random tiny tasks with
probabilistic, conditional and negative-precondition actions.
"""

from __future__ import annotations

import random
from collections import deque
from pathlib import Path

import pytest

from xaip.domains.airport import PHRASES, airport_paths
from xaip.planning.landmarks import find_landmarks
from xaip.planning.mdp import (
    Outcome,
    Policy,
    ProbabilisticAction,
    ProbabilisticTask,
    evaluate,
    ground_probabilistic,
    policy_graph,
    simulate,
    solve_ssp,
)
from xaip.planning.pddl import read_domain, read_problem
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, bits
from xaip.render.summaries import narration
from xaip.summaries import (
    build_hierarchy,
    check_hierarchy,
    check_landmarks,
    complete_compilation,
    complete_landmarks,
    completions,
    concise_compilation,
    concise_landmarks,
    drill_down,
    exact_orderings,
    exact_policy_landmarks,
    model_landmarks,
    summarise_policy,
)
from xaip.summaries.landmarks import LandmarkSet

IPPC = Path(__file__).resolve().parents[3] / "shared" / "data" / "ippc"

# --------------------------------------------------------------------------- tasks


def random_task(rng: random.Random, n_facts: int, n_actions: int) -> ProbabilisticTask:
    facts = tuple(Atom(f"f{i}") for i in range(n_facts))

    def subset(k: int) -> int:
        return sum(1 << i for i in rng.sample(range(n_facts), k))

    actions = []
    for a in range(n_actions):
        weights = [rng.randint(1, 3) for _ in range(rng.choice([1, 2, 2, 3]))]
        outcomes = []
        for w in weights:
            add, delete = subset(rng.randint(0, 2)), subset(rng.randint(0, 2))
            conditional: tuple[ConditionalEffect, ...] = ()
            if rng.random() < 0.2:
                conditional = (ConditionalEffect(subset(1), 0, subset(1), 0),)
            outcomes.append(Outcome(w / sum(weights), add, delete & ~add, conditional))
        actions.append(
            ProbabilisticAction(
                schema=f"a{a}",
                args=(),
                pre=subset(rng.randint(0, 2)),
                outcomes=tuple(outcomes),
                neg_pre=subset(1) if rng.random() < 0.15 else 0,
            )
        )
    goal = subset(rng.randint(1, 2))
    init = subset(rng.randint(0, 2)) & ~goal
    return ProbabilisticTask("random", facts, tuple(actions), init, goal)


def random_policy(ptask: ProbabilisticTask, rng: random.Random) -> Policy:
    """A random action in every state the policy reaches (some states may have none)."""
    table: dict[int, str] = {}
    queue = deque([ptask.init])
    seen = {ptask.init}
    while queue:
        state = queue.popleft()
        if ptask.is_goal(state):
            continue
        names = ptask.applicable_names(state)
        if not names or rng.random() < 0.05:
            continue
        name = rng.choice(names)
        table[state] = name
        action = ptask.action_named(name, state)
        assert action is not None
        for succ in action.successors(state):
            if succ not in seen:
                seen.add(succ)
                queue.append(succ)
    return Policy(ptask, table)


def cases(count: int, seed: int = 7) -> list[tuple[ProbabilisticTask, Policy]]:
    """Random (task, policy) pairs whose policy reaches the goal with positive probability
    and has some non-trivial executions."""
    rng = random.Random(seed)
    found: list[tuple[ProbabilisticTask, Policy]] = []
    while len(found) < count:
        task = random_task(rng, rng.randint(4, 7), rng.randint(5, 9))
        policy = random_policy(task, rng)
        graph = brute_graph(task, policy)
        if len(graph) >= 3 and any(task.is_goal(s) for s in graph):
            found.append((task, policy))
    return found


# --------------------------------------------------------------------------- oracle


def brute_graph(ptask: ProbabilisticTask, policy: Policy) -> dict[int, list[int]]:
    """The policy's execution graph, built directly from the outcomes."""
    graph: dict[int, list[int]] = {}
    queue = deque([ptask.init])
    while queue:
        state = queue.popleft()
        if state in graph:
            continue
        graph[state] = []
        if ptask.is_goal(state):
            continue
        name = policy.table.get(state)
        if name is None:
            continue
        action = ptask.action_named(name, state)
        assert action is not None
        for outcome in action.outcomes:
            succ = outcome.apply(state)
            if succ not in graph[state]:
                graph[state].append(succ)
            queue.append(succ)
    return graph


def simple_paths(graph: dict[int, list[int]], start: int) -> list[list[int]]:
    """Every simple path from ``start`` (each prefix listed), by depth-first search."""
    out: list[list[int]] = []
    path = [start]

    def visit() -> None:
        out.append(list(path))
        for succ in graph[path[-1]]:
            if succ not in path:
                path.append(succ)
                visit()
                path.pop()

    visit()
    return out


class Oracle:
    """Exact policy landmarks and orderings by enumerating simple paths."""

    def __init__(self, ptask: ProbabilisticTask, policy: Policy) -> None:
        self.task = ptask
        self.graph = brute_graph(ptask, policy)
        self.paths = simple_paths(self.graph, ptask.init)
        goal_paths = [p for p in self.paths if ptask.is_goal(p[-1])]
        # Alive: a goal can still be reached from here (by a path of its own, which may
        # revisit states of the prefix that led here).
        self.alive = {
            s for s in self.graph
            if any(ptask.is_goal(p[-1]) for p in simple_paths(self.graph, s))
        }
        self.goal_paths = goal_paths
        common = -1
        for p in goal_paths:
            union = 0
            for s in p:
                union |= s
            common &= union
        self.landmarks = set(bits(common)) if goal_paths else set()

    def violates(self, a: int, b: int, kind: str) -> bool:
        for p in self.paths:
            last = p[-1]
            if not last >> b & 1 or last not in self.alive or len(p) < 2:
                continue
            earlier = p[:-1]
            if any(s >> b & 1 for s in earlier):
                continue
            if kind == "natural" and not any(s >> a & 1 for s in earlier):
                return True
            if kind == "greedy-necessary" and not earlier[-1] >> a & 1:
                return True
        return False

    def orderings(self) -> dict[tuple[int, int], str]:
        movable = [f for f in self.landmarks if not self.task.init >> f & 1]
        truth: dict[tuple[int, int], str] = {}
        for a in movable:
            for b in movable:
                if a == b:
                    continue
                if not self.violates(a, b, "greedy-necessary"):
                    truth[(a, b)] = "greedy-necessary"
                elif not self.violates(a, b, "natural"):
                    truth[(a, b)] = "natural"
        return truth


def as_dict(landmarks: LandmarkSet) -> dict[tuple[int, int], str]:
    return {(o.before, o.after): o.kind for o in landmarks.orderings}


def holds(truth: dict[tuple[int, int], str], pair: tuple[int, int], kind: str) -> bool:
    strength = {"natural": 1, "greedy-necessary": 2}
    return strength.get(truth.get(pair, ""), 0) >= strength[kind]


RANDOM_CASES = cases(120)

# --------------------------------------------------------------------------- compilations


def test_concise_compilation_has_one_delete_free_action_per_acting_state() -> None:
    for ptask, policy in RANDOM_CASES[:20]:
        graph = policy_graph(ptask, policy)
        task = concise_compilation(ptask, graph)
        acting = [s for s in graph.states if s not in graph.goal_states and graph.out_edges(s)]
        assert len(task.actions) == len(acting)
        for state, action in zip(acting, task.actions, strict=True):
            union = 0
            for succ in brute_graph(ptask, policy)[state]:
                union |= succ
            assert action.pre == state and action.delete == 0
            assert action.add == union & ~state


def test_plans_of_the_complete_compilation_are_the_executions() -> None:
    """Forward search in D(M)^c (real semantics) reaches exactly the policy's states by
    exactly its transitions."""
    for ptask, policy in RANDOM_CASES[:20]:
        task = complete_compilation(ptask, policy_graph(ptask, policy))
        expected = brute_graph(ptask, policy)
        seen: dict[int, set[int]] = {}
        queue = deque([task.init])
        while queue:
            state = queue.popleft()
            if state in seen:
                continue
            seen[state] = set()
            if task.is_goal(state):
                continue
            for action in task.applicable(state):
                succ = action.apply(state)
                seen[state].add(succ)
                queue.append(succ)
        assert {s: set(t) for s, t in expected.items()} == seen


# --------------------------------------------------------------------------- landmarks


@pytest.mark.parametrize("index", range(len(RANDOM_CASES)))
def test_landmark_sets_against_enumerated_executions(index: int) -> None:
    ptask, policy = RANDOM_CASES[index]
    oracle = Oracle(ptask, policy)
    truth = oracle.orderings()
    graph = policy_graph(ptask, policy)
    # D(M)^c is complete and exact, orderings included (Theorem 2).
    complete = complete_landmarks(ptask, graph)
    assert set(complete.facts) == oracle.landmarks
    assert as_dict(complete) == truth
    # The graph checker agrees with the enumeration.
    assert exact_policy_landmarks(graph) == oracle.landmarks
    assert exact_orderings(graph, oracle.landmarks) == truth
    # D(M) is sound (Theorem 1), and so are its orderings.
    concise = concise_landmarks(ptask, graph)
    assert set(concise.facts) <= oracle.landmarks
    for pair, kind in as_dict(concise).items():
        assert holds(truth, pair, kind), (pair, kind)
    # Model landmarks hold for every policy, and D(M) finds all of them.
    model = model_landmarks(ptask)
    assert set(model.facts) <= set(concise.facts)
    for pair, kind in as_dict(model).items():
        assert holds(truth, pair, kind), (pair, kind)
    # The library's own check reaches the same verdicts.
    assert check_landmarks(ptask, graph, complete).exact
    assert check_landmarks(ptask, graph, concise).sound
    assert check_landmarks(ptask, graph, model).sound


def test_causal_flags_of_the_complete_set() -> None:
    """A causal landmark of D(M)^c holds in a non-final state of every goal path, or is a
    goal fact."""
    for ptask, policy in RANDOM_CASES:
        oracle = Oracle(ptask, policy)
        complete = complete_landmarks(ptask, policy_graph(ptask, policy))
        for f in complete.facts:
            on_every = all(any(s >> f & 1 for s in p[:-1]) for p in oracle.goal_paths)
            assert (f in complete.causal) == (on_every or bool(ptask.goal >> f & 1))


def test_greedy_necessary_orderings_of_the_concise_compilation_can_be_wrong() -> None:
    """Why D(M) reports natural orderings only: its actions add the union of their
    outcomes, so relaxed first achievers are not the executions' ones."""
    facts = tuple(Atom(n) for n in ("s", "y", "x", "b"))
    s, y, x, b = 1, 2, 4, 8
    actions = (
        ProbabilisticAction("start", (), s, (Outcome(1.0, y, s),)),
        ProbabilisticAction("split", (), y, (Outcome(0.5, x, y), Outcome(0.5, b, 0))),
        ProbabilisticAction("finish", (), x, (Outcome(1.0, b, 0),)),
    )
    ptask = ProbabilisticTask("gn", facts, actions, s, b)
    policy = Policy(ptask, {s: "start", y: "split", x: "finish"})
    graph = policy_graph(ptask, policy)
    relaxed = find_landmarks(concise_compilation(ptask, graph), "zg", causal_only=True)
    index = {lm.facts[0]: i for i, lm in enumerate(relaxed.landmarks)}
    claimed = {(o.before, o.after): o.kind for o in relaxed.orderings}
    assert claimed[(index[1], index[3])] == "greedy-necessary"  # y -> b, claimed by D(M)
    assert exact_orderings(graph, [1, 3])[(1, 3)] == "natural"  # only natural in truth
    assert as_dict(concise_landmarks(ptask, graph))[(1, 3)] == "natural"


def test_no_goal_reaching_execution_means_no_landmarks() -> None:
    facts = (Atom("a"), Atom("g"))
    actions = (ProbabilisticAction("stuck", (), 0, (Outcome(1.0, 1, 0),)),)
    ptask = ProbabilisticTask("never", facts, actions, 0, 2)
    graph = policy_graph(ptask, Policy(ptask, {0: "stuck"}))
    for landmarks in (concise_landmarks(ptask, graph), complete_landmarks(ptask, graph),
                      model_landmarks(ptask)):
        assert not landmarks.solvable and landmarks.facts == ()


# --------------------------------------------------------------------------- hierarchy


@pytest.mark.parametrize("index", range(0, len(RANDOM_CASES), 3))
def test_hierarchical_value_equals_the_policy_value(index: int) -> None:
    ptask, policy = RANDOM_CASES[index]
    graph = policy_graph(ptask, policy)
    for landmarks in (concise_landmarks(ptask, graph), complete_landmarks(ptask, graph)):
        hierarchy = build_hierarchy(landmarks, ptask.goal)
        for cost in (1000.0, None):
            value = check_hierarchy(hierarchy, ptask, graph, cost)
            assert value.equal, value
            assert value.policy == evaluate(ptask, policy, cost).expected_cost


def test_hierarchy_is_a_longest_chain_with_dropped_landmarks_attached() -> None:
    """Brute force: no chain of comparable landmarks is longer; dropped landmarks hang
    under their closest chain successor and every chain element they are incomparable
    with."""
    for ptask, policy in RANDOM_CASES:
        graph = policy_graph(ptask, policy)
        landmarks = complete_landmarks(ptask, graph)
        hierarchy = build_hierarchy(landmarks, ptask.goal)
        before = {(o.before, o.after) for o in landmarks.orderings}
        goal = list(bits(ptask.goal))
        items = [f for f in landmarks.facts
                 if f not in landmarks.initial and not (len(goal) == 1 and f == goal[0])]
        chain = list(hierarchy.chain)
        assert all((a, b) in before for a, b in zip(chain, chain[1:], strict=False))
        longest = _longest_chain(items, before)
        assert len(chain) == longest
        for dropped, places in hierarchy.attachments:
            successors = [c for c in chain if (dropped, c) in before]
            assert places[0] == (successors[0] if successors else None)
            incomparable = [c for c in chain if (dropped, c) not in before
                            and (c, dropped) not in before and c != places[0]]
            assert list(places[1:]) == incomparable


def _longest_chain(items: list[int], before: set[tuple[int, int]]) -> int:
    best = 0

    def extend(chain: list[int]) -> None:
        nonlocal best
        best = max(best, len(chain))
        for f in items:
            if f not in chain and (not chain or (chain[-1], f) in before):
                chain.append(f)
                extend(chain)
                chain.pop()

    extend([])
    return best


# --------------------------------------------------------------------------- drill-down


def test_completions_are_first_occurrences() -> None:
    for ptask, policy in RANDOM_CASES:
        oracle = Oracle(ptask, policy)
        graph = policy_graph(ptask, policy)
        for f in range(ptask.num_facts):
            # A completion ends a simple prefix in which f holds only at the end and
            # from which the goal can still be reached.
            expected = {
                p[-1] for p in oracle.paths
                if p[-1] >> f & 1 and p[-1] in oracle.alive
                and not any(s >> f & 1 for s in p[:-1])
            }
            assert completions(graph, f) == expected


def test_drill_down_equals_enumeration_from_each_completion() -> None:
    checked = 0
    for ptask, policy in RANDOM_CASES:
        graph = policy_graph(ptask, policy)
        oracle = Oracle(ptask, policy)
        sources = [f for f in oracle.landmarks if not ptask.init >> f & 1]
        if not sources:
            continue
        source = sources[0]
        result = drill_down(ptask, policy, source, None, graph)
        assert {leg.start for leg in result.legs} == completions(graph, source)
        for leg in result.legs:
            sub = ProbabilisticTask(ptask.name, ptask.facts, ptask.actions, leg.start,
                                    ptask.goal)
            leg_oracle = Oracle(sub, Policy(sub, dict(policy.table)))
            assert set(leg.complete.facts) == leg_oracle.landmarks
            assert set(leg.concise.facts) <= leg_oracle.landmarks
        checked += 1
    assert checked >= 10


# --------------------------------------------------------------------------- sampling


def _sampled_check(ptask: ProbabilisticTask, policy: Policy, runs: int, seed: int) -> int:
    summary = summarise_policy(ptask, policy, check=False)
    sets = [s for s in (summary.concise, summary.complete, summary.model) if s is not None]
    rng = random.Random(seed)
    reached = 0
    for _ in range(runs):
        run = simulate(ptask, policy, rng, max_steps=10_000)
        if not run.reached_goal:
            continue
        reached += 1
        first: dict[int, int] = {}
        for step, state in enumerate(run.states):
            for f in bits(state):
                first.setdefault(f, step)
        for landmarks in sets:
            for f in landmarks.facts:
                assert f in first, (landmarks.source, ptask.facts[f])
            for o in landmarks.orderings:
                if o.kind == "natural":
                    assert first[o.before] < first[o.after]
                else:
                    assert run.states[first[o.after] - 1] >> o.before & 1
    return reached


def test_sampled_runs_of_the_airport_policy() -> None:
    domain, problem = airport_paths()
    ptask = ground_probabilistic(read_domain(domain), read_problem(problem))
    policy = solve_ssp(ptask).policy
    assert _sampled_check(ptask, policy, 2000, 1) == 2000


@pytest.mark.parametrize(
    "folder, problem",
    [
        ("ippc2006/tireworld", "p01.pddl"),
        ("ippc2006/ex-blocksworld", "p04.pddl"),
        ("ippc2006/elevators", "p02.pddl"),
        ("ippc2008/triangle-tireworld", "p02.pddl"),
    ],
)
def test_sampled_runs_of_ippc_policies(folder: str, problem: str) -> None:
    path = IPPC / folder
    if not path.exists():
        pytest.skip("IPPC data not available")
    ptask = ground_probabilistic(read_domain(path / "domain.pddl"), read_problem(path / problem))
    policy = solve_ssp(ptask).policy
    graph = policy_graph(ptask, policy)
    if graph.unhandled:
        pytest.skip("solver returned a partial policy (see the ILAO* issue)")
    assert _sampled_check(ptask, policy, 1500, 2) > 0
    summary = summarise_policy(ptask, policy)
    assert summary.checked_ok and summary.value.equal


# --------------------------------------------------------------------------- the example


def test_airport_summary_names_the_policy_specific_subgoals() -> None:
    domain, problem = airport_paths()
    ptask = ground_probabilistic(read_domain(domain), read_problem(problem))
    summary = summarise_policy(ptask, solve_ssp(ptask).policy, phrases=PHRASES)

    def names(landmarks: LandmarkSet) -> list[str]:
        return [str(ptask.facts[f]) for f in landmarks.subgoals]

    assert names(summary.concise) == [
        "(at the-bus-stop)", "(at station1)", "(at the-shuttle-station)",
        "(at the-airport)", "(passed-security)", "(at gate10)",
    ]
    assert names(summary.model) == ["(at the-airport)", "(passed-security)", "(at gate10)"]
    assert narration(summary).splitlines()[1] == (
        "First get to the bus stop, then get to station 1, then get to the shuttle station, "
        "then get to the airport, then pass security, then get to gate 10, and finally "
        "board flight 42."
    )
    assert summary.checked_ok and summary.value.equal
    station1 = ptask.fact_index[Atom("at", ("station1",))]
    airport = ptask.fact_index[Atom("at", ("the-airport",))]
    leg = drill_down(ptask, summary_policy(ptask), station1, airport)
    assert [str(ptask.facts[f]) for f in leg.common] == ["(at the-shuttle-station)"]


def summary_policy(ptask: ProbabilisticTask) -> Policy:
    return solve_ssp(ptask).policy


# --------------------------------------------------------------------------- budgets


@pytest.mark.parametrize("nodes", [1, 5, 40, 200])
def test_budget_exhaustion_is_reported_and_stays_sound(nodes: int) -> None:
    from xaip.runtime.budget import Budget

    for ptask, policy in RANDOM_CASES[:40]:
        oracle = Oracle(ptask, policy)
        truth = oracle.orderings()
        graph = policy_graph(ptask, policy)
        for landmarks in (complete_landmarks(ptask, graph, Budget(max_nodes=nodes)),
                          concise_landmarks(ptask, graph, Budget(max_nodes=nodes))):
            assert set(landmarks.facts) <= oracle.landmarks
            for pair, kind in as_dict(landmarks).items():
                assert holds(truth, pair, kind)
            if landmarks.complete and landmarks.source == "complete":
                assert set(landmarks.facts) == oracle.landmarks


def test_partial_solver_policies_are_solved_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """A solver answer that leaves reachable states without an action is not summarised
    as is: the task is solved again by value iteration."""
    from dataclasses import replace

    import xaip.summaries.summary as module

    domain, problem = airport_paths()
    ptask = ground_probabilistic(read_domain(domain), read_problem(problem))
    real = module.solve_ssp

    def broken(task: ProbabilisticTask, method: str = "lao", **kwargs: object):  # type: ignore[no-untyped-def]
        solution = real(task, method=method, **kwargs)  # type: ignore[arg-type]
        if method == "vi":
            return solution
        table = dict(solution.policy.table)
        table.pop(next(s for s in table if s != task.init))
        return replace(solution, policy=Policy(task, table))

    monkeypatch.setattr(module, "solve_ssp", broken)
    solution, note = module.solve_policy(ptask, "lao")
    assert note is not None and "value iteration" in note
    assert not policy_graph(ptask, solution.policy).unhandled
