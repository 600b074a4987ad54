"""The shared conventions in policy summaries (issue 21): goals true initially, tasks no
policy solves, and the command's answers for both."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from xaip.planning.mdp import ground_probabilistic
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.render import render
from xaip.render.summaries import narration
from xaip.runtime import Status
from xaip.summaries import check, summarize
from xaip.summaries.command import main

DOMAIN = """(define (domain coin)
  (:requirements :strips :probabilistic-effects)
  (:predicates (ready) (heads) (done))
  (:action toss :parameters () :precondition (ready)
    :effect (probabilistic 0.5 (and (heads) (not (ready))) 0.5 (and)))
  (:action finish :parameters () :precondition (heads) :effect (done)))
"""
PROBLEMS = {
    "solvable": "(define (problem p) (:domain coin) (:init (ready)) (:goal (done)))",
    "goal-initially": "(define (problem p) (:domain coin) (:init (ready) (done)) "
                      "(:goal (done)))",
    "dead-start": "(define (problem p) (:domain coin) (:init (done)) (:goal (ready)))",
}


def task(name: str):  # type: ignore[no-untyped-def]
    return ground_probabilistic(parse_domain(DOMAIN), parse_problem(PROBLEMS[name]))


def files(tmp_path: Path, name: str) -> list[str]:
    (tmp_path / "d.pddl").write_text(DOMAIN)
    (tmp_path / "p.pddl").write_text(PROBLEMS[name])
    return [str(tmp_path / "d.pddl"), str(tmp_path / "p.pddl")]


def test_goal_true_initially_is_a_verified_summary_without_subgoals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    summary = summarize(task("goal-initially"))
    assert summary.status == Status.FOUND and summary.verified
    assert summary.concise is not None and summary.concise.subgoals == ()
    assert "The goal holds in the initial state" in narration(summary)
    assert "Make (done) true" not in narration(summary)
    assert main([*files(tmp_path, "goal-initially"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True


def test_a_task_no_policy_solves_is_unsolvable_verified_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """Found by the differential test: the solver's policy for a task whose initial state
    is a dead end used to be refused as "the policy names no action for the initial state
    ... is it a policy for this problem?" (exit 2, bad input)."""
    summary = summarize(task("dead-start"))
    assert summary.status == Status.UNSOLVABLE and summary.verified
    assert "no goal state" in summary.check_details
    assert "no policy reaches the goal" in narration(summary)
    assert "Status: unsolvable; verified" in render(summary)
    assert main([*files(tmp_path, "dead-start"), "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["status"] == "unsolvable" and payload["verified"] is True


def test_the_checker_refutes_a_false_unsolvable_claim() -> None:
    summary = summarize(task("solvable"))
    assert summary.status == Status.FOUND and summary.verified
    wrong = dataclasses.replace(summary, status=Status.UNSOLVABLE)
    report = check(summary.policy, wrong)
    assert report.ok is False and "the goal is reachable" in report.details
