"""Policies as tables, their files, their reachable graphs and their exact evaluation.

Why tables: the TLdR compilations need, for every state the policy can reach, the action
it takes there and that action's outcomes, so a policy is a finite map from states to
action names (ground actions sharing a name have the same outcomes). A policy file is JSON
keyed by the state's true facts spelled as strings, so a person can read it and another
tool can write it; loading validates every fact and action against the task.

Evaluation is exact, not sampled: on the policy graph, goal probability and expected cost
are the solution of linear systems (``x = r + P x`` over the transient states), solved one
strongly connected component at a time by sparse elimination, after the states whose value
is fixed by the graph's structure alone (cannot reach the goal; can loop forever) are set
aside. :func:`simulate` samples runs for independent checks.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from xaip.errors import InputError
from xaip.planning.mdp.budgets import BudgetExhausted, as_clock, require
from xaip.planning.mdp.deadends import DeadEndDetector
from xaip.planning.mdp.linear import solve_linear
from xaip.planning.mdp.reachability import backward_closure
from xaip.planning.mdp.task import ProbabilisticAction, ProbabilisticTask
from xaip.planning.task import State
from xaip.runtime.budget import Budget, BudgetClock
from xaip.sidefiles import read_bytes

POLICY_FORMAT = "xaip-policy"
POLICY_VERSION = 1
_FACT = re.compile(r"\(([^()]*)\)")


class PolicyFormatError(InputError):
    """A policy (file) that does not match its task: unknown facts or actions, actions not
    applicable in their state, malformed JSON."""


def _state_key(task: ProbabilisticTask, state: State) -> str:
    return " ".join(task.state_key(state))


# --------------------------------------------------------------------------- policies


@dataclass(frozen=True, eq=False)
class Policy:
    """A (partial) policy: the action name to take in each listed state.

    Construction validates that every action exists and is applicable in its state.
    """

    task: ProbabilisticTask
    table: Mapping[State, str]

    def __post_init__(self) -> None:
        table = dict(self.table)
        for state, name in table.items():
            if name not in self.task.action_index:
                raise PolicyFormatError(f"unknown action '{name}' in the policy")
            if self.task.action_named(name, state) is None:
                raise PolicyFormatError(
                    f"action '{name}' is not applicable in state [{_state_key(self.task, state)}]"
                )
        object.__setattr__(self, "table", MappingProxyType(table))

    def action(self, state: State) -> str | None:
        """The action name the policy takes in ``state`` (``None`` if it says nothing)."""
        return self.table.get(state)

    def ground_action(self, state: State) -> ProbabilisticAction | None:
        name = self.table.get(state)
        return None if name is None else self.task.action_named(name, state)

    def __len__(self) -> int:
        return len(self.table)

    def __contains__(self, state: object) -> bool:
        return state in self.table

    def states(self) -> tuple[State, ...]:
        return tuple(self.table)

    def to_dict(self) -> dict[str, Any]:
        entries = sorted((_state_key(self.task, s), a) for s, a in self.table.items())
        return {
            "format": POLICY_FORMAT,
            "version": POLICY_VERSION,
            "task": self.task.name,
            "policy": dict(entries),
        }

    def save(self, path: str | Path) -> None:
        """Write the policy as JSON: ``{"policy": {"(fact) (fact) ...": "action args"}}``."""
        try:
            Path(path).write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        except OSError as error:
            raise InputError(
                f"cannot write policy file {path}: {error.strerror or error}") from None

    @classmethod
    def from_dict(cls, data: object, ptask: ProbabilisticTask, source: str = "<policy>") -> Policy:
        """Read a policy written by :meth:`to_dict`, validated against ``ptask``."""
        if not isinstance(data, dict) or not isinstance(data.get("policy"), dict):
            raise PolicyFormatError(f"{source}: expected a JSON object with a 'policy' object")
        if data.get("format", POLICY_FORMAT) != POLICY_FORMAT:
            raise PolicyFormatError(f"{source}: not an {POLICY_FORMAT} file")
        version = data.get("version", POLICY_VERSION)
        if version != POLICY_VERSION or isinstance(version, bool):
            raise PolicyFormatError(
                f"{source}: unknown {POLICY_FORMAT} version {_shown(version)} "
                f"(this xaip reads version {POLICY_VERSION})"
            )
        task_name = data.get("task", ptask.name)
        if task_name != ptask.name:
            raise PolicyFormatError(
                f"{source}: the policy is for task {_shown(task_name)}, not '{ptask.name}'"
            )
        known = {str(f): i for i, f in enumerate(ptask.facts)}
        static = {str(f) for f in ptask.static_facts}
        table: dict[State, str] = {}
        for key, name in data["policy"].items():
            if not isinstance(name, str):
                raise PolicyFormatError(
                    f"{source}: the action of [{_brief(key)}] is not a string")
            state = _parse_state(key, known, static, source)
            name = " ".join(name.strip().strip("()").split())
            if state in table:
                raise PolicyFormatError(f"{source}: state [{_brief(key)}] is listed twice")
            if name not in ptask.action_index:
                raise PolicyFormatError(
                    f"{source}: unknown action '{_brief(name)}' in state [{_brief(key)}]")
            if ptask.action_named(name, state) is None:
                raise PolicyFormatError(
                    f"{source}: action '{_brief(name)}' is not applicable in state [{_brief(key)}]"
                )
            table[state] = name
        return cls(ptask, table)

    @classmethod
    def load(cls, path: str | Path, ptask: ProbabilisticTask) -> Policy:
        """Read a policy file and validate it against ``ptask``."""
        raw = read_bytes(path, "policy")  # size cap, devices, FIFOs
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise PolicyFormatError(
                f"{path}: not UTF-8 text (byte 0x{raw[error.start]:02x} at offset {error.start})"
            ) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise PolicyFormatError(
                f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"
            ) from None
        except RecursionError:
            raise PolicyFormatError(
                f"{path}: JSON nested too deeply (a policy file is a flat object)"
            ) from None
        return cls.from_dict(data, ptask, str(path))


def _brief(text: str, limit: int = 80) -> str:
    """Text from a file for a one-line message: control and invisible characters escaped,
    at most ``limit`` characters."""
    shown = "".join(c if c.isprintable() and c.isascii() or c.isalnum() else
                    c.encode("unicode_escape").decode("ascii") for c in text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _shown(value: object, limit: int = 60) -> str:
    """A value from a file, quoted, escaped and truncated for a one-line message."""
    text = ascii(value) if not isinstance(value, str) else repr(value).encode(
        "ascii", "backslashreplace").decode("ascii")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _parse_state(key: str, known: Mapping[str, int], static: set[str], source: str) -> State:
    if not isinstance(key, str):
        raise PolicyFormatError(f"{source}: state keys must be strings")
    if _FACT.sub("", key).strip():
        raise PolicyFormatError(
            f"{source}: state [{_brief(key)}] is not a list of facts such as '(at a) (clear b)'"
        )
    state = 0
    for inner in _FACT.findall(key):
        fact = "(" + " ".join(inner.split()) + ")"
        index = known.get(fact)
        if index is None:
            if fact in static:
                continue
            raise PolicyFormatError(
                f"{source}: unknown fact {_brief(fact)} in state [{_brief(key)}]")
        state |= 1 << index
    return state


# --------------------------------------------------------------------------- policy graph


@dataclass(frozen=True)
class PolicyEdge:
    """``source --action--> target`` with the probability of that transition."""

    source: State
    action: str
    target: State
    probability: float


@dataclass(frozen=True)
class PolicyGraph:
    """The states a policy reaches from the initial state, and its transitions.

    ``states`` are in breadth-first order from ``init``. Goal states are absorbing;
    ``dead_ends`` are reached states from which no policy reaches the goal (exact);
    ``unhandled`` are reached non-goal states that are not dead ends and in which the
    policy names no action. ``complete`` is ``False`` if ``max_states`` cut the search.
    ``task`` is the task the graph belongs to (for spelling states in :meth:`to_dict`).
    """

    init: State
    states: tuple[State, ...]
    edges: tuple[PolicyEdge, ...]
    goal_states: frozenset[State]
    dead_ends: frozenset[State]
    unhandled: frozenset[State]
    complete: bool = True
    task: ProbabilisticTask | None = field(default=None, compare=False, repr=False)
    _out: dict[State, tuple[PolicyEdge, ...]] = field(
        init=False, compare=False, repr=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        out: dict[State, list[PolicyEdge]] = {}
        for edge in self.edges:
            out.setdefault(edge.source, []).append(edge)
        object.__setattr__(self, "_out", {s: tuple(e) for s, e in out.items()})

    def __len__(self) -> int:
        return len(self.states)

    def out_edges(self, state: State) -> tuple[PolicyEdge, ...]:
        return self._out.get(state, ())

    def action(self, state: State) -> str | None:
        edges = self._out.get(state)
        return edges[0].action if edges else None

    def successors(self, state: State) -> dict[State, float]:
        return {e.target: e.probability for e in self._out.get(state, ())}

    def to_dict(self) -> dict[str, Any]:
        task = self.task
        if task is None:
            raise ValueError("a PolicyGraph built without its task cannot spell its states")
        number = {s: i for i, s in enumerate(self.states)}
        return {
            "states": [
                {
                    "id": number[s],
                    "facts": task.state_key(s),
                    "action": self.action(s),
                    "goal": s in self.goal_states,
                    "dead_end": s in self.dead_ends,
                }
                for s in self.states
            ],
            "edges": [
                {
                    "source": number[e.source],
                    "action": e.action,
                    "target": number[e.target],
                    "probability": e.probability,
                }
                for e in self.edges
            ],
            "complete": self.complete,
        }


def policy_graph(
    ptask: ProbabilisticTask,
    policy: Policy,
    max_states: int | None = None,
    budget: Budget | BudgetClock | None = None,
) -> PolicyGraph:
    """Breadth-first exploration of the states ``policy`` reaches from the initial state.

    Each explored state, and each node of the exact dead-end test, charges ``budget`` (a
    :class:`~xaip.runtime.Budget` or a clock shared with other phases); when it runs out,
    :class:`~xaip.planning.landmarks.BudgetExhausted` is raised, because a graph with
    undecided dead ends would misreport the policy.
    """
    clock = as_clock(budget)
    order: dict[State, None] = {ptask.init: None}
    queue = [ptask.init]
    head = 0
    edges: list[PolicyEdge] = []
    goals: set[State] = set()
    leaves: list[State] = []
    complete = True
    while head < len(queue):
        state = queue[head]
        head += 1
        if ptask.is_goal(state):
            goals.add(state)
            continue
        require(clock, 1, "the exploration of the policy graph")
        action = policy.ground_action(state)
        if action is None:
            leaves.append(state)
            continue
        for succ, probability in action.successors(state).items():
            edges.append(PolicyEdge(state, action.name, succ, probability))
            if succ not in order:
                if max_states is not None and len(order) >= max_states:
                    complete = False
                    continue
                order[succ] = None
                queue.append(succ)
    states = tuple(order)
    # Dead ends: only states that cannot reach a goal inside the graph can be dead ends.
    preds: dict[State, list[State]] = {}
    for edge in edges:
        preds.setdefault(edge.target, []).append(edge.source)
    reaching_goal = backward_closure(goals, preds)
    detector = DeadEndDetector(ptask)
    dead: set[State] = set()
    for state in states:
        if state in reaching_goal:
            continue
        verdict = detector.is_dead_end(state, clock)
        if verdict is None:
            raise BudgetExhausted("budget exhausted during dead-end detection on the policy graph")
        if verdict:
            dead.add(state)
    unhandled = frozenset(s for s in leaves if s not in dead)
    return PolicyGraph(
        ptask.init, states, tuple(edges), frozenset(goals), frozenset(dead), unhandled,
        complete, ptask,
    )


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class PolicyEvaluation:
    """Exact value of a policy from the initial state.

    ``goal_probability``: probability that a run reaches the goal. ``failure_probability``:
    that it stops in a non-goal state where the policy names no action (dead ends and
    unhandled states). The rest (``1 - goal - failure``) is the probability of never
    stopping. ``expected_cost``: expected cost of a run, where stopping outside the goal
    costs ``dead_end_cost`` (``inf`` when ``None``: the SSP reading) and a run that can
    loop forever costs ``inf``. ``reachable_states`` counts the policy graph.
    """

    goal_probability: float
    failure_probability: float
    expected_cost: float
    dead_end_cost: float | None
    reachable_states: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "goal_probability": self.goal_probability,
            "failure_probability": self.failure_probability,
            "expected_cost": self.expected_cost,
            "dead_end_cost": self.dead_end_cost,
            "reachable_states": self.reachable_states,
        }


def evaluate(
    ptask: ProbabilisticTask,
    policy: Policy,
    dead_end_cost: float | None = None,
    graph: PolicyGraph | None = None,
) -> PolicyEvaluation:
    """Goal probability and expected cost of ``policy`` from the initial state (exact)."""
    if graph is None:
        graph = policy_graph(ptask, policy)
    values = state_values(ptask, graph, dead_end_cost)
    init = graph.init
    return PolicyEvaluation(
        goal_probability=values.goal_probability[init],
        failure_probability=values.failure_probability[init],
        expected_cost=values.expected_cost[init],
        dead_end_cost=dead_end_cost,
        reachable_states=len(graph.states),
    )


@dataclass(frozen=True)
class StateValues:
    """Per-state goal probability, failure probability and expected cost on a graph."""

    goal_probability: Mapping[State, float]
    failure_probability: Mapping[State, float]
    expected_cost: Mapping[State, float]


def state_values(
    ptask: ProbabilisticTask, graph: PolicyGraph, dead_end_cost: float | None = None
) -> StateValues:
    """Goal probability, failure probability and expected cost of every graph state."""
    penalty = math.inf if dead_end_cost is None else float(dead_end_cost)
    succ: dict[State, dict[State, float]] = {}
    cost: dict[State, float] = {}
    for state in graph.states:
        if state in graph.goal_states:
            continue
        action = None
        edges = graph.out_edges(state)
        if edges:
            action = ptask.action_named(edges[0].action, state)
        if action is None:
            continue
        succ[state] = graph.successors(state)
        cost[state] = action.expected_cost
    stopping = [s for s in graph.states if s not in succ and s not in graph.goal_states]
    preds: dict[State, list[State]] = {}
    for source, targets in succ.items():
        for target in targets:
            preds.setdefault(target, []).append(source)
    states = graph.states

    def probability_of(targets: Iterable[State]) -> dict[State, float]:
        target_set = set(targets)
        can = backward_closure(target_set, preds)
        fixed = {s: (1.0 if s in target_set else 0.0) for s in states if s not in can}
        fixed.update({s: 1.0 for s in target_set})
        return solve_linear(states, succ, fixed, {})

    goal_probability = probability_of(graph.goal_states)
    failure_probability = probability_of(stopping)
    # Expected cost: infinite where the run can fail to stop, or can stop at an
    # infinite-cost state; otherwise a linear system over the remaining states.
    absorbing = set(graph.goal_states) | set(stopping)
    stops_surely = backward_closure(absorbing, preds)
    bad = {s for s in states if s not in stops_surely}
    if penalty == math.inf:
        bad |= set(stopping)
    infinite = backward_closure(bad, preds)
    fixed = {s: math.inf for s in infinite}
    fixed.update({s: 0.0 for s in graph.goal_states})
    fixed.update({s: penalty for s in stopping if s not in infinite})
    expected_cost = solve_linear(states, succ, fixed, cost)
    return StateValues(
        MappingProxyType(goal_probability),
        MappingProxyType(failure_probability),
        MappingProxyType(expected_cost),
    )


# --------------------------------------------------------------------------- simulation


@dataclass(frozen=True)
class Run:
    """One sampled execution: visited states, actions taken, total cost and how it ended
    (``"goal"``, ``"stopped"`` — no policy action — or ``"max-steps"``)."""

    states: tuple[State, ...]
    actions: tuple[str, ...]
    cost: float
    ending: str

    @property
    def reached_goal(self) -> bool:
        return self.ending == "goal"


def simulate(
    ptask: ProbabilisticTask,
    policy: Policy,
    rng: random.Random,
    max_steps: int = 100_000,
) -> Run:
    """Sample one run of ``policy`` from the initial state, drawing outcomes with ``rng``."""
    state = ptask.init
    states = [state]
    actions: list[str] = []
    cost = 0.0
    for _ in range(max_steps):
        if ptask.is_goal(state):
            return Run(tuple(states), tuple(actions), cost, "goal")
        action = policy.ground_action(state)
        if action is None:
            return Run(tuple(states), tuple(actions), cost, "stopped")
        draw = rng.random()
        chosen = action.outcomes[-1]
        for outcome in action.outcomes:
            draw -= outcome.probability
            if draw < 0:
                chosen = outcome
                break
        cost += chosen.cost
        state = chosen.apply(state)
        states.append(state)
        actions.append(action.name)
    ending = "goal" if ptask.is_goal(state) else "max-steps"
    return Run(tuple(states), tuple(actions), cost, ending)
