"""Probabilistic tasks, SSP solvers, policies and their evaluation.

Every solver result is checked against something computed independently in this file:
closed-form values of hand-made tasks, a textbook value iteration over brute-force state
spaces (with dead ends found by plain breadth-first search), iterative policy evaluation
and Monte-Carlo simulation with a fixed seed.
"""

from __future__ import annotations

import json
import math
import random
from collections import deque
from pathlib import Path

import pytest

from xaip.errors import InputError, UnsupportedFeature
from xaip.planning.grounding import ground
from xaip.planning.mdp import (
    DEFAULT_DEAD_END_COST,
    DeadEndDetector,
    NoProperPolicy,
    Outcome,
    Policy,
    PolicyFormatError,
    ProbabilisticAction,
    ProbabilisticTask,
    determinise,
    evaluate,
    ground_probabilistic,
    policy_graph,
    reachable_states,
    simulate,
    solve_ssp,
)
from xaip.planning.mdp.explicit import EXPANDED, TIP, ExplicitGraph
from xaip.planning.mdp.heuristic import RelaxedLayers
from xaip.planning.mdp.solver import Method
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect
from xaip.runtime.budget import Budget

METHODS: tuple[Method, ...] = ("lao", "vi")
SHARED = Path(__file__).resolve().parents[3] / "shared" / "data"
IPPC = SHARED / "ippc"

# --------------------------------------------------------------------------- helpers


def make_task(
    facts: list[str],
    actions: list[tuple[str, list[str], list[tuple[float, list[str], list[str]]]]],
    init: list[str],
    goal: list[str],
    costs: dict[str, float] | None = None,
) -> ProbabilisticTask:
    """A task from fact names; each action is (name, pre, [(p, adds, deletes), ...])."""
    index = {name: i for i, name in enumerate(facts)}

    def mask(names: list[str]) -> int:
        return sum(1 << index[n] for n in set(names))

    built = []
    for name, pre, outcomes in actions:
        cost = (costs or {}).get(name, 1.0)
        built.append(
            ProbabilisticAction(
                schema=name,
                args=(),
                pre=mask(pre),
                outcomes=tuple(
                    Outcome(p, mask(add), mask(delete) & ~mask(add), cost=cost)
                    for p, add, delete in outcomes
                ),
            )
        )
    return ProbabilisticTask(
        name="hand",
        facts=tuple(Atom(f) for f in facts),
        actions=tuple(built),
        init=mask(init),
        goal=mask(goal),
    )


def random_task(rng: random.Random, n_facts: int = 5, n_actions: int = 7) -> ProbabilisticTask:
    """A random task with probabilistic, conditional and negative-precondition actions."""
    facts = tuple(Atom(f"f{i}") for i in range(n_facts))

    def subset(k: int) -> int:
        return sum(1 << i for i in rng.sample(range(n_facts), k))

    actions = []
    for a in range(n_actions):
        weights = [rng.randint(1, 4) for _ in range(rng.choice([1, 1, 2, 2, 3]))]
        outcomes = []
        for w in weights:
            add, delete = subset(rng.randint(0, 2)), subset(rng.randint(0, 2))
            conditional: tuple[ConditionalEffect, ...] = ()
            if rng.random() < 0.2:
                conditional = (ConditionalEffect(subset(1), 0, subset(1), subset(1)),)
            outcomes.append(
                Outcome(
                    w / sum(weights),
                    add,
                    delete & ~add,
                    conditional,
                    cost=float(rng.randint(1, 3)),
                )
            )
        actions.append(
            ProbabilisticAction(
                schema=f"a{a}",
                args=(),
                pre=subset(rng.randint(0, 2)),
                outcomes=tuple(outcomes),
                neg_pre=subset(1) if rng.random() < 0.2 else 0,
            )
        )
    goal = subset(rng.randint(1, 2))
    init = subset(rng.randint(0, 2)) & ~goal
    return ProbabilisticTask("random", facts, tuple(actions), init, goal)


def brute_space(ptask: ProbabilisticTask) -> dict[int, list[tuple[str, float, dict[int, float]]]]:
    """Every reachable state with its (action, expected cost, successor distribution),
    computed directly from the outcomes (goals absorbing)."""
    space: dict[int, list[tuple[str, float, dict[int, float]]]] = {}
    queue = deque([ptask.init])
    while queue:
        state = queue.popleft()
        if state in space:
            continue
        space[state] = []
        if ptask.is_goal(state):
            continue
        for action in ptask.actions:
            if not action.applicable(state):
                continue
            dist: dict[int, float] = {}
            cost = 0.0
            for outcome in action.outcomes:
                succ = outcome.apply(state)
                dist[succ] = dist.get(succ, 0.0) + outcome.probability
                cost += outcome.probability * outcome.cost
                queue.append(succ)
            space[state].append((action.name, cost, dist))
    return space


def brute_dead_ends(ptask: ProbabilisticTask, space: dict) -> set[int]:
    """States of ``space`` from which no goal is reachable by any outcomes (plain BFS)."""
    dead = set()
    for start in space:
        seen = {start}
        queue = deque([start])
        found = False
        while queue and not found:
            state = queue.popleft()
            if ptask.is_goal(state):
                found = True
                break
            for _, _, dist in space[state]:
                for succ in dist:
                    if succ not in seen:
                        seen.add(succ)
                        queue.append(succ)
        if not found:
            dead.add(start)
    return dead


def textbook_values(ptask: ProbabilisticTask, penalty: float, sweeps: int = 20000) -> dict:
    """Plain Jacobi value iteration from 0 with dead ends absorbing at ``penalty``."""
    space = brute_space(ptask)
    dead = brute_dead_ends(ptask, space)
    values = dict.fromkeys(space, 0.0)
    for s in dead:
        values[s] = penalty
    for _ in range(sweeps):
        new = dict(values)
        change = 0.0
        for s, transitions in space.items():
            if ptask.is_goal(s) or s in dead:
                continue
            new[s] = min(c + sum(p * values[t] for t, p in d.items()) for _, c, d in transitions)
            change = max(change, abs(new[s] - values[s]))
        values = new
        if change < 1e-11:
            break
    return values


def proper_states(ptask: ProbabilisticTask) -> set[int]:
    """States with a proper policy: the largest set from which the goal is reachable
    using only actions whose outcomes all stay in the set (fixpoint, brute force)."""
    space = brute_space(ptask)
    good = set(space)
    while True:
        allowed = {s: [d for _, _, d in space[s] if all(t in good for t in d)] for s in good}
        reach = {s for s in good if ptask.is_goal(s)}
        changed = True
        while changed:
            changed = False
            for s in good:
                if s not in reach and any(any(t in reach for t in d) for d in allowed[s]):
                    reach.add(s)
                    changed = True
        if reach == good:
            return good
        good = reach


def iterative_policy_values(ptask: ProbabilisticTask, policy: Policy, penalty: float) -> float:
    """Expected cost of ``policy`` by repeated sweeps (non-goal leaves cost ``penalty``)."""
    graph = policy_graph(ptask, policy)
    values = dict.fromkeys(graph.states, 0.0)
    for _ in range(200000):
        change = 0.0
        for s in graph.states:
            if s in graph.goal_states:
                continue
            action = policy.ground_action(s)
            if action is None:
                new = penalty
            else:
                new = action.expected_cost + sum(
                    p * values[t] for t, p in action.successors(s).items()
                )
            change = max(change, abs(new - values[s]))
            values[s] = new
        if change < 1e-12:
            break
    return values[ptask.init]


# --------------------------------------------------------------------------- hand-made tasks


def test_geometric_retry_has_value_one_over_p() -> None:
    for p in (0.25, 0.5, 0.8):
        task = make_task(["g"], [("try", [], [(p, ["g"], []), (1 - p, [], [])])], [], ["g"])
        for method in METHODS:
            solution = solve_ssp(task, method=method, epsilon=1e-10)
            assert solution.value == pytest.approx(1 / p, rel=1e-8)
            assert solution.policy.action(task.init) == "try"
            assert solution.converged and solution.proper


def test_choice_between_safe_chain_and_risky_shortcut() -> None:
    # safe: three deterministic steps; risky: one step that succeeds with probability p
    # and otherwise returns to the start, so V(risky) = 1/p.
    for p, expected_value, expected_action in ((0.5, 2.0, "risky"), (0.25, 3.0, "safe1")):
        task = make_task(
            ["a", "b", "g"],
            [
                ("safe1", [], [(1.0, ["a"], [])]),
                ("safe2", ["a"], [(1.0, ["b"], ["a"])]),
                ("safe3", ["b"], [(1.0, ["g"], ["b"])]),
                ("risky", [], [(p, ["g"], []), (1 - p, [], [])]),
            ],
            [],
            ["g"],
        )
        for method in METHODS:
            solution = solve_ssp(task, method=method, epsilon=1e-10)
            assert solution.value == pytest.approx(expected_value, rel=1e-8)
            assert solution.policy.action(task.init) == expected_action


def _gamble_task(k: int) -> ProbabilisticTask:
    """``gamble``: goal or dead end with probability 1/2; a safe chain of ``k`` steps."""
    facts = ["g", "dead"] + [f"c{i}" for i in range(1, k)]
    actions: list[tuple[str, list[str], list[tuple[float, list[str], list[str]]]]] = [
        ("gamble", [], [(0.5, ["g"], []), (0.5, ["dead"], [])])
    ]
    actions.append(("step0", [], [(1.0, ["c1"] if k > 1 else ["g"], [])]))
    for i in range(1, k):
        target = ["g"] if i == k - 1 else [f"c{i + 1}"]
        actions.append((f"step{i}", [f"c{i}"], [(1.0, target, [f"c{i}"])]))
    # "dead" disables everything: no action applies once it holds.
    task = make_task(facts, actions, [], ["g"])
    dead_bit = 1 << facts.index("dead")
    return ProbabilisticTask(
        task.name,
        task.facts,
        tuple(
            ProbabilisticAction(a.schema, a.args, a.pre, a.outcomes, neg_pre=dead_bit)
            for a in task.actions
        ),
        task.init,
        task.goal,
    )


def test_dead_end_penalty_trades_risk_against_cost() -> None:
    task = _gamble_task(5)
    # Penalty 2: gambling costs 1 + 0.5 * 2 = 2 < 5.
    cheap = solve_ssp(task, dead_end_cost=2.0, epsilon=1e-10)
    assert cheap.policy.action(task.init) == "gamble"
    assert cheap.value == pytest.approx(2.0)
    assert not cheap.proper
    # The default (large) penalty maximises the goal probability first.
    safe = solve_ssp(task, epsilon=1e-10)
    assert safe.policy.action(task.init) == "step0"
    assert safe.value == pytest.approx(5.0)
    assert safe.proper
    assert evaluate(task, safe.policy).goal_probability == pytest.approx(1.0)
    assert evaluate(task, cheap.policy).goal_probability == pytest.approx(0.5)
    assert evaluate(task, cheap.policy, dead_end_cost=2.0).expected_cost == pytest.approx(2.0)
    assert math.isinf(evaluate(task, cheap.policy).expected_cost)


def test_no_proper_policy_is_reported_with_its_dead_ends() -> None:
    task = make_task(
        ["g", "dead"],
        [("gamble", [], [(0.5, ["g"], []), (0.5, ["dead"], [])])],
        [],
        ["g"],
    )
    task = ProbabilisticTask(
        task.name,
        task.facts,
        tuple(
            ProbabilisticAction(a.schema, a.args, a.pre, a.outcomes, neg_pre=0b10)
            for a in task.actions
        ),
        task.init,
        task.goal,
    )
    for method in METHODS:
        with pytest.raises(NoProperPolicy) as caught:
            solve_ssp(task, method=method, dead_end_cost=None)
        assert isinstance(caught.value, InputError)
        assert caught.value.dead_ends == ("(dead)",)
        assert "(dead)" in str(caught.value)
    # With a penalty there is a policy, and it reaches the goal half of the time.
    solution = solve_ssp(task)
    assert evaluate(task, solution.policy).goal_probability == pytest.approx(0.5)
    # A task with a proper policy is solved in report mode too.
    safe = _gamble_task(3)
    assert solve_ssp(safe, dead_end_cost=None).value == pytest.approx(3.0)


def test_risk_free_loop_does_not_make_large_penalties_slow() -> None:
    # From s0 one can shuttle s0 <-> s1 forever at cost 1 per step, or take the only
    # exit: goal or dead end with probability 1/2. V(s0) = 1 + D/2. Without trap
    # elimination the shuttle's values would climb by one per pass up to D/2.
    facts = ["s1", "g", "dead"]
    task = make_task(
        facts,
        [
            ("there", [], [(1.0, ["s1"], [])]),
            ("back", ["s1"], [(1.0, [], ["s1"])]),
            ("exit", [], [(0.5, ["g"], []), (0.5, ["dead"], [])]),
        ],
        [],
        ["g"],
    )
    dead = 1 << facts.index("dead")
    s1 = 1 << facts.index("s1")
    actions = (
        ProbabilisticAction("there", (), 0, task.actions[0].outcomes, neg_pre=s1 | dead),
        ProbabilisticAction("back", (), s1, task.actions[1].outcomes, neg_pre=dead),
        ProbabilisticAction("exit", (), 0, task.actions[2].outcomes, neg_pre=s1 | dead),
    )
    task = ProbabilisticTask("loop", task.facts, actions, 0, task.goal)
    for method in METHODS:
        solution = solve_ssp(task, method=method, epsilon=1e-9)
        assert solution.value == pytest.approx(1 + DEFAULT_DEAD_END_COST / 2)
        assert solution.policy.action(0) == "exit"
        assert solution.iterations < 100


# --------------------------------------------------------------------------- random tasks


@pytest.mark.parametrize("seed", range(40))
def test_solvers_agree_with_textbook_value_iteration(seed: int) -> None:
    rng = random.Random(seed)
    task = random_task(rng) if seed % 2 else random_task(rng, n_facts=6, n_actions=10)
    penalty = 20.0
    expected = textbook_values(task, penalty)
    solutions = [
        solve_ssp(task, method="lao", dead_end_cost=penalty, epsilon=1e-10),
        solve_ssp(task, method="lao", dead_end_cost=penalty, epsilon=1e-10, heuristic="blind"),
        solve_ssp(task, method="vi", dead_end_cost=penalty, epsilon=1e-10),
    ]
    for solution in solutions:
        assert solution.converged
        assert solution.value == pytest.approx(expected[task.init], rel=1e-6, abs=1e-6)
        for state, value in solution.values.items():
            assert value == pytest.approx(expected[state], rel=1e-6, abs=1e-6)
        # The greedy policy really achieves the value (exact evaluation).
        achieved = evaluate(task, solution.policy, dead_end_cost=penalty).expected_cost
        assert achieved == pytest.approx(expected[task.init], rel=1e-6, abs=1e-6)


@pytest.mark.parametrize("seed", range(40))
def test_report_mode_raises_exactly_when_no_proper_policy_exists(seed: int) -> None:
    rng = random.Random(1000 + seed)
    task = random_task(rng) if seed % 2 else random_task(rng, n_facts=6, n_actions=10)
    has_proper = task.init in proper_states(task)
    for method in METHODS:
        if has_proper:
            solution = solve_ssp(task, method=method, dead_end_cost=None, epsilon=1e-10)
            assert solution.proper
            result = evaluate(task, solution.policy)
            assert result.goal_probability == pytest.approx(1.0)
            assert result.expected_cost == pytest.approx(solution.value, rel=1e-6)
        else:
            with pytest.raises(NoProperPolicy):
                solve_ssp(task, method=method, dead_end_cost=None)


@pytest.mark.parametrize("seed", range(30))
def test_relaxed_estimate_is_admissible(seed: int) -> None:
    task = random_task(random.Random(2000 + seed))
    estimate = RelaxedLayers(task)
    values = textbook_values(task, math.inf, sweeps=3000)
    for state, value in values.items():
        assert estimate(state) <= value + 1e-9


@pytest.mark.parametrize("seed", range(30))
def test_trap_bounds_stay_admissible(seed: int) -> None:
    # raise_trap's bound is claimed sound for *any* set of non-goal expanded states.
    rng = random.Random(2500 + seed)
    task = random_task(rng, n_facts=6, n_actions=9)
    penalty = 20.0
    expected = textbook_values(task, penalty)
    relaxed = RelaxedLayers(task)
    graph = ExplicitGraph(task, penalty, relaxed, DeadEndDetector(task, relaxed), Budget().start())
    for state in reachable_states(task).states:
        graph.generate(state)
        if graph.kind[state] == TIP:
            graph.expand(state)
    expanded = [s for s, k in graph.kind.items() if k == EXPANDED]
    for _ in range(20):
        if not expanded:
            break
        trap = set(rng.sample(expanded, rng.randint(1, len(expanded))))
        graph.raise_trap(trap)
        for state, value in graph.value.items():
            assert value <= expected[state] + 1e-9
        expanded = [s for s in expanded if graph.kind[s] == EXPANDED]


@pytest.mark.parametrize("seed", range(30))
def test_dead_end_detector_matches_breadth_first_search(seed: int) -> None:
    task = random_task(random.Random(3000 + seed))
    space = brute_space(task)
    expected = brute_dead_ends(task, space)
    detector = DeadEndDetector(task)
    # Shuffled order exercises the memo from both sides.
    states = list(space)
    random.Random(seed).shuffle(states)
    assert {s for s in states if detector.is_dead_end(s)} == expected


@pytest.mark.parametrize("seed", range(30))
def test_reachable_states_match_brute_force(seed: int) -> None:
    task = random_task(random.Random(4000 + seed))
    assert set(reachable_states(task).states) == set(brute_space(task))


@pytest.mark.parametrize("seed", range(25))
def test_exact_evaluation_matches_iteration_and_structure(seed: int) -> None:
    rng = random.Random(5000 + seed)
    task = random_task(rng)
    space = brute_space(task)
    # A random (not optimal) policy over every reachable non-goal state.
    table = {
        s: rng.choice(transitions)[0]
        for s, transitions in space.items()
        if transitions and not task.is_goal(s)
    }
    policy = Policy(task, table)
    graph = policy_graph(task, policy)
    for state in graph.states:
        out = graph.successors(state)
        if out:
            assert sum(out.values()) == pytest.approx(1.0)
            assert state not in graph.goal_states
    assert graph.dead_ends == frozenset(
        s for s in graph.states if s in brute_dead_ends(task, space)
    )
    result = evaluate(task, policy, dead_end_cost=7.0, graph=graph)
    if result.goal_probability + result.failure_probability > 1 - 1e-9:
        assert result.expected_cost == pytest.approx(
            iterative_policy_values(task, policy, 7.0), rel=1e-7, abs=1e-7
        )
    else:
        assert math.isinf(result.expected_cost)


@pytest.mark.parametrize("seed", range(6))
def test_evaluation_matches_monte_carlo(seed: int) -> None:
    rng = random.Random(6000 + seed)
    task = random_task(rng)
    solution = solve_ssp(task, dead_end_cost=15.0)
    exact = evaluate(task, solution.policy, dead_end_cost=15.0)
    runs = [simulate(task, solution.policy, rng, max_steps=10_000) for _ in range(4000)]
    goal_rate = sum(run.reached_goal for run in runs) / len(runs)
    sigma = math.sqrt(max(exact.goal_probability * (1 - exact.goal_probability), 1e-4) / 4000)
    assert abs(goal_rate - exact.goal_probability) < 5 * sigma + 1e-3
    costs = [run.cost + (0.0 if run.reached_goal else 15.0) for run in runs]
    mean = sum(costs) / len(costs)
    spread = math.sqrt(sum((c - mean) ** 2 for c in costs) / len(costs)) / math.sqrt(len(costs))
    assert abs(mean - exact.expected_cost) < 5 * spread + 1e-3


# --------------------------------------------------------------------------- policy files


def _solved_random(seed: int) -> tuple[ProbabilisticTask, Policy]:
    for offset in range(100):
        task = random_task(random.Random(7000 + seed + offset))
        policy = solve_ssp(task, dead_end_cost=10.0).policy
        if len(policy) >= 2:
            return task, policy
    raise AssertionError("no random task with a policy of two states")


def test_policy_file_round_trip(tmp_path: Path) -> None:
    task, policy = _solved_random(0)
    path = tmp_path / "policy.json"
    policy.save(path)
    data = json.loads(path.read_text())
    for key, action in data["policy"].items():
        assert all(fact.startswith("(") for fact in key.split())
        assert action in task.action_index
    loaded = Policy.load(path, task)
    assert dict(loaded.table) == dict(policy.table)


def test_mismatched_policy_files_are_rejected(tmp_path: Path) -> None:
    task, policy = _solved_random(1)
    good = policy.to_dict()
    key, action = next(iter(good["policy"].items()))

    def rejected(data: object, fragment: str) -> None:
        path = tmp_path / "bad.json"
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        with pytest.raises(PolicyFormatError) as caught:
            Policy.load(path, task)
        assert isinstance(caught.value, InputError)
        assert fragment in str(caught.value)

    rejected("{not json", "invalid JSON")
    rejected({"policy": []}, "'policy' object")
    rejected({"policy": {key + " (unknown-fact x)": action}}, "unknown fact (unknown-fact x)")
    rejected({"policy": {"garbage": action}}, "not a list of facts")
    rejected({"policy": {key: "no-such-action"}}, "unknown action 'no-such-action'")
    # An existing action in a state where it is not applicable.
    state = task.state_of(Atom(f[1:-1]) for f in key.split())
    inapplicable = [a.name for a in task.actions if not a.applicable(state)]
    if inapplicable:
        rejected({"policy": {key: inapplicable[0]}}, "not applicable")
    with pytest.raises(InputError):
        Policy.load(tmp_path / "missing.json", task)


def test_policy_for_another_task_is_rejected(tmp_path: Path) -> None:
    task = make_task(["g"], [("try", [], [(0.5, ["g"], []), (0.5, [], [])])], [], ["g"])
    other = make_task(["h"], [("go", [], [(1.0, ["h"], [])])], [], ["h"])
    path = tmp_path / "p.json"
    solve_ssp(task).policy.save(path)
    solved_other = solve_ssp(other).policy
    other_path = tmp_path / "q.json"
    solved_other.save(other_path)
    with pytest.raises(PolicyFormatError):
        Policy.load(other_path, task)
    # A key with a fact of the other task.
    path.write_text(json.dumps({"policy": {"(h)": "try"}}))
    with pytest.raises(PolicyFormatError, match=r"unknown fact \(h\)"):
        Policy.load(path, task)


# --------------------------------------------------------------------------- PPDDL


DOMAIN = """
(define (domain coin)
  (:requirements :typing :probabilistic-effects :conditional-effects :rewards)
  (:types spot)
  (:predicates (at ?s - spot) (link ?a ?b - spot) (won) (broken))
  (:action move
    :parameters (?a ?b - spot)
    :precondition (and (at ?a) (link ?a ?b) (not (broken)))
    :effect (and (probabilistic 3/4 (and (at ?b) (not (at ?a)))
                                1/8 (broken))
                 (decrease (reward) 4)))
  (:action flip
    :parameters (?s - spot)
    :precondition (and (at ?s) (not (broken)))
    :effect (probabilistic 1/2 (when (at ?s) (won))))
)
"""
PROBLEM = """
(define (problem coin1) (:domain coin)
  (:objects x y - spot)
  (:init (at x) (link x y))
  (:goal (and (at y) (won))))
"""


def test_grounding_ppddl_outcomes_and_costs() -> None:
    domain, problem = parse_domain(DOMAIN), parse_problem(PROBLEM)
    task = ground_probabilistic(domain, problem)
    move = task.actions[task.action_index["move x y"][0]]
    assert [o.probability for o in move.outcomes] == [0.75, 0.125, 0.125]  # + no change
    assert all(o.cost == 1.0 for o in move.outcomes)
    x, y, broken = (
        task.fact_index[Atom(*a)] for a in (("at", ("x",)), ("at", ("y",)), ("broken", ()))
    )
    first = move.outcomes[0].apply(task.init)
    assert first >> y & 1 and not first >> x & 1
    assert move.outcomes[1].apply(task.init) >> broken & 1
    assert move.outcomes[2].apply(task.init) == task.init
    flip = task.actions[task.action_index["flip x"][0]]
    assert len(flip.outcomes) == 2 and flip.outcomes[0].conditional
    rewarded = ground_probabilistic(domain, problem, cost="reward")
    move = rewarded.actions[rewarded.action_index["move x y"][0]]
    assert all(o.cost == 4.0 for o in move.outcomes)
    # Same facts, same order as the classical grounder.
    assert task.facts == ground(domain, problem, probabilistic="all-outcomes").facts
    solution = solve_ssp(rewarded)
    # flip until won (expected 2 steps of cost 1) and move (expected 4/3 tries of cost 4),
    # with a 1/7 risk of breaking per effective move attempt: compare with evaluation.
    result = evaluate(rewarded, solution.policy, dead_end_cost=DEFAULT_DEAD_END_COST)
    assert result.expected_cost == pytest.approx(solution.value, rel=1e-9)
    assert result.goal_probability == pytest.approx(6 / 7)


def test_action_costs_are_used_only_when_asked() -> None:
    domain = parse_domain(
        """(define (domain c) (:requirements :action-costs :probabilistic-effects)
             (:predicates (g)) (:functions (total-cost) - number)
             (:action a :effect (and (probabilistic 1/2 (g)) (increase (total-cost) 3))))"""
    )
    problem = parse_problem(
        """(define (problem c1) (:domain c) (:init (= (total-cost) 0)) (:goal (g))
             (:metric minimize (total-cost)))"""
    )
    assert solve_ssp(ground_probabilistic(domain, problem)).value == pytest.approx(2.0)
    costly = ground_probabilistic(domain, problem, cost="reward")
    assert solve_ssp(costly).value == pytest.approx(6.0)
    assert determinise(costly)[0].actions[0].cost == 3


def test_positive_rewards_are_refused_as_costs() -> None:
    domain = parse_domain(DOMAIN.replace("(decrease (reward) 4)", "(increase (reward) 4)"))
    problem = parse_problem(PROBLEM)
    with pytest.raises(UnsupportedFeature, match="positive reward"):
        ground_probabilistic(domain, problem, cost="reward")
    ground_probabilistic(domain, problem)  # unit costs ignore rewards


def test_determinisation_maps_actions_back_to_outcomes() -> None:
    domain, problem = parse_domain(DOMAIN), parse_problem(PROBLEM)
    task = ground_probabilistic(domain, problem)
    det, mapping = determinise(task)
    assert len(det.actions) == sum(len(a.outcomes) for a in task.actions)
    classical = ground(domain, problem, probabilistic="all-outcomes")
    assert sorted(a.name for a in det.actions) == sorted(a.name for a in classical.actions)
    for space_state in reachable_states(task).states:
        for i, action in enumerate(det.actions):
            a, o = mapping[i]
            original = task.actions[a]
            assert action.applicable(space_state) == original.applicable(space_state)
            if action.applicable(space_state):
                assert action.apply(space_state) == original.outcomes[o].apply(space_state)


def test_budget_exhaustion_is_reported() -> None:
    task = _gamble_task(6)
    solution = solve_ssp(task, budget=Budget(max_nodes=2))
    assert solution.status == "budget_exhausted"
    assert not solution.converged
    json.dumps(solution.to_dict())


# --------------------------------------------------------------------------- IPPC


def _ippc(relative: str, problem: str) -> ProbabilisticTask:
    folder = IPPC / relative
    if not folder.is_dir():
        pytest.skip(f"{folder} not available")
    domain_file = folder / "domain.pddl"
    return ground_probabilistic(read_domain(domain_file), read_problem(folder / problem))


@pytest.mark.parametrize(
    ("relative", "problem"),
    [
        ("ippc2006/tireworld", "p01.pddl"),
        ("ippc2006/elevators", "p02.pddl"),
        ("ippc2006/ex-blocksworld", "p01.pddl"),
        ("ippc2008/triangle-tireworld", "p02.pddl"),
    ],
)
def test_ippc_instances_are_solved_with_the_goal_reachable(relative: str, problem: str) -> None:
    task = _ippc(relative, problem)
    solution = solve_ssp(task)
    assert solution.status == "solved" and solution.converged
    graph = policy_graph(task, solution.policy)
    assert graph.goal_states and not graph.unhandled
    result = evaluate(task, solution.policy, dead_end_cost=DEFAULT_DEAD_END_COST, graph=graph)
    assert result.goal_probability > 0
    assert result.expected_cost == pytest.approx(solution.value, rel=1e-6)
    json.dumps(graph.to_dict())


def test_triangle_tireworld_has_a_proper_policy_and_tireworld_does_not() -> None:
    triangle = _ippc("ippc2008/triangle-tireworld", "p01.pddl")
    solution = solve_ssp(triangle, dead_end_cost=None)
    assert solution.proper
    assert evaluate(triangle, solution.policy).goal_probability == pytest.approx(1.0)
    tire = _ippc("ippc2006/tireworld", "p01.pddl")
    with pytest.raises(NoProperPolicy) as caught:
        solve_ssp(tire, dead_end_cost=None)
    assert caught.value.dead_ends
    assert all("(vehicle-at" in d for d in caught.value.dead_ends)


def test_ippc_vi_and_lao_agree() -> None:
    task = _ippc("ippc2008/triangle-tireworld", "p02.pddl")
    lao = solve_ssp(task, method="lao", epsilon=1e-9)
    vi = solve_ssp(task, method="vi", epsilon=1e-9)
    assert lao.value == pytest.approx(vi.value, rel=1e-7)
