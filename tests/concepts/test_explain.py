"""Ground truth on the symbolic Sokoban variants: the true missing precondition
(``switch-on``) and cost rules (``switch-off``, ``on-pink-cell``) are known, and the
exhaustive checker confirms every answer."""

from __future__ import annotations

import json

import pytest

from xaip.concepts import bundled, check, classify, why_not
from xaip.concepts.bundled import folder
from xaip.errors import InputError
from xaip.runtime import Budget, Status, get_executor

SEEDS = range(4)


@pytest.mark.parametrize("level", ["switch-1", "switch-2"])
def test_missing_precondition_is_switch_on(level: str) -> None:
    query = bundled("sokoban-switch", level, "precondition")
    for seed in SEEDS:
        result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=seed)
        assert result.foil_outcome == "invalid"
        assert result.status == Status.FOUND and result.concepts == ("switch-on",)
        assert result.action is not None and result.action.startswith("push-")
        assert result.confidence is not None and result.confidence >= 0.99
        assert result.verified
        assert result.samples <= 500


@pytest.mark.parametrize("env, level, concept", [
    ("sokoban-switch", "switch-1", "switch-off"),
    ("sokoban-switch", "switch-2", "switch-off"),
    ("sokoban-cells", "cells-1", "on-pink-cell"),
    ("sokoban-cells", "cells-2", "on-pink-cell"),
])
def test_cost_explanation_names_the_rule(env: str, level: str, concept: str) -> None:
    query = bundled(env, level, "cost")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=1)
    assert result.foil_outcome == "costlier" and result.status == Status.FOUND
    assert result.concepts == (concept,)
    named = [claim for claim in result.claims if claim.concepts]
    assert len(named) == 1 and named[0].at_least == 10.0  # the most abstract explanation
    assert sum(claim.at_least for claim in result.claims) > result.plan_cost
    assert result.confidence is not None and result.confidence > 0.99
    assert result.verified and result.samples == 750


@pytest.mark.parametrize("env, level, variant, removed", [
    ("sokoban-switch", "switch-1", "precondition", ("switch-on", "switch-off")),
    ("sokoban-switch", "switch-2", "precondition", ("switch-on", "switch-off")),
    ("sokoban-switch", "switch-1", "cost", ("switch-on", "switch-off")),
    ("sokoban-cells", "cells-1", "cost", ("on-pink-cell", "not-on-pink-cell")),
])
def test_without_the_key_concept_the_vocabulary_is_incomplete(
        env: str, level: str, variant: str, removed: tuple[str, ...]) -> None:
    query = bundled(env, level, variant)
    vocab = query.vocabulary.without(*removed)
    for seed in SEEDS if variant == "precondition" else (0,):
        result = why_not(query.sim, query.plan, query.foil, vocab, seed=seed)
        assert result.status == Status.NO_EXPLANATION, result.text  # never a wrong concept
        assert result.incomplete and result.concepts == ()
        assert "incomplete" in result.text
        assert result.verified


def test_noisy_concepts_still_name_the_precondition_or_say_incomplete() -> None:
    query = bundled("sokoban-switch", "switch-2", "precondition",
                    folder() / "switch-noisy.json")
    assert query.vocabulary["switch-on"].false_negative == 0.02
    answers = []
    for seed in range(8):
        result = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=seed)
        assert result.concepts in ((), ("switch-on",))  # never a wrong concept
        answers.append(result.concepts)
    assert answers.count(("switch-on",)) >= 6


def test_noisy_cost_explanation() -> None:
    query = bundled("sokoban-cells", "cells-1")
    vocab = query.vocabulary.with_noise(0.03, 0.03)
    result = why_not(query.sim, query.plan, query.foil, vocab, seed=2)
    assert result.concepts == ("on-pink-cell",) and result.verified


def test_the_same_answer_on_processes() -> None:
    query = bundled("sokoban-switch", "switch-2", "precondition")
    serial = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=5)
    with get_executor("processes", 2) as pool:  # type: ignore[attr-defined]
        parallel = why_not(query.sim, query.plan, query.foil, query.vocabulary, seed=5,
                           executor=pool)
    assert (serial.concepts, serial.confidence, serial.samples) == \
        (parallel.concepts, parallel.confidence, parallel.samples)


def test_not_worse_and_goal_missing_foils() -> None:
    query = bundled("sokoban-switch", "switch-1", "cost")
    longer = (*query.plan[:4], "noop", *query.plan[4:])
    cheaper = ("move-up", "move-left", "move-down", "move-right", "push-right", "push-right")
    assert classify(query.sim, longer, cheaper)[0] == "not_worse"
    result = why_not(query.sim, longer, cheaper, query.vocabulary)
    assert result.foil_outcome == "not_worse" and result.status == Status.NO_EXPLANATION
    assert result.verified and "not worse" in result.text
    short = why_not(query.sim, query.plan, ("move-up",), query.vocabulary)
    assert short.foil_outcome == "invalid" and short.action == "reach-goal"
    assert short.failed_step == 1 and short.verified


def test_a_longer_foil_is_explained_without_concepts() -> None:
    query = bundled("sokoban-switch", "switch-2", "cost")  # the 14-step foil of level 2
    foil = tuple((folder() / "switch-2.foil.txt").read_text().split())
    result = why_not(query.sim, query.plan, foil, query.vocabulary, seed=0)
    assert result.status == Status.FOUND and result.concepts == ()
    assert result.verified and "whatever holds" in result.text


def test_budget_and_bad_input() -> None:
    query = bundled("sokoban-switch")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary,
                     budget=Budget(max_nodes=1))
    assert result.status == Status.BUDGET_EXHAUSTED and not result.verified
    assert "unfinished" in result.text
    with pytest.raises(InputError, match="foil is the plan"):
        why_not(query.sim, query.plan, query.plan, query.vocabulary)
    with pytest.raises(InputError, match="plan fails"):
        why_not(query.sim, query.foil, query.plan, query.vocabulary)


def test_json_has_the_issue_fields() -> None:
    query = bundled("sokoban-switch")
    payload = json.loads(json.dumps(why_not(query.sim, query.plan, query.foil,
                                            query.vocabulary).to_dict()))
    for key in ("foil_outcome", "failed_step", "action", "concepts", "confidence", "samples",
                "seconds", "status", "verified", "text"):
        assert key in payload
    # the first step fails: numbered 1 in JSON as in the text (issue 21), and said so
    assert payload["failed_step"] == 1 and payload["steps_numbered_from"] == 1
    assert payload["concepts"] == ["switch-on"] and "step 1," in payload["text"]


def test_cost_claims_number_steps_from_one_in_json_text_and_pictures() -> None:
    from xaip.planning.semantics import STEP_NUMBERING
    from xaip.render import render
    from xaip.render.concepts import _label

    query = bundled("sokoban-switch", variant="cost")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    payload = result.to_dict()
    assert payload["steps_numbered_from"] == STEP_NUMBERING["steps_numbered_from"]
    named = [c for c in result.claims if c.concepts]
    assert named
    first = named[0]
    assert payload["claims"][first.step]["step"] == first.step + 1
    assert f"(step {first.step + 1})" in result.text
    assert f"step {first.step + 1}: {first.action}" in render(result)
    assert any(line.startswith(f"step {first.step + 1}:") for line in _label(result))


def test_checker_rejects_wrong_explanations() -> None:
    import dataclasses

    query = bundled("sokoban-switch")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    wrong = dataclasses.replace(result, concepts=("box-right",))
    assert check(query, wrong).ok is False           # holds where the foil fails
    wrong = dataclasses.replace(result, concepts=("not-on-switch-cell",))
    assert check(query, wrong).ok is False
    wrong = dataclasses.replace(result, status=Status.NO_EXPLANATION, incomplete=True,
                                concepts=())
    assert check(query, wrong).ok is False           # switch-on does explain it
    cells = bundled("sokoban-cells")
    found = why_not(cells.sim, cells.plan, cells.foil, cells.vocabulary)
    claims = tuple(dataclasses.replace(c, at_least=c.at_least * 2) for c in found.claims)
    assert check(cells, dataclasses.replace(found, claims=claims)).ok is False
    unfinished = dataclasses.replace(found, status=Status.BUDGET_EXHAUSTED)
    assert check(cells, unfinished).ok is None
