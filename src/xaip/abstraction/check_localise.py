"""The independent checker of U07 (``xaip abstract-locate``).

What it shares with the localiser, and why that is acceptable: the projection operator, the
PDDL reader's model and, for the indistinguishability proof only, the grounder
(:func:`xaip.planning.grounding.ground`, run afresh per level). It does not share the
localiser's grounded acceptance test, its query choice or its distinguishing-plan search.
It checks:

* **every answer's effect**: each query is replayed with the lifted validator
  (:func:`xaip.planning.plans.validate`) on every level's projection; the levels left after
  each answer must be exactly those that agree with all answers so far, with the counts
  claimed;
* **the simulated person** (when there is one): her level is among those left;
* **exact**: when several levels are left, each is proved to admit the same plans as the
  first by a joint walk of their explicit state graphs: at every jointly reachable pair of
  states the two agree on the goal, and an action applicable in only one of them leads to a
  state from which that level can no longer reach its goal (so no plan passes there).

It runs under a fresh copy of the user's budget (one node per validation and per state) and
raises :class:`~xaip.errors.BudgetExhausted` when it runs out.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable

from xaip.abstraction.lattice import Level
from xaip.abstraction.projection import project
from xaip.abstraction.results import LocalisationResult
from xaip.contract import CheckReport
from xaip.errors import BudgetExhausted
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.plans import parse_plan, validate
from xaip.planning.task import State, Task
from xaip.runtime import Budget, Status


def check_localisation(domain: Domain, problem: Problem, result: LocalisationResult,
                       budget: Budget | None = None) -> CheckReport:
    """Confirm ``result`` (see the module docstring)."""
    clock = (budget or Budget()).start()

    def charge() -> None:
        if not clock.charge():
            raise BudgetExhausted("checker")

    models = {lv: project(domain, problem, sorted(lv)) for lv in result.levels}
    left = list(result.levels)
    for number, query in enumerate(result.queries, 1):
        steps = parse_plan("\n".join(query.plan), f"<query {number}>")
        accepting = []
        for lv in left:
            charge()
            if validate(*models[lv], steps).valid:
                accepting.append(lv)
        kept = accepting if query.answer else [lv for lv in left if lv not in accepting]
        if (query.before, query.accepting, query.after) != (len(left), len(accepting),
                                                             len(kept)):
            return CheckReport(False, f"query {number}: {len(accepting)} of {len(left)} "
                                      f"levels accept it and {len(kept)} are left, not "
                                      f"{query.accepting}, {query.before}, {query.after}")
        left = kept
    if set(left) != set(result.candidates) or len(left) != len(result.candidates):
        return CheckReport(False, "the levels left are not those that agree with every answer")
    if result.truth is not None and result.truth not in left:
        return CheckReport(False, "the simulated person's level was dropped")
    if result.status == Status.NO_EXPLANATION and left:
        return CheckReport(False, "levels agree with every answer, but none is reported")
    proved = 0
    if result.exact and len(left) > 1:
        graphs = {lv: _Graph(ground(*models[lv], budget=clock), charge) for lv in left}
        first = graphs[left[0]]
        for lv in left[1:]:
            if not _same_plans(first, graphs[lv], charge):
                return CheckReport(False, f"a plan tells the level that {_words(lv)} apart "
                                          f"from the one that {_words(left[0])}")
            proved += 1
    answers = f"{len(result.queries)} answer{'' if len(result.queries) == 1 else 's'}"
    return CheckReport(True, f"{answers} replayed on all "
                             f"{len(result.levels)} levels"
                             + (f"; {proved + 1} levels left proved to admit the same plans"
                                if proved else ""))


def _words(level: Level) -> str:
    return "hides " + " ".join(sorted(level)) if level else "hides nothing"


class _Graph:
    """The reachable states of a task, their successors by action name, and which of them
    can still reach the goal."""

    def __init__(self, task: Task, charge: Callable[[], None]) -> None:
        self.task = task
        self.succ: dict[State, dict[str, State]] = {}
        queue = deque([task.init])
        self.succ[task.init] = {}
        while queue:
            state = queue.popleft()
            charge()
            out = self.succ[state]
            for action in task.actions:
                if action.name not in out and action.applicable(state):
                    child = action.apply(state)
                    out[action.name] = child
                    if child not in self.succ:
                        self.succ[child] = {}
                        queue.append(child)
        back: dict[State, list[State]] = {s: [] for s in self.succ}
        for state, out in self.succ.items():
            for child in out.values():
                back[child].append(state)
        self.alive = {s for s in self.succ if task.is_goal(s)}
        todo = list(self.alive)
        while todo:
            for parent in back[todo.pop()]:
                if parent not in self.alive:
                    self.alive.add(parent)
                    todo.append(parent)


def _same_plans(a: _Graph, b: _Graph, charge: Callable[[], None]) -> bool:
    start = (a.task.init, b.task.init)
    seen = {start}
    queue = deque([start])
    while queue:
        sa, sb = queue.popleft()
        charge()
        if a.task.is_goal(sa) != b.task.is_goal(sb):
            return False
        out_a, out_b = a.succ[sa], b.succ[sb]
        for name in out_a.keys() | out_b.keys():
            ta, tb = out_a.get(name), out_b.get(name)
            if ta is None or tb is None:
                if (ta is not None and ta in a.alive) or (tb is not None and tb in b.alive):
                    return False
                continue
            if (ta, tb) not in seen and (ta in a.alive or tb in b.alive):
                seen.add((ta, tb))
                queue.append((ta, tb))
    return True
