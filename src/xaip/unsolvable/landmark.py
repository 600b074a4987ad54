"""The landmark of the core that no reachable state achieves, said in words.

Why a landmark: "these goals cannot hold together" names the symptom; a fact that every
plan for the core would have to make true, and that nothing reachable makes true, names the
cause (the missing road, the missing key). Three cases, strongest first:

* ``never-true`` -- a core goal fact that is not even a fact of the grounded task: no action
  of the domain adds it for these objects, and it is not initially true;
* ``relaxed-unreachable`` -- a core goal fact that stays unreachable when deletions are
  ignored (every goal fact is trivially a landmark of its goal);
* ``relaxed-landmark`` -- a fact landmark of the delete relaxation of the core task (hence of
  every real plan of it; :func:`xaip.planning.landmarks.find_landmarks`) that no reachable
  state contains.

When none applies, every landmark is reachable on its own and the core's literals only fail
to hold *together*; the result then has no landmark.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from xaip.planning.landmarks import find_landmarks
from xaip.planning.semantics import fact_text
from xaip.planning.task import Task
from xaip.runtime.budget import Budget
from xaip.unsolvable.chain import Chain
from xaip.unsolvable.goals import GoalLiteral

NEVER_TRUE = "never-true"
RELAXED_UNREACHABLE = "relaxed-unreachable"
RELAXED_LANDMARK = "relaxed-landmark"


@dataclass(frozen=True)
class UnreachableLandmark:
    """``fact`` (PDDL text) and which case of the module docstring proved it."""

    fact: str
    kind: str
    #: Why it never holds, backchained on the lifted model (:mod:`xaip.unsolvable.chain`).
    chain: Chain | None = None

    def sentence(self) -> str:
        why = self._base()
        if self.chain is not None:
            why += ": " + self.chain.sentence()
        return why

    def _base(self) -> str:
        if self.kind == NEVER_TRUE:
            return (f"{self.fact} can never become true: no action of the domain adds it "
                    f"for these objects and it is not true initially")
        if self.kind == RELAXED_UNREACHABLE:
            return (f"{self.fact} cannot be reached even if actions never undid anything "
                    f"(no chain of actions from the initial state leads to it)")
        return (f"every plan for the core would have to make {self.fact} true at some point, "
                f"and no reachable state has it")


def core_task(task: Task, literals: Sequence[GoalLiteral], core: Sequence[int]) -> Task:
    """``task`` with only the core's literals as its goal."""
    goal = goal_neg = 0
    for position in core:
        literal = literals[position]
        index = task.fact_index.get(literal.atom)
        if index is not None:
            if literal.positive:
                goal |= 1 << index
            else:
                goal_neg |= 1 << index
    return dataclasses.replace(task, goal=goal, goal_neg=goal_neg)


def unreachable_landmark(task: Task, literals: Sequence[GoalLiteral], core: Sequence[int],
                         reached: int, budget: Budget) -> UnreachableLandmark | None:
    """The strongest unreachable landmark of the core (see the module docstring), or
    ``None``. ``reached`` has every fact true in some reachable state."""
    positive = [literals[p] for p in core if literals[p].positive]
    for literal in positive:
        if literal.atom not in task.fact_index and literal.atom not in task.static_facts:
            return UnreachableLandmark(literal.text, NEVER_TRUE)
    for literal in positive:
        index = task.fact_index.get(literal.atom)
        if index is None:
            continue
        single = dataclasses.replace(task, goal=1 << index, goal_neg=0)
        if not find_landmarks(single, "rhw", budget, disjunctive=False,
                              reasonable=False).solvable:
            return UnreachableLandmark(literal.text, RELAXED_UNREACHABLE)
    graph = find_landmarks(core_task(task, literals, core), "zg", budget, reasonable=False)
    if not graph.solvable:  # negative literals only: nothing positive to name
        return None
    for landmark in graph.landmarks:
        if landmark.disjunctive or landmark.is_initial:
            continue
        fact = landmark.facts[0]
        if not reached >> fact & 1:
            atom = task.facts[fact]
            return UnreachableLandmark(fact_text(atom.predicate, atom.args), RELAXED_LANDMARK)
    return None
