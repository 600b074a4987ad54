"""Grounded features: Γ of a Task, grounded diffs, and edits applied to a Task.

Oracles: the book's grounded Fetch difference (5 features), brute-force optimal costs by
Dijkstra over the task's states, and agreement between editing the lifted model and
editing its grounding.
"""

from __future__ import annotations

import dataclasses
import heapq
import itertools
from collections.abc import Sequence
from fractions import Fraction

import pytest

from tests.planning.test_features import (
    action,
    atom,
    fetch_human,
    fetch_problem,
    fetch_robot,
)
from xaip.errors import SemanticError
from xaip.planning.features import (
    Edit,
    Feature,
    FeatureKind,
    add,
    apply_edits,
    apply_task_edits,
    model_diff,
    remove,
    task_diff,
    task_features,
    update_features,
)
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Atom, Or, Predicate, When
from xaip.planning.task import Task

LOC12 = ("loc1", "loc2")
LOC21 = ("loc2", "loc1")
ROBOT_PLAN = ("pick-up b1 loc1", "tuck", "move loc1 loc2", "put-down b1 loc2")


def optimal_cost(task: Task, limit: int = 50_000) -> int | None:
    """Dijkstra over the whole state space; ``None`` when the goal is unreachable."""
    frontier = [(0, task.init)]
    best = {task.init: 0}
    while frontier:
        cost, state = heapq.heappop(frontier)
        if cost > best[state]:
            continue
        if task.is_goal(state):
            return cost
        assert len(best) < limit
        for ground_action in task.applicable(state):
            successor = ground_action.apply(state)
            new = cost + ground_action.cost
            if new < best.get(successor, new + 1):
                best[successor] = new
                heapq.heappush(frontier, (new, successor))
    return None


def plan_cost(task: Task, names: Sequence[str]) -> int | None:
    """Cost of a plan given by ground action names; ``None`` if it is invalid."""
    state, cost = task.init, 0
    for name in names:
        options = [task.actions[i] for i in task.action_index.get(name, ())
                   if task.actions[i].applicable(state)]
        if not options:
            return None
        state = options[0].apply(state)
        cost += options[0].cost
    return cost if task.is_goal(state) else None


def explains(task: Task) -> bool:
    cost = plan_cost(task, ROBOT_PLAN)
    return cost is not None and cost == optimal_cost(task)


def test_grounded_features_of_fetch() -> None:
    task = ground(fetch_robot(), fetch_problem())
    features = task_features(task)
    assert Feature.precondition("move", LOC12, atom("hand-tucked")) in features
    assert Feature.delete_effect("pick-up", ("b1", "loc1"), atom("block-at b1 loc1")) in features
    assert Feature.cost("tuck", (), 1) in features
    assert Feature.init(atom("robot-at loc1")) in features
    assert Feature.goal(atom("block-at b1 loc2")) in features
    assert all(not f.is_lifted for f in features)
    assert str(Feature.precondition("move", LOC12, atom("hand-tucked"))) == (
        "move(loc1, loc2) requires (hand-tucked)"
    )


def test_grounded_fetch_difference_is_the_books() -> None:
    robot, human = ground(fetch_robot(), fetch_problem()), ground(fetch_human(), fetch_problem())
    d = task_diff(robot, human)
    assert set(d.only_in_a) == {
        Feature.precondition("move", LOC12, atom("hand-tucked")),
        Feature.precondition("move", LOC12, atom("crouched")),
        Feature.precondition("move", LOC21, atom("hand-tucked")),
        Feature.precondition("move", LOC21, atom("crouched")),
        Feature.add_effect("tuck", (), atom("crouched")),
    }
    assert d.only_in_b == () and d.value_changes == () and d.structural == ()
    assert task_diff(human, robot).only_in_b == d.only_in_a


def test_every_subset_of_grounded_edits_matches_set_algebra_and_the_books_explanations() -> None:
    robot, human = ground(fetch_robot(), fetch_problem()), ground(fetch_human(), fetch_problem())
    edits = task_diff(human, robot).edits()
    assert len(edits) == 5 and explains(robot) and not explains(human)
    complete: list[frozenset[Edit]] = []
    for size in range(len(edits) + 1):
        for chosen in itertools.combinations(edits, size):
            edited = apply_task_edits(human, chosen)
            assert task_features(edited) == update_features(task_features(human), chosen)
            if explains(edited):
                complete.append(frozenset(chosen))
    # MCE: the unique smallest complete explanation (book §4.4).
    smallest = min(len(e) for e in complete)
    assert [set(e) for e in complete if len(e) == smallest] == [
        {add(Feature.precondition("move", LOC12, atom("hand-tucked")))}
    ]
    # MMEs: largest sets of robot->human edits keeping the plan optimal under every subset.
    towards_human = task_diff(robot, human).edits()
    safe = [
        set(chosen)
        for size in range(len(towards_human) + 1)
        for chosen in itertools.combinations(towards_human, size)
        if all(explains(apply_task_edits(robot, sub))
               for r in range(size + 1) for sub in itertools.combinations(chosen, r))
    ]
    largest = max(len(s) for s in safe)
    mmes = {
        frozenset(e.feature for e in towards_human if e not in s) for s in safe
        if len(s) == largest
    }
    assert mmes == {
        frozenset({Feature.add_effect("tuck", (), atom("crouched")),
                   Feature.precondition("move", LOC12, atom("crouched"))}),
        frozenset({Feature.add_effect("tuck", (), atom("crouched")),
                   Feature.precondition("move", LOC12, atom("hand-tucked"))}),
    }


def test_lifted_and_grounded_edits_agree() -> None:
    human, robot, problem = fetch_human(), fetch_robot(), fetch_problem()
    lifted = model_diff(human, robot, problem).edits()
    human_task = ground(human, problem)
    for size in range(len(lifted) + 1):
        for chosen in itertools.combinations(lifted, size):
            domain, _ = apply_edits(human, problem, chosen)
            grounded_edits = [
                Edit(Feature(e.feature.kind, a.schema, a.args,
                             Atom(e.feature.atom.predicate, tuple(
                                 dict(zip(e.feature.parameters, a.args, strict=True)).get(x, x)
                                 for x in e.feature.atom.args))), e.op)
                for e in chosen
                for a in human_task.actions if a.schema == e.feature.action
                if e.feature.atom is not None
            ]
            via_task = apply_task_edits(human_task, grounded_edits)
            assert task_features(via_task) == task_features(ground(domain, problem))
            assert optimal_cost(via_task) == optimal_cost(ground(domain, problem))


def test_apply_keeps_untouched_actions_and_masks() -> None:
    human = ground(fetch_human(), fetch_problem())
    edited = apply_task_edits(human, [add(Feature.precondition("move", LOC12,
                                                               atom("hand-tucked")))])
    assert edited.facts == human.facts and edited.init == human.init
    for before, after in zip(human.actions, edited.actions, strict=True):
        assert (before is after) == (before.name != "move loc1 loc2")
    assert apply_task_edits(human, []) is human
    assert apply_task_edits(human, [remove(Feature.init(atom("crouched")))]) is human


def _static_world() -> tuple[Task, Task]:
    """A human model in which nothing changes (crouched) and nothing mentions (charged)."""
    domain = fetch_human()
    domain = dataclasses.replace(
        domain,
        predicates=(*domain.predicates, Predicate("charged")),
        actions=tuple(a for a in domain.actions if a.name != "crouch"),
    )
    problem = dataclasses.replace(fetch_problem(),
                                  init=(*fetch_problem().init, atom("crouched")))
    return ground(domain, problem), ground(fetch_robot(), problem)


def test_static_and_unknown_facts_extend_the_fact_table() -> None:
    human, _ = _static_world()
    assert atom("crouched") in human.static_facts and atom("crouched") not in human.fact_index
    assert optimal_cost(human) == 3
    needs_crouched = apply_task_edits(
        human, [add(Feature.precondition("move", LOC12, atom("crouched")))])
    assert needs_crouched.facts[:len(human.facts)] == human.facts
    assert needs_crouched.facts[-1] == atom("crouched")
    assert atom("crouched") not in needs_crouched.static_facts
    assert needs_crouched.init >> (len(human.facts)) == 1  # static facts start true
    assert Feature.init(atom("crouched")) in task_features(needs_crouched)
    assert optimal_cost(needs_crouched) == 3
    needs_charge = apply_task_edits(
        human, [add(Feature.precondition("move", LOC12, atom("charged")))])
    assert needs_charge.facts[-1] == atom("charged")
    assert optimal_cost(needs_charge) is None  # unknown facts start false (closed world)
    charging = apply_task_edits(needs_charge, [add(Feature.add_effect("tuck", (),
                                                                      atom("charged")))])
    assert optimal_cost(charging) == 4


def test_ground_actions_are_created_and_deleted() -> None:
    human, robot = _static_world()
    d = task_diff(human, robot)
    assert Feature.cost("crouch", (), 1) in d.only_in_b
    rebuilt = apply_task_edits(human, d.edits())
    assert task_features(rebuilt) == task_features(robot)
    assert optimal_cost(rebuilt) == optimal_cost(robot) == 4
    back = apply_task_edits(rebuilt, task_diff(rebuilt, human).edits())
    assert task_features(back) == task_features(human)
    assert "crouch" not in back.action_index


def test_cost_edits_on_tasks() -> None:
    human = ground(fetch_human(), fetch_problem())
    dear = apply_task_edits(human, [add(Feature.cost("move", LOC12, 5))])
    assert dear.has_costs and optimal_cost(dear) == 7
    assert task_diff(human, dear).cost_changes[0].after.value == 5
    for bad in (Feature.cost("move", LOC12, -1), Feature.cost("move", LOC12, Fraction(1, 2))):
        with pytest.raises(SemanticError, match="non-negative integer"):
            apply_task_edits(human, [add(bad)])
    with pytest.raises(SemanticError, match="lifted"):
        apply_task_edits(human, [add(Feature.precondition("move", ("?a", "?b"),
                                                          atom("crouched")))])


def test_disjunctive_variants_share_their_common_features() -> None:
    domain = fetch_human()
    either = Or((atom("hand-tucked"), atom("crouched")))
    domain = dataclasses.replace(domain, actions=tuple(
        action("move", "?a ?b - location", ("robot-at ?a", "-= ?a ?b"),
               ("robot-at ?b", "-robot-at ?a"), pre_rest=(either,)) if a.name == "move" else a
        for a in domain.actions
    ))
    task = ground(domain, fetch_problem())
    variants = task.action_index["move loc1 loc2"]
    assert len(variants) == 2
    features = {f for f in task_features(task) if f.action == "move" and f.parameters == LOC12}
    assert {f.atom for f in features if f.kind is FeatureKind.PRECONDITION} == {
        atom("robot-at loc1")}
    edited = apply_task_edits(task, [add(Feature.precondition("move", LOC12, atom("hand-empty"))),
                                     remove(Feature.precondition("move", LOC12,
                                                                 atom("crouched")))])
    bit = 1 << edited.fact_index[atom("hand-empty")]
    assert all(edited.actions[i].pre & bit for i in edited.action_index["move loc1 loc2"])
    # The per-variant residue is not a feature but is reported as structure.
    plain = ground(fetch_human(), fetch_problem())
    d = task_diff(plain, task)
    assert [s.where for s in d.structural] == ["ground action move loc1 loc2",
                                               "ground action move loc2 loc1"]
    assert d.structural[0].in_b == ("(or (crouched) (hand-tucked))",)


def test_goal_edits_on_tasks() -> None:
    task = ground(fetch_human(), fetch_problem())
    edits = [
        remove(Feature.goal(atom("block-at b1 loc2"))),
        add(Feature.goal(atom("hand-tucked"))),
        add(Feature.negative_goal(atom("hand-empty"))),
    ]
    edited = apply_task_edits(task, edits)
    assert optimal_cost(edited) == 2  # pick-up b1 loc1, tuck
    assert task_features(edited) == update_features(task_features(task), edits)


def test_conditional_effects_are_grounded_structure() -> None:
    domain = fetch_human()
    domain = dataclasses.replace(domain, actions=tuple(
        action("tuck", "", (), ("hand-tucked",),
               eff_rest=(When(atom("hand-empty"), atom("crouched")),))
        if a.name == "tuck" else a
        for a in domain.actions
    ))
    plain, conditional = ground(fetch_human(), fetch_problem()), ground(domain, fetch_problem())
    d = task_diff(plain, conditional)
    assert d.features_equal
    assert [(s.where, s.in_a, s.in_b) for s in d.structural] == [
        ("ground action tuck", (), ("(when (hand-empty) (crouched))",))
    ]
    # Edits keep conditional effects.
    edited = apply_task_edits(conditional, [add(Feature.precondition("tuck", (),
                                                                     atom("hand-empty")))])
    assert edited.actions[edited.action_index["tuck"][0]].conditional
