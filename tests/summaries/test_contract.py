"""Policy summaries as conforming explainer results: frozen, JSON-safe, one checker, one
budget over every phase, and bad input answered with exit code 2."""

from __future__ import annotations

import dataclasses
import json
import time
from pathlib import Path

import pytest

from xaip.contract import CHECKER_BUDGET, explainers
from xaip.planning.landmarks import BudgetExhausted
from xaip.planning.mdp import (
    NoProperPolicy,
    Policy,
    ProbabilisticTask,
    ground_probabilistic,
    policy_graph,
)
from xaip.planning.pddl import read_domain, read_problem
from xaip.render import formats, render
from xaip.runtime import Budget, Status
from xaip.summaries import DrillDown, PolicySummary, check, drill_down, summarize
from xaip.summaries.command import main
from xaip.summaries.summary import PHASES

IPPC = Path(__file__).resolve().parents[3] / "shared" / "data" / "ippc" / "ippc2006"


def airport() -> ProbabilisticTask:
    from xaip.domains.airport import airport_paths

    domain, problem = airport_paths()
    return ground_probabilistic(read_domain(domain), read_problem(problem))


def ippc(folder: str, problem: str, domain: str = "domain.pddl") -> ProbabilisticTask:
    path = IPPC / folder
    if not path.exists():
        pytest.skip("IPPC data not available")
    return ground_probabilistic(read_domain(path / domain), read_problem(path / problem))


# --------------------------------------------------------------------------- contract


@pytest.mark.parametrize("name", ["policy-summary", "policy-drill-down"])
def test_registered_explainers_conform(name: str) -> None:
    spec = next(s for s in explainers() if s.name == name)
    cut = spec.example(Budget(max_nodes=1))
    assert cut.status == Status.BUDGET_EXHAUSTED and cut.verified is False
    assert spec.check(cut).ok is None
    done = spec.example(Budget())
    assert done.status == Status.FOUND and done.verified is True
    assert spec.check(done).ok is True
    with pytest.raises(dataclasses.FrozenInstanceError):
        done.status = Status.FOUND  # type: ignore[misc]
    for result in (cut, done):
        data = json.loads(json.dumps(result.to_dict()))
        assert data["status"] == str(result.status) and data["verified"] is result.verified
        assert isinstance(result.seconds, float) and isinstance(dict(result.stats), dict)
        assert render(result).strip()


def test_summary_renders_dot_and_svg() -> None:
    summary = summarize(airport())
    assert {"text", "json", "dot", "svg"} <= set(formats(summary))
    dot = render(summary, "dot")
    graph, legend = dot.split('subgraph "cluster_legend"')  # the legend comes last
    assert dot.startswith("digraph") and graph.count("->") == 6
    assert "a landmark of this policy only" in legend and legend.count("->") >= 1
    assert 'style="dashed"' in dot and '"palegreen"' in dot and '"lightblue"' in dot
    assert "<svg" in render(summary, "svg")


def test_the_checker_rejects_a_tampered_summary() -> None:
    summary = summarize(airport())
    assert summary.verified and summary.concise is not None
    facts = summary.concise.facts
    # Claim a fact the policy never makes true as a landmark.
    never = next(f for f in range(len(summary.task.facts)) if f not in facts
                 and summary.graph is not None
                 and all(not s >> f & 1 for s in summary.graph.states))
    tampered = dataclasses.replace(summary, concise=dataclasses.replace(
        summary.concise, facts=(*facts, never)))
    report = check(summary.policy, tampered)
    assert report.ok is False and "concise landmarks are unsound" in report.details
    wrong_probability = dataclasses.replace(summary, goal_probability=0.5)
    assert check(summary.policy, wrong_probability).ok is False


def test_drill_down_is_checked_leg_by_leg() -> None:
    from xaip.planning.pddl.model import Atom

    summary = summarize(airport())
    ptask = summary.task
    station1 = ptask.fact_index[Atom("at", ("station1",))]
    drill = drill_down(ptask, summary.policy, station1, None)
    assert isinstance(drill, DrillDown) and drill.verified
    bad = dataclasses.replace(drill, common=())
    assert check(summary.policy, bad).ok is False


# --------------------------------------------------------------------------- budgets


def test_every_node_budget_ends_in_a_finished_or_unfinished_result() -> None:
    """Sweep the node budget over the airport example: each run either finishes verified,
    finishes with a checker out of its own (fresh) budget -- found, "unverified: checker
    budget" -- or stops unfinished in a named phase, claiming nothing; several phases are
    reached."""
    ptask = airport()
    full = summarize(ptask)
    assert full.status == Status.FOUND and full.verified
    stopped: set[str] = set()
    for nodes in range(0, int(full.stats["nodes"]) + 2):
        result = summarize(ptask, budget=Budget(max_nodes=nodes))
        assert isinstance(result, PolicySummary)
        json.dumps(result.to_dict())
        if result.status == Status.FOUND:
            if not result.verified:
                assert result.check_details.startswith(CHECKER_BUDGET)
                assert f"Status: found; {CHECKER_BUDGET}" in render(result)
            continue
        assert result.status == Status.BUDGET_EXHAUSTED and not result.verified
        assert result.stopped_in in PHASES and result.stopped_in != "checking"
        stopped.add(result.stopped_in)
        assert "budget exhausted" in render(result)
    assert {"solving", "concise landmarks", "complete landmarks", "model landmarks"} <= stopped


def test_a_checker_out_of_budget_says_unverified_checker_budget(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    """The checker runs under the user's limits started afresh; out of them, the finished
    summary stays found, is not verified, says so in the shared words, and exits 1."""
    import importlib

    from xaip.contract import with_check

    checker = importlib.import_module("xaip.summaries.check")  # the package exports check()

    full = summarize(airport())
    report = check(full.policy, full, Budget(max_nodes=1))
    assert report.ok is None and report.details.startswith(CHECKER_BUDGET)
    assert not with_check(full, report).verified

    def exhausted(*_: object, **__: object) -> None:
        raise BudgetExhausted("budget exhausted during the check of the landmarks")

    monkeypatch.setattr(checker, "check_landmarks", exhausted)
    result = summarize(airport(), budget=Budget(max_seconds=60))
    assert result.status == Status.FOUND and not result.verified
    assert result.check_details.startswith(CHECKER_BUDGET)
    assert f"Status: found; {CHECKER_BUDGET}" in render(result)
    assert main(["--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["status"] == "found" and data["verified"] is False


def test_a_budgeted_run_never_claims_a_missing_proper_policy() -> None:
    """Regression (issue 16): ``--max-nodes 1`` on IPPC blocksworld p01 used to claim
    "no proper policy ... dead-end states found" for a task whose policy is proper."""
    ptask = ippc("blocksworld", "p01.pddl")
    for nodes in (1, 2, 10, 100, 1000):
        result = summarize(ptask, budget=Budget(max_nodes=nodes))
        assert result.status == Status.BUDGET_EXHAUSTED and not result.verified


def test_blocksworld_max_nodes_one_on_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = IPPC / "blocksworld"
    if not path.exists():
        pytest.skip("IPPC data not available")
    code = main(["--max-nodes", "1", "--json", str(path / "domain.pddl"),
                 str(path / "p01.pddl")])
    out, err = capsys.readouterr()
    assert code == 1 and not err
    data = json.loads(out)
    assert data["status"] == "budget_exhausted" and data["verified"] is False
    assert "proper" not in out.lower().replace("\"proper\"", "")


def test_dead_end_detection_on_the_policy_graph_charges_the_budget() -> None:
    """Regression (issue 16): dead-end detection on IPPC random p01 ran on for minutes."""
    ptask = ippc("random", "p01.pddl", domain="p01.pddl")
    first = next(a.name for a in ptask.actions if a.applicable(ptask.init))
    policy = Policy(ptask, {ptask.init: first})
    started = time.perf_counter()
    with pytest.raises(BudgetExhausted):
        policy_graph(ptask, policy, budget=Budget(max_seconds=0.5))
    assert time.perf_counter() - started < 0.5 + 5.0
    with pytest.raises(BudgetExhausted):
        policy_graph(ptask, policy, budget=Budget(max_nodes=1))


@pytest.mark.parametrize("limit", [["--max-seconds", "1"], ["--max-nodes", "1"]])
def test_random_p01_under_a_budget(limit: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    path = IPPC / "random" / "p01.pddl"
    if not path.exists():
        pytest.skip("IPPC data not available")
    started = time.perf_counter()
    code = main([*limit, "--json", str(path), str(path)])
    elapsed = time.perf_counter() - started
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["status"] == "budget_exhausted" and not data["verified"]
    assert elapsed < 1.0 + 10.0  # budget plus a generous margin (reading and grounding)


def test_a_given_policy_stops_in_the_policy_graph() -> None:
    ptask = airport()
    policy = summarize(ptask).policy
    result = summarize(ptask, policy, budget=Budget(max_nodes=3))
    assert result.status == Status.BUDGET_EXHAUSTED and result.stopped_in == "policy graph"
    assert result.graph is None and result.goal_probability is None


def test_strict_mode_still_reports_a_real_missing_proper_policy(tmp_path: Path) -> None:
    from tests.summaries.test_command import RISKY_DOMAIN, RISKY_PROBLEM

    (tmp_path / "d.pddl").write_text(RISKY_DOMAIN)
    (tmp_path / "p.pddl").write_text(RISKY_PROBLEM)
    ptask = ground_probabilistic(read_domain(tmp_path / "d.pddl"),
                                 read_problem(tmp_path / "p.pddl"))
    with pytest.raises(NoProperPolicy):
        summarize(ptask, dead_end_cost=None)


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("argv, message", [
    (["--dead-end-cost", "-5"], "--dead-end-cost must be a finite number >= 0"),
    (["--dead-end-cost", "nan"], "--dead-end-cost must be a finite number >= 0"),
    (["--dead-end-cost", "inf"], "--dead-end-cost must be a finite number >= 0"),
    (["--max-seconds", "nan"], "--max-seconds: must be a finite number >= 0"),
    (["--max-seconds", "-1"], "--max-seconds: must be a finite number >= 0"),
    (["--max-nodes", "-1"], "--max-nodes: must not be negative"),
])
def test_bad_numbers(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


def _saved_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    saved = tmp_path / "policy.json"
    assert main(["--save-policy", str(saved)]) == 0
    capsys.readouterr()
    return saved


@pytest.mark.parametrize("edit, message", [
    (lambda d: {**d, "version": 2}, "unknown xaip-policy version 2"),
    (lambda d: {**d, "version": "1\u202e"}, "unknown xaip-policy version '1\\u202e'"),
    (lambda d: {**d, "task": "another-task"}, "the policy is for task 'another-task'"),
])
def test_policy_file_task_and_version(edit: object, message: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    saved = _saved_policy(tmp_path, capsys)
    data = json.loads(saved.read_text())
    saved.write_text(json.dumps(edit(data)))  # type: ignore[operator]
    code = main(["--policy", str(saved)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("content, message", [
    (b"[" * 100_000, "nested too deeply"),
    (b'{"policy": {"(at home)": "\xff\xfe"}}', "not UTF-8 text (byte 0xff at offset 26)"),
    (b"\xef\xbb\xbf{\"policy\": 3}", "expected a JSON object with a 'policy' object"),
])
def test_hostile_policy_files(content: bytes, message: str, tmp_path: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "policy.json"
    path.write_bytes(content)
    code = main(["--policy", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and str(path) in err
    assert len(err.strip().splitlines()) == 1


def test_outputs_never_overwrite_inputs(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    from xaip.domains.airport import airport_paths

    domain, problem = airport_paths()
    copy = tmp_path / "problem.pddl"
    copy.write_text(Path(problem).read_text())
    code = main([str(domain), str(copy), "--save-policy", str(copy)])
    err = capsys.readouterr().err
    assert code == 2 and "refusing to overwrite the input file" in err
    assert copy.read_text() == Path(problem).read_text()


def test_policy_file_messages_escape_and_truncate_what_they_echo(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "policy.json"
    key = "(at \u202ehome\x00)" + " (x)" * 10_000
    path.write_text(json.dumps({"policy": {key: "walk"}}))
    code = main(["--policy", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "\\u202e" in err and "\x00" not in err and "\u202e" not in err
    assert len(err) < 400


def test_progress_events_name_the_phases() -> None:
    from xaip.runtime import ProgressEvent

    events: list[ProgressEvent] = []
    summarize(airport(), progress=events.append)
    assert [e.message for e in events] == list(PHASES)
    assert all(e.phase == "summarize" and e.total == len(PHASES) for e in events)


def test_grounding_a_ppddl_task_is_under_the_budget() -> None:
    """IPPC 2006 drive p15 took ~60 s to ground outside a 20 s ``--max-seconds``: grounding
    now charges the command's clock and stops with "budget exhausted" (phase grounding)."""
    from xaip.domains.airport import airport_paths

    domain, problem = airport_paths()
    with pytest.raises(BudgetExhausted) as stop:
        ground_probabilistic(read_domain(domain), read_problem(problem),
                             budget=Budget(max_seconds=0.0))
    assert stop.value.phase == "grounding"
