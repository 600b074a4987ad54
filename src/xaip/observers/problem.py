"""A controlled-observability problem (COPP, book Def. 9): task, observer, candidate goals.

Why one object: every solver (legibility, obfuscation), the score of a given plan and the
checker need the same four things — the grounded task, the lifted files (the checker
re-simulates on them), the observer's sensor model and the candidate goals — and the
belief tracker's successor cache is worth sharing between calls on one problem.

API::

    problem = load_problem("domain.pddl", "problem.pddl", "observer.json", "goals.json")
    problem = example_problem("port")          # the bundled book instances: port, medkit
    problem.tracker                            # BeliefTracker (cached successors)
    problem.resolve(["load red", "acquire n1"])  # plan names -> ground actions
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any

from xaip.errors import InputError
from xaip.observers.beliefs import Belief, BeliefTracker, initial_belief
from xaip.observers.goals import Goal, GoalSet, load_goals, problem_goal
from xaip.observers.sensors import Hook, ObservationModel, load_observers
from xaip.planning import ground, read_domain, read_problem
from xaip.planning.inputs import UPProblem, is_up_problem, model_pair
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import resolve
from xaip.planning.task import GroundAction, Task
from xaip.runtime import Budget

#: The bundled instances (``src/xaip/domains/observers/<name>/``) and their book settings.
EXAMPLES: Mapping[str, Mapping[str, Any]] = {
    "port": {"mode": "legible-goal", "j": 1},
    "medkit": {"mode": "legible-plan", "m": 2, "d": 0.5, "max_cost": 8},
}


@dataclass
class ObserverProblem:
    """One observer, candidate goals (with the true one) and the task they are about."""

    task: Task
    model: ObservationModel
    goals: GoalSet
    domain: Domain | None = None
    problem: Problem | None = None
    initial: Belief | None = None
    name: str = ""
    observers: Mapping[str, ObservationModel] = field(default_factory=dict)

    @cached_property
    def tracker(self) -> BeliefTracker:
        return BeliefTracker(self.task, self.model, self.initial or initial_belief(self.task))

    @property
    def true_goal(self) -> Goal:
        return self.goals.true_goal

    def with_true(self, name: str) -> ObserverProblem:
        """The same problem with another candidate as the agent's true goal (shares the
        tracker's caches: the observer's view does not depend on the goal)."""
        other = ObserverProblem(self.task, self.model, self.goals.with_true(name), self.domain,
                                self.problem, self.initial, self.name, self.observers)
        other.__dict__["tracker"] = self.tracker
        return other

    def resolve(self, plan: Sequence[str]) -> tuple[GroundAction, ...]:
        """Plan step names (``"load red"`` or ``"(load red)"``) as ground actions."""
        out = []
        for variants in resolve(self.task, list(plan)):
            out.append(variants[0])
        return tuple(out)


def load_problem(domain_path: str | Path | UPProblem, problem_path: str | Path | None,
                 observations_path: str | Path, goals_path: str | Path | None = None,
                 observer: str | None = None, hooks: Mapping[str, Hook] | None = None,
                 budget: Budget | None = None) -> ObserverProblem:
    """Read and ground the files; the observer file may hold several observers (then
    ``observer`` picks the one the single-observer modes use, default the first).

    Without a goals file the only candidate is the problem's own goal (plan legibility and
    plan obfuscation need no others). The model may be a unified-planning ``Problem``
    instead of the two paths (``problem_path`` ``None``).
    """
    if is_up_problem(domain_path):
        domain, problem = model_pair(domain_path, problem_path)
    elif problem_path is None:
        raise InputError("the observers need a problem file with the domain file")
    else:
        domain = read_domain(domain_path)
        problem = read_problem(problem_path)
    task = ground(domain, problem, budget=budget)
    models = load_observers(observations_path, task, domain, hooks)
    if observer is not None and observer not in models:
        raise InputError(f"{observations_path}: no observer '{observer}' "
                         f"(has {', '.join(models)})")
    model = models[observer] if observer is not None else next(iter(models.values()))
    if goals_path is not None:
        goals = load_goals(goals_path, task)
        check_goal_file(goals, domain, problem, str(goals_path))
    else:
        goals = GoalSet((problem_goal(task, "goal"),), "goal")
    if not goals.true_goal.reachable:
        raise InputError(f"the true goal '{goals.true}' can never hold: one of its atoms "
                         f"{', '.join(goals.true_goal.atoms)} is not reachable")
    return ObserverProblem(task, model, goals, domain, problem, name=problem.name,
                           observers=models)


def check_goal_file(goals: GoalSet, domain: Domain, problem: Problem, source: str) -> None:
    """Reject the mistakes a goals file makes silently: an object the problem does not
    have (a typo), a decoy that can never hold (it would count towards k and |𝒢| while no
    belief can ever keep it), and two goals with the same facts (no plan could tell them
    apart). Why only for files: a Python caller may build such goal sets on purpose."""
    objects = {o.name.lower() for o in (*domain.constants, *problem.objects)}
    seen: dict[int, str] = {}
    for goal in goals.goals:
        for atom in goal.atoms:
            unknown = [a for a in atom.strip("()").split()[1:] if a.lower() not in objects]
            if unknown:
                raise InputError(f"{source}: goal '{goal.name}': unknown object "
                                 f"'{unknown[0]}' in {atom}")
        if not goal.reachable:
            raise InputError(f"{source}: goal '{goal.name}' can never hold (one of "
                             f"{' '.join(goal.atoms)} is false initially and no action makes "
                             "it true); remove it from the candidates")
        if goal.mask in seen:
            raise InputError(f"{source}: goals '{seen[goal.mask]}' and '{goal.name}' are the "
                             "same facts; an observer could never tell them apart")
        seen[goal.mask] = goal.name


def example_dir(name: str) -> Path:
    """The directory of a bundled instance (``port`` or ``medkit``)."""
    if name not in EXAMPLES:
        raise InputError(f"unknown example '{name}' (one of {', '.join(EXAMPLES)})")
    root = resources.files("xaip") / "domains" / "observers" / name
    return Path(str(root))


_EXAMPLE_CACHE: dict[str, ObserverProblem] = {}


def example_problem(name: str) -> ObserverProblem:
    """A bundled book instance, loaded once per process."""
    found = _EXAMPLE_CACHE.get(name)
    if found is None:
        base = example_dir(name)
        found = load_problem(base / "domain.pddl", base / "problem.pddl",
                             base / "observer.json", base / "goals.json")
        _EXAMPLE_CACHE[name] = found
    return found
