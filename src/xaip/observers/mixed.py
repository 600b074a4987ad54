"""Mixed observers (book §9.2, MO-COPP): one plan, legible to friends, obscure to adversaries.

Front door::

    solve_mixed(task_or_files, observers, goals, *, true_goal=None, method="ip",
                horizon=None, k=None, j=None, budget=None, max_states=20_000)
        -> MixedResult

* ``task_or_files`` — a grounded :class:`~xaip.planning.Task`, a ``(Domain, Problem)`` pair
  or a ``(domain_path, problem_path)`` pair.
* ``observers`` — the observation models of :mod:`xaip.observers.sensors` (a mapping
  name -> :class:`~xaip.observers.sensors.ObservationModel` as
  :func:`~xaip.observers.sensors.load_observers` returns, each with role ``adversary`` or
  ``friend``), or :class:`MixedObserver` values: a name, a role and any sensor function
  ``(ground action, resulting state) -> token``, optionally with an initial belief (extra
  states the observer cannot tell from the initial state).
* ``goals`` — a :class:`~xaip.observers.goals.GoalSet` (its ``true`` goal is the robot's),
  or a list of candidate goals, each a collection of atoms (``"(loaded a1)"`` or
  :class:`~xaip.planning.pddl.model.Atom`); ``true_goal`` is the index of the robot's goal
  among them (default: the GoalSet's true goal, else the problem's goal, which must be one
  of them).
* ``method="ip"`` — the optimal plan of length at most ``horizon`` by an integer program
  (HiGHS, :mod:`.mixed_ip`), maximising the goal-difference metric GD, optionally with the
  bounds ``k`` (adversaries keep at least ``k`` goals) and ``j`` (friends keep at most
  ``j``). The default horizon is the length of the shortest plan to the true goal plus 2.
* ``method="search"`` — the bounded ⟨k, j⟩ search (:mod:`.mixed_search`): greedy best-first
  in (state, beliefs) with Δ-approximate duplicate detection, returning the first plan whose
  final beliefs meet the bounds (defaults ``k = |goals|``, ``j = 1``), within ``horizon``
  steps when one is given.

GD(π) = (mean |𝒢^X_π| over adversaries − mean |𝒢^C_π| over friends) / (|𝒢| − 1), where
𝒢^i_π are the candidate goals some state of observer i's final belief satisfies (book
Def. 45; with one observer of each role it is exactly the book's metric). A role nobody
plays counts as one observer who knows the true goal (one goal: the true state is in every
belief), so GD stays in [−1, 1] and GD = 1 still means the friends know the goal and the
adversaries know nothing: with adversaries only, GD is their normalised ambiguity.

Why an explicit state space: MO-COPP's beliefs are sets of states, and the IP needs one
variable per (step, state, action); both are only feasible when the reachable states can be
listed. :class:`StateSpace` lists them once (charging the budget one node per state) and
both methods, and the brute-force oracle :func:`enumerate_mixed`, read the same table.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from xaip.contract import CheckReport
from xaip.errors import InputError
from xaip.planning.grounding import ground
from xaip.planning.pddl import read_domain, read_problem
from xaip.planning.pddl.model import Atom, Domain, Problem
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget, BudgetClock, Status

#: The token every observer receives for the padding no-op of the integer program (only
#: the no-op emits it, so observers know nothing happened; see :mod:`.mixed_ip`).
NULL_TOKEN = "-"
ROLES = ("adversary", "friend")

Sensor = Callable[[GroundAction, int], Hashable]


@dataclass(frozen=True)
class MixedObserver:
    """One observer: its name, role and sensor. ``initial`` optionally lists extra initial
    states (as fact bit masks of the task) the observer cannot tell from the real one."""

    name: str
    role: str
    sensor: Sensor = field(compare=False)
    initial: frozenset[int] = frozenset()

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise InputError(f"observer {self.name!r}: role must be one of {', '.join(ROLES)}, "
                             f"not {self.role!r}")


@dataclass(frozen=True)
class MixedInputs:
    """A checked MO-COPP: the task, observers, candidate goals (bit masks and labels) and
    the index of the true goal. :func:`make_inputs` builds it; the checker reads it."""

    task: Task
    observers: tuple[MixedObserver, ...]
    goal_masks: tuple[int, ...]
    goal_labels: tuple[str, ...]
    true_goal: int

    @property
    def adversaries(self) -> tuple[int, ...]:
        return tuple(i for i, o in enumerate(self.observers) if o.role == "adversary")

    @property
    def friends(self) -> tuple[int, ...]:
        return tuple(i for i, o in enumerate(self.observers) if o.role == "friend")

    def goal_difference(self, counts: Sequence[int]) -> float:
        """GD from each observer's number of goals in its final belief (module docstring)."""
        return goal_difference(counts, [o.role for o in self.observers], len(self.goal_masks))


def show_token(token: Hashable) -> str:
    """A token as text (observation-model tokens through their own formatter)."""
    if isinstance(token, tuple):
        from xaip.observers.sensors import format_token

        return format_token(token)
    return str(token)


def goal_difference(counts: Sequence[int], roles: Sequence[str], n_goals: int) -> float:
    """GD for observers with ``roles`` keeping ``counts`` goals each (book Def. 45)."""
    if n_goals < 2:
        raise InputError("the goal-difference metric needs at least two candidate goals")
    adv = [c for c, r in zip(counts, roles, strict=True) if r == "adversary"]
    fri = [c for c, r in zip(counts, roles, strict=True) if r == "friend"]
    # a role nobody plays: one observer who knows the goal (see the module docstring)
    a = sum(adv) / len(adv) if adv else 1.0
    f = sum(fri) / len(fri) if fri else 1.0
    return (a - f) / (n_goals - 1)


def _parse_atom(text: Atom | str) -> Atom:
    if isinstance(text, Atom):
        return text
    words = str(text).strip().strip("()").split()
    if not words:
        raise InputError(f"empty goal atom {text!r}")
    return Atom(words[0], tuple(words[1:]))


def load_task(task_or_files: Any, budget: Budget | None = None) -> Task:
    """A grounded task from a Task, a (Domain, Problem) pair or a pair of file paths."""
    if isinstance(task_or_files, Task):
        return task_or_files
    if isinstance(task_or_files, (tuple, list)) and len(task_or_files) == 2:
        first, second = task_or_files
        if isinstance(first, Domain) and isinstance(second, Problem):
            return ground(first, second)
        if isinstance(first, (str, Path)) and isinstance(second, (str, Path)):
            return ground(read_domain(first), read_problem(second))
    raise InputError("give a grounded Task, a (Domain, Problem) pair or (domain file, "
                     "problem file)")


def as_observers(observers: Any) -> tuple[MixedObserver, ...]:
    """:class:`MixedObserver` values from observation models (a mapping or a sequence) or
    from :class:`MixedObserver` values themselves."""
    from xaip.observers.sensors import ObservationModel

    items = list(observers.values()) if isinstance(observers, Mapping) else list(observers)
    out = []
    for item in items:
        if isinstance(item, MixedObserver):
            out.append(item)
        elif isinstance(item, ObservationModel):
            if item.role not in ROLES:
                raise InputError(f"observer {item.name!r} has role {item.role!r}; mixed "
                                 "observers need \"role\": \"adversary\" or \"friend\"")
            out.append(MixedObserver(item.name, item.role, item.observe))
        else:
            raise InputError(f"not an observer: {item!r}")
    return tuple(out)


def make_inputs(task: Task, observers: Any, goals: Any, true_goal: int | None = None
                ) -> MixedInputs:
    """Check and compile the inputs: goals to bit masks, the true goal's index.

    The checks that do not depend on how the goals were given (at least one observer,
    distinct observer names, two goals, a valid true-goal index) are made once, here, for
    a :class:`~xaip.observers.goals.GoalSet` and for atom lists alike."""
    from xaip.observers.goals import GoalSet

    mixed = as_observers(observers)
    if not mixed:
        raise InputError("a mixed-observer problem needs at least one observer")
    names = [o.name for o in mixed]
    if len(set(names)) != len(names):
        raise InputError(f"observer names must differ: {', '.join(names)}")
    if isinstance(goals, GoalSet):
        if not goals.true_goal.reachable:
            raise InputError(f"the true goal {goals.true!r} can never hold")
        if true_goal is None:
            true_goal = goals.names.index(goals.true)
        # a decoy that can never hold gets a bit no state has: never in any belief
        never = 1 << len(task.facts)
        masks = tuple(g.mask if g.reachable else never for g in goals.goals)
        labels = goals.names
    else:
        masks, labels = _compile_goals(task, [list(g) for g in goals])
    if len(masks) < 2:
        raise InputError(f"need at least two candidate goals, got {len(masks)}")
    if true_goal is None:
        if task.goal not in masks or task.goal_neg:
            raise InputError("the problem's goal is not one of the candidate goals; pass "
                             "true_goal=INDEX")
        true_goal = masks.index(task.goal)
    if not 0 <= true_goal < len(masks):
        raise InputError(f"true_goal {true_goal} is not a goal index (0..{len(masks) - 1})")
    return MixedInputs(task, mixed, masks, labels, true_goal)


def _compile_goals(task: Task, goals: Sequence[Iterable[Atom | str]]
                   ) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Bit masks and labels of candidate goals given as atoms (no two the same facts)."""
    static = task.static_facts
    masks, labels = [], []
    for number, goal in enumerate(goals, start=1):
        atoms = [_parse_atom(a) for a in goal]
        if not atoms:
            raise InputError(f"candidate goal {number} is empty")
        mask = 0
        for atom in atoms:
            if atom in task.fact_index:
                mask |= 1 << task.fact_index[atom]
            elif atom not in static:
                raise InputError(f"candidate goal {number}: {atom} never holds in any "
                                 "reachable state (unknown or unreachable atom)")
        masks.append(mask)
        labels.append(" ".join(str(a) for a in atoms))
    if len(set(masks)) != len(masks):
        raise InputError("two candidate goals are the same set of facts")
    return tuple(masks), tuple(labels)


# ---------------------------------------------------------------------- the state space


@dataclass
class StateSpace:
    """The reachable states of a task and its transitions, listed once.

    ``transitions[t] = (s, a, s2)`` with state indices ``s``, ``s2`` and ``a`` the index of
    the ground action in ``task.actions``; ``tokens[i][t]`` is observer ``i``'s token.
    """

    inputs: MixedInputs
    states: list[int]
    index: dict[int, int]
    transitions: list[tuple[int, int, int]]
    outgoing: list[list[int]]
    tokens: list[list[Hashable]]
    initial_beliefs: list[frozenset[int]]

    @property
    def initial(self) -> int:
        return 0

    def satisfies(self, state: int, goal: int) -> bool:
        mask = self.inputs.goal_masks[goal]
        return self.states[state] & mask == mask

    def goals_of(self, belief: Iterable[int]) -> tuple[int, ...]:
        """Candidate goals some state of ``belief`` satisfies."""
        members = list(belief)
        return tuple(g for g in range(len(self.inputs.goal_masks))
                     if any(self.satisfies(s, g) for s in members))

    def update(self, observer: int, belief: frozenset[int], token: Hashable) -> frozenset[int]:
        """Book Def. 11: every successor of a belief state whose token is ``token``."""
        tokens = self.tokens[observer]
        out = set()
        for s in belief:
            for t in self.outgoing[s]:
                if tokens[t] == token:
                    out.add(self.transitions[t][2])
        return frozenset(out)

    def distances_to(self, goal: int) -> list[float]:
        """Fewest steps from each state to one satisfying ``goal`` (inf: never)."""
        incoming: list[list[int]] = [[] for _ in self.states]
        for s, _, s2 in self.transitions:
            incoming[s2].append(s)
        dist = [float("inf")] * len(self.states)
        frontier = [s for s in range(len(self.states)) if self.satisfies(s, goal)]
        for s in frontier:
            dist[s] = 0
        while frontier:
            nxt = []
            for s2 in frontier:
                for s in incoming[s2]:
                    if dist[s] == float("inf"):
                        dist[s] = dist[s2] + 1
                        nxt.append(s)
            frontier = nxt
        return dist


class StateSpaceTooLarge(InputError):
    """The reachable state space exceeds ``max_states`` (an explicit space is required)."""


def explore(inputs: MixedInputs, clock: BudgetClock, max_states: int = 20_000
            ) -> StateSpace | None:
    """List the states reachable from the initial state and from every observer's initial
    belief; ``None`` when the budget runs out (one node per state)."""
    task = inputs.task
    extra = sorted({s for o in inputs.observers for s in o.initial} - {task.init})
    states = [task.init, *extra]
    index = {s: i for i, s in enumerate(states)}
    transitions: list[tuple[int, int, int]] = []
    outgoing: list[list[int]] = []
    cursor = 0
    while cursor < len(states):
        if not clock.charge(1):
            return None
        state = states[cursor]
        mine: list[int] = []
        for number, action in enumerate(task.actions):
            if not action.applicable(state):
                continue
            nxt = task.close(action.apply(state))
            if nxt not in index:
                if len(states) >= max_states:
                    raise StateSpaceTooLarge(
                        f"more than {max_states} reachable states; mixed-observer planning "
                        "needs an explicit state space (raise max_states or shrink the problem)")
                index[nxt] = len(states)
                states.append(nxt)
            mine.append(len(transitions))
            transitions.append((cursor, number, index[nxt]))
        outgoing.append(mine)
        cursor += 1
    tokens: list[list[Hashable]] = []
    for observer in inputs.observers:
        row = []
        for _, a, s2 in transitions:
            token = observer.sensor(task.actions[a], states[s2])
            if token == NULL_TOKEN:
                raise InputError(f"observer {observer.name!r}: the token {NULL_TOKEN!r} is "
                                 "reserved for the no-op")
            row.append(token)
        tokens.append(row)
    beliefs = [frozenset({0} | {index[s] for s in o.initial}) for o in inputs.observers]
    return StateSpace(inputs, states, index, transitions, outgoing, tokens, beliefs)


# ---------------------------------------------------------------------- results


@dataclass(frozen=True)
class MixedResult:
    """A mixed-observer plan with what each observer saw and still believes possible."""

    method: str
    plan: tuple[str, ...]
    cost: int | None
    observations: Mapping[str, tuple[str, ...]]
    goals_in_final_belief: Mapping[str, tuple[str, ...]]
    roles: Mapping[str, str]
    goals: tuple[str, ...]
    true_goal: str
    score: float | None
    horizon: int | None
    k: int | None
    j: int | None
    status: Status
    seconds: float
    stats: Mapping[str, int | float]
    verified: bool = False
    check: CheckReport | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "plan": [f"({step})" for step in self.plan],
            "cost": self.cost,
            "observations": {k: list(v) for k, v in self.observations.items()},
            "goals_in_final_belief": {k: list(v) for k, v in
                                      self.goals_in_final_belief.items()},
            "roles": dict(self.roles),
            "goals": list(self.goals),
            "true_goal": self.true_goal,
            "score": self.score,
            "horizon": self.horizon,
            "k": self.k,
            "j": self.j,
            "status": str(self.status),
            "verified": self.verified,
            "seconds": round(self.seconds, 6),
            "stats": dict(self.stats),
            "check": None if self.check is None else self.check.to_dict(),
        }


def describe_plan(space: StateSpace, transitions: Sequence[int]) -> dict[str, Any]:
    """Plan names, cost, tokens and final-belief goals of a transition sequence."""
    inputs, task = space.inputs, space.inputs.task
    plan = [task.actions[space.transitions[t][1]].name for t in transitions]
    cost = sum(task.actions[space.transitions[t][1]].cost for t in transitions)
    observations: dict[str, tuple[str, ...]] = {}
    final_goals: dict[str, tuple[str, ...]] = {}
    counts = []
    for i, observer in enumerate(inputs.observers):
        belief = space.initial_beliefs[i]
        seen = []
        for t in transitions:
            token = space.tokens[i][t]
            seen.append(show_token(token))
            belief = space.update(i, belief, token)
        goals = space.goals_of(belief)
        counts.append(len(goals))
        observations[observer.name] = tuple(seen)
        final_goals[observer.name] = tuple(inputs.goal_labels[g] for g in goals)
    return {"plan": tuple(plan), "cost": cost, "observations": observations,
            "goals_in_final_belief": final_goals, "score": inputs.goal_difference(counts)}


def enumerate_mixed(space: StateSpace, horizon: int, clock: BudgetClock | None = None
                    ) -> tuple[float | None, tuple[int, ...], int, bool]:
    """Brute force: every plan of at most ``horizon`` steps reaching the true goal, beliefs
    tracked along each; returns (best GD, its transitions, plans scored, finished).

    Ties go to the shorter, then the earlier-found plan. The benchmark's baseline (the
    tests use their own oracle that does not share :class:`StateSpace`).
    """
    inputs = space.inputs
    best: tuple[float | None, tuple[int, ...]] = (None, ())
    scored = 0
    n = len(inputs.observers)
    stack: list[tuple[int, tuple[int, ...], tuple[frozenset[int], ...]]] = [
        (space.initial, (), tuple(space.initial_beliefs))]
    while stack:
        if clock is not None and not clock.charge(1):
            return best[0], best[1], scored, False
        state, path, beliefs = stack.pop()
        if space.satisfies(state, inputs.true_goal):
            scored += 1
            score = inputs.goal_difference([len(space.goals_of(b)) for b in beliefs])
            if best[0] is None or score > best[0] or (score == best[0]
                                                      and len(path) < len(best[1])):
                best = (score, path)
        if len(path) == horizon:
            continue
        for t in reversed(space.outgoing[state]):
            nxt = tuple(space.update(i, beliefs[i], space.tokens[i][t]) for i in range(n))
            stack.append((space.transitions[t][2], (*path, t), nxt))
    return best[0], best[1], scored, True


def shortest_length(space: StateSpace) -> int | None:
    """Fewest steps to the true goal (``None``: unreachable)."""
    dist = space.distances_to(space.inputs.true_goal)[space.initial]
    return None if dist == float("inf") else int(dist)


def solve_mixed(
    task_or_files: Any,
    observers: Any,
    goals: Any,
    *,
    true_goal: int | None = None,
    method: str = "ip",
    horizon: int | None = None,
    k: int | None = None,
    j: int | None = None,
    budget: Budget | None = None,
    max_states: int = 20_000,
) -> MixedResult:
    """Plan for mixed observers (see the module docstring); the result is checked by
    :func:`xaip.observers.mixed_check.check_mixed` before it is returned."""
    from xaip.contract import with_check
    from xaip.observers.mixed_check import check_mixed

    started = time.perf_counter()
    if method not in ("ip", "search"):
        raise InputError(f"unknown method {method!r} (ip or search)")
    if horizon is not None and horizon < 0:
        raise InputError(f"the horizon must be non-negative, got {horizon}")
    budget = budget or Budget(max_seconds=300)
    clock = budget.start()
    inputs = make_inputs(load_task(task_or_files), observers, goals, true_goal)
    n = len(inputs.goal_masks)
    for name, value in (("k", k), ("j", j)):
        if value is not None and not 1 <= value <= n:
            raise InputError(f"{name} = {value} must lie between 1 and the number of "
                             f"candidate goals ({n})")
    if method == "search":
        k = n if k is None else k
        j = 1 if j is None else j
    space = explore(inputs, clock, max_states)
    stats: dict[str, int | float] = {"states": 0 if space is None else len(space.states),
                                     "transitions": 0 if space is None
                                     else len(space.transitions)}
    outcome: tuple[Status, tuple[int, ...] | None] = (Status.BUDGET_EXHAUSTED, None)
    if space is not None:
        if method == "ip" and horizon is None:
            shortest = shortest_length(space)
            horizon = 2 if shortest is None else shortest + 2
        if method == "ip":
            from xaip.observers.mixed_ip import solve_ip

            assert horizon is not None
            status, path, ip_stats = solve_ip(space, horizon, k, j, clock)
            stats.update(ip_stats)
        else:
            from xaip.observers.mixed_search import kj_search

            status, path, search_stats = kj_search(space, k or n, j or 1, horizon, clock)
            stats.update(search_stats)
        outcome = (status, path)
    status, path = outcome
    described: dict[str, Any] = {"plan": (), "cost": None, "observations": {},
                                 "goals_in_final_belief": {}, "score": None}
    if path is not None and space is not None:
        described = describe_plan(space, path)
    result = MixedResult(
        method=method, roles={o.name: o.role for o in inputs.observers},
        goals=inputs.goal_labels, true_goal=inputs.goal_labels[inputs.true_goal],
        horizon=horizon, k=k, j=j, status=status, stats=stats,
        seconds=time.perf_counter() - started, **described)
    report = check_mixed(inputs, result, budget)
    return with_check(dataclasses.replace(result, check=report), report)

