"""Issue 21, words and numbers of ``explain``: steps from 1, a contrastive answer that never
contradicts itself, a veto that leaves no plan is a negative answer (exit 1) that keeps the
dialogue; and foils whose action no reachable ground action instantiates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from xaip.cli import main
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.reconcile import explain, make_mrp, parse_foil
from xaip.render import render

FETCH = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "fetch"
FETCH_FILES = [str(FETCH / n) for n in ("robot.pddl", "human.pddl", "problem.pddl")]
DATA = Path(__file__).resolve().parent / "data"
VETO = [str(DATA / f"veto-{n}.pddl") for n in ("robot", "human", "problem")]


def test_steps_are_numbered_from_one_in_text_and_json(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", *FETCH_FILES, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["steps_numbered_from"] == 1
    # (move loc1 loc2) is the second step of the expected plan
    assert "fails at step 2, (move loc1 loc2)" in payload["expected_plan_after"]


def test_contrastive_answer_does_not_contradict_the_cheaper_plan(
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["explain", *FETCH_FILES, "--type", "contrastive", "--foil", "use:crouch"])
    text = capsys.readouterr().out
    assert code == 0
    assert "a plan of cost 3 looks better" in text
    assert "already optimal" not in text
    assert "a plan that uses crouch is no cheaper" in text


def test_expected_plan_that_stays_cheaper_is_said_to(capsys: pytest.CaptureFixture[str]
                                                     ) -> None:
    mrp = make_mrp(parse_domain(Path(FETCH_FILES[0]).read_text()),
                   parse_problem(Path(FETCH_FILES[2]).read_text()),
                   parse_domain(Path(FETCH_FILES[1]).read_text()))
    result = explain(mrp, "contrastive", foils=[parse_foil("use:crouch")])
    assert result.expected_plan_after.startswith("still costs 3, less than")
    assert "no less" not in render(result)


def test_a_veto_that_leaves_no_plan_keeps_the_dialogue_and_exits_1(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", *VETO, "--veto", "1"]) == 1
    text = capsys.readouterr().out
    assert "Round 1:" in text and "prep() makes (ready) true" in text
    assert "leaves the robot with no plan" in text
    assert main(["explain", *VETO, "--veto", "1", "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "unsolvable" and payload["verified"] is True
    assert len(payload["rounds"]) == 1 and payload["rounds"][0]["vetoed"]


def test_use_foil_of_an_unreachable_action_is_an_unsolvable_foil() -> None:
    # 'boost' needs a fact nothing achieves: no ground action of it is reachable, so no plan
    # uses it -- the robot's plan is no worse than that foil (was: an InputError).
    domain = parse_domain("""(define (domain u) (:requirements :strips)
      (:predicates (a) (b) (never))
      (:action step :parameters () :precondition (a) :effect (b))
      (:action boost :parameters () :precondition (never) :effect (b)))""")
    problem = parse_problem("(define (problem q) (:domain u) (:init (a)) (:goal (b)))")
    mrp = make_mrp(domain, problem, domain, problem)
    result = explain(mrp, "contrastive", foils=[parse_foil("use:boost")])
    assert result.edits == () and result.verified


def test_unfinished_conditional_explanation_is_budget_exhausted_with_answers() -> None:
    # Issue 22: the workbench answered 400 "more answers than the explanation asks for"
    # when a conditional explanation ran out of budget: the unfinished result has no
    # policy, and walking the person's answers along "no policy" refused them.
    from xaip.reconcile import AnnotatedMRP, load_mrp, read_annotations
    from xaip.runtime import Budget, Status
    from xaip.web.pages.explain import walk

    usar = Path(__file__).resolve().parents[2] / "src" / "xaip" / "domains" / "usar"
    mrp = load_mrp(usar / "robot.pddl", usar / "human.pddl", usar / "problem.pddl",
                   usar / "plan.txt", usar / "human-problem.pddl")
    amrp = AnnotatedMRP(mrp, read_annotations(usar / "annotations.txt", mrp.human_domain))
    result = explain(amrp, "conditional", budget=Budget(max_nodes=3), alpha=0.0)
    assert result.status == Status.BUDGET_EXHAUSTED and result.policy is None
    payload = result.to_dict()
    assert payload["status"] == "budget_exhausted"
    assert walk(payload["policy"], "yn") == ([], False)


def test_alpha_outside_zero_to_one_is_refused_for_every_type(capsys) -> None:
    """``--alpha -1`` was accepted (exit 0) unless the type was conditional (issue 22)."""
    from pathlib import Path

    import xaip.domains
    from xaip.cli import main

    fetch = str(Path(xaip.domains.__file__).parent / "fetch") + "/"
    for value in ("-1", "1.5", "nan"):
        code = main(["explain", fetch + "robot.pddl", fetch + "human.pddl",
                     fetch + "problem.pddl", f"--alpha={value}"])
        assert code == 2
        assert "--alpha" in capsys.readouterr().err
