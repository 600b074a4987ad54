"""A01, humans as actors: the assistant with the person's model, against brute force on
random tiny pairs of models written from the definitions (book-spec section 9.1):

* ``suggest --explicable``: every robot plan (action sequence valid in M*) within the
  cheapest completion's cost plus the slack is enumerated and scored -- the cost distance
  ``C(pi, M^H) - C*(M^H)`` (infinite when pi is no plan of her model), or the action
  distance ``1 - |A ∩ B| / |A ∪ B|`` to her intended plan; the answer must have the least
  (distance, cost);
* ``check`` of her failing plan: every set of model differences (moving her model towards
  M*) is tried by size; the fewest after which the robot's plan is valid and hers is not a
  cheaper plan must be the explanation's size.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

import pytest

from tests.reconcile.test_empty_model import Tiny, _cost_of, _ground, _optimum, random_tiny
from xaip.assist import Assistant
from xaip.errors import InputError
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.runtime import Status

Feature = tuple[str, str, str]


def human_of(tiny: Tiny, rng: random.Random) -> Tiny:
    """Her model: the robot's with one to three action features forgotten and maybe one
    imagined (same vocabulary, same problem)."""
    actions = [f for f in tiny.features if f[0] in ("pre", "add", "del")]
    forgotten = set(rng.sample(actions, min(len(actions), rng.randint(1, 3))))
    features = [f for f in tiny.features if f not in forgotten]
    if rng.random() < 0.5:
        name, has_x = rng.choice(tiny.schemas)
        extra = ("pre", name, rng.choice(tiny.atoms(has_x)))
        if extra not in features and ("add", name, extra[2]) not in features:
            features.append(extra)
    return Tiny(tiny.unary, tiny.nullary, tiny.schemas, tuple(features))


def models(tiny: Tiny, her: Tiny) -> tuple[object, object, object]:
    domain, problem = (parse_domain(tiny.pddl()[0]), parse_problem(tiny.pddl()[1]))
    return domain, problem, parse_domain(her.pddl()[0])


def _sequences(model: tuple, bound: int) -> list[tuple[str, ...]]:
    """Every plan of ``model`` of at most ``bound`` steps: action sequences that reach the
    goal and, as the planning core counts plans (``xaip.planning.search.enumerate``), do not
    pass through a goal state before their end."""
    names = sorted(model[0])
    out = []
    for length in range(bound + 1):
        for seq in itertools.product(names, repeat=length):
            if _cost_of(seq, model) is not None and not any(
                    _cost_of(seq[:cut], model) is not None for cut in range(length)):
                out.append(seq)
    return out


def _action_distance(a: Sequence[str], b: Sequence[str]) -> float:
    left, right = set(a), set(b)
    union = left | right
    return 0.0 if not union else 1 - len(left & right) / len(union)


def _pairs(count: int) -> list[tuple[int, Tiny, Tiny]]:
    out = []
    seed = 0
    while len(out) < count:
        seed += 1
        tiny = random_tiny(seed)
        robot = _ground(tiny, frozenset(tiny.features))
        if len(tiny.features) > 12 or not 1 <= (_optimum(robot) or 0) <= 3:
            continue
        her = human_of(tiny, random.Random(seed))
        if her.features != tiny.features:
            out.append((seed, tiny, her))
    return out


PAIRS = _pairs(40)


@pytest.mark.parametrize(("seed", "tiny", "her"), PAIRS, ids=[f"seed{s}" for s, *_ in PAIRS])
def test_explicable_suggestion_matches_brute_force(seed: int, tiny: Tiny, her: Tiny) -> None:
    domain, problem, human = models(tiny, her)
    slack = seed % 2
    helper = Assistant(domain, problem, human=(human, None))  # type: ignore[arg-type]
    answer = helper.suggest(explicable=True, slack=slack)
    assert answer.verified, answer.check
    robot = _ground(tiny, frozenset(tiny.features))
    mine = _ground(her, frozenset(her.features))
    cheapest = _optimum(robot)
    assert cheapest is not None and answer.human is not None
    assert answer.human.cheapest_cost == cheapest
    best_human = _optimum(mine)
    keys = []
    for plan in _sequences(robot, cheapest + slack):
        cost = _cost_of(plan, mine)
        gap = float("inf") if cost is None or best_human is None else cost - best_human
        keys.append((gap, len(plan)))
    gap, cost = min(keys)
    assert answer.completion_cost == cost
    assert answer.human.inexplicability == (None if gap == float("inf") else gap)
    assert answer.suggestion == (answer.completion[0] if answer.completion else None)


INTENDED = [(s, t, h) for s, t, h in PAIRS
            if _sequences(_ground(h, frozenset(h.features)), 3)][:15]


@pytest.mark.parametrize(("seed", "tiny", "her"), INTENDED,
                         ids=[f"seed{s}" for s, *_ in INTENDED])
def test_explicable_to_her_intended_plan(seed: int, tiny: Tiny, her: Tiny) -> None:
    domain, problem, human = models(tiny, her)
    hers = _sequences(_ground(her, frozenset(her.features)), 3)
    intended = random.Random(seed).choice(hers)
    helper = Assistant(domain, problem, human=(human, None))  # type: ignore[arg-type]
    answer = helper.suggest(explicable=True, slack=1, distance="action",
                            intended=[f"({s})" for s in intended])
    assert answer.verified, answer.check
    robot = _ground(tiny, frozenset(tiny.features))
    cheapest = _optimum(robot)
    assert cheapest is not None
    keys = [(round(_action_distance(p, intended), 9), len(p))
            for p in _sequences(robot, cheapest + 1)]
    distance, cost = min(keys)
    assert answer.completion_cost == cost
    assert answer.human is not None and answer.human.inexplicability is not None
    assert round(answer.human.inexplicability, 9) == distance


def _difference(tiny: Tiny, her: Tiny) -> list[tuple[str, Feature]]:
    robot, mine = set(tiny.features), set(her.features)
    return [("add", f) for f in sorted(robot - mine)] + [("remove", f)
                                                         for f in sorted(mine - robot)]


def _contrastive_size(tiny: Tiny, her: Tiny, plan: tuple[str, ...],
                      foil: tuple[str, ...]) -> int:
    edits = _difference(tiny, her)
    for size in range(len(edits) + 1):
        for chosen in itertools.combinations(edits, size):
            features = set(her.features)
            for op, feature in chosen:
                (features.add if op == "add" else features.discard)(feature)
            model = _ground(her, frozenset(features))
            cost = _cost_of(plan, model)
            if cost is None:
                continue
            other = _cost_of(foil, model)
            if other is None or other >= cost:
                return size
    raise AssertionError("the whole difference explains the robot's plan")


def _failing_plans(tiny: Tiny, her: Tiny) -> list[tuple[str, ...]]:
    robot = _ground(tiny, frozenset(tiny.features))
    mine = _ground(her, frozenset(her.features))
    return [p for p in _sequences(mine, 3) if _cost_of(p, robot) is None]


CHECKS = [(s, t, h) for s, t, h in PAIRS if _failing_plans(t, h)][:15]


@pytest.mark.parametrize(("seed", "tiny", "her"), CHECKS, ids=[f"seed{s}" for s, *_ in CHECKS])
def test_failing_plan_explained_minimally(seed: int, tiny: Tiny, her: Tiny) -> None:
    domain, problem, human = models(tiny, her)
    foil = random.Random(seed).choice(_failing_plans(tiny, her))
    helper = Assistant(domain, problem, human=(human, None))  # type: ignore[arg-type]
    answer = helper.check([f"({s})" for s in foil])
    assert answer.status == Status.INVALID and answer.verified, answer.check
    assert answer.human is not None and answer.human.valid_for_her is True
    explanation = answer.human.explanation
    plan = tuple(explanation.plan)
    assert len(explanation.edits) == _contrastive_size(tiny, her, plan, foil)


def test_without_her_model_nothing_changes() -> None:
    seed, tiny, her = PAIRS[0]
    domain, problem, _ = models(tiny, her)
    answer = Assistant(domain, problem).suggest()  # type: ignore[arg-type]
    assert answer.human is None and "human" not in answer.to_dict()


def test_bad_input_is_one_line() -> None:
    seed, tiny, her = PAIRS[0]
    domain, problem, human = models(tiny, her)
    with pytest.raises(InputError, match="needs your model"):
        Assistant(domain, problem).suggest(explicable=True)  # type: ignore[arg-type]
    helper = Assistant(domain, problem, human=(human, None))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="unknown distance"):
        helper.suggest(explicable=True, distance="nearest")
    with pytest.raises(InputError, match="slack"):
        helper.suggest(explicable=True, slack=-1)
    other = parse_domain("(define (domain tiny) (:predicates (zz)) "
                         "(:action a0 :parameters () :precondition (and) :effect (zz)))")
    with pytest.raises(InputError):
        Assistant(domain, problem, human=(other, None))  # type: ignore[arg-type]


def test_tampered_explanation_claims_are_caught() -> None:
    import dataclasses

    from xaip.assist.human import with_explanation

    seed, tiny, her = CHECKS[0]
    domain, problem, human = models(tiny, her)
    foil = random.Random(seed).choice(_failing_plans(tiny, her))
    answer = Assistant(domain, problem, human=(human, None)).check(  # type: ignore[arg-type]
        [f"({s})" for s in foil])
    assert answer.verified and answer.human is not None
    plain = dataclasses.replace(answer, human=None)
    lie = dataclasses.replace(answer.human, valid_for_her=False)
    caught = with_explanation(plain, lie, (human, problem))
    assert not caught.verified and caught.check.ok is False
    other = dataclasses.replace(answer.human.explanation, foils=())
    caught = with_explanation(plain, dataclasses.replace(answer.human, explanation=other),
                              (human, problem))
    assert not caught.verified and "contrastive" in caught.check.details


def test_command(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from xaip.assist.registry import FIRE, FIRE_PROBLEM
    from xaip.cli import main

    robot, human, problem = tmp_path / "r.pddl", tmp_path / "h.pddl", tmp_path / "p.pddl"
    robot.write_text(FIRE)
    human.write_text(FIRE.replace(":precondition (alerted)", ":precondition (and)"))
    problem.write_text(FIRE_PROBLEM)
    mine = tmp_path / "mine.plan"
    mine.write_text("(deploy_big_engines)\n(deploy_rescuers)\n(extinguish)\n")
    files = [str(robot), str(problem)]
    assert main(["assist", *files, "suggest", "--explicable", "--human-domain", str(human),
                 "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["verified"] and payload["human"]["kind"] == "explicable"
    assert payload["suggestion"] == "(alert_chief)" and payload["human"]["inexplicability"] == 2
    assert main(["assist", *files, "check", "--plan", str(mine), "--human-domain",
                 str(human)]) == 1  # her plan fails in the true model (verified)
    out = capsys.readouterr().out
    assert "deploy_big_engines() requires (alerted)" in out and "Verified" in out
    for wrong in (["check", "--plan", str(mine), "--explicable"],
                  ["suggest", "--explicable"],
                  ["suggest", "--slack", "2"],
                  ["suggest", "--human-problem", str(problem)],
                  ["suggest", "--explicable", "--human-domain", str(human), "--slack", "-1"]):
        try:
            code = main(["assist", *files, *wrong])
        except SystemExit as stop:  # argparse refuses a negative slack
            code = int(stop.code or 0)
        assert code == 2, wrong
        assert "Traceback" not in capsys.readouterr().err
