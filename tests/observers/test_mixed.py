"""Mixed observers (MO-COPP): the book's truck numbers, the IP against brute force, the
IP and the ⟨k, j⟩ search against each other, budgets and bad input."""

from __future__ import annotations

import itertools
import random

import pytest

from xaip.domains.observers import truck
from xaip.errors import InputError
from xaip.observers.mixed import MixedObserver, solve_mixed
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Atom
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, Status


def _truck(true_goal=None, **kw):
    task, observers, goals = truck.load(true_goal)
    return solve_mixed(task, observers, goals, **kw)


def test_truck_plan_two_has_gd_one():
    result = _truck(method="ip", horizon=4)
    assert result.status == Status.FOUND and result.verified
    assert result.score == pytest.approx(1.0)
    assert sorted(result.plan) == ["load a1 fa", "load a2 fa"]
    assert len(result.goals_in_final_belief["C"]) == 1
    assert len(result.goals_in_final_belief["X"]) == 6


def test_truck_one_from_each_scores_point_four():
    # true goal {a1, b1}: the best any plan can do is 0.4 (C keeps the four A-B pairs)
    ip = _truck(method="ip", horizon=4, true_goal="a1-b1")
    assert ip.score == pytest.approx(0.4) and ip.verified
    assert len(ip.goals_in_final_belief["C"]) == 4
    # and GD = 1 is infeasible for it: ⟨k=6, j=1⟩ has no plan within 4 steps, by both methods
    assert _truck(method="ip", horizon=4, true_goal="a1-b1", k=6, j=1).status == Status.UNSOLVABLE
    assert _truck(method="search", horizon=4, true_goal="a1-b1", k=6, j=1).status == \
        Status.UNSOLVABLE


def test_search_meets_bounds_and_is_verified():
    result = _truck(method="search", k=6, j=1)
    assert result.status == Status.FOUND and result.verified
    assert len(result.goals_in_final_belief["X"]) >= 6
    assert len(result.goals_in_final_belief["C"]) <= 1


def test_one_node_budget_is_unfinished():
    for method in ("ip", "search"):
        result = _truck(method=method, budget=Budget(max_nodes=1))
        assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


def test_bad_inputs_are_one_line_errors():
    with pytest.raises(InputError, match="k = 9"):
        _truck(method="search", k=9)
    task, observers, _ = truck.load()
    with pytest.raises(InputError, match="never holds"):
        solve_mixed(task, observers, [["(loaded a1)"], ["(loaded zz)"]], true_goal=0)
    with pytest.raises(InputError, match="role"):
        MixedObserver("Y", "enemy", lambda action, state: "seen")
    with pytest.raises(InputError, match="unknown method"):
        _truck(method="magic")


def test_observer_names_must_differ_for_a_goal_set_too():
    """The roles, tokens and goals of a result are keyed by observer name: two observers
    with one name would silently merge, whichever form the goals take."""
    task, _, goals = truck.load()
    twins = [MixedObserver("same", "adversary", lambda action, state: "seen"),
             MixedObserver("same", "friend", lambda action, state: action.name)]
    with pytest.raises(InputError, match="names must differ"):
        solve_mixed(task, twins, goals)
    with pytest.raises(InputError, match="names must differ"):
        solve_mixed(task, twins, [["(loaded a1)"], ["(loaded a2)"]], true_goal=0)


# --------------------------------------------------------------------------- brute force


def _random_problem(seed: int):
    """A tiny random task (4 facts, 6 actions), two observers with random many-to-one
    sensors, three random candidate goals."""
    rng = random.Random(seed)
    facts = tuple(Atom(f"p{i}", ()) for i in range(4))
    actions = []
    for number in range(6):
        pre = rng.choice([0, 0, 1, 2, 4, 8, 3])
        add = 1 << rng.randrange(4)
        delete = (1 << rng.randrange(4)) & ~add if rng.random() < 0.5 else 0
        actions.append(GroundAction(f"a{number}", (), pre, add, delete))
    task = Task("random", facts, tuple(actions), init=0, goal=0)
    reachable = {0}
    frontier = [0]
    while frontier:
        s = frontier.pop()
        for a in actions:
            if a.applicable(s) and a.apply(s) not in reachable:
                reachable.add(a.apply(s))
                frontier.append(a.apply(s))
    masks = sorted({m for s in reachable if s for m in range(1, 16) if s & m == m})
    if len(masks) < 3:
        return None
    chosen = rng.sample(masks, 3)
    goals = [[f"(p{i})" for i in range(4) if m >> i & 1] for m in chosen]
    tables = [{a.name: rng.randrange(2) for a in actions} for _ in range(2)]
    sense_state = rng.random() < 0.5

    def sensor(table):
        def read(action, state):
            return f"t{table[action.name]}" + (f"/{state & 1}" if sense_state else "")
        return read

    observers = (MixedObserver("X", "adversary", sensor(tables[0])),
                 MixedObserver("C", "friend", sensor(tables[1])))
    return task, observers, goals, chosen


def _oracle(task, observers, masks, true_goal, horizon):
    """Best GD (and whether some plan meets each (k, j)) over every plan of at most
    ``horizon`` steps, beliefs recomputed from scratch for each plan."""
    def goals_of(belief):
        return sum(1 for m in masks if any(s & m == m for s in belief))

    best, feasible = None, set()
    for length in range(horizon + 1):
        for plan in itertools.product(task.actions, repeat=length):
            state, beliefs = task.init, [{task.init} for _ in observers]
            ok = True
            for action in plan:
                if not action.applicable(state):
                    ok = False
                    break
                state = action.apply(state)
                for i, o in enumerate(observers):
                    token = o.sensor(action, state)
                    beliefs[i] = {a.apply(s) for s in beliefs[i]
                                  for a in task.actions
                                  if a.applicable(s) and o.sensor(a, a.apply(s)) == token}
            if not ok or state & masks[true_goal] != masks[true_goal]:
                continue
            nx, nc = goals_of(beliefs[0]), goals_of(beliefs[1])
            gd = (nx - nc) / (len(masks) - 1)
            best = gd if best is None else max(best, gd)
            feasible |= {(k, j) for k in range(1, nx + 1) for j in range(nc, len(masks) + 1)}
    return best, feasible


@pytest.mark.parametrize("seed", range(20))
def test_ip_optimum_equals_brute_force_and_search_agrees(seed):
    made = _random_problem(seed)
    if made is None:
        pytest.skip("random instance without three distinct reachable goals")
    task, observers, goals, masks = made
    horizon = 3
    for true_goal in range(3):
        best, feasible = _oracle(task, observers, masks, true_goal, horizon)
        ip = solve_mixed(task, observers, goals, true_goal=true_goal, method="ip",
                         horizon=horizon)
        if best is None:
            assert ip.status == Status.UNSOLVABLE
            continue
        assert ip.status == Status.FOUND and ip.verified
        assert ip.score == pytest.approx(best)
        for k, j in itertools.product(range(1, 4), range(1, 4)):
            want = (k, j) in feasible
            by_ip = solve_mixed(task, observers, goals, true_goal=true_goal, method="ip",
                                horizon=horizon, k=k, j=j)
            by_search = solve_mixed(task, observers, goals, true_goal=true_goal,
                                    method="search", horizon=horizon, k=k, j=j)
            assert (by_ip.status == Status.FOUND) == want, (k, j)
            assert (by_search.status == Status.FOUND) == want, (k, j)
            if want:
                assert by_search.verified and by_ip.verified


def test_a_budgeted_ip_ends_within_its_budget():
    """A program too large to solve in one second (3 factories x 3 packages, 6 steps:
    17 000 columns) stops near the deadline with an unverified answer."""
    import time

    from xaip.planning import parse_domain, parse_problem

    packages = [f"p{f}{i}" for f in range(3) for i in range(3)]
    init = " ".join(f"(at p{f}{i} f{f})" for f in range(3) for i in range(3))
    problem = parse_problem(
        f"(define (problem t) (:domain truck) (:objects {' '.join(packages)} - package "
        f"f0 f1 f2 - factory) (:init {init}) (:goal (and (loaded p00) (loaded p01))))")
    task = ground(parse_domain(truck.DOMAIN.read_text()), problem)
    goals = [[f"(loaded {a})", f"(loaded {b})"] for a, b in
             itertools.combinations(packages, 2)]
    observers = (MixedObserver("X", "adversary", lambda a, s: a.schema),
                 MixedObserver("C", "friend", lambda a, s: f"{a.schema}|{a.args[-1]}"))
    started = time.perf_counter()
    result = solve_mixed(task, observers, goals, true_goal=0, method="ip", horizon=6,
                         budget=Budget(max_seconds=1.0))
    assert time.perf_counter() - started < 1.0 + 5.0
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


def test_the_checker_refutes_a_false_no_plan_claim():
    import dataclasses

    from xaip.observers.mixed import make_inputs
    from xaip.observers.mixed_check import check_mixed

    task, observers, goals = truck.load()
    found = solve_mixed(task, observers, goals, method="search", k=6, j=1, horizon=4)
    assert found.status == Status.FOUND
    claim = dataclasses.replace(found, status=Status.UNSOLVABLE, plan=())
    report = check_mixed(make_inputs(task, observers, goals), claim)
    assert report.ok is False and "found a plan of" in report.details
    # without a horizon the reachable (state, beliefs) pairs are finite: checked too
    assert check_mixed(make_inputs(task, observers, goals),
                       dataclasses.replace(claim, horizon=None)).ok is False


def test_the_checker_refutes_a_false_optimality_claim():
    """An IP answer claims the best GD within its horizon (then the fewest steps); the
    checker's own search over (state, beliefs) re-proves it (issue 21)."""
    import dataclasses

    from xaip.observers.mixed import describe_plan, explore, make_inputs
    from xaip.observers.mixed_check import check_mixed

    from .tiny import random_walk

    walk = random_walk(5, n=5, goals=3)
    problem = walk.problem()
    observers = (MixedObserver("X", "adversary", lambda a, s: a.schema),
                 MixedObserver("C", "friend", lambda a, s: a.name))
    best = solve_mixed(problem.task, observers, problem.goals, method="ip", horizon=4)
    assert best.verified and "higher GD" in best.check.details
    inputs = make_inputs(problem.task, observers, problem.goals)
    space = explore(inputs, Budget().start())
    assert space is not None
    # a longer plan to the same goal: shortest plus a detour, still within the horizon
    worse = None
    stack: list[tuple[int, tuple[int, ...]]] = [(space.initial, ())]
    while stack and worse is None:
        state, path = stack.pop()
        if space.satisfies(state, inputs.true_goal) and len(path) > len(best.plan):
            worse = path
        if len(path) < 4:
            stack.extend((space.transitions[t][2], (*path, t)) for t in space.outgoing[state])
    assert worse is not None
    claim = dataclasses.replace(best, **describe_plan(space, worse))
    report = check_mixed(inputs, claim)
    assert report.ok is False and ("not GD-optimal" in report.details
                                   or "not the shortest" in report.details)
