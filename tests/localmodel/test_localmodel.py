"""The local-model learner (V03): the paper's point on Sokoban-switch, the checker, the CLI."""

from __future__ import annotations

import json

import pytest

from xaip.cli import main
from xaip.concepts.bundled import bundled
from xaip.concepts.simulator import run_trace
from xaip.concepts.sokoban import Sokoban, parse_level
from xaip.concepts.vocabulary import default_vocabulary
from xaip.errors import InputError
from xaip.localmodel import check_local_model, learn_and_check, learn_local_model
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.render import render
from xaip.runtime import Budget, Status


def _switch() -> tuple[Sokoban, object, tuple[object, ...]]:
    query = bundled("sokoban-switch")
    return query.sim, query.vocabulary, tuple(run_trace(query.sim, query.plan).states)


def test_pushes_need_switch_on_and_the_exhaustive_model_is_verified() -> None:
    sim, vocabulary, starts = _switch()
    result = learn_and_check(sim, vocabulary, starts, samples=None)
    assert result.status == Status.FOUND and result.verified
    for push in ("push-up", "push-down", "push-left", "push-right"):
        model = result.action(push)
        if model.learned:
            assert "switch-on" in model.precondition
    assert "switch-on" not in result.action("move-up").precondition
    assert result.check is not None and result.check.accuracy["actions_exact"] == 9
    assert "switch-off" in result.initial and "all-boxes-on-targets" in result.goal


def test_few_samples_overconstrain_and_the_checker_refutes() -> None:
    sim, vocabulary, starts = _switch()
    result = learn_and_check(sim, vocabulary, starts, samples=30, seed=3)
    exact = learn_local_model(sim, vocabulary, starts, samples=None)
    for model in result.actions:
        if model.learned:
            assert set(exact.action(model.name).precondition) <= set(model.precondition)
    assert not result.verified
    assert result.check is not None and result.check.violation_count > 0


def test_toggle_effect_is_reported_and_confirmed() -> None:
    """Regression (differential seed 13): a concept that a move turns on in one state and
    off in another was called consistent, and the exact model then failed its check."""
    level = parse_level("#####\n#@ s#\n#$. #\n#####", "toggle")
    sim = Sokoban(level, "sokoban-switch", "precondition")
    vocabulary = default_vocabulary(level)
    result = learn_and_check(sim, vocabulary, (sim.initial(),), samples=None)
    kinds = {(c.concept, c.kind) for a in result.actions for c in a.conflicts}
    assert ("switch-on", "toggle") in kinds
    assert result.verified


def test_state_dependent_cost_is_reported() -> None:
    query = bundled("sokoban-cells")
    starts = tuple(run_trace(query.sim, query.plan).states)
    result = learn_and_check(query.sim, query.vocabulary, starts, samples=None)
    assert result.verified
    dependent = [a.name for a in result.actions if a.cost_state_dependent]
    assert dependent and all(a.startswith("push") for a in dependent)
    assert any("state-dependent" in line for line in result.assumption_failures)
    assert "(:metric minimize (total-cost))" in result.problem_pddl


def test_pddl_parses_and_budget_leaves_it_unverified() -> None:
    sim, vocabulary, starts = _switch()
    result = learn_local_model(sim, vocabulary, starts, samples=None)
    domain = parse_domain(result.domain_pddl)
    parse_problem(result.problem_pddl, domain)
    assert "push-right" in render(result) and "(define (domain" in render(result, "pddl")
    tiny = learn_and_check(sim, vocabulary, starts, samples=None, budget=Budget(max_nodes=1))
    assert tiny.status == Status.BUDGET_EXHAUSTED and not tiny.verified
    report = check_local_model(sim, vocabulary, starts, result)
    assert report.ok


def test_bad_input() -> None:
    sim, vocabulary, starts = _switch()
    with pytest.raises(InputError):
        learn_local_model(sim, vocabulary, (), samples=10)
    with pytest.raises(InputError):
        learn_local_model(sim, vocabulary, starts, samples=0)


def test_cli(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "model"
    assert main(["learn-local", "sokoban-switch", "--write-pddl", str(out), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["verified"] and payload["family"] == "localmodel"
    assert (out / "domain.pddl").read_text().startswith("; local model")
    assert main(["learn-local", "sokoban-switch", "--samples", "20"]) == 1
    assert "not verified" in capsys.readouterr().out
    assert main(["learn-local", "no-such-env"]) == 2
    assert main(["learn-local", "sokoban-switch", "--max-nodes", "1"]) == 1


def test_fresh_walks_when_the_region_is_too_large(monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the enumeration limit the checker draws fresh walks on its own seed and
    reports no precision/recall (it has no exact model to compare with)."""
    from xaip.localmodel import check as checker

    sim, vocabulary, starts = _switch()
    monkeypatch.setattr(checker, "enumeration_limit", lambda samples: 10)
    result = learn_and_check(sim, vocabulary, starts, samples=None)
    assert result.check is not None
    assert result.check.mode == "fresh-walks" and result.check.accuracy == {}
    assert result.verified  # the exhaustive model holds on any fresh state
    few = learn_and_check(sim, vocabulary, starts, samples=10)
    assert not few.verified and few.check is not None and few.check.mode == "fresh-walks"


def test_checker_refutes_a_tampered_model() -> None:
    """A checker that cannot fail is no checker: claim that noop turns the switch on (a
    consistent action with a wrong effect) and it must object."""
    import dataclasses

    sim, vocabulary, starts = _switch()
    result = learn_local_model(sim, vocabulary, starts, samples=None)
    noop = result.action("noop")
    wrong = dataclasses.replace(noop, add=("switch-on",))
    actions = tuple(wrong if a.name == "noop" else a for a in result.actions)
    report = check_local_model(sim, vocabulary, starts,
                               dataclasses.replace(result, actions=actions))
    assert report.ok is False and "noop" in report.details


def test_gymnasium_environment_file(capsys) -> None:  # type: ignore[no-untyped-def]
    """Any black box why-not loads works: CliffWalking's step into the cliff costs 100, so
    ``down`` has a state-dependent cost."""
    from importlib import resources

    path = resources.files("xaip") / "domains" / "gymnasium" / "cliffwalking" / \
        "cliffwalking.json"
    assert main(["learn-local", str(path), "--samples", "300", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    down = next(a for a in payload["actions"] if a["action"] == "down")
    assert down["cost_state_dependent"] and down["max_cost"] == 100


def test_weak_literals_are_those_no_failure_needs() -> None:
    """``not-wall-up`` is needed by move-up (it fails where only that literal is false);
    ``not-on-pink-cell`` holds everywhere on a level without pink cells, so no failure needs
    it and it is flagged; an action seen to succeed fewer than 10 times has every literal
    flagged."""
    sim, vocabulary, starts = _switch()
    result = learn_local_model(sim, vocabulary, starts, samples=None)
    move_up = result.action("move-up")
    assert move_up.successes >= 10
    assert "not-wall-up" in move_up.precondition and "not-wall-up" not in move_up.weak
    assert "not-on-pink-cell" in move_up.weak
    rare = [a for a in result.actions if a.learned and a.successes < 10]
    assert rare and all(set(a.weak) == set(a.precondition) for a in rare)
