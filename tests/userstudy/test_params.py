"""Explainer parameters in the study file: checked key by key at load (one line naming
the key), part of the study's identity, and really passed to the explainer."""

from __future__ import annotations

import copy
import io
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from xaip.errors import InputError
from xaip.userstudy.answers import prepare
from xaip.userstudy.params import PARAMETERS
from xaip.userstudy.spec import bundled_path, load_study, parse_study
from xaip.userstudy.store import open_store

DOMAINS = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains"


def _study(explainer: str, params: Any, **extra: Any) -> dict[str, Any]:
    data = copy.deepcopy(tomllib.loads(bundled_path("fetch").read_text()))
    data["conditions"][0].update(explainer=explainer, params=params, **extra)
    return data


@pytest.mark.parametrize(("explainer", "params", "message"), [
    ("reconcile.mce", {"foils": ["avoid:tuck"]},
     "conditions[0].params.foils: unknown parameter of reconcile.mce (known: grounded)"),
    ("reconcile.mce", {"grounded": "yes"}, "conditions[0].params.grounded: true or false"),
    ("reconcile.mce", [1], "conditions[0].params: a table of parameters"),
    ("reconcile.conditional", {"alpha": 1.5},
     "conditions[0].params.alpha: a number from 0 to 1, not 1.5"),
    ("reconcile.conformant", {"annotation_cost": -1},
     "conditions[0].params.annotation_cost: a finite number >= 0"),
    ("balanced.model-space-balanced", {"gama": 1},
     "conditions[0].params.gama: unknown parameter of balanced.model-space-balanced "
     "(known: alpha, beta, communication_cost, gamma)"),
    ("balanced.model-space-balanced", {"beta": True}, "conditions[0].params.beta:"),
    ("concepts.precondition", {"seed": 1},
     "conditions[0].params: concepts.precondition takes no parameters in a study"),
    ("reconcile.contrastive", {"foils": []},
     "conditions[0].params.foils: a non-empty list of foil texts"),
    ("reconcile.contrastive", {"foils": ["avoid:"]}, "conditions[0].params.foils[0]:"),
    ("foils.radar-x", {"foils": ["use (fly b2)"]}, "conditions[0].params.foils"),
    ("reconcile.mce", {"max_seconds": 5},
     "conditions[0].params.max_seconds: the budget goes in the condition itself "
     "(conditions[0].max_seconds)"),
])
def test_bad_parameters_are_named(explainer: str, params: Any, message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_study(_study(explainer, params))
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_every_explainer_with_parameters_is_registered() -> None:
    from xaip.contract import explainers

    names = {spec.name for spec in explainers()}
    assert set(PARAMETERS) <= names


def test_parameters_change_the_answer(tmp_path: Path) -> None:
    """Balanced planning's weights: with explanations free (beta = 0) the robot explains
    and takes the shorter route; with the book's prices it says nothing."""
    data = _study("balanced.model-space-balanced", {"beta": 0.0})
    data["conditions"][1].update(explainer="balanced.model-space-balanced", show="explanation")
    study = parse_study(data)
    assert study.conditions[0].params == (("beta", 0.0),)
    shown = prepare(study, open_store(tmp_path / "b.sqlite"), io.StringIO())
    free, priced = shown["mce"].payload, shown["none"].payload
    assert free["weights"]["beta"] == 0.0 and priced["weights"]["beta"] == 1.0
    assert free["verified"] and priced["verified"]
    assert free["explanation"] and not priced["explanation"]
    assert free["plan"] != priced["plan"]


def test_foils_of_a_contrastive_condition_and_of_radar_x(tmp_path: Path) -> None:
    data = _study("reconcile.contrastive", {"foils": ["use:crouch"]})
    data["conditions"][1].update(explainer="foils.radar-x", show="explanation",
                                 params={"foils": ["use (put-down b2)"]})
    shown = prepare(parse_study(data), open_store(tmp_path / "f.sqlite"), io.StringIO())
    assert shown["mce"].payload["foils"] == ["a plan that uses crouch"]
    assert any("no cheaper than the robot's plan" in line for line in shown["mce"].lines)
    radar = shown["none"].payload
    assert [c["text"] for c in radar["constraints"]] == ["use (put-down b2)"]
    assert radar["verified"] and any("(put-down b2)" in line for line in shown["none"].lines)


def test_an_uncertain_type_on_its_own_files(tmp_path: Path) -> None:
    usar = DOMAINS / "usar"
    files = {"robot": str(usar / "robot.pddl"), "human": str(usar / "human.pddl"),
             "problem": str(usar / "problem.pddl"), "plan": str(usar / "plan.txt"),
             "human_problem": str(usar / "human-problem.pddl"),
             "annotations": str(usar / "annotations.txt")}
    data = _study("reconcile.conditional", {"alpha": 1.0}, files=files)
    path = tmp_path / "usar.json"
    path.write_text(json.dumps(data))
    study = load_study(path)
    shown = prepare(study, open_store(tmp_path / "u.sqlite"), io.StringIO())
    payload = shown["mce"].payload
    assert payload["type"] == "conditional" and payload["verified"]
    # alpha = 1 prices only the statements: the dialogue asks nothing.
    assert not any(line.strip().startswith("ask:") for line in shown["mce"].lines)
    no_annotations = dict(files)
    del no_annotations["annotations"]
    with pytest.raises(InputError, match=r"files\.annotations: reconcile\.conditional needs"):
        parse_study(_study("reconcile.conditional", None, files=no_annotations),
                    folder=tmp_path)
    with pytest.raises(InputError, match=r"files\.annotations: only"):
        parse_study(_study("reconcile.mce", None, files=files), folder=tmp_path)


def test_contrastive_on_own_files_needs_its_foils(tmp_path: Path) -> None:
    fetch = DOMAINS / "fetch"
    files = {key: str(fetch / f"{key}.pddl") for key in ("robot", "human", "problem")}
    with pytest.raises(InputError, match=r"conditions\[0\]\.params\.foils: reconcile\."
                                         "contrastive on the study's own files needs"):
        parse_study(_study("reconcile.contrastive", None, files=files), folder=tmp_path)
    study = parse_study(_study("reconcile.contrastive", {"foils": ["avoid:tuck"]},
                               files=files), folder=tmp_path)
    shown = prepare(study, open_store(tmp_path / "c.sqlite"), io.StringIO())
    assert shown["mce"].payload["type"] == "contrastive" and shown["mce"].payload["verified"]


def test_changed_parameters_need_a_new_database(tmp_path: Path) -> None:
    from xaip.userstudy.serving import start_study

    db = str(tmp_path / "s.sqlite")
    first = tmp_path / "one.json"
    first.write_text(json.dumps(_study("reconcile.mce", {"grounded": False})))
    start_study(str(first), db, None, log=io.StringIO()).store.close()
    start_study(str(first), db, None, log=io.StringIO()).store.close()  # same: reused
    second = tmp_path / "two.json"
    second.write_text(json.dumps(_study("reconcile.mce", {"grounded": True})))
    with pytest.raises(InputError, match="another study"):
        start_study(str(second), db, None, log=io.StringIO())
