"""Every registered explainer follows the one shape (in the manner of scikit-learn's
``parametrize_with_checks``): a new explainer joins these tests by registering itself in
its family's ``registry`` module (see :mod:`xaip.contract`)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from xaip.contract import CheckReport, ExplainerSpec, explainers
from xaip.render import render
from xaip.runtime import Budget, Status

SPECS = explainers()


def test_every_family_registers_explainers() -> None:
    assert {spec.family for spec in SPECS} >= {"reconcile", "summaries", "capabilities"}


def _spec_id(spec: ExplainerSpec) -> str:
    return spec.name


@pytest.fixture(scope="module")
def finished() -> dict[str, object]:
    return {}


def _finished(spec: ExplainerSpec, cache: dict[str, object]) -> object:
    if spec.name not in cache:
        cache[spec.name] = spec.example(Budget())
    return cache[spec.name]


@pytest.mark.parametrize("spec", SPECS, ids=_spec_id)
def test_result_is_frozen_and_json_safe(spec: ExplainerSpec, finished: dict[str, object]) -> None:
    result = _finished(spec, finished)
    assert dataclasses.is_dataclass(result)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(result, "seconds", 0.0)  # noqa: B010 - the point is that it fails
    assert isinstance(result.status, Status)  # type: ignore[attr-defined]
    assert isinstance(result.seconds, float)  # type: ignore[attr-defined]
    assert isinstance(dict(result.stats), dict)  # type: ignore[attr-defined]
    payload = json.loads(json.dumps(result.to_dict()))  # type: ignore[attr-defined]
    assert payload["status"] == str(result.status)  # type: ignore[attr-defined]
    assert payload["verified"] is result.verified  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", SPECS, ids=_spec_id)
def test_checker_confirms_a_finished_answer(spec: ExplainerSpec,
                                            finished: dict[str, object]) -> None:
    result = _finished(spec, finished)
    assert result.status.finished  # type: ignore[attr-defined]
    report = spec.check(result)
    assert isinstance(report, CheckReport)
    assert report.ok is True, report.details
    assert result.verified is True  # type: ignore[attr-defined]


@pytest.mark.parametrize("spec", SPECS, ids=_spec_id)
def test_one_node_budget_is_unfinished_and_unverified(spec: ExplainerSpec) -> None:
    result = spec.example(Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED
    assert result.verified is False
    assert json.loads(json.dumps(result.to_dict()))["verified"] is False


@pytest.mark.parametrize("spec", SPECS, ids=_spec_id)
def test_rendered_text_is_not_empty(spec: ExplainerSpec, finished: dict[str, object]) -> None:
    text = render(_finished(spec, finished))
    assert isinstance(text, str) and text.strip()
