"""Environment files: the bundled FrozenLake and CliffWalking examples through
``xaip why-not``, ``xaip discover`` and ``xaip check-env``, and one-line errors on bad
files."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from xaip.cli import main
from xaip.errors import InputError
from xaip.gymnasium.vocabulary import (
    discovery_vocabulary,
    load_env_file,
    why_not_vocabulary,
)

pytest.importorskip("gymnasium")

EXAMPLES = Path(str(resources.files("xaip") / "domains" / "gymnasium"))
FROZEN = EXAMPLES / "frozenlake" / "frozenlake.json"
CLIFF = EXAMPLES / "cliffwalking" / "cliffwalking.json"
TAXI = EXAMPLES / "taxi" / "taxi.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_frozenlake_file_gives_concepts_and_their_negations() -> None:
    spec = load_env_file(FROZEN)
    assert spec.adapter.restore_kind == "attribute" and spec.env_id == "FrozenLake-v1"
    vocab = why_not_vocabulary(spec)
    assert "hole-right" in vocab.names and "not-hole-right" in vocab.names
    assert len(vocab) == 2 * len(spec.concepts)
    start = spec.adapter.initial()
    assert vocab["on-start"].truth(start) and vocab["edge-left"].truth(start)
    assert vocab["not-hole-down"].truth(start)
    below = spec.adapter.step(start, "right").state  # (0, 1): the hole (1, 1) is below
    assert vocab["hole-down"].truth(below) and not vocab["not-hole-down"].truth(below)
    preds = discovery_vocabulary(spec).predicates
    assert [p.name for p in preds] == [c.name for c in spec.concepts]  # no negations
    assert all(p.arity == 0 for p in preds)


def test_why_not_on_frozenlake_names_the_hole(capsys: pytest.CaptureFixture[str]) -> None:
    folder = FROZEN.parent
    code, out, _ = run(capsys, "why-not", str(FROZEN), "--plan", str(folder / "plan.txt"),
                       "--foil", str(folder / "foil.txt"), "--json")
    payload = json.loads(out)
    assert code == 0 and payload["verified"] is True
    assert payload["foil_outcome"] == "invalid" and payload["failed_step"] == 2
    assert payload["action"] == "down" and payload["concepts"] == ["not-hole-down"]
    assert payload["steps_numbered_from"] == 1


def test_why_not_on_cliffwalking_prices_the_cliff(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why-not", str(CLIFF), "--json")
    payload = json.loads(out)
    assert code == 0 and payload["verified"] is True
    assert payload["foil_outcome"] == "costlier" and payload["foil_cost"] == 115.0
    assert payload["concepts"] == ["cliff-down"]


def test_discover_on_frozenlake_is_verified(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "discover", str(FROZEN), "--quiet", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["verified"] is True and payload["status"] == "complete"
    assert payload["restore"] == "attribute" and payload["capabilities"]
    truth = payload["checks"]["truth"]
    assert truth["states"] == 16 and truth["precision"] == 1.0
    code, out, _ = run(capsys, "discover", str(FROZEN), "--quiet", "--max-queries", "0",
                       "--tasks", "1", "--json")
    assert json.loads(out)["status"] in ("complete", "budget_exhausted")


def test_check_env_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "check-env", "Taxi-v3", "--json")
    assert code == 0 and json.loads(out)["restore"] == "attribute"
    code, out, _ = run(capsys, "check-env", "FrozenLake-v1", "--make", "is_slippery=true")
    assert code == 2
    code, out, err = run(capsys, "check-env", "NoSuchEnv-v0")
    assert code == 2 and "cannot make 'NoSuchEnv-v0'" in err and "Traceback" not in err
    code, out, _ = run(capsys, "check-env", str(FROZEN))
    assert code == 0 and "restored by attribute" in out


def write(tmp_path: Path, **changes: Any) -> Path:
    data = json.loads(FROZEN.read_text())
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    path = tmp_path / "env.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("changes", "message"), [
    ({"colour": 1}, "unknown key 'colour'"),
    ({"env": 3}, "'env' names a registered"),
    ({"concepts": {"x": "tile = H"}}, "cannot read condition"),
    ({"concepts": {"x": "tyle == H"}}, "unknown feature 'tyle'"),
    ({"concepts": {"x": "tile == Q"}}, "'Q' is not a value of tile"),
    ({"concepts": {"x": "tile < F"}}, "compares numbers"),
    ({"concepts": {"x": "row < H"}}, "not a value of row"),
    ({"concepts": {"not-x": "row == 0"}}, "generated negations"),
    ({"concepts": {"x": {"when": "row == 0", "colour": 1}}}, "a concept is a condition"),
    ({"concepts": {}}, "'concepts' maps"),
    ({"plan": ["jump"]}, "unknown action 'jump'"),
    ({"cost": "money"}, "'cost' is one of"),
    ({"make": {"is_slippery": True}}, "not deterministic"),
    ({"make": {"no_such_option": 1}}, "cannot make 'FrozenLake-v1'"),
    ({"goal": "tile in H"}, "takes a list"),
])
def test_bad_files_are_one_line(tmp_path: Path, changes: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message) as caught:
        load_env_file(write(tmp_path, **changes))
    assert "\n" not in str(caught.value)


def test_conditions_in_lists_and_any(tmp_path: Path) -> None:
    spec = load_env_file(write(tmp_path, concepts={
        "corner": {"when": ["row in [0, 3]", "col in [0, 3]"]},
        "middle": {"any": ["row == 1", "row == 2"], "when": "col >= 1"}}))
    vocab = why_not_vocabulary(spec)
    start = spec.adapter.initial()
    assert vocab["corner"].truth(start) and not vocab["middle"].truth(start)
    down_right = spec.adapter.step(spec.adapter.step(start, "down").state, "down").state
    assert not vocab["middle"].truth(down_right)  # (2, 0): column 0
    assert vocab["middle"].truth(spec.adapter.step(down_right, "right").state)


def test_cli_refuses_options_that_do_not_apply(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "why-not", str(FROZEN), "--level", "x.txt")
    assert code == 2 and "takes no --level" in err
    code, _, err = run(capsys, "discover", str(FROZEN), "--grid", "5x5")
    assert code == 2 and "takes no --grid" in err
    code, _, err = run(capsys, "why-not", "chess")
    assert code == 2 and "unknown environment 'chess'" in err


def test_replayed_toy_text_keeps_its_features(tmp_path: Path) -> None:
    """Regression (differential campaign): with ``"restore": "replay"`` FrozenLake's
    features fell back to the generic ``state`` only, so every file naming ``tile`` was
    refused. The replayed key is the observation, which for toy-text is ``s`` itself."""
    replayed = load_env_file(write(tmp_path, restore="replay"))
    own = load_env_file(FROZEN)
    assert replayed.adapter.restore_kind == "replay"
    a, b = why_not_vocabulary(replayed), why_not_vocabulary(own)
    state_a, state_b = replayed.adapter.initial(), own.adapter.initial()
    for action in ("down", "down", "right"):
        state_a = replayed.adapter.step(state_a, action).state
        state_b = own.adapter.step(state_b, action).state
        assert [c.truth(state_a) for c in a.concepts] == [c.truth(state_b) for c in b.concepts]


def test_taxi_pickup_needs_the_passenger(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "why-not", str(TAXI), "--json")
    payload = json.loads(out)
    assert code == 0 and payload["verified"] is True
    assert (payload["failed_step"], payload["action"]) == (6, "pickup")
    assert payload["concepts"] == ["at-passenger"]
    spec = load_env_file(TAXI)
    vocab = why_not_vocabulary(spec)
    state = spec.adapter.initial()
    for action in spec.plan[:6]:  # up to the pickup: the taxi is where the passenger waits
        state = spec.adapter.step(state, action).state
    assert vocab["at-passenger"].truth(state) and not vocab["passenger-in-taxi"].truth(state)
    state = spec.adapter.step(state, "pickup").state
    assert vocab["passenger-in-taxi"].truth(state) and not vocab["at-passenger"].truth(state)
    for action in spec.plan[7:]:
        state = spec.adapter.step(state, action).state
    assert state.terminated and spec.goal(state)


def test_env_files_refuse_workers_and_pictures(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "why-not", str(FROZEN), "--workers", "2")
    assert code == 2 and "one process" in err
    code, _, err = run(capsys, "why-not", str(FROZEN), "--picture", "x.png")
    assert code == 2 and "no picture" in err
    code, _, err = run(capsys, "why-not", str(FROZEN), "--teach")
    assert code == 2 and "add the concept to the file" in err


def test_a_wrong_sampled_precondition_is_refused_by_the_checker(tmp_path: Path) -> None:
    """Differential seed 689: on this lake 'right' from the start falls into a hole; 50
    samples left `not-top-row` as the only candidate (confidence 0.991), but 'right'
    succeeds in the top row further right, so no concept of this vocabulary explains the
    failure. The enumerating checker must refuse the sampled answer."""
    from xaip.concepts import why_not
    from xaip.gymnasium.vocabulary import black_box

    lake = ["SHFFF", "FFFHF", "FFFFF", "FFFFF", "HFFFG"]
    path = write(tmp_path, make={"desc": lake, "is_slippery": False}, restore="replay",
                 concepts={"hole-left": "tile-left == H", "edge-right": "tile-right == edge",
                           "hole-up": "tile-up == H", "edge-down": "tile-down == edge",
                           "top-row": "row == 0"}, plan=None, foil=None)
    spec = load_env_file(path)
    plan = ["down", "down", "down", "right", "down", "right", "right", "right"]
    result = why_not(black_box(spec), plan, ["right", "left"], why_not_vocabulary(spec),
                     seed=689)
    assert (result.failed_step, result.action) == (0, "right")
    assert spec.adapter.step(spec.adapter.initial(), "right").terminated  # the hole
    if result.incomplete:
        assert result.verified  # the honest answer, confirmed
    else:
        assert result.concepts == ("not-top-row",) and not result.verified


def test_an_ale_env_file_reads_ram_and_is_checked_on_fresh_samples(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Montezuma through an environment file: RAM features, ALE snapshots, and the
    checker's fresh samples (an emulator's states cannot be listed)."""
    path = tmp_path / "mz.json"
    path.write_text(json.dumps({
        "env": "ALE/MontezumaRevenge-v5", "make": {"repeat_action_probability": 0.0},
        "concepts": {"left-half": "ram-42 < 77", "room-1": "ram-3 == 1"},
        "plan": ["noop"], "foil": ["left", "left"]}))
    spec = load_env_file(path, check=False)
    assert spec.adapter.restore_kind == "ale"
    vocab = why_not_vocabulary(spec)
    start = spec.adapter.initial()
    assert vocab["room-1"].truth(start) and not vocab["not-room-1"].truth(start)
    code, out, _ = run(capsys, "why-not", str(path), "--budget", "40", "--max-nodes", "200")
    assert code in (0, 1) and "on fresh samples" in out and "enumeration" not in out


def test_discovery_resumes_from_its_store_for_the_same_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = str(tmp_path / "answers.db")
    code, out, _ = run(capsys, "discover", str(TAXI), "--quiet", "--store", store, "--json")
    first = json.loads(out)
    assert code == 0 and first["stats"]["asked"] > 0
    code, out, _ = run(capsys, "discover", str(TAXI), "--quiet", "--store", store, "--json")
    again = json.loads(out)
    assert code == 0 and again["stats"]["asked"] == 0
    assert again["stats"]["cached"] == first["stats"]["queries"]
    assert again["capabilities"] == first["capabilities"]
    edited = write(tmp_path, seed=1)  # another file: its answers are not these
    code, _, err = run(capsys, "discover", str(edited), "--quiet", "--store", store)
    assert code == 2 and "another run" in err
