"""Participants see the explanation, not how it was computed nor what the checker said,
unless the condition sets ``show_verdict = true`` (the researcher always has both)."""

from __future__ import annotations

import copy
import io
import re
import tomllib
from pathlib import Path

import pytest

from xaip.errors import InputError
from xaip.userstudy.answers import participant_lines, prepare
from xaip.userstudy.spec import bundled_path, parse_study
from xaip.userstudy.store import open_store

#: Explainers of several families with different verdict and effort lines, each with a
#: piece of its explanation a participant must still see.
CASES = {
    "reconcile.mce": "requires (hand-tucked)",
    "reconcile.conformant": "Initially (hand_capable) does not hold",
    "reconcile.conditional": "tell: Initially (hand_capable) does not hold",
    "concepts.precondition": "`push-right` needs `switch-on`",
    "foils.radar-x": "conflict 1:",
    "explicable.plan-cost": "Most explicable plan",
    "unsolvable.core": "This task has no plan",
    "policy-summary": "First get to the bus stop",
    "balanced.model-space-balanced": "Tell the person",
}
_LEAK = re.compile(r"verified|effort|checker|\b\d+\.\d+ ?(s|ms)\b", re.IGNORECASE)


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_verdict_nor_effort_reaches_participants(name: str) -> None:
    from xaip.contract import explainers
    from xaip.render import render
    from xaip.runtime import Budget

    spec = {s.name: s for s in explainers()}[name]
    result = spec.example(Budget(max_seconds=30))
    assert result.verified
    lines = str(render(result)).splitlines()
    assert any(_LEAK.search(line) for line in lines)  # the renderer does say it
    shown = participant_lines(lines)
    assert [line for line in shown if _LEAK.search(line)] == []
    assert any(CASES[name] in line for line in shown)


def _study(**first: object) -> dict[str, object]:
    data = copy.deepcopy(tomllib.loads(bundled_path("fetch").read_text()))
    data["conditions"][0].update(first)  # type: ignore[index]
    return data


def test_show_verdict_is_the_researchers_choice(tmp_path: Path) -> None:
    store = open_store(tmp_path / "a.sqlite")
    hidden = prepare(parse_study(_study()), store, io.StringIO())
    text = "\n".join(hidden["mce"].lines)
    assert "requires (hand-tucked)" in text
    assert "Effort" not in text and "Verified" not in text
    shown = prepare(parse_study(_study(show_verdict=True)), store, io.StringIO())
    text = "\n".join(shown["mce"].lines)
    assert "Effort:" in text and "Verified independently" in text
    # The kept answer is the same either way (the verdict only changes what is shown, so
    # the same database serves both): the researcher's record is complete.
    assert hidden["mce"].payload == shown["mce"].payload


def test_the_participant_page_has_no_verdict(study_client: object) -> None:
    from tests.userstudy.conftest import HTML, new_codes

    client = study_client
    first, second = new_codes(client, 2)  # type: ignore[arg-type]
    for code in (first, second):
        for stage, extra in ((-2, {"consent": "yes"}), (-1, {})):
            client.post(f"/s/{code}", data={"stage": str(stage), **extra})  # type: ignore[attr-defined]
        page = client.get(f"/s/{code}", headers=HTML).text  # type: ignore[attr-defined]
        assert "Effort" not in page and "Verified" not in page and "verified" not in page


@pytest.mark.parametrize(("change", "message"), [
    ({"show_verdict": "yes"}, "conditions[0].show_verdict: true or false"),
    ({"show": "plan", "show_verdict": True},
     "conditions[0].show_verdict: goes with show = \"explanation\""),
])
def test_bad_show_verdict_is_named(change: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_study(_study(**change))
    assert message in str(caught.value)
