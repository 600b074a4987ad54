"""xaip.multiuser: per-user explanations within a privacy map, the merged model and the
shared conformant explanation; the checker catching wrong answers; budgets; bad input; the
command."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.contract import CHECKER_BUDGET
from xaip.errors import InputError
from xaip.multiuser import User, explain_to_users, parse_privacy
from xaip.multiuser.bundled import USERS, bundled_files
from xaip.multiuser.checks import check
from xaip.multiuser.privacy import OPEN
from xaip.planning.features import Edit, Feature
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.pddl.model import Atom
from xaip.render import render
from xaip.runtime import Budget, Status

FILES = bundled_files()
ROAD = Feature.precondition("deploy_big_engines", (), Atom("road_clear"))
ALERT_BIG = Feature.precondition("deploy_big_engines", (), Atom("alerted"))
ALERT_RESCUE = Feature.precondition("deploy_rescuers", (), Atom("alerted"))


def _inputs() -> tuple[tuple, tuple[User, ...]]:
    robot = (read_domain(FILES["robot"]), read_problem(FILES["problem"]))
    return robot, tuple(User(n, read_domain(FILES[n]), robot[1]) for n in USERS)


def _privacy(data: dict) -> object:
    robot, users = _inputs()
    return parse_privacy(data, USERS, [robot[0], *(u.domain for u in users)])


def test_each_user_gets_what_they_lack_and_the_group_a_conformant_explanation() -> None:
    robot, users = _inputs()
    result = explain_to_users(robot, users)
    assert result.verified and result.status == Status.FOUND
    assert result.plan_cost == 6 and result.plan[2] == "deploy_big_engines"
    commander, police = result.user("commander"), result.user("police")
    assert {e.feature for e in commander.edits} == {ROAD, ALERT_BIG, ALERT_RESCUE}
    assert {e.feature for e in police.edits} == {ALERT_BIG, ALERT_RESCUE}
    shared = result.shared
    assert shared is not None and shared.status == "found"
    assert {(e.edit.feature, e.label) for e in shared.edits} == {
        (ALERT_BIG, "add-known"), (ALERT_RESCUE, "add-known"), (ROAD, "add-annot")}
    assert shared.completions == 2
    assert {e.feature for e in shared.for_user["police"]} == {ALERT_BIG, ALERT_RESCUE}
    assert len(shared.for_user["commander"]) == 3
    merged = result.merged
    assert merged is not None
    assert [(m.feature, m.holders) for m in merged.possible] == [(ROAD, ("police",))]
    data = result.to_dict()
    assert data["steps_numbered_from"] == 1 and data["plan"][0]["step"] == 1
    json.dumps(data)
    assert "police needs 2 facts" in render(result)


def test_a_private_feature_is_never_told_and_the_missing_one_is_named() -> None:
    robot, users = _inputs()
    result = explain_to_users(robot, users, privacy=FILES["privacy"])
    assert result.verified and result.status == Status.NO_EXPLANATION
    commander = result.user("commander")
    assert commander.status == Status.NO_EXPLANATION and commander.edits == ()
    assert [(e.feature, why) for e, why in commander.needed] == [
        (ROAD, "private to police (predicate:road_clear)")]
    assert result.user("police").status == Status.FOUND  # the owner may hear it
    shared = result.shared
    assert shared is not None and shared.status == "no_explanation"
    assert [e.edit.feature for e, _ in shared.needed] == [ROAD]
    text = render(result)
    assert "commander cannot be given an explanation" in text and "road_clear" in text


def test_a_denied_edit_with_an_alternative_gives_the_alternative() -> None:
    # Two ways to explain why the robot takes the long road: "short needs (pass)" or "the
    # goal needs (stamp)" (the short road never stamps). Denying one leaves the other.
    domain = """(define (domain roads) (:requirements :strips)
      (:predicates (there) (pass) (stamp))
      (:action short :parameters () :precondition (and (pass)) :effect (there))
      (:action long1 :parameters () :precondition (and) :effect (stamp))
      (:action long2 :parameters () :precondition (and (stamp)) :effect (there)))"""
    human = domain.replace(":precondition (and (pass))", ":precondition (and)")
    robot_problem = parse_problem("(define (problem p) (:domain roads) (:init) "
                                  "(:goal (and (there) (stamp))))")
    human_problem = parse_problem("(define (problem p) (:domain roads) (:init) "
                                  "(:goal (and (there))))")
    robot = (parse_domain(domain), robot_problem)
    users = [("ann", parse_domain(human), human_problem)]
    open_ = explain_to_users(robot, users)
    assert open_.verified and len(open_.user("ann").edits) == 1
    told = open_.user("ann").edits[0].feature
    other = "predicate:pass" if told.atom == Atom("stamp") else "predicate:stamp"
    rule = "predicate:stamp" if told.atom == Atom("stamp") else "predicate:pass"
    denied = explain_to_users(robot, users, privacy={"users": {"ann": {"deny": [rule]}}})
    assert denied.verified and denied.status == Status.FOUND
    assert [e.feature.atom for e in denied.user("ann").edits] != [told.atom]
    both = explain_to_users(robot, users,
                            privacy={"users": {"ann": {"deny": [rule, other]}}})
    assert both.verified and both.user("ann").status == Status.NO_EXPLANATION


def test_privacy_map_rules() -> None:
    rules = _privacy({"private": {"police": ["action:clear_road"]},
                      "users": {"commander": {"allow": ["predicate:alerted"],
                                              "deny": ["feature:precondition "
                                                       "deploy_rescuers (alerted)"]},
                                "police": {"allow": ["*"]}}})
    clear = Feature.add_effect("clear_road", (), Atom("road_clear"))
    assert rules.may_tell("police", clear) and not rules.may_tell("commander", clear)
    assert rules.may_tell("commander", ALERT_BIG)
    assert rules.refusal("commander", ALERT_RESCUE).startswith("denied to commander")
    assert rules.refusal("commander", ROAD) == "not in commander's allow list"
    assert rules.may_tell("police", ROAD) and OPEN.may_tell("anyone", ROAD)


@pytest.mark.parametrize("data, message", [
    ({"users": {"eve": {}}}, "'eve' is not one of the users"),
    ({"private": {"police": ["predicate:nope"]}}, "no model declares a predicate 'nope'"),
    ({"users": {"police": {"deny": ["action:fly"]}}}, "no model has an action 'fly'"),
    ({"users": {"police": {"deny": ["road_clear"]}}}, "a rule is 'predicate:NAME'"),
    ({"users": {"police": {"maybe": []}}}, "unknown key 'maybe'"),
    ({"public": {}}, "unknown key 'public'"),
    ({"users": {"police": {"deny": "action:alert_chief"}}}, "expected a list"),
    ({"users": {"police": {"deny": ["feature:cost alert_chief (alerted)"]}}},
     "cannot be named in a rule"),
    ([], "expected an object"),
])
def test_bad_privacy_maps_are_one_line_errors(data: object, message: str) -> None:
    with pytest.raises(InputError, match=message.replace("(", r"\(")) as error:
        _privacy(data)
    assert "\n" not in str(error.value)


def test_the_checker_refutes_wrong_answers() -> None:
    robot, users = _inputs()
    result = explain_to_users(robot, users)
    commander = result.user("commander")

    def with_user(answer: object) -> object:
        others = tuple(answer if u.user == "commander" else u for u in result.users)
        return dataclasses.replace(result, users=others)

    short = with_user(dataclasses.replace(commander, edits=commander.edits[:2]))
    assert check(robot, users, short, OPEN).ok is False
    wrong = with_user(dataclasses.replace(
        commander, edits=(*commander.edits[:2], Edit(ROAD, "remove"))))
    assert check(robot, users, wrong, OPEN).ok is False
    # The same (correct) answer is refused when the map forbids one of its edits.
    rules = _privacy({"users": {"commander": {"deny": ["predicate:road_clear"]}}})
    assert check(robot, users, result, rules).ok is False
    shared = result.shared
    assert shared is not None
    views = dict(shared.for_user, police=shared.for_user["commander"])
    bad_view = dataclasses.replace(result, shared=dataclasses.replace(shared, for_user=views))
    assert check(robot, users, bad_view, OPEN).ok is False
    bigger = dataclasses.replace(result, shared=dataclasses.replace(
        shared, edits=shared.edits[:2]))
    assert check(robot, users, bigger, OPEN).ok is False
    assert check(robot, users, result, OPEN).ok is True


def test_budgets() -> None:
    robot, users = _inputs()
    tiny = explain_to_users(robot, users, budget=Budget(max_nodes=1))
    assert tiny.status == Status.BUDGET_EXHAUSTED and not tiny.verified
    answer = explain_to_users(robot, users)
    report = check(robot, users, answer, OPEN, Budget(max_nodes=1))
    assert report.ok is None and report.details.startswith(CHECKER_BUDGET)


def test_goal_true_initially_needs_no_explanation() -> None:
    robot, users = _inputs()
    done = parse_problem("(define (problem p) (:domain firefighting) (:init (fire_out)) "
                         "(:goal (fire_out)))")
    result = explain_to_users((robot[0], done), [(u.name, u.domain, None) for u in users])
    assert result.verified and result.plan == () and result.plan_cost == 0
    assert all(u.status == Status.FOUND and u.edits == () for u in result.users)
    assert "nothing to explain" in render(result)


def test_users_who_disagree_on_a_cost_have_no_merged_model() -> None:
    domain = """(define (domain c) (:requirements :strips :action-costs)
      (:predicates (done)) (:functions (total-cost))
      (:action act :parameters () :precondition (and) :effect (and (done)
        (increase (total-cost) COST))))"""
    problem = parse_problem("(define (problem p) (:domain c) (:init (= (total-cost) 0)) "
                            "(:goal (done)) (:metric minimize (total-cost)))")
    robot = (parse_domain(domain.replace("COST", "2")), problem)
    users = [("ann", parse_domain(domain.replace("COST", "2")), None),
             ("bob", parse_domain(domain.replace("COST", "3")), None)]
    result = explain_to_users(robot, users)
    assert result.verified and result.shared is not None
    assert result.shared.status == "unavailable" and "cost" in result.shared.reason


def test_bad_inputs_are_one_line_errors() -> None:
    robot, users = _inputs()
    text = FILES["commander"].read_text()
    other = parse_domain(text.replace("(fire_out))", "(fire_out) (siren))", 1))
    with pytest.raises(InputError, match="robot's vocabulary"):
        explain_to_users(robot, [("ann", other, None)])
    with pytest.raises(InputError, match="given twice"):
        explain_to_users(robot, [users[0], users[0]])
    with pytest.raises(InputError, match="at least one user"):
        explain_to_users(robot, [])
    with pytest.raises(InputError, match="user name"):
        explain_to_users(robot, [("a b", users[0].domain, None)])


def test_the_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = [str(FILES["robot"]), str(FILES["problem"]),
            "--user", f"commander={FILES['commander']}",
            "--user", f"police={FILES['police']},{FILES['problem']}"]
    assert main(["explain-users", *base]) == 0
    assert "Verified independently" in capsys.readouterr().out
    assert main(["explain-users", *base, "--privacy", str(FILES["privacy"]), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "no_explanation" and data["verified"] is True
    assert main(["explain-users", *base, "--max-nodes", "1"]) == 1
    assert main(["explain-users", *base, "--no-shared"]) == 0
    capsys.readouterr()
    assert main(["explain-users", *base, "--user", "bad"]) == 2
    bad = tmp_path / "map.json"
    bad.write_text('{"users": {"eve": {}}}')
    assert main(["explain-users", *base, "--privacy", str(bad)]) == 2
    assert "'eve' is not one of the users" in capsys.readouterr().err
    plan = tmp_path / "plan.txt"
    plan.write_text("(alert_chief)\n(deploy_rescuers)\n")
    assert main(["explain-users", *base, "--plan", str(plan)]) == 2


def test_without_a_map_each_user_gets_an_mce_of_reconciliation() -> None:
    """The per-user explanation is a minimally complete explanation (book ch. 5): the same
    size as :func:`xaip.reconcile.explain`'s MCE for that user alone."""
    from xaip.reconcile import explain, make_mrp

    robot, users = _inputs()
    result = explain_to_users(robot, users, shared=False)
    for user in users:
        mce = explain(make_mrp(*robot, user.domain, user.problem), "mce")
        assert mce.verified and len(result.user(user.name).edits) == mce.size


def test_needed_edits_prune_the_search() -> None:
    """Each of the commander's three missing preconditions is needed (without any one of
    them a cheaper plan survives every other edit), so the search tries one set only."""
    from xaip.multiuser.forced import effect, group_effects
    from xaip.reconcile.results import LabelledEdit

    robot, users = _inputs()
    result = explain_to_users(robot, users)
    assert result.verified and result.user("commander").nodes == 1
    assert effect(Edit(ROAD, "add")) == -1 and effect(Edit(ROAD, "remove")) == 1
    assert group_effects(LabelledEdit(Edit(ROAD, "add"), "add-annot")) == (0, -1)
    assert group_effects(LabelledEdit(Edit(ROAD, "remove"), "remove-annot")) == (1, 0)
    init = Feature.init(Atom("alerted"))
    assert group_effects(LabelledEdit(Edit(init, "add"), "add-annot")) == (1, 0)
    assert group_effects(LabelledEdit(Edit(init, "add"), "add-known")) == (1, 1)


SHARED = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp"


@pytest.mark.skipif(not (SHARED / "blocksworld").is_dir(), reason="no shared MRP data here")
def test_three_users_with_many_disagreements_are_checked() -> None:
    """Regression: the shared blocksworld MRP (robot = original domain, three users =
    domain1..3) merges into a model with 16 possible features; the checker once enumerated
    all 65,536 completions per edit set and ran out of budget. Its two representative
    completions decide it now."""
    folder = SHARED / "blocksworld"
    robot = (read_domain(folder / "original_domain.pddl"), read_problem(folder / "prob1.pddl"))
    users = {f"d{i}": read_domain(folder / f"domain{i}.pddl") for i in (1, 2, 3)}
    result = explain_to_users(robot, users)
    assert result.verified and result.status == Status.FOUND
    assert result.shared is not None and result.shared.completions == 2 ** 16
    assert [len(u.edits) for u in result.users] == [2, 2, 3]
