"""The independent checker of every single-observer result (legibility, obfuscation, score).

What it recomputes, and how:

1. the plan on the *lifted* model with :func:`xaip.planning.validate` (its own state
   progression over atoms): executable, its cost, and the true goal's atoms at the end;
2. the tokens, with :meth:`ObservationModel.observe_atoms` — the observation rules
   evaluated on those lifted atom sets, not the cached bitset ``observe`` of the search;
3. the observer's beliefs and the belief plan set, by brute force: a depth-first
   enumeration of *every* action sequence whose tokens match, from each initial-belief
   state, on states kept as sets of atom strings (no belief sets, no successor cache, no
   dynamic programming); belief ``b_i`` is the set of states the matching length-``i``
   prefixes reach, the BPS the matching full-length sequences;
4. the mode's test (at most ``j`` goals, at least ``k``, the secure run's goal set and
   decoy tokens, ``m``/``ℓ`` and the distance bound ``d``) and every number the result
   reports (cost, tokens, belief sizes, goals left, |BPS|, distance extremes).

What it shares with the search: the grounded action list (for which actions exist; their
preconditions and effects are re-read as atom sets), the parsed observation rules (the
file is read once) and, for distances other than ``action``, :mod:`xaip.explicable.distances`
(the action distance is recomputed here as 1 − Jaccard of action-name sets).

A result with no plan (``unsolvable``) is confirmed by enumerating every plan within its
cost bound and testing each as above, when that takes at most ``limit`` sequences;
otherwise, and without a cost bound, the answer is ``ok=None`` (not checked).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xaip.contract import CheckReport
from xaip.explicable.distances import trace_distance, trace_of
from xaip.observers.goals import Goal
from xaip.observers.problem import ObserverProblem
from xaip.observers.results import ObserverResult
from xaip.observers.sensors import format_token
from xaip.planning.plans import parse_plan, validate
from xaip.planning.task import Task, bits
from xaip.runtime import Status

AtomState = frozenset[str]


@dataclass(frozen=True)
class _Step:
    name: str
    schema: str
    args: tuple[str, ...]
    pre: frozenset[str]
    neg: frozenset[str]
    add: frozenset[str]
    delete: frozenset[str]
    cost: int
    conditional: tuple[tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]], ...]

    def applicable(self, state: AtomState) -> bool:
        return self.pre <= state and not (self.neg & state)

    def apply(self, state: AtomState) -> AtomState:
        add, delete = set(self.add), set(self.delete)
        for cond_pos, cond_neg, c_add, c_del in self.conditional:
            if cond_pos <= state and not (cond_neg & state):
                add |= c_add
                delete |= c_del
        return frozenset((state - delete) | add)


def _atoms(task: Task, mask: int) -> frozenset[str]:
    return frozenset(str(task.facts[i]).lower() for i in bits(mask))


class _World:
    """The task's actions and states as atom strings (no bitsets past this point)."""

    def __init__(self, problem: ObserverProblem) -> None:
        task = problem.task
        self.problem = problem
        self.steps = [
            _Step(a.name.lower(), a.schema.lower(), tuple(x.lower() for x in a.args),
                  _atoms(task, a.pre), _atoms(task, a.neg_pre), _atoms(task, a.add),
                  _atoms(task, a.delete), a.cost if task.has_costs else 1,
                  tuple((_atoms(task, c.cond_pos), _atoms(task, c.cond_neg), _atoms(task, c.add),
                         _atoms(task, c.delete)) for c in a.conditional))
            for a in task.actions]
        self.statics = frozenset(str(f).lower() for f in task.static_facts)
        initial = problem.initial or frozenset({task.init})
        self.starts = sorted(_atoms(task, s) for s in initial)
        self._tokens: dict[tuple[str, AtomState], str] = {}

    def token(self, step: _Step, state: AtomState) -> str:
        key = (step.name, state)
        found = self._tokens.get(key)
        if found is None:
            found = format_token(self.problem.model.observe_atoms(step.schema, step.args,
                                                                  state | self.statics))
            self._tokens[key] = found
        return found

    def consistent(self, tokens: Sequence[str], limit: int
                   ) -> tuple[list[tuple[AtomState, tuple[str, ...], AtomState]],
                              list[set[AtomState]], bool]:
        """Every matching sequence (start, action names, end), the states each prefix
        length reaches, and whether the enumeration finished within ``limit`` nodes."""
        layers: list[set[AtomState]] = [set() for _ in range(len(tokens) + 1)]
        found: list[tuple[AtomState, tuple[str, ...], AtomState]] = []
        visited = 0
        for start in self.starts:
            stack: list[tuple[AtomState, tuple[str, ...]]] = [(start, ())]
            while stack:
                state, names = stack.pop()
                visited += 1
                if visited > limit:
                    return found, layers, False
                depth = len(names)
                layers[depth].add(state)
                if depth == len(tokens):
                    found.append((start, names, state))
                    continue
                for step in self.steps:
                    if step.applicable(state):
                        nxt = step.apply(state)
                        if self.token(step, nxt) == tokens[depth]:
                            stack.append((nxt, (*names, step.name)))
        return found, layers, True


def _holds(goal: Goal, state: AtomState) -> bool:
    return goal.reachable and set(goal.atoms) <= state


def _action_distance(a: Sequence[str], b: Sequence[str]) -> float:
    union = set(a) | set(b)
    return 0.0 if not union else 1.0 - len(set(a) & set(b)) / len(union)


def _spread(problem: ObserverProblem, plans: Sequence[tuple[AtomState, tuple[str, ...]]],
            distance: str) -> tuple[float | None, float | None]:
    if distance == "action":
        values = [_action_distance(a[1], b[1]) for a, b in itertools.combinations(plans, 2)]
    else:
        task = problem.task
        traces = []
        for _, names in plans:
            ground = problem.resolve(list(names))
            traces.append(trace_of(task, ground, prefix=True))
        values = [trace_distance(distance, a, b) for a, b in itertools.combinations(traces, 2)]
    return (min(values), max(values)) if values else (None, None)


def _close(a: float | None, b: float | None) -> bool:
    if a is None or b is None:
        return a is b
    return abs(a - b) < 1e-6


def check(problem: ObserverProblem, result: ObserverResult, limit: int = 200_000) -> CheckReport:
    """Recompute ``result`` from its plan (see the module docstring)."""
    if not result.plan:
        return _check_none(problem, result, limit)
    return _check_plan(problem, result, list(result.plan), limit)


@dataclass(frozen=True)
class _Recomputed:
    """What the brute force makes of one plan."""

    cost: int
    tokens: tuple[str, ...]
    reaches: bool
    goals: tuple[str, ...]
    layers: tuple[int, ...]
    found: list[tuple[AtomState, tuple[str, ...], AtomState]]
    final: set[AtomState]


@dataclass(frozen=True)
class _Lifted:
    """A plan run on the lifted model: its cost, the tokens its steps emit (evaluated on
    the lifted states) and those states (static facts left out)."""

    cost: int
    tokens: tuple[str, ...]
    trace: list[AtomState]


def _run_lifted(problem: ObserverProblem, world: _World, plan: Sequence[str]
                ) -> _Lifted | str:
    """``plan`` re-simulated by :func:`xaip.planning.validate`; a string says why not."""
    if problem.domain is None or problem.problem is None:
        return "no lifted model to re-simulate on"
    steps = parse_plan("\n".join(f"({s})" for s in plan))
    lifted = validate(problem.domain, problem.problem, steps, keep_trace=True)
    if lifted.failed_step is not None and lifted.failed_step < len(steps):
        return f"the plan is not executable: {lifted.reason}"
    trace = [frozenset(str(a).lower() for a in state) - world.statics
             for state in lifted.trace]
    by_name = {s.name: s for s in world.steps}
    tokens = tuple(world.token(by_name[" ".join((st.name, *st.args)).lower()], trace[i + 1])
                   for i, st in enumerate(steps))
    return _Lifted(lifted.cost, tokens, trace)


def _goals_left(problem: ObserverProblem, world: _World, belief: set[AtomState]
                ) -> tuple[str, ...]:
    """The candidate goals some state of ``belief`` satisfies (in goal order)."""
    return tuple(g.name for g in problem.goals.goals
                 if any(_holds(g, s | world.statics) for s in belief))


def _recompute(problem: ObserverProblem, world: _World, plan: Sequence[str],
               limit: int) -> _Recomputed | str:
    """The plan re-simulated and its observer recomputed; a string says why not."""
    lifted = _run_lifted(problem, world, plan)
    if isinstance(lifted, str):
        return lifted
    found, layers, finished = world.consistent(lifted.tokens, limit)
    if not finished:
        return f"more than {limit} consistent prefixes; not enumerated"
    reaches = _holds(problem.true_goal, lifted.trace[-1] | world.statics)
    return _Recomputed(lifted.cost, lifted.tokens, reaches,
                       _goals_left(problem, world, layers[-1]),
                       tuple(len(x) for x in layers), found, layers[-1])


def _check_plan(problem: ObserverProblem, result: ObserverResult, plan: list[str],
                limit: int) -> CheckReport:
    world = _World(problem)
    got = _recompute(problem, world, plan, limit)
    if isinstance(got, str):
        return CheckReport(False if "executable" in got else None, got)
    problems = []
    if got.cost != result.cost:
        problems.append(f"cost {got.cost} recomputed, {result.cost} reported")
    if got.tokens != tuple(result.observations):
        problems.append(f"tokens {list(got.tokens)} recomputed, "
                        f"{list(result.observations)} reported")
    if got.layers != tuple(result.beliefs):
        problems.append(f"belief sizes {list(got.layers)} recomputed, "
                        f"{list(result.beliefs)} reported")
    reported_goals = tuple(result.goals_in_final_belief.get(problem.model.name, ()))
    if got.goals != reported_goals:
        problems.append(f"goals in the final belief {got.goals} recomputed, "
                        f"{reported_goals} reported")
    if result.bps_count is not None and result.bps_count != len(got.found):
        problems.append(f"|BPS| {len(got.found)} recomputed, {result.bps_count} reported")
    failures, low, high = _test(problem, world, result.mode, result.params, got)
    listed = min(BPS_LISTED_LIMIT, int(result.params.get("bps_cap", BPS_LISTED_LIMIT)))
    if result.bps_count is not None and len(got.found) <= listed and (
            not _close(low, result.distance_min) or not _close(high, result.distance_max)):
        problems.append(f"distances min {low} max {high} recomputed, "
                        f"{result.distance_min} {result.distance_max} reported")
    if result.mode == "secure-ambiguous":
        failures.extend(_secure_test(problem, world, result, got.goals))
    problems.extend(failures)
    if problems:
        return CheckReport(False, "; ".join(problems))
    return CheckReport(True, f"lifted re-simulation and brute-force enumeration agree: "
                             f"{len(got.found)} consistent plan(s), goals left {list(got.goals)}")


#: Distance extremes are compared only for BPSs up to this size (the pairwise work grows
#: quadratically).
BPS_LISTED_LIMIT = 400


def _test(problem: ObserverProblem, world: _World, mode: str, params: Mapping[str, Any],
          got: _Recomputed) -> tuple[list[str], float | None, float | None]:
    """Why the recomputed plan fails its mode's test (empty: it passes), and the BPS's
    distance extremes."""
    out: list[str] = []
    goals, found = got.goals, got.found
    if mode != "score" and not got.reaches:
        out.append(f"the plan does not reach the true goal '{problem.goals.true}'")
    if mode == "legible-goal" and len(goals) > int(params["j"]):
        out.append(f"{len(goals)} goals left, more than j = {params['j']}")
    if mode in ("ambiguous", "secure-ambiguous") and len(goals) < int(params["k"]):
        out.append(f"{len(goals)} goals left, fewer than k = {params['k']}")
    wanted = params.get("decoys")
    if mode == "ambiguous" and wanted and not set(wanted) <= set(goals):
        out.append(f"decoys {wanted} not all in the final belief")
    low = high = None
    if len(found) <= BPS_LISTED_LIMIT:
        low, high = _spread(problem, [(s, n) for s, n, _ in found],
                            str(params.get("distance", "action")))
    if mode in ("legible-plan", "diverse"):
        cap = int(params.get("bps_cap", BPS_LISTED_LIMIT))
        if not all(_holds(problem.true_goal, s | world.statics) for s in got.final):
            out.append("some plan of the BPS does not reach the true goal")
        if len(found) > cap:
            out.append(f"|BPS| {len(found)} is above the enumeration cap {cap}")
        elif mode == "legible-plan":
            if len(found) < int(params["m"]):
                out.append(f"|BPS| {len(found)} below m = {params['m']}")
            if high is not None and high > float(params["d"]) + 1e-9:
                out.append(f"BPS plans {high:.3f} apart, more than d = {params['d']}")
        else:
            if len(found) < int(params["l"]):
                out.append(f"|BPS| {len(found)} below l = {params['l']}")
            if low is not None and low < float(params["d"]) - 1e-9:
                out.append(f"BPS plans only {low:.3f} apart, less than d = {params['d']}")
    return out, low, high


def _secure_test(problem: ObserverProblem, world: _World, result: ObserverResult,
                 goals: tuple[str, ...]) -> Iterator[str]:
    info = result.decoy or {}
    chosen = list(info.get("goal_set", ()))
    if len(chosen) < int(result.params["k"]) or problem.goals.true not in chosen:
        yield f"the drawn goal set {chosen} is not k goals with the true goal"
    if not set(chosen) <= set(goals):
        yield f"goal set {chosen} not all in the final belief {list(goals)}"
    # reached only after the plan itself was re-simulated, so the lifted model exists
    lifted = _run_lifted(problem, world, list(info.get("decoy_plan", ())))
    if isinstance(lifted, str):
        yield "the decoy plan is not executable"
        return
    if lifted.tokens != tuple(result.observations):
        yield "the decoy plan's tokens differ from the plan's"
    decoy_goal = problem.goals.by_name(str(info.get("decoy_true_goal")))
    if not _holds(decoy_goal, lifted.trace[-1] | world.statics):
        yield "the decoy plan does not reach the decoy true goal"


def _check_none(problem: ObserverProblem, result: ObserverResult, limit: int) -> CheckReport:
    """Confirm "no plan within the cost bound passes": enumerate every plan that reaches the
    true goal within the bound (own progression on atom sets), group them by their token
    sequence (the observer's view depends on nothing else), and test each group once."""
    if result.status != Status.UNSOLVABLE:
        return CheckReport(None, "no plan to check")
    bound, horizon = result.params.get("max_cost"), result.params.get("horizon")
    if (bound is None and horizon is None) or result.mode in ("secure-ambiguous", "score"):
        return CheckReport(None, "unsolvability without a cost bound is not re-checked")
    max_cost = math.inf if bound is None else int(bound)
    max_steps = math.inf if horizon is None else int(horizon)
    world = _World(problem)
    true = problem.true_goal
    views: dict[tuple[str, ...], tuple[str, ...]] = {}
    stack: list[tuple[AtomState, tuple[str, ...], tuple[str, ...], int]] = [
        (_atoms(problem.task, problem.task.init), (), (), 0)]
    plans = 0
    while stack:
        state, names, tokens, cost = stack.pop()
        plans += 1
        if plans > limit:
            return CheckReport(None, f"more than {limit} plans within the bounds")
        if _holds(true, state | world.statics):
            views.setdefault(tokens, names)
        if len(names) >= max_steps:
            continue
        for step in world.steps:
            if step.applicable(state) and cost + step.cost <= max_cost:
                nxt = step.apply(state)
                stack.append((nxt, (*names, step.name), (*tokens, world.token(step, nxt)),
                              cost + step.cost))
    for tokens, names in views.items():
        found, layers, finished = world.consistent(tokens, limit)
        if not finished:
            return CheckReport(None, f"more than {limit} consistent prefixes; not enumerated")
        got = _Recomputed(0, tokens, True, _goals_left(problem, world, layers[-1]),
                          tuple(len(x) for x in layers), found, layers[-1])
        failures, _, _ = _test(problem, world, result.mode, result.params, got)
        if not failures:
            shown = " ".join(f"({n})" for n in names)
            return CheckReport(False, f"{shown or 'the empty plan'} passes the test")
    within = " and ".join(x for x in (bound is not None and f"cost {bound}",
                                      horizon is not None and f"{horizon} steps") if x)
    return CheckReport(True, f"none of the {plans} plans within {within} passes "
                             f"({len(views)} token sequences reach the goal; brute force)")
