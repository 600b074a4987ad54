"""Tests of the Fast Downward engine wrapper.

Two kinds: tests against the real Fast Downward (skipped when it is not installed), whose
answers are checked against our own grounding and an exhaustive BFS; and tests against a
fake driver script (always run), which pin down the exit-code mapping, plan-file reading,
the wall-clock kill and the "not installed" error without needing Fast Downward.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from xaip.domains import blocksworld, gripper, gripper_optimal_length
from xaip.errors import EngineUnavailable, InputError, UnsupportedFeature, XaipError
from xaip.planning.engines import fast_downward as fd
from xaip.planning.engines.fast_downward import (
    ENV_VAR,
    fd_available,
    fd_command,
    fd_landmarks,
    fd_solve,
    parse_landmark_dump,
)
from xaip.planning.grounding import ground
from xaip.planning.pddl import parse_domain, parse_problem
from xaip.planning.plans import PlanStep, is_valid, resolve
from xaip.planning.task import State, Task
from xaip.runtime import Budget

needs_fd = pytest.mark.skipif(not fd_available(), reason="Fast Downward is not installed")

UNSOLVABLE_BW = textwrap.dedent(
    """\
    (define (problem cycle)
      (:domain blocksworld)
      (:objects b1 b2 - block)
      (:init (handempty) (ontable b1) (ontable b2) (clear b1) (clear b2))
      (:goal (and (on b1 b2) (on b2 b1))))
    """
)

NEVER_DOMAIN = textwrap.dedent(
    """\
    (define (domain never)
      (:requirements :strips)
      (:predicates (p) (q))
      (:action make-q :parameters () :precondition (p) :effect (q)))
    """
)
NEVER_PROBLEM = "(define (problem never-1) (:domain never) (:init (q)) (:goal (p)))\n"


def grounded(domain_text: str, problem_text: str) -> Task:
    return ground(parse_domain(domain_text), parse_problem(problem_text))


def bfs_length(task: Task) -> int | None:
    depth = {task.init: 0}
    queue = deque([task.init])
    while queue:
        state = queue.popleft()
        if task.is_goal(state):
            return depth[state]
        for action in task.applicable(state):
            nxt = action.apply(state)
            if nxt not in depth:
                depth[nxt] = depth[state] + 1
                queue.append(nxt)
    return None


Holds = Callable[[State], bool]


def reachable_avoiding(task: Task, forbidden: Holds, target: Holds | None = None) -> bool:
    """Whether a goal state (or a ``target`` state) is reachable from the initial state
    through states where ``forbidden`` does not hold."""
    hit = target or task.is_goal
    if forbidden(task.init):
        return False
    seen = {task.init}
    queue = deque([task.init])
    while queue:
        state = queue.popleft()
        if hit(state):
            return True
        for action in task.applicable(state):
            nxt = action.apply(state)
            if nxt not in seen and not forbidden(nxt):
                seen.add(nxt)
                queue.append(nxt)
    return False


def landmark_test(task: Task, facts: tuple[str, ...]) -> Holds:
    """The state test of a disjunctive landmark: some fact holds (``(not f)``: f is false)."""
    index = {str(fact): i for i, fact in enumerate(task.facts)}
    positive = negative = 0
    for fact in facts:
        if fact.startswith("(not "):
            negative |= 1 << index[fact[5:-1]]
        else:
            positive |= 1 << index[fact]
    return lambda state: bool(state & positive) or bool(~state & negative)


# --------------------------------------------------------------------------- real Fast Downward


@needs_fd
def test_command_found_without_importing_gpl_code() -> None:
    command = fd_command()
    assert command is not None
    assert "up_fast_downward" not in sys.modules
    assert not any(name.startswith("fast_downward.") for name in sys.modules)


@needs_fd
@pytest.mark.parametrize("seed", range(3))
def test_solve_blocksworld_optimally(seed: int) -> None:
    domain, problem = blocksworld(4, seed)
    result = fd_solve(domain, problem, search="astar(lmcut())", budget=Budget(max_seconds=60))
    assert result.status == "solved" and result.exit_code == 0
    assert all(isinstance(step, PlanStep) for step in result.plan)
    task = grounded(domain, problem)
    plan = [variants[0] for variants in resolve(task, result.plan)]
    assert is_valid(task, plan)
    assert result.cost == len(plan) == bfs_length(task)
    assert result.expanded >= 1
    assert result.to_dict()["plan"] == [str(step) for step in result.plan]


@needs_fd
def test_satisficing_configuration_gives_a_valid_plan() -> None:
    domain, problem = gripper(4)
    result = fd_solve(domain, problem, search="lazy_greedy([ff()], preferred=[ff()])")
    assert result.status == "solved"
    task = grounded(domain, problem)
    assert is_valid(task, [v[0] for v in resolve(task, result.plan)])
    assert result.cost is not None and result.cost >= gripper_optimal_length(4)


@needs_fd
def test_unsolvable_by_search() -> None:
    domain, _ = blocksworld(2)
    assert bfs_length(grounded(domain, UNSOLVABLE_BW)) is None
    result = fd_solve(domain, UNSOLVABLE_BW, search="astar(blind())")
    assert result.status == "unsolvable" and result.exit_code == 11
    assert result.plan == () and result.cost is None


@needs_fd
def test_unsolvable_statically() -> None:
    result = fd_solve(NEVER_DOMAIN, NEVER_PROBLEM)
    assert result.status == "unsolvable"
    assert fd_landmarks(NEVER_DOMAIN, NEVER_PROBLEM).status == "unsolvable"


@needs_fd
def test_cost_bound_below_optimum_is_unsolvable() -> None:
    domain, problem = blocksworld(4, 1)
    optimum = bfs_length(grounded(domain, problem))
    assert optimum is not None and optimum > 1
    result = fd_solve(domain, problem, search=f"astar(lmcut(), bound={optimum})")
    assert result.status == "unsolvable" and result.exit_code == 13
    assert fd_solve(domain, problem, search=f"astar(lmcut(), bound={optimum + 1})").solved


@needs_fd
def test_tiny_time_budget_is_exhausted() -> None:
    # No Fast Downward call finishes in a millisecond (starting Python alone takes longer).
    result = fd_solve(*blocksworld(6, 0), budget=Budget(max_seconds=0.001))
    assert result.status == "budget_exhausted" and result.exit_code is None
    assert result.plan == ()


@needs_fd
def test_input_errors_are_reported() -> None:
    domain, problem = blocksworld(3)
    with pytest.raises(InputError, match="exit code 31"):
        fd_solve(domain, problem.replace("(:init", "(:init (undeclared b1)"))
    with pytest.raises(InputError, match="exit code 33"):
        fd_solve(domain, problem, search="astar(no_such_heuristic())")


@needs_fd
def test_landmarks_are_landmarks_by_brute_force() -> None:
    domain, problem = blocksworld(4, 2)
    graph = fd_landmarks(domain, problem, budget=Budget(max_seconds=60))
    assert graph.status == "ok" and graph.landmarks
    task = grounded(domain, problem)
    goal_facts = {str(task.facts[i]) for i in range(task.num_facts) if task.goal >> i & 1}
    assert {lm.facts[0] for lm in graph.landmarks if lm.goal} == goal_facts
    tests = {}
    for lm in graph.landmarks:
        assert not lm.conjunctive
        holds = tests[lm.id] = landmark_test(task, lm.facts)
        assert lm.initial == holds(task.init)
        # A landmark: forbidding every state where it holds makes the goal unreachable.
        assert not reachable_avoiding(task, holds)
    for before, after, kind in graph.orderings:
        assert kind in {"gn", "n", "r", "nec"}
        if kind in {"gn", "n", "nec"} and not tests[before](task.init):
            # Natural ordering: "after" cannot be reached without "before" first
            # (blocksworld has no dead ends, so every prefix extends to a plan).
            assert not reachable_avoiding(task, tests[before], target=tests[after])


# --------------------------------------------------------------------------- without Fast Downward


def test_landmark_dump_parsing() -> None:
    log = textwrap.dedent(
        """\
        [t=0.1s, 10 KB] Dumping landmark graph:
        digraph G {
          lm0 [label="Atom on(b1, b2)", style=filled];
          lm1 [label="Atom clear(b2) | Atom handempty()", style=bold];
          lm2 [label="Atom at(p, l) & NegatedAtom busy(p)"];
              lm1 -> lm0 [label="gn"];
              lm2 -> lm0 [label="r", style=dashed];
        }
        [t=0.1s, 10 KB] Landmark graph end.
        """
    )
    landmarks, orderings = parse_landmark_dump(log)
    assert [lm.facts for lm in landmarks] == [
        ("(on b1 b2)",),
        ("(clear b2)", "(handempty)"),
        ("(at p l)", "(not (busy p))"),
    ]
    assert [(lm.goal, lm.initial, lm.disjunctive, lm.conjunctive) for lm in landmarks] == [
        (True, False, False, False),
        (False, True, True, False),
        (False, False, False, True),
    ]
    assert orderings == ((1, 0, "gn"), (2, 0, "r"))


def test_debug_factory() -> None:
    assert fd._debug_factory("lm_rhw()") == "lm_rhw(verbosity=debug)"
    assert fd._debug_factory("lm_hm(m=2)") == "lm_hm(m=2, verbosity=debug)"
    with pytest.raises(InputError):
        fd._debug_factory("lm_rhw")


@pytest.fixture
def no_fd(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(fd, "_bundled_driver", lambda: None)
    monkeypatch.setattr(fd.shutil, "which", lambda name: None)


@pytest.mark.usefixtures("no_fd")
def test_engine_unavailable_when_nothing_is_installed() -> None:
    assert fd_command() is None and not fd_available()
    with pytest.raises(EngineUnavailable) as error:
        fd_solve(*blocksworld(3))
    message = str(error.value)
    assert "pip install 'xaip[fd]'" in message and "up-fast-downward==1.0.0" in message
    assert "builtin" in message
    with pytest.raises(EngineUnavailable):
        fd_landmarks(*blocksworld(3))


@pytest.mark.usefixtures("no_fd")
def test_engine_unavailable_names_a_bad_environment_variable(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV_VAR, str(tmp_path / "missing" / "fast-downward.py"))
    assert fd_command() is None
    with pytest.raises(EngineUnavailable, match=ENV_VAR):
        fd_solve(*blocksworld(3))


FAKE_DRIVER = """\
import os, sys, time
args = sys.argv[1:]
assert "--search" in args and "domain.pddl" in args and "problem.pddl" in args
assert os.path.exists("domain.pddl") and os.path.exists("problem.pddl")
plan = args[args.index("--plan-file") + 1]
mode = os.environ["FAKE_MODE"]
if mode == "sleep":
    import subprocess
    # A grandchild that outlives the driver unless the whole group is killed.
    subprocess.run([sys.executable, "-c", "import time; time.sleep(60)"])
    sys.exit(0)
code = int(mode)
print("Expanded 3 state(s).")
print("Expanded 42 state(s).")
if code in (0, 1, 2, 3):
    if os.environ.get("FAKE_ANYTIME"):
        with open(plan + ".1", "w") as f:
            f.write("(a x)\\n(b)\\n; cost = 2 (unit cost)\\n")
        with open(plan + ".2", "w") as f:
            f.write("(c)\\n; cost = 1 (unit cost)\\n")
    elif not os.environ.get("FAKE_NO_PLAN"):
        with open(plan, "w") as f:
            f.write("(Pick-Up b1)\\n(stack b1 b2)\\n; cost = 7 (general cost)\\n")
print("search exit code:", code)
sys.exit(code)
"""


@pytest.fixture
def fake_driver(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    script = tmp_path / "fake-downward.py"
    script.write_text(FAKE_DRIVER)
    monkeypatch.setenv(ENV_VAR, str(script))
    yield script


@pytest.mark.usefixtures("fake_driver")
def test_environment_variable_selects_the_driver(tmp_path: Path) -> None:
    assert fd_command() == [sys.executable, str((tmp_path / "fake-downward.py").resolve())]


@pytest.mark.usefixtures("fake_driver")
@pytest.mark.parametrize(
    ("code", "status"),
    [
        (0, "solved"),
        (2, "solved"),
        (10, "unsolvable"),
        (11, "unsolvable"),
        (12, "unsolvable"),
        (13, "unsolvable"),
        (21, "budget_exhausted"),
        (22, "budget_exhausted"),
        (23, "budget_exhausted"),
        (232, "budget_exhausted"),
    ],
)
def test_exit_code_mapping(monkeypatch: pytest.MonkeyPatch, code: int, status: str) -> None:
    monkeypatch.setenv("FAKE_MODE", str(code))
    result = fd_solve("(define (domain d))", "(define (problem p))", search="astar(blind())")
    assert result.status == status and result.exit_code == code
    assert result.expanded == 42
    if status == "solved":
        assert result.plan == (PlanStep("pick-up", ("b1",), 1), PlanStep("stack", ("b1", "b2"), 2))
        assert result.cost == 7
    else:
        assert result.plan == () and result.cost is None


@pytest.mark.usefixtures("fake_driver")
@pytest.mark.parametrize(
    ("code", "error"),
    [(31, InputError), (33, InputError), (34, UnsupportedFeature), (35, XaipError), (1, None)],
)
def test_error_exit_codes_raise(
    monkeypatch: pytest.MonkeyPatch, code: int, error: type[Exception] | None
) -> None:
    monkeypatch.setenv("FAKE_MODE", str(code))
    if error is None:  # plan found, then out of memory: still solved
        assert fd_solve("d", "p").solved
        return
    with pytest.raises(error, match=f"exit code {code}"):
        fd_solve("d", "p")


@pytest.mark.usefixtures("fake_driver")
def test_anytime_plans_take_the_last_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_MODE", "0")
    monkeypatch.setenv("FAKE_ANYTIME", "1")
    result = fd_solve("d", "p")
    assert result.plan == (PlanStep("c", (), 1),) and result.cost == 1


@pytest.mark.usefixtures("fake_driver")
def test_solved_without_plan_file_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_MODE", "0")
    monkeypatch.setenv("FAKE_NO_PLAN", "1")
    with pytest.raises(XaipError, match="no plan file"):
        fd_solve("d", "p")


@pytest.mark.usefixtures("fake_driver")
def test_wall_clock_budget_kills_the_whole_process_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FAKE_MODE", "sleep")
    result = fd_solve("d", "p", budget=Budget(max_seconds=0.5))
    assert result.status == "budget_exhausted" and result.exit_code is None
    # Returning at all shows the sleeping grandchild was killed with its group (else
    # communicate() would have waited 60 s for it to close the pipe); check it is gone.
    if shutil.which("pgrep"):
        leftover = subprocess.run(
            ["pgrep", "-f", "import time; time.sleep(60)"], capture_output=True, text=True
        )
        assert leftover.stdout.strip() == ""
