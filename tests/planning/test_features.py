"""Model features on hand-built lifted models: extraction, diff, edits, sentences.

The models are the book's Fetch example (robot and human) and small variations of it.
The central oracle is set algebra: for every subset of edits, applying them to the model
and extracting features must equal ``(Γ(M) ∪ E⁺) \\ E⁻`` computed on feature sets.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from fractions import Fraction

import pytest

from xaip.errors import SemanticError
from xaip.planning.features import (
    Edit,
    Feature,
    FeatureKind,
    add,
    apply_edits,
    diff,
    domain_features,
    model_diff,
    model_features,
    problem_features,
    remove,
    sentence,
    update_features,
)
from xaip.planning.pddl.model import (
    Action,
    And,
    AndEffect,
    Atom,
    Condition,
    Domain,
    Effect,
    Exists,
    Forall,
    ForallEffect,
    Function,
    FunctionTerm,
    Increase,
    Not,
    Or,
    Predicate,
    Problem,
    TypedName,
    When,
)

# --------------------------------------------------------------------------- builders


def atom(text: str) -> Atom:
    """``"robot-at ?from"`` -> ``Atom("robot-at", ("?from",))``."""
    name, *args = text.split()
    return Atom(name, tuple(args))


def literal(text: str) -> Atom | Not:
    """``"p ?x"`` is an atom, ``"-p ?x"`` its negation."""
    return Not(atom(text[1:])) if text.startswith("-") else atom(text)


def params(text: str) -> tuple[TypedName, ...]:
    """``"?b - box ?l - location"`` -> typed parameters."""
    out: list[TypedName] = []
    pending: list[str] = []
    tokens = text.split()
    i = 0
    while i < len(tokens):
        if tokens[i] == "-":
            out += [TypedName(n, tokens[i + 1]) for n in pending]
            pending = []
            i += 2
        else:
            pending.append(tokens[i])
            i += 1
    return tuple(out) + tuple(TypedName(n) for n in pending)


def action(
    name: str,
    parameters: str = "",
    pre: tuple[str, ...] = (),
    eff: tuple[str, ...] = (),
    cost: int | FunctionTerm | None = None,
    pre_rest: tuple[Condition, ...] = (),
    eff_rest: tuple[Effect, ...] = (),
) -> Action:
    effects: list[Effect] = [literal(e) for e in eff]
    if cost is not None:
        value = Fraction(cost) if isinstance(cost, int) else cost
        effects.append(Increase(FunctionTerm("total-cost"), value))
    return Action(
        name,
        params(parameters),
        And(tuple(literal(p) for p in pre) + pre_rest),
        AndEffect(tuple(effects) + eff_rest),
    )


FETCH_TYPES = (("location", "object"), ("box", "object"))
FETCH_PREDICATES = (
    Predicate("robot-at", params("?l - location")),
    Predicate("block-at", params("?b - box ?l - location")),
    Predicate("holding", params("?b - box")),
    Predicate("hand-empty"),
    Predicate("hand-tucked"),
    Predicate("crouched"),
)


def fetch_robot() -> Domain:
    """The book's Fetch robot model (§4.4); ``move`` excludes moving in place."""
    return Domain(
        "fetch",
        (":strips", ":typing"),
        FETCH_TYPES,
        (),
        FETCH_PREDICATES,
        (),
        (
            action("move", "?from ?to - location",
                   ("robot-at ?from", "hand-tucked", "crouched", "-= ?from ?to"),
                   ("robot-at ?to", "-robot-at ?from")),
            action("tuck", "", (), ("hand-tucked", "crouched")),
            action("crouch", "", (), ("crouched",)),
            action("pick-up", "?b - box ?l - location",
                   ("hand-empty", "block-at ?b ?l", "robot-at ?l"),
                   ("holding ?b", "-hand-empty", "-block-at ?b ?l")),
            action("put-down", "?b - box ?l - location", ("holding ?b", "robot-at ?l"),
                   ("block-at ?b ?l", "hand-empty", "-holding ?b")),
        ),
    )


def fetch_human() -> Domain:
    """The human's Fetch model; it names some parameters differently on purpose."""
    return Domain(
        "fetch",
        (":strips", ":typing"),
        FETCH_TYPES,
        (),
        FETCH_PREDICATES,
        (),
        (
            action("move", "?a ?b - location", ("robot-at ?a", "-= ?a ?b"),
                   ("robot-at ?b", "-robot-at ?a")),
            action("tuck", "", (), ("hand-tucked",)),
            action("crouch", "", (), ("crouched",)),
            action("pick-up", "?obj - box ?loc - location",
                   ("hand-empty", "block-at ?obj ?loc", "robot-at ?loc"),
                   ("holding ?obj", "-hand-empty", "-block-at ?obj ?loc")),
            action("put-down", "?b - box ?l - location", ("holding ?b", "robot-at ?l"),
                   ("block-at ?b ?l", "hand-empty", "-holding ?b")),
        ),
    )


def fetch_problem() -> Problem:
    return Problem(
        "fetch-1",
        "fetch",
        (),
        params("b1 - box loc1 loc2 - location"),
        (atom("block-at b1 loc1"), atom("robot-at loc1"), atom("hand-empty")),
        (),
        And((atom("block-at b1 loc2"),)),
    )


MOVE = ("?from", "?to")


def subsets(items: tuple[Edit, ...]) -> list[tuple[Edit, ...]]:
    return [c for r in range(len(items) + 1) for c in itertools.combinations(items, r)]


# --------------------------------------------------------------------------- extraction


def test_action_features_are_the_strips_literals() -> None:
    features = domain_features(fetch_robot())
    move = {f for f in features if f.action == "move"}
    assert move == {
        Feature.precondition("move", MOVE, atom("robot-at ?from")),
        Feature.precondition("move", MOVE, atom("hand-tucked")),
        Feature.precondition("move", MOVE, atom("crouched")),
        Feature.negative_precondition("move", MOVE, Atom("=", MOVE)),
        Feature.add_effect("move", MOVE, atom("robot-at ?to")),
        Feature.delete_effect("move", MOVE, atom("robot-at ?from")),
        Feature.cost("move", MOVE, 1),  # no action costs: unit cost
    }
    # 7 + 3 + 2 + 7 + 6 features, one cost each.
    assert len(features) == 25


def test_features_compare_modulo_parameter_names() -> None:
    a = Feature.precondition("pick-up", ("?b", "?l"), atom("block-at ?b ?l"))
    b = Feature.precondition("pick-up", ("?obj", "?loc"), atom("block-at ?obj ?loc"))
    swapped = Feature.precondition("pick-up", ("?obj", "?loc"), atom("block-at ?loc ?obj"))
    assert a == b and hash(a) == hash(b)
    assert a != swapped
    assert not (a < b) and not (b < a)
    assert len({a, b, swapped}) == 2
    # Constants are not renamed; a ground feature compares by its objects.
    ground = Feature.precondition("pick-up", ("b1", "loc1"), atom("block-at b1 loc1"))
    other = Feature.precondition("pick-up", ("b2", "loc1"), atom("block-at b2 loc1"))
    assert ground != other and not ground.is_lifted and a.is_lifted
    assert b.renamed(("?b", "?l")).atom == atom("block-at ?b ?l")


def test_features_are_orderable_and_listed_by_kind() -> None:
    features = sorted(model_features(fetch_robot(), fetch_problem()))
    kinds = [f.kind for f in features]
    order = list(FeatureKind)
    assert kinds == sorted(kinds, key=order.index)
    assert sorted(reversed(features)) == features


def test_renamed_parameters_give_equal_feature_sets() -> None:
    human = fetch_human()
    robot = fetch_robot()
    pick_h = {f for f in domain_features(human) if f.action == "pick-up"}
    pick_r = {f for f in domain_features(robot) if f.action == "pick-up"}
    assert pick_h == pick_r
    assert {f.parameters for f in pick_h} == {("?obj", "?loc")}


def test_remainder_is_not_a_feature() -> None:
    rest_pre: Condition = Or((atom("hand-empty"), atom("hand-tucked")))
    rest_eff: Effect = When(atom("hand-tucked"), atom("crouched"))
    quantified = Forall(params("?b - box"), Not(atom("holding ?b")))
    universal = ForallEffect(params("?b - box"), Not(atom("holding ?b")))
    odd = action("odd", "?l - location", ("robot-at ?l",), ("-robot-at ?l",),
                 pre_rest=(rest_pre, quantified), eff_rest=(rest_eff, universal))
    domain = dataclasses.replace(fetch_robot(), actions=(odd,))
    assert domain_features(domain) == {
        Feature.precondition("odd", ("?l",), atom("robot-at ?l")),
        Feature.delete_effect("odd", ("?l",), atom("robot-at ?l")),
        Feature.cost("odd", ("?l",), 1),
    }
    # Edits keep the remainder as it is.
    new, _ = apply_edits(domain, None, [add(Feature.add_effect("odd", ("?x",), atom("crouched")))])
    edited = new.action("odd")
    assert isinstance(edited.precondition, And) and isinstance(edited.effect, AndEffect)
    assert rest_pre in edited.precondition.operands and quantified in edited.precondition.operands
    assert rest_eff in edited.effect.operands and universal in edited.effect.operands
    assert atom("crouched") in edited.effect.operands


def test_costs_with_action_costs() -> None:
    drive = action("drive", "?a ?b - location", ("robot-at ?a",), ("robot-at ?b",), cost=3)
    fly = action("fly", "?a ?b - location", (), (), cost=FunctionTerm("dist", ("?a", "?b")))
    free = action("wait")
    domain = Domain(
        "costs", (":action-costs",), FETCH_TYPES, (), FETCH_PREDICATES,
        (Function("total-cost"), Function("dist", params("?a ?b - location"))),
        (drive, fly, free),
    )
    costs = {f.action: f.value for f in domain_features(domain) if f.kind is FeatureKind.COST}
    assert costs == {"drive": 3, "fly": FunctionTerm("dist", ("?a", "?b")), "wait": 0}
    # Fluent-term costs compare modulo parameter names, too.
    assert Feature.cost("fly", ("?x", "?y"), FunctionTerm("dist", ("?x", "?y"))) in (
        domain_features(domain)
    )


def test_problem_features() -> None:
    problem = dataclasses.replace(
        fetch_problem(),
        numeric_init=((FunctionTerm("total-cost"), Fraction(0)),
                      (FunctionTerm("dist", ("loc1", "loc2")), Fraction(5))),
        goal=And((atom("block-at b1 loc2"), Not(atom("hand-empty")),
                  Or((atom("crouched"), atom("hand-tucked"))))),
    )
    assert problem_features(problem) == {
        Feature.init(atom("block-at b1 loc1")),
        Feature.init(atom("robot-at loc1")),
        Feature.init(atom("hand-empty")),
        Feature.init_value(FunctionTerm("dist", ("loc1", "loc2")), 5),
        Feature.goal(atom("block-at b1 loc2")),
        Feature.negative_goal(atom("hand-empty")),
    }


# --------------------------------------------------------------------------- diff


def test_fetch_diff_is_the_book_difference() -> None:
    d = model_diff(fetch_robot(), fetch_human(), fetch_problem())
    assert d.only_in_a == tuple(sorted((
        Feature.precondition("move", MOVE, atom("hand-tucked")),
        Feature.precondition("move", MOVE, atom("crouched")),
        Feature.add_effect("tuck", (), atom("crouched")),
    )))
    assert d.only_in_b == () and d.value_changes == ()
    assert d.mismatches == () and d.structural == ()
    assert d.size == 3
    # A's features are written in A's names.
    assert {f.parameters for f in d.only_in_a} == {MOVE, ()}


def test_diff_is_symmetric_and_reversible() -> None:
    robot, human = model_features(fetch_robot()), model_features(fetch_human())
    ab, ba = diff(robot, human), diff(human, robot)
    assert ab.only_in_a == ba.only_in_b and ab.only_in_b == ba.only_in_a
    assert ab.reversed() == ba
    assert diff(robot, robot).is_empty


def with_costs(domain: Domain, costs: dict[str, int]) -> Domain:
    """``domain`` with action costs: ``(increase (total-cost) n)`` per listed action."""

    def costed(a: Action) -> Action:
        if a.name not in costs:
            return a
        increase = Increase(FunctionTerm("total-cost"), Fraction(costs[a.name]))
        assert isinstance(a.effect, AndEffect)
        return dataclasses.replace(a, effect=AndEffect((*a.effect.operands, increase)))

    return dataclasses.replace(
        domain,
        requirements=(*domain.requirements, ":action-costs"),
        functions=(Function("total-cost"),),
        actions=tuple(costed(a) for a in domain.actions),
    )


def test_cost_change_is_one_edit() -> None:
    names = [a.name for a in fetch_robot().actions]
    cheap = with_costs(fetch_robot(), dict.fromkeys(names, 1))
    dear = with_costs(fetch_robot(), {**dict.fromkeys(names, 1), "tuck": 4})
    d = model_diff(cheap, dear)
    assert d.only_in_a == d.only_in_b == ()
    assert len(d.cost_changes) == 1 and d.size == 1
    change = d.cost_changes[0]
    assert (change.before.value, change.after.value) == (1, 4)
    assert str(change) == "tuck() costs 1 in A but 4 in B"
    new, _ = apply_edits(cheap, None, d.edits())
    assert domain_features(new) == domain_features(dear)
    assert [a is b for a, b in zip(new.actions, cheap.actions, strict=True)] == [
        a.name != "tuck" for a in cheap.actions
    ]


def test_vocabulary_mismatches_are_reported_not_raised() -> None:
    robot = fetch_robot()
    other = dataclasses.replace(
        robot,
        predicates=(*robot.predicates[:-1], Predicate("crouched", params("?l - location")),
                    Predicate("charged")),
        actions=tuple(
            dataclasses.replace(a, parameters=params("?b - location ?l - location"))
            if a.name == "pick-up" else a
            for a in robot.actions if a.name != "crouch"
        ),
    )
    d = model_diff(robot, other)
    found = {(m.category, m.name): m for m in d.mismatches}
    assert set(found) == {("predicate", "crouched"), ("predicate", "charged"),
                          ("action", "crouch"), ("action", "pick-up")}
    assert found["predicate", "charged"].in_a is None
    assert found["action", "crouch"].in_b is None
    assert "pick-up(?b - box, ?l - location)" in str(found["action", "pick-up"])
    assert "?b - location" in str(found["action", "pick-up"])
    with pytest.raises(SemanticError, match="crouched"):
        d.raise_for_mismatches()
    assert d.reversed().mismatches == model_diff(other, robot).mismatches


def test_structural_differences_are_reported() -> None:
    robot = fetch_robot()
    conditional = When(atom("hand-tucked"), atom("crouched"))
    other = dataclasses.replace(robot, actions=tuple(
        action("move", "?x ?y - location", ("robot-at ?x",), ("robot-at ?y",),
               pre_rest=(Exists(params("?b - box"), atom("holding ?b")),),
               eff_rest=(conditional,))
        if a.name == "move" else a for a in robot.actions
    ))
    same = dataclasses.replace(other, actions=tuple(
        action("move", "?p ?q - location", ("robot-at ?p",), ("robot-at ?q",),
               pre_rest=(Exists(params("?b - box"), atom("holding ?b")),),
               eff_rest=(conditional,))
        if a.name == "move" else a for a in other.actions
    ))
    d = model_diff(robot, other)
    assert [s.where for s in d.structural] == ["action move: effect", "action move: precondition"]
    assert d.structural[1].in_b == ("(exists (?b - box) (holding ?b))",)
    assert "not expressible as features" in str(d.structural[0])
    # Renamed parameters do not make remainders differ.
    assert model_diff(other, same).is_empty


def test_goal_structure_is_reported() -> None:
    problem = fetch_problem()
    other = dataclasses.replace(problem, goal=And((atom("block-at b1 loc2"),
                                                  Or((atom("crouched"), atom("hand-tucked"))))))
    d = model_diff(fetch_robot(), fetch_robot(), problem, other)
    assert d.features_equal and [s.where for s in d.structural] == ["goal"]


# --------------------------------------------------------------------------- applying


def test_every_subset_of_the_fetch_difference_applies_as_set_algebra() -> None:
    robot, human, problem = fetch_robot(), fetch_human(), fetch_problem()
    d = model_diff(human, robot, problem)
    towards_robot = d.edits()
    assert len(towards_robot) == 3
    for edits in subsets(towards_robot):
        new, new_problem = apply_edits(human, problem, edits)
        assert new_problem is problem
        expected = update_features(model_features(human, problem), edits)
        assert model_features(new, problem) == expected
    full, _ = apply_edits(human, problem, towards_robot)
    assert domain_features(full) == domain_features(robot)


def test_random_edits_match_set_algebra() -> None:
    """Random add/remove sets over the union of two models' features (with renaming)."""
    robot, human, problem = fetch_robot(), fetch_human(), fetch_problem()
    universe = sorted(
        f for f in model_features(robot, problem) | model_features(human, problem)
        if not f.is_functional
    )
    extra_init = [Feature.init(atom("crouched")), Feature.goal(atom("hand-tucked")),
                  Feature.negative_goal(atom("holding b1"))]
    rng = random.Random(7)
    for _ in range(60):
        chosen = rng.sample(universe + extra_init, 6)
        edits = [Edit(f, rng.choice(("add", "remove"))) for f in chosen]
        new, new_problem = apply_edits(human, problem, edits)
        assert new_problem is not None
        assert model_features(new, new_problem) == update_features(
            model_features(human, problem), edits
        )


def test_apply_is_pure_and_keeps_untouched_parts() -> None:
    human, problem = fetch_human(), fetch_problem()
    before = (hash(human), hash(problem))
    edit = add(Feature.precondition("move", MOVE, atom("hand-tucked")))
    new, new_problem = apply_edits(human, problem, [edit])
    assert (hash(human), hash(problem)) == before
    assert new_problem is problem
    for old_action, new_action in zip(human.actions, new.actions, strict=True):
        assert (old_action is new_action) == (old_action.name != "move")
    assert new.predicates is human.predicates
    # The edit is phrased in the robot's names but lands in the human's names.
    assert atom("hand-tucked") in new.action("move").precondition.operands  # type: ignore[union-attr]
    assert atom("robot-at ?a") in new.action("move").precondition.operands  # type: ignore[union-attr]
    # Applying the same edits twice gives equal (cacheable) models.
    again, _ = apply_edits(human, problem, [edit])
    assert again == new and hash(again) == hash(new)
    # No-op edits return the very same objects.
    same, same_problem = apply_edits(human, problem, [
        add(Feature.precondition("move", MOVE, atom("robot-at ?from"))),
        remove(Feature.precondition("move", MOVE, atom("crouched"))),
        add(Feature.init(atom("hand-empty"))),
    ])
    assert same is human and same_problem is problem


def test_apply_adds_requirements_for_new_literal_kinds() -> None:
    human = fetch_human()
    new, _ = apply_edits(human, None, [
        add(Feature.negative_precondition("tuck", (), atom("hand-tucked"))),
        add(Feature.precondition("move", ("?a", "?b"), Atom("=", ("?a", "?b")))),
    ])
    assert ":negative-preconditions" in new.requirements and ":equality" in new.requirements
    assert Not(atom("hand-tucked")) in new.action("tuck").precondition.operands  # type: ignore[union-attr]


def test_cost_edits_in_a_unit_cost_domain_turn_costs_on() -> None:
    human, problem = fetch_human(), fetch_problem()
    edit = add(Feature.cost("tuck", (), 5))
    new, new_problem = apply_edits(human, problem, [edit])
    assert new.declares_action_costs
    costs = {f.action: f.value for f in domain_features(new) if f.kind is FeatureKind.COST}
    assert costs == {"move": 1, "tuck": 5, "crouch": 1, "pick-up": 1, "put-down": 1}
    assert new_problem is not None and new_problem.metric == ("minimize",
                                                              FunctionTerm("total-cost"))
    # Setting the unit cost again in a unit-cost domain is a no-op.
    same, _ = apply_edits(human, None, [add(Feature.cost("tuck", (), 1))])
    assert same is human


def test_cost_zero_and_fluent_costs() -> None:
    human = dataclasses.replace(fetch_human(), requirements=(":action-costs",),
                                functions=(Function("total-cost"),))
    assert {f.value for f in domain_features(human) if f.kind is FeatureKind.COST} == {0}
    source = dataclasses.replace(human, functions=(
        Function("total-cost"), Function("dist", params("?a ?b - location"))))
    term = FunctionTerm("dist", ("?from", "?to"))
    new, _ = apply_edits(human, None, [add(Feature.cost("move", MOVE, term))],
                         source_domain=source)
    assert Feature.cost("move", ("?a", "?b"), FunctionTerm("dist", ("?a", "?b"))) in (
        domain_features(new))
    assert any(f.name == "dist" for f in new.functions)
    back, _ = apply_edits(new, None, [add(Feature.cost("move", MOVE, 0))])
    assert domain_features(back) == domain_features(human)
    with pytest.raises(SemanticError, match="not declared"):
        apply_edits(human, None, [add(Feature.cost("move", MOVE, term))])
    with pytest.raises(SemanticError, match="conflicting"):
        apply_edits(human, None, [add(Feature.cost("move", MOVE, 2)),
                                  add(Feature.cost("move", MOVE, 3))])
    with pytest.raises(SemanticError, match="negative"):
        apply_edits(human, None, [add(Feature.cost("move", MOVE, -1))])


def test_removing_the_cost_deletes_the_action_and_adding_features_creates_it() -> None:
    robot, human = fetch_robot(), fetch_human()
    without, _ = apply_edits(robot, None, [remove(Feature.cost("crouch", (), 1))])
    assert [a.name for a in without.actions] == ["move", "tuck", "pick-up", "put-down"]
    assert not {f for f in domain_features(without) if f.action == "crouch"}
    # Removing a cost the action does not have changes nothing.
    same, _ = apply_edits(robot, None, [remove(Feature.cost("crouch", (), 7))])
    assert same is robot
    # The difference from `without` to the human's model re-creates crouch from its source.
    d = model_diff(without, human)
    assert [m.name for m in d.mismatches] == ["crouch"]
    with pytest.raises(SemanticError, match="crouch"):
        apply_edits(without, None, d.edits())
    rebuilt, _ = apply_edits(without, None, d.edits(), source_domain=human)
    assert domain_features(rebuilt) == domain_features(human)
    with pytest.raises(SemanticError, match="conflicting"):
        apply_edits(robot, None, [remove(Feature.cost("crouch", (), 1)),
                                  add(Feature.add_effect("crouch", (), atom("hand-empty")))])


def test_apply_checks_vocabulary() -> None:
    human = fetch_human()
    with pytest.raises(SemanticError, match="charged"):
        apply_edits(human, None, [add(Feature.precondition("move", MOVE, atom("charged")))])
    with pytest.raises(SemanticError, match="takes 1 arguments"):
        apply_edits(human, None, [add(Feature.precondition("move", MOVE,
                                                           atom("holding ?from ?to")))])
    with pytest.raises(SemanticError, match="is not a parameter"):
        apply_edits(human, None, [add(Feature.precondition("move", MOVE, atom("robot-at ?z")))])
    with pytest.raises(SemanticError, match="not a declared constant"):
        apply_edits(human, None, [add(Feature.precondition("move", MOVE, atom("robot-at home")))])
    with pytest.raises(SemanticError, match="2 parameters"):
        apply_edits(human, None, [add(Feature.precondition("move", ("?x",), atom("crouched")))])
    with pytest.raises(SemanticError, match="need a problem"):
        apply_edits(human, None, [add(Feature.init(atom("crouched")))])
    # With a source, missing predicates, types and constants are copied over.
    source = dataclasses.replace(
        human,
        types=(*human.types, ("dock", "location")),
        constants=(TypedName("home", "dock"),),
        predicates=(*human.predicates, Predicate("charged", params("?d - dock"))),
    )
    new, _ = apply_edits(human, None, [
        add(Feature.precondition("move", MOVE, atom("charged home"))),
    ], source_domain=source)
    assert new.predicate("charged") == Predicate("charged", params("?d - dock"))
    assert ("dock", "location") in new.types and TypedName("home", "dock") in new.constants


def test_problem_edits() -> None:
    domain, problem = fetch_robot(), fetch_problem()
    source = dataclasses.replace(problem, objects=(*problem.objects, TypedName("b2", "box")))
    edits = [
        add(Feature.init(atom("block-at b2 loc2"))),
        remove(Feature.init(atom("hand-empty"))),
        add(Feature.goal(atom("holding b2"))),
        remove(Feature.goal(atom("block-at b1 loc2"))),
        add(Feature.negative_goal(atom("hand-tucked"))),
    ]
    with pytest.raises(SemanticError, match="b2"):
        apply_edits(domain, problem, edits)
    new_domain, new = apply_edits(domain, problem, edits, source_problem=source)
    assert new is not None
    assert problem_features(new) == update_features(problem_features(problem), edits)
    assert TypedName("b2", "box") in new.objects
    assert ":negative-preconditions" in new_domain.requirements
    # Numeric initial values are functional.
    term = FunctionTerm("dist", ("loc1", "loc2"))
    with_dist = dataclasses.replace(domain, functions=(Function("dist",
                                                                params("?a ?b - location")),))
    _, valued = apply_edits(with_dist, problem, [add(Feature.init_value(term, 4))])
    assert valued is not None and valued.numeric_init == ((term, Fraction(4)),)
    _, revalued = apply_edits(with_dist, valued, [add(Feature.init_value(term, 6))])
    assert revalued is not None and revalued.numeric_init == ((term, Fraction(6)),)
    _, cleared = apply_edits(with_dist, revalued, [remove(Feature.init_value(term, 6))])
    assert cleared is not None and cleared.numeric_init == ()


def test_update_features_default_cost_mirrors_action_creation() -> None:
    robot = fetch_robot()
    without, _ = apply_edits(robot, None, [remove(Feature.cost("crouch", (), 1))])
    edit = add(Feature.add_effect("crouch", (), atom("crouched")))
    created, _ = apply_edits(without, None, [edit], source_domain=robot)
    assert domain_features(created) == update_features(
        domain_features(without), [edit], default_cost=Fraction(1)
    ) == domain_features(robot)


# --------------------------------------------------------------------------- sentences


def test_sentences_for_every_kind() -> None:
    expected = {
        Feature.precondition("move", MOVE, atom("hand-tucked")):
            ("move(?from, ?to) requires (hand-tucked)",
             "move(?from, ?to) does not require (hand-tucked)"),
        Feature.negative_precondition("tuck", (), atom("hand-tucked")):
            ("tuck() requires (hand-tucked) to be false",
             "tuck() does not require (hand-tucked) to be false"),
        Feature.add_effect("tuck", (), atom("crouched")):
            ("tuck() makes (crouched) true", "tuck() does not make (crouched) true"),
        Feature.delete_effect("pickup", ("?obj", "?loc"), atom("hand-tucked")):
            ("pickup(?obj, ?loc) makes (hand-tucked) false",
             "pickup(?obj, ?loc) does not make (hand-tucked) false"),
        Feature.cost("drive", ("?t",), 3): ("drive(?t) costs 3", "drive(?t) does not cost 3"),
        Feature.cost("fly", (), Fraction(5, 2)): ("fly() costs 2.5", "fly() does not cost 2.5"),
        Feature.cost("fly", ("?a", "?b"), FunctionTerm("dist", ("?a", "?b"))):
            ("fly(?a, ?b) costs (dist ?a ?b)", "fly(?a, ?b) does not cost (dist ?a ?b)"),
        Feature.init(atom("at truck1 loc1")):
            ("Initially (at truck1 loc1) holds", "Initially (at truck1 loc1) does not hold"),
        Feature.init_value(FunctionTerm("dist", ("a", "b")), 5):
            ("Initially (dist a b) is 5", "Initially (dist a b) is not 5"),
        Feature.goal(atom("on a b")):
            ("The goal includes (on a b)", "The goal does not include (on a b)"),
        Feature.negative_goal(atom("on a b")):
            ("The goal requires (on a b) to be false",
             "The goal does not require (on a b) to be false"),
        Feature.precondition("move", ("loc1", "loc2"), atom("hand-tucked")):
            ("move(loc1, loc2) requires (hand-tucked)",
             "move(loc1, loc2) does not require (hand-tucked)"),
    }
    assert {f.kind for f in expected} == set(FeatureKind)
    for feature, (positive, negative) in expected.items():
        assert sentence(feature) == positive == str(feature)
        assert sentence(feature, negated=True) == negative


def test_to_dict() -> None:
    feature = Feature.precondition("move", MOVE, atom("hand-tucked"))
    assert feature.to_dict() == {
        "kind": "precondition",
        "action": "move",
        "parameters": ["?from", "?to"],
        "atom": "(hand-tucked)",
        "value": None,
        "text": "move(?from, ?to) requires (hand-tucked)",
    }
    assert Feature.cost("drive", (), 3).to_dict()["value"] == 3
    assert Feature.init_value(FunctionTerm("d"), Fraction(1, 4)).to_dict()["atom"] == "(d)"
    assert remove(feature).to_dict()["text"] == "move(?from, ?to) does not require (hand-tucked)"
    d = model_diff(fetch_robot(), fetch_human(), fetch_problem()).to_dict()
    assert d["size"] == 3 and len(d["only_in_a"]) == 3 and d["mismatches"] == []


# --------------------------------------------------------------------------- cost semantics


def test_cost_features_count_declared_costs_only_under_the_metric() -> None:
    """Issue 21: a model's cost features are what its actions cost there: declared costs
    only with ``(:metric minimize (total-cost))``, else 1 -- never the requirement alone."""
    from xaip.planning.features.extract import model_counts_costs
    from xaip.planning.features.vocabulary import domain_mismatches
    from xaip.planning.pddl import parse_domain, parse_problem

    costly = parse_domain("""(define (domain c) (:requirements :strips :action-costs)
      (:predicates (p)) (:functions (total-cost))
      (:action go :parameters () :precondition (and) :effect (and (p)
        (increase (total-cost) 7))))""")
    plain = parse_domain("""(define (domain c) (:requirements :strips)
      (:predicates (p))
      (:action go :parameters () :precondition (and) :effect (p)))""")
    bare = parse_problem("(define (problem q) (:domain c) (:init) (:goal (p)))")
    metric = parse_problem("(define (problem q) (:domain c) (:init) (:goal (p)) "
                           "(:metric minimize (total-cost)))")

    def cost(domain, problem):  # type: ignore[no-untyped-def]
        return next(f.value for f in model_features(domain, problem)
                    if f.kind is FeatureKind.COST)

    assert not model_counts_costs(costly, bare) and model_counts_costs(costly, metric)
    assert cost(costly, bare) == 1 and cost(costly, metric) == 7
    assert cost(plain, metric) == 1
    # (total-cost) is bookkeeping of costs, not vocabulary
    assert not domain_mismatches(costly, plain)
