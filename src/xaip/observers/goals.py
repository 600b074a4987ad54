"""Candidate goals: the hypotheses an observer weighs about what the agent is after.

Why a separate type: observers test goals against *many* states (every state of a belief),
so a goal is compiled once into the bit masks of the grounded task. A goal atom that is not
a fluent of the task is decided here: a static fact that holds is dropped, any other atom
makes the goal impossible (``reachable`` is False), which callers report as bad input for
the agent's true goal and simply as "never in a belief" for a decoy.

Goals file (JSON)::

    {"true": "red", "goals": {"red": ["(on-ship red)"], "blue": ["(on-ship blue)"]}}

``goals`` may also be a list of atom lists (named ``g1``, ``g2``, ...); ``true`` names the
agent's real goal (default: the goal equal to the problem's ``:goal``, else the first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.observers.sensors import parse_atom_text, read_json
from xaip.planning.task import State, Task, bits


@dataclass(frozen=True)
class Goal:
    """A named conjunction of positive atoms, compiled to ``mask`` over the task's facts."""

    name: str
    atoms: tuple[str, ...]
    mask: int
    reachable: bool = True

    def holds(self, state: State) -> bool:
        return self.reachable and state & self.mask == self.mask

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "atoms": list(self.atoms), "reachable": self.reachable}


@dataclass(frozen=True)
class GoalSet:
    """The candidate goals 𝒢 and which of them is the agent's true goal ``G_A``."""

    goals: tuple[Goal, ...]
    true: str

    @property
    def true_goal(self) -> Goal:
        return self.by_name(self.true)

    def by_name(self, name: str) -> Goal:
        for goal in self.goals:
            if goal.name == name:
                return goal
        raise InputError(f"no goal named '{name}' (goals: {', '.join(self.names)})")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(g.name for g in self.goals)

    def with_true(self, name: str) -> GoalSet:
        self.by_name(name)
        return GoalSet(self.goals, name)

    def to_dict(self) -> dict[str, Any]:
        return {"true": self.true, "goals": [g.to_dict() for g in self.goals]}


def make_goal(task: Task, name: str, atoms: Sequence[str], source: str = "<goals>") -> Goal:
    """Compile ``atoms`` (``"(on-ship red)"`` strings) against ``task``."""
    if not atoms:
        raise InputError(f"{source}: goal '{name}' has no atoms")
    predicates = {f.predicate.lower() for f in task.facts} | {
        f.predicate.lower() for f in task.static_facts}
    index = {(f.predicate.lower(), tuple(a.lower() for a in f.args)): i
             for i, f in enumerate(task.facts)}
    statics = {(f.predicate.lower(), tuple(a.lower() for a in f.args)) for f in task.static_facts}
    mask, reachable, texts = 0, True, []
    for text in atoms:
        predicate, args = parse_atom_text(text, f"{source}: goal '{name}'")
        if predicate not in predicates:
            raise InputError(f"{source}: goal '{name}': unknown predicate '{predicate}'")
        if any(a.startswith("?") for a in args):
            raise InputError(f"{source}: goal '{name}': {text} is not ground")
        texts.append("(" + " ".join((predicate, *args)) + ")")
        if (predicate, args) in index:
            mask |= 1 << index[(predicate, args)]
        elif (predicate, args) not in statics:
            reachable = False
    return Goal(name, tuple(texts), mask, reachable)


def problem_goal(task: Task, name: str = "goal") -> Goal:
    """The task's own ``:goal`` as a :class:`Goal` (negative goal facts are not supported)."""
    if task.goal_neg:
        raise InputError("goals with negated facts are not supported by the observer models")
    atoms = tuple(str(task.facts[i]).lower() for i in bits(task.goal))
    return Goal(name, atoms, task.goal)


def goals_from_data(data: Any, task: Task, source: str = "<goals>") -> GoalSet:
    """A :class:`GoalSet` from parsed JSON (see the module docstring)."""
    if not isinstance(data, dict) or "goals" not in data:
        raise InputError(f"{source}: a goals file is a JSON object with \"goals\"")
    raw = data["goals"]
    named: list[tuple[str, Any]]
    if isinstance(raw, dict):
        named = [(str(k), v) for k, v in raw.items()]
    elif isinstance(raw, list):
        named = [(f"g{i + 1}", v) for i, v in enumerate(raw)]
    else:
        raise InputError(f"{source}: \"goals\" must be an object or a list")
    if not named:
        raise InputError(f"{source}: no goals given")
    goals = []
    for name, atoms in named:
        if isinstance(atoms, str):
            atoms = [atoms]
        if not isinstance(atoms, list):
            raise InputError(f"{source}: goal '{name}' must be a list of atoms")
        goals.append(make_goal(task, name, atoms, source))
    if len({g.name for g in goals}) != len(goals):
        raise InputError(f"{source}: goal names repeat")
    true = data.get("true")
    if true is None:
        own = next((g.name for g in goals if g.mask == task.goal and g.reachable), None)
        true = own if own is not None else goals[0].name
    goal_set = GoalSet(tuple(goals), str(true))
    goal_set.by_name(str(true))
    return goal_set


def load_goals(path: str | Path, task: Task) -> GoalSet:
    """Read a goals file; malformed files and unknown predicates are InputErrors."""
    return goals_from_data(read_json(path), task, str(path))


def goals_in(belief: Sequence[State] | frozenset[State], goals: Sequence[Goal]) -> tuple[str, ...]:
    """𝒢(b): the names of the goals some state of ``belief`` satisfies (in goal order)."""
    return tuple(g.name for g in goals if any(g.holds(s) for s in belief))
