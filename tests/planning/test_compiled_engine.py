"""The compiled engine (``xaip._core``) against the pure-Python reference.

Differential tests: on seeded random tasks, generated blocksworld/gripper/logistics and every
task of ``../shared/data/mrp``, the two engines must give equal optimal costs, equal
heuristic values on every (or a sample of) reachable states, the same verdicts under cost
bounds and a one-node budget, and plans that validate. With ``prune=False`` the C search
mirrors the Python one exactly (same expansions, same plan), which is checked too. Ground
truth for optimal costs also comes from a brute-force Dijkstra (``goal_distances``).
"""

from __future__ import annotations

import _thread
import dataclasses
import math
import random
import threading
import time
from pathlib import Path

import pytest

from tests.planning.test_heuristics import goal_distances, random_task, reachable
from xaip.domains.generators import blocksworld, gripper, logistics
from xaip.errors import InputError, XaipError
from xaip.planning import get_engine
from xaip.planning.engines.compiled import (
    CompiledEngine,
    compile_task,
    core_available,
    evaluate,
    preferred_actions,
    preferred_engine,
)
from xaip.planning.grounding import ground
from xaip.planning.heuristics import HEURISTICS, make_heuristic
from xaip.planning.heuristics.relaxation import HFF
from xaip.planning.pddl import parse_domain, parse_problem, read_domain, read_problem
from xaip.planning.plans import is_valid, validate
from xaip.planning.search import solve
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget

pytestmark = pytest.mark.skipif(not core_available(), reason="xaip._core was not built")

MRP = Path(__file__).resolve().parents[3] / "shared" / "data" / "mrp"
SEEDS = range(60)


def strips_task(seed: int) -> Task:
    """A random task without conditional effects (the compiled core's fragment)."""
    return random_task(seed, conditional=False)


def sample(states: set[int], k: int, seed: int = 0) -> list[int]:
    ordered = sorted(states)
    return ordered if len(ordered) <= k else random.Random(seed).sample(ordered, k)


def same_heuristics(task: Task, states: list[int]) -> None:
    for name in HEURISTICS:
        python = make_heuristic(name, task)
        for state in states:
            expected = python(state)
            for prune in (False, True):
                got = evaluate(task, name, state, prune=prune)
                assert got == expected, (name, task.format_state(state), prune, got, expected)


def assert_same_search(task: Task, search: str, heuristic: str, **kw: object) -> None:
    """prune=False: the C search expands what the Python search expands, in the same order."""
    expected = solve(task, search, heuristic, **kw)  # type: ignore[arg-type]
    got = CompiledEngine(search, heuristic, prune=False).solve(
        task, optimal=False, cost_bound=kw.get("cost_bound"),  # type: ignore[arg-type]
        budget=kw.get("budget"))  # type: ignore[arg-type]
    assert got.engine == "compiled"
    assert (got.status, got.cost) == (expected.status, expected.cost)
    assert (got.expanded, got.generated) == (expected.expanded, expected.generated)
    assert [a.name for a in got.plan] == [a.name for a in expected.plan]


# ----------------------------------------------------------------------------- random tasks


@pytest.mark.parametrize("seed", SEEDS)
def test_random_heuristic_values_equal(seed: int) -> None:
    task = strips_task(seed)
    same_heuristics(task, sample(reachable(task), 40, seed))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_optimal_cost_is_brute_force(seed: int) -> None:
    task = strips_task(seed)
    truth = goal_distances(task)[task.init]
    for heuristic in ("lmcut", "hmax", "blind"):
        for prune in (True, False):
            result = CompiledEngine("astar", heuristic, prune=prune).solve(task, optimal=True)
            if truth == math.inf:
                assert result.status == "unsolvable"
            else:
                assert result.status == "solved" and result.cost == truth and result.optimal
                assert is_valid(task, result.plan)
    ucs = CompiledEngine("ucs").solve(task, optimal=True)
    assert ucs.cost == (None if truth == math.inf else truth)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_search_mirrors_python(seed: int) -> None:
    task = strips_task(seed)
    for search, heuristic in (("astar", "lmcut"), ("astar", "hmax"), ("ucs", "blind"),
                              ("gbfs", "hff"), ("gbfs", "hadd")):
        assert_same_search(task, search, heuristic)
    assert_same_search(task, "astar", "lmcut", budget=Budget(max_nodes=1))
    assert_same_search(task, "gbfs", "hff", budget=Budget(max_nodes=2))


@pytest.mark.parametrize("seed", SEEDS)
def test_random_cost_bound_verdicts(seed: int) -> None:
    task = strips_task(seed)
    truth = goal_distances(task)[task.init]
    bounds = [0, 1, 3] if truth == math.inf else [int(truth), int(truth) + 1, int(truth) + 3]
    engine = CompiledEngine()
    for bound in bounds:
        python = solve(task, "astar", "lmcut", cost_bound=bound)
        got = engine.solve(task, optimal=True, cost_bound=bound)
        assert got.status == python.status, bound
        if got.solved:
            assert got.cost is not None and got.cost < bound and is_valid(task, got.plan)
        for search, heuristic in (("gbfs", "hff"), ("ucs", "blind")):
            other = CompiledEngine(search, heuristic).solve(task, cost_bound=bound)
            assert other.status == python.status, (search, bound)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_bounded_search_mirrors_python(seed: int) -> None:
    """Under a small cost bound the C open list is a bucket queue: same expansions."""
    task = strips_task(seed)
    truth = goal_distances(task)[task.init]
    bounds = [2] if truth == math.inf else [int(truth), int(truth) + 1, int(truth) + 3]
    for bound in bounds:
        for search, heuristic in (("astar", "lmcut"), ("astar", "hmax"), ("ucs", "hmax"),
                                  ("ucs", "blind")):
            assert_same_search(task, search, heuristic, cost_bound=bound)


# ----------------------------------------------------------------------------- edge cases


def _task(actions: tuple[GroundAction, ...], init: int, goal: int, goal_neg: int = 0) -> Task:
    base = strips_task(0)
    return dataclasses.replace(base, actions=actions, init=init, goal=goal, goal_neg=goal_neg)


def test_no_actions_goal_in_init_and_unsolvable() -> None:
    engine = CompiledEngine()
    empty = _task((), init=0b1, goal=0b10)
    assert engine.solve(empty, optimal=True).status == "unsolvable"
    done = _task((), init=0b11, goal=0b10)
    result = engine.solve(done, optimal=True)
    assert (result.status, result.cost, result.plan) == ("solved", 0, ())
    assert engine.solve(done, optimal=True, cost_bound=0).status == "unsolvable"
    negated = _task((), init=0b11, goal=0b10, goal_neg=0b1)
    assert engine.solve(negated, optimal=True).status == "unsolvable"
    one = GroundAction("drop", (), pre=0b1, add=0, delete=0b1, cost=2)
    solved = engine.solve(_task((one,), init=0b11, goal=0b10, goal_neg=0b1), optimal=True)
    assert (solved.status, solved.cost) == ("solved", 2)
    for name in HEURISTICS:
        assert evaluate(empty, name, empty.init) == make_heuristic(name, empty)(empty.init)


def test_negative_cost_is_bad_input() -> None:
    bad = GroundAction("bad", (), pre=0, add=0b10, delete=0, cost=-1)
    with pytest.raises(InputError):
        CompiledEngine().solve(_task((bad,), init=0b1, goal=0b10), optimal=True)


#: random tasks with conditional effects (the core fires them on the state acted in)
CONDITIONAL = [task for task in (random_task(seed, conditional=True) for seed in range(120))
               if task.has_conditional_effects()][:40]


@pytest.mark.parametrize("index", range(len(CONDITIONAL)))
def test_conditional_effects_run_in_the_core_as_in_the_python_reference(index: int) -> None:
    task = CONDITIONAL[index]
    assert CompiledEngine().unsupported(task) is None
    same_heuristics(task, sample(reachable(task), 30, index))
    hff = HFF(task)
    for state in sample(reachable(task), 20, index):
        expected = sorted(set(hff.relaxed_plan(state) or ()))
        assert preferred_actions(task, state, prune=False) == expected
    truth = goal_distances(task)[task.init]
    for heuristic in ("lmcut", "hmax", "blind"):
        for prune in (True, False):
            result = CompiledEngine("astar", heuristic, prune=prune).solve(task, optimal=True)
            assert result.engine == "compiled"
            if truth == math.inf:
                assert result.status == "unsolvable"
            else:
                assert result.status == "solved" and result.cost == truth
                assert is_valid(task, result.plan)
    for search, heuristic in (("astar", "lmcut"), ("ucs", "blind"), ("gbfs", "hff"),
                              ("gbfs", "hadd")):
        assert_same_search(task, search, heuristic)


def test_other_searches_fall_back_to_builtin() -> None:
    task = strips_task(7)
    for search in ("ehc", "bfs"):
        result = CompiledEngine(search, "blind" if search == "bfs" else "hff").solve(task)
        assert result.engine == "builtin"
        assert result.status == solve(task, search, "blind" if search == "bfs" else "hff").status


def test_huge_costs_fall_back_to_builtin() -> None:
    big = GroundAction("big", (), pre=0b1, add=0b10, delete=0, cost=10**15)
    task = _task((big,), init=0b1, goal=0b10)
    result = CompiledEngine().solve(task, optimal=True)
    assert (result.engine, result.cost) == ("builtin", 10**15)


def test_registry_and_optimal_flag() -> None:
    engine = get_engine("compiled")
    assert engine.name == "compiled" and engine.available()
    task = strips_task(3)
    assert engine.solve(task, optimal=True).optimal in (True, False)
    with pytest.raises(InputError):
        CompiledEngine(max_memory_mb=0)


def test_compiled_task_is_cached_per_task_object() -> None:
    task = strips_task(5)
    assert compile_task(task) is compile_task(task)
    assert compile_task(task, prune=False) is not compile_task(task)


# ----------------------------------------------------------------------------- generated domains


GENERATED = [
    ("blocksworld-5", *blocksworld(5, seed=5)),
    ("blocksworld-6", *blocksworld(6, seed=6)),
    ("gripper-3", *gripper(3)),
    ("gripper-4", *gripper(4)),
    ("logistics-2c2p", *logistics(2, 2, seed=22)),
]


@pytest.mark.parametrize("name,domain,problem", GENERATED, ids=[g[0] for g in GENERATED])
def test_generated_domains(name: str, domain: str, problem: str) -> None:
    d, p = parse_domain(domain), parse_problem(problem)
    task = ground(d, p)
    assert_same_search(task, "astar", "lmcut")
    result = CompiledEngine().solve(task, optimal=True)
    assert result.cost == solve(task, "astar", "lmcut").cost
    assert validate(d, p, result.steps()).valid
    states = sample(reachable_limited(task, 3000), 25)
    same_heuristics(task, states)


def reachable_limited(task: Task, limit: int) -> set[int]:
    """Up to ``limit`` reachable states, breadth first."""
    seen = {task.init}
    frontier = [task.init]
    while frontier and len(seen) < limit:
        nxt = []
        for state in frontier:
            for action in task.applicable(state):
                child = action.apply(state)
                if child not in seen:
                    seen.add(child)
                    nxt.append(child)
        frontier = nxt
    return seen


# ----------------------------------------------------------------------------- shared MRP data


def mrp_pairs() -> list[tuple[Path, Path]]:
    if not MRP.is_dir():
        return []
    pairs = []
    for folder in sorted(p for p in MRP.iterdir() if p.is_dir()):
        files = sorted(folder.glob("*.pddl"))
        problems = [f for f in files if f.name.startswith("prob")]
        for domain in (f for f in files if f not in problems):
            pairs.extend((domain, problem) for problem in problems)
    return pairs


PAIRS = mrp_pairs()


@pytest.mark.skipif(not PAIRS, reason="shared MRP data not found")
@pytest.mark.parametrize("domain_path,problem_path", PAIRS,
                         ids=[f"{d.parent.name}-{d.stem}-{p.stem}" for d, p in PAIRS])
def test_mrp_tasks(domain_path: Path, problem_path: Path) -> None:
    try:
        domain, problem = read_domain(domain_path), read_problem(problem_path)
        task = ground(domain, problem)
    except XaipError as error:
        pytest.skip(f"not a valid pair: {error}")
    result = CompiledEngine().solve(task, optimal=True, budget=Budget(max_seconds=60))
    assert result.status in ("solved", "unsolvable")
    if result.solved:
        check = validate(domain, problem, result.steps())
        assert check.valid and check.cost == result.cost
    python = solve(task, "astar", "lmcut", budget=Budget(max_seconds=1))
    if python.status != "budget_exhausted":  # RADAR takes the Python engine minutes
        assert (python.status, python.cost) == (result.status, result.cost)
    for bound in ([result.cost, result.cost + 1] if result.solved else [5]):
        bounded = CompiledEngine().solve(task, optimal=True, cost_bound=bound)
        assert bounded.status == ("solved" if result.cost is not None and result.cost < bound
                                  else "unsolvable")
    one = CompiledEngine(prune=False).solve(task, optimal=True, budget=Budget(max_nodes=1))
    assert one.status == solve(task, "astar", "lmcut", budget=Budget(max_nodes=1)).status
    same_heuristics(task, sample(reachable_limited(task, 2000), 15))


# ----------------------------------------------------------------------------- budgets


RADAR = MRP / "radar"


@pytest.mark.skipif(not RADAR.is_dir(), reason="shared RADAR data not found")
def test_budgets_on_radar() -> None:
    task = ground(read_domain(RADAR / "domain_robot.pddl"), read_problem(RADAR / "problem.pddl"))
    slow = CompiledEngine("astar", "hmax")  # needs about a million expansions
    start = time.perf_counter()
    result = slow.solve(task, optimal=True, budget=Budget(max_seconds=0.3))
    assert result.status == "budget_exhausted" and result.plan == ()
    assert time.perf_counter() - start < 5  # budget + a generous margin
    nodes = slow.solve(task, optimal=True, budget=Budget(max_nodes=100))
    assert nodes.status == "budget_exhausted" and nodes.expanded == 100
    tiny = CompiledEngine("astar", "hmax", max_memory_mb=1)
    assert tiny.solve(task, optimal=True).status == "budget_exhausted"


@pytest.mark.skipif(not RADAR.is_dir(), reason="shared RADAR data not found")
def test_ctrl_c_stops_a_long_search() -> None:
    """The search runs without the GIL but still honours KeyboardInterrupt."""
    task = ground(read_domain(RADAR / "domain_robot.pddl"), read_problem(RADAR / "problem.pddl"))
    timer = threading.Timer(0.2, _thread.interrupt_main)
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            CompiledEngine("astar", "hmax").solve(task, optimal=True,
                                                  budget=Budget(max_seconds=60))
    finally:
        timer.cancel()
    assert time.perf_counter() - start < 10


def test_preferred_engine_is_compiled_here() -> None:
    assert preferred_engine().name == "compiled"
    assert preferred_engine("astar", "hmax").solve(strips_task(1), optimal=True).engine in (
        "compiled", "builtin")


def test_core_task_cannot_be_reinitialised() -> None:
    core = compile_task(strips_task(2))
    with pytest.raises(RuntimeError):
        core.__init__(1, 0, b"", b"", b"", b"\0" * 8, b"\0" * 8, b"\0" * 8)


def test_without_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    """A failed compile at install time: the engine is unavailable, xaip falls back and says
    so once."""
    import warnings

    from xaip.errors import EngineUnavailable
    from xaip.planning.engines import compiled

    monkeypatch.setattr(compiled, "_CORE", None)
    monkeypatch.setattr(compiled, "_warned", False)
    assert not CompiledEngine().available()
    with pytest.raises(EngineUnavailable):
        get_engine("compiled")
    task = strips_task(4)
    assert CompiledEngine().solve(task, optimal=True).engine == "builtin"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert preferred_engine().name == "builtin"
        assert preferred_engine().name == "builtin"
    assert len([w for w in caught if "pure-Python" in str(w.message)]) == 1


# ----------------------------------------------------------------------------- sanitisers

SANITIZE_SCRIPT = """
import sys, pytest, xaip
xaip.__path__.insert(0, sys.argv[1])  # the sanitised xaip._core shadows the installed one
import xaip._core
assert xaip._core.__file__.startswith(sys.argv[1]), xaip._core.__file__
sys.exit(pytest.main(["-q", "-x", "-p", "no:cacheprovider", *sys.argv[2:]]))
"""


@pytest.mark.skipif(not __import__("os").environ.get("XAIP_SANITIZE"),
                    reason="set XAIP_SANITIZE=1 (CI, once) to run the core under ASan+UBSan")
def test_core_under_address_and_undefined_behaviour_sanitisers(tmp_path: Path) -> None:
    """Build ``xaip._core`` with ``-fsanitize=address,undefined`` and run this file (and the
    preferred-operator, derived-predicate and certified LM-cut tests) with it.

    Slow (a minute or two), so opt-in: CI sets ``XAIP_SANITIZE=1`` once per run.
    """
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    flags = "-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all"
    env = {**os.environ, "CFLAGS": flags + " -O1", "LDFLAGS": flags}
    build = subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "-b", str(tmp_path),
         "-t", str(tmp_path / "tmp")], cwd=root, env=env, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    runtime = [subprocess.run(["gcc", f"-print-file-name={lib}"], capture_output=True,
                              text=True).stdout.strip() for lib in ("libasan.so", "libubsan.so")]
    env = {k: v for k, v in os.environ.items() if k != "XAIP_SANITIZE"}
    env.update(LD_PRELOAD=" ".join(runtime), ASAN_OPTIONS="detect_leaks=0",
               UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
    run = subprocess.run(
        [sys.executable, "-c", SANITIZE_SCRIPT, str(tmp_path / "xaip"), __file__,
         str(Path(__file__).with_name("test_compiled_preferred.py")),
         str(Path(__file__).with_name("test_derived.py")),
         str(Path(__file__).with_name("test_certified_lmcut.py"))],
        cwd=root, env=env, capture_output=True, text=True, timeout=1800)
    output = run.stdout + run.stderr
    assert run.returncode == 0 and "Sanitizer" not in output, output[-4000:]


def test_core_task_rejects_inconsistent_input() -> None:
    from xaip import _core

    zero = b"\0" * 8
    four = (1).to_bytes(4, "little") * 4  # four one-byte masks
    cost = (1).to_bytes(8, "little")
    with pytest.raises(ValueError):  # fact 9 of a 2-fact task
        _core.Task(2, 1, b"\x01\x01\x01\x00\x02", four[:12] + (2).to_bytes(4, "little"),
                   cost, zero, zero, zero)
    with pytest.raises(ValueError):  # masks shorter than the lengths say
        _core.Task(2, 1, b"\x01", four, cost, zero, zero, zero)
    with pytest.raises(ValueError):  # a negative cost
        _core.Task(2, 1, b"\x01" * 4, four, (-1).to_bytes(8, "little", signed=True),
                   zero, zero, zero)
    with pytest.raises(ValueError):  # a state of the wrong width
        _core.Task(2, 1, b"\x01" * 4, four, cost, zero, zero, zero).evaluate("hmax", b"\0")


def _negative_task(seed: int) -> Task:
    """A random task whose actions and goal require facts false (complements matter)."""
    rng = random.Random(seed)
    facts = 6

    def mask(p: float) -> int:
        return sum(1 << f for f in range(facts) if rng.random() < p)

    actions = []
    for index in range(rng.randint(3, 9)):
        pre, neg = mask(0.25), mask(0.3)
        neg &= ~pre
        add, delete = mask(0.3), mask(0.3)
        actions.append(GroundAction(f"a{index}", (), pre=pre, add=add, delete=delete,
                                    neg_pre=neg, cost=rng.randint(0, 3)))
    goal = mask(0.3)
    goal_neg = mask(0.3) & ~goal
    return _task(tuple(actions), init=mask(0.5), goal=goal, goal_neg=goal_neg)


@pytest.mark.parametrize("seed", range(150))
def test_complemented_negative_conditions_keep_the_optimal_cost(seed: int) -> None:
    """prune=True makes negative conditions positive facts for the heuristics: optimal
    costs and verdicts stay those of the brute force, plans stay valid."""
    from xaip.planning.engines.complement import complement_negative_conditions

    task = _negative_task(seed)
    truth = goal_distances(task)[task.init]
    if any(a.neg_pre for a in task.actions) or task.goal_neg:
        assert complement_negative_conditions(task) is not None
    for heuristic in ("lmcut", "hmax", "blind"):
        result = CompiledEngine("astar", heuristic, prune=True).solve(task, optimal=True)
        if truth == math.inf:
            assert result.status == "unsolvable", heuristic
        else:
            assert (result.status, result.cost) == ("solved", truth), heuristic
            assert is_valid(task, result.plan)
    for heuristic in ("hff", "hadd"):
        result = CompiledEngine("gbfs", heuristic, prune=True).solve(task)
        assert result.status == ("unsolvable" if truth == math.inf else "solved")
        assert result.status != "solved" or is_valid(task, result.plan)


def test_complements_make_lmcut_see_negative_preconditions() -> None:
    """A chain of slots each needing the previous one emptied: with complements LM-cut
    counts every step, without them (prune=False) it sees only the goal's last action."""
    n = 6
    actions = tuple(
        GroundAction(f"clear{i}", (), pre=0, add=0, delete=1 << i,
                     neg_pre=(1 << (i + 1)) if i + 1 < n else 0)
        for i in range(n))
    task = _task(actions, init=(1 << n) - 1, goal=0, goal_neg=(1 << n) - 1)
    core = compile_task(task, prune=True, complement=True)
    nbytes = 8 * ((n + n) // 64 + 1)
    # every slot full, so no complement fact (bits n..2n-1) holds
    value = core.evaluate("lmcut", task.init.to_bytes(nbytes, "little"))
    assert value == n
    assert evaluate(task, "lmcut", task.init) < n
    assert CompiledEngine().solve(task, optimal=True).cost == n
