"""Model-free explanations end to end: learning, search, checker, synthetic truth."""

from __future__ import annotations

import dataclasses
import itertools
import json
from functools import cache

import pytest

from xaip.errors import InputError
from xaip.modelfree import (
    LearnedPerson,
    Message,
    Record,
    bundled,
    explain_model_free,
    explain_plan,
    learn,
)
from xaip.modelfree.bundled import FOLDER, example_files
from xaip.modelfree.checks import check
from xaip.modelfree.synthetic import fetch_person, generate
from xaip.render import render
from xaip.runtime import Budget, Status


@cache
def person() -> LearnedPerson:
    data = bundled()
    return learn(data.records, data.messages)


def test_the_bundled_files_are_what_the_generator_makes() -> None:
    for name, text in example_files().items():
        assert (FOLDER / name).read_text(encoding="utf-8") == text, name


def test_the_bundled_plan_gets_the_cheapest_messages_verified() -> None:
    data = bundled()
    result = explain_plan(person(), data.plan)
    assert result.status == Status.FOUND and result.verified and result.cheapest
    assert result.method == "exact"
    # brute force with the same labeller: nothing cheaper works, the answer does
    labeller = person().labeller
    costs = {m.id: m.cost for m in data.messages}
    working = [sum(costs[i] for i in s) for r in range(len(costs) + 1)
               for s in itertools.combinations(costs, r)
               if all(labeller.label(data.plan, s))]
    assert result.cost == min(working)
    assert all(labeller.label(data.plan, [m.id for m in result.chosen]))
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["steps_numbered_from"] == 1 and payload["steps"][0]["step"] == 1
    assert payload["labeller"]["shared_with_checker"] is True
    assert "held-out plans" in render(result)


def test_the_labeller_beats_the_majority_baseline_on_held_out_plans() -> None:
    accuracy = person().accuracy
    assert accuracy.plans > 0 and accuracy.step_accuracy is not None
    assert accuracy.baseline is not None and accuracy.step_accuracy > accuracy.baseline


def test_greedy_beyond_the_cap_claims_a_bound_not_the_optimum() -> None:
    result = explain_plan(person(), bundled().plan, max_subsets=2)
    assert result.method == "greedy" and not result.cheapest
    assert result.status == Status.FOUND and result.verified
    assert result.lower_bound is not None and result.lower_bound <= (result.cost or 0)
    assert "greedy, not proven cheapest" in render(result)


def test_one_node_is_budget_exhausted_and_unverified() -> None:
    result = explain_plan(person(), bundled().plan, budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


@pytest.mark.parametrize("tamper", ["cost", "cheaper", "probabilities", "accuracy", "foreign"])
def test_the_checker_refutes_a_tampered_answer(tamper: str) -> None:
    result = explain_plan(person(), bundled().plan)
    if tamper == "cost":
        bad = dataclasses.replace(result, cost=(result.cost or 0) - 1)
    elif tamper == "cheaper":  # claim a set that is not the cheapest: all messages
        everything = tuple(person().messages)
        probabilities = person().labeller.probabilities(result.plan, [[m.id for m in
                                                                       everything]])[0]
        bad = dataclasses.replace(result, chosen=everything,
                                  cost=sum(m.cost for m in everything),
                                  after=tuple(probabilities))
    elif tamper == "probabilities":
        bad = dataclasses.replace(result, before=tuple(0.5 for _ in result.before))
    elif tamper == "accuracy":
        bad = dataclasses.replace(result, accuracy=dataclasses.replace(
            result.accuracy, step_accuracy=1.0))
    else:
        bad = dataclasses.replace(result, chosen=(Message("made-up", 0.0, "x"),))
    assert check(person(), bad).ok is False


def test_an_empty_plan_needs_no_messages() -> None:
    result = explain_plan(person(), [])
    assert result.status == Status.FOUND and result.chosen == () and result.cost == 0
    assert result.verified


def test_no_message_set_is_proven_by_enumeration() -> None:
    # 'crouch' twice is never explicable to the synthetic person, whatever she is told
    plan = ["crouch", "crouch", "tuck", "move loc1 loc2"]
    result = explain_plan(person(), plan)
    assert result.status == Status.NO_EXPLANATION and result.exhaustive and result.verified
    labeller = person().labeller
    ids = [m.id for m in person().messages]
    assert not any(all(labeller.label(plan, s)) for r in range(len(ids) + 1)
                   for s in itertools.combinations(ids, r))
    assert "none of the 32 message sets" in render(result)


def test_bad_inputs_are_one_line_errors() -> None:
    data = bundled()
    with pytest.raises(InputError, match="both explicable and inexplicable"):
        learn([Record(("tuck",), frozenset(), (True,))], data.messages)
    with pytest.raises(InputError, match="not among the messages"):
        learn([Record(("tuck",), frozenset({"nope"}), (True,))], data.messages)
    with pytest.raises(InputError, match="held-out share"):
        learn(data.records, data.messages, held_out=1.0)
    with pytest.raises(InputError, match="threshold"):
        learn(data.records, data.messages, threshold=1.0)
    with pytest.raises(InputError, match="at least one message"):
        learn(data.records, [])
    with pytest.raises(InputError, match="max_subsets"):
        explain_plan(person(), data.plan, max_subsets=0)


def test_the_synthetic_person_follows_the_definition() -> None:
    # Fetch: she believes move needs nothing; the robot tucks first. Without messages the
    # tuck is not on any of her optimal plans, so it and everything after looks odd; told
    # that move requires the hand tucked, her optimal plans start with the tuck.
    data = generate(0)
    plan = data.plan
    assert plan[0] == "tuck"
    person_ = data.person
    assert person_.labels(data.problem, plan, []) == (False,) * len(plan)
    told = person_.labels(data.problem, plan, ["move-precondition-hand-tucked"])
    assert told == (True,) * len(plan)
    # a distractor (a fact she already believes) changes nothing
    assert person_.labels(data.problem, plan, ["pick-up-precondition-hand-empty"]) == \
        (False,) * len(plan)


def test_generation_is_deterministic_by_seed() -> None:
    one, two = generate(5, plans=30, problems=4), generate(5, plans=30, problems=4,
                                                            person=fetch_person())
    assert one.records == two.records and one.messages == two.messages
    assert generate(6, plans=30, problems=4).records != one.records


def test_the_front_door_learns_and_explains() -> None:
    data = bundled()
    result = explain_model_free(data.records, data.messages, data.plan, held_out=0.2,
                                seed=3)
    assert result.verified and result.accuracy.trained_on == 192
