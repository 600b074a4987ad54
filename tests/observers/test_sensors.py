"""Observation models: every token part, rule order, the atom-level evaluator, errors."""

from __future__ import annotations

import json
from collections import deque

import pytest

from xaip.errors import InputError
from xaip.observers.problem import example_problem
from xaip.observers.sensors import (
    ObservationModel,
    format_token,
    load_observation_model,
    observers_from_data,
)
from xaip.planning.task import GroundAction, Task


def hook_fn(action: GroundAction, atoms: frozenset[str]) -> str:
    """A token hook importable as ``tests.observers.test_sensors:hook_fn``."""
    return f"{action.schema}:{sum(1 for a in atoms if a.startswith('(on-ship'))}"


def _port() -> tuple[Task, object]:
    problem = example_problem("port")
    return problem.task, problem.domain


def _model(rules: list[dict], **kw: object) -> ObservationModel:
    task, domain = _port()
    data = {"observer": "o", "rules": rules}
    return next(iter(observers_from_data(data, task, "<test>", domain, **kw).values()))


def _act(name: str) -> GroundAction:
    task, _ = _port()
    return task.actions[task.action_index[name][0]]


def _after(*names: str) -> int:
    task, _ = _port()
    state = task.init
    for name in names:
        state = _act(name).apply(state)
    return state


def test_port_supervisor_switches_from_inventory_to_count() -> None:
    model = example_problem("port").model
    assert format_token(model.observe(_act("load red"), _after("load red"))) == "load|blue,green"
    state = _after("acquire n1")
    assert format_token(model.observe(_act("acquire n1"), state)) == "acquire|4"
    state = _after("acquire n1", "load n1")  # the unknown crate left: inventory again
    assert format_token(model.observe(_act("load n1"), state)) == "load|blue,green,red"


def test_every_part_kind() -> None:
    model = _model([{"actions": ["load"], "token": [
        "action", "name", {"arg": 0}, {"holds": "(on-ship ?0)"}, {"const": "x"},
        {"count": "(at-port ?c)"}, {"facts": "(on-ship ?0)"}, {"values": "(at-port ?c)"},
        {"hook": "mine"}, {"hook": "tests.observers.test_sensors:hook_fn"}]}],
        hooks={"mine": lambda action, atoms: len(atoms)})
    token = model.observe(_act("load red"), _after("load red"))
    assert token[:8] == ("load", "load red", "red", True, "x", 2, ("red",), ("blue", "green"))
    assert token[8] == 7  # (at-port blue) (at-port green) (on-ship red) (offsite n1 n2) (new n1 n2)
    assert token[9] == "load:1"
    # a rule for other actions only: the action is silent
    assert model.observe(_act("acquire n1"), _after("acquire n1")) == ()
    assert format_token(()) == "-"


def test_rules_in_order_with_if_and_unless() -> None:
    model = _model([
        {"unless": ["(restocked)"], "token": [{"const": "before"}]},
        {"if": ["(at-port ?c)", "(new ?c)"], "token": [{"const": "unknown-cargo"}]},
        {"token": [{"const": "after"}]},
    ])
    assert model.observe(_act("load red"), _after("load red")) == ("before",)
    assert model.observe(_act("acquire n1"), _after("acquire n1")) == ("unknown-cargo",)
    assert model.observe(_act("load n1"), _after("acquire n1", "load n1")) == ("after",)


def _reachable(task: Task) -> list[int]:
    seen, queue = {task.init}, deque([task.init])
    while queue:
        state = queue.popleft()
        for action in task.applicable(state):
            nxt = action.apply(state)
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return sorted(seen)


@pytest.mark.parametrize("name", ["port", "medkit"])
def test_bitset_and_atom_evaluators_agree(name: str) -> None:
    problem = example_problem(name)
    task, model = problem.task, problem.model
    compared = 0
    for state in _reachable(task):
        for action in task.applicable(state):
            nxt = action.apply(state)
            atoms = [str(f).lower() for f in task.true_facts(nxt)]
            assert model.observe(action, nxt) == model.observe_atoms(action.schema,
                                                                     action.args, atoms)
            compared += 1
    assert compared > 20


def test_function_model() -> None:
    task, _ = _port()
    model = ObservationModel.from_function(task, lambda a, s: (a.schema, bin(s).count("1")))
    assert model.observe(_act("load red"), _after("load red")) == ("load", 5)
    with pytest.raises(InputError):
        model.observe_atoms("load", ["red"], [])


@pytest.mark.parametrize(("rules", "message"), [
    ([{"token": [{"facts": "cargo"}]}], "unknown predicate 'cargo'"),
    ([{"actions": ["ship"], "token": ["action"]}], "unknown action 'ship'"),
    ([{"actions": ["load"], "token": [{"arg": 3}]}], "argument 3 does not exist"),
    ([{"token": [{"arg": 0}]}], "needs the rule's \"actions\""),
    ([{"actions": ["load"], "token": [{"holds": "(on-ship ?4)"}]}], "refers to argument ?4"),
    ([{"token": [{"colour": 1}]}], "unknown token part 'colour'"),
    ([{"token": [{"values": "(at-port red)"}]}], "needs a pattern with a free variable"),
    ([{"token": [{"hook": "nowhere"}]}], "unknown hook 'nowhere'"),
    ([{"token": [{"hook": "no_such_module_xyz:f"}]}], "cannot import hook module"),
    ([{"token": "action"}], "\"token\" must be a list"),
    ([{"token": ["action"], "colour": 1}], "unknown key(s) colour"),
    ([{"token": [{"holds": "at-port red"}]}], "expected an atom"),
    ([], "\"rules\" must be a non-empty list"),
])
def test_bad_models_are_one_line_input_errors(rules: list, message: str) -> None:
    with pytest.raises(InputError) as caught:
        _model(rules)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_files(tmp_path) -> None:
    task, domain = _port()
    bad = tmp_path / "bad.json"
    bad.write_text('{"rules": [\n  {"token": ["action"],}\n]}')
    with pytest.raises(InputError, match=r"bad.json:2:\d+: invalid JSON"):
        load_observation_model(bad, task)
    with pytest.raises(InputError, match="missing.json: no such file"):
        load_observation_model(tmp_path / "missing.json", task)
    two = tmp_path / "two.json"
    two.write_text(json.dumps({"observers": {
        "X": {"role": "adversary", "rules": [{"token": ["action"]}]},
        "C": {"role": "friend", "rules": [{"token": ["name"]}]}}}))
    with pytest.raises(InputError, match="name one"):
        load_observation_model(two, task)
    friend = load_observation_model(two, task, domain, observer="C")
    assert friend.role == "friend" and friend.name == "C"
    with pytest.raises(InputError, match="no observer 'Z'"):
        load_observation_model(two, task, observer="Z")
    role = tmp_path / "role.json"
    role.write_text(json.dumps({"role": "spy", "rules": [{"token": ["action"]}]}))
    with pytest.raises(InputError, match="role 'spy'"):
        load_observation_model(role, task)


def test_goal_files_fail_like_observation_files(tmp_path) -> None:
    """Both file kinds go through one reader: each failure is one line naming the file."""
    from xaip.observers.goals import load_goals

    task, _ = _port()
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"goals": ["(on-ship r\xe9d)"]}')
    bad = tmp_path / "bad.json"
    bad.write_text('{"goals": [\n  ["(on-ship red)"],\n]}')
    for load in (load_goals, load_observation_model):
        with pytest.raises(InputError, match=r"latin.json:1:\d+: not UTF-8 text"):
            load(latin, task)
        with pytest.raises(InputError, match=r"bad.json:3:\d+: invalid JSON"):
            load(bad, task)
        with pytest.raises(InputError, match="missing.json: no such file"):
            load(tmp_path / "missing.json", task)
