"""Foils compiled into the planning task: one monitor automaton per constraint, as facts.

Why compile: a plan of the compiled task is exactly a plan of the original task whose action
sequence satisfies every constraint, so xaip's optimal planner answers "the cheapest plan
that does what the person asked" with no search of its own here.

The monitors (bits appended after the task's facts; action costs unchanged):

* ``use``/``before``/``sequence`` of n actions: facts ``seen-1 .. seen-n`` (cumulative: the
  first j actions of the order have happened). An action matching the (j+1)-th pattern has
  the conditional effect "when seen-j and not seen-(j+1): add seen-(j+1)" -- evaluated in the
  state before the action, so one step advances one position (leftmost matching, which
  finds an occurrence of the order whenever the plan has one). The goal asks for seen-n.
* ``never C after D``: fact ``d-happened``, added by every D; every C requires it false
  (a C that is also a D checks before it adds).
* ``avoid A``: the actions matching A are removed.
"""

from __future__ import annotations

import dataclasses

from xaip.foils.language import Constraint
from xaip.planning.pddl.model import Atom
from xaip.planning.task import ConditionalEffect, Task

MONITOR = "foil-monitor"


def monitor_atom(index: int, what: str) -> Atom:
    """The monitor fact ``(foil-monitor c<index> <what>)`` (index 1-based, as lines read)."""
    return Atom(MONITOR, (f"c{index}", what))


def compile_foils(task: Task, constraints: tuple[Constraint, ...]) -> Task:
    """``task`` whose plans are exactly its plans satisfying every constraint."""
    facts = list(task.facts)
    goal = task.goal
    extra_neg: dict[int, int] = {}
    extra_add: dict[int, int] = {}
    extra_cond: dict[int, list[ConditionalEffect]] = {}
    removed: set[int] = set()
    for number, constraint in enumerate(constraints, 1):
        matching = [[i for i, a in enumerate(task.actions) if p.matches(a.schema, a.args)]
                    for p in constraint.patterns]
        if constraint.kind == "avoid":
            removed.update(matching[0])
            continue
        if constraint.kind == "never_after":
            bit = 1 << len(facts)
            facts.append(monitor_atom(number, "d-happened"))
            for i in matching[0]:
                extra_add[i] = extra_add.get(i, 0) | bit
            for i in matching[1]:
                extra_neg[i] = extra_neg.get(i, 0) | bit
            continue
        seen = [0]
        for j in range(len(constraint.patterns)):
            seen.append(1 << len(facts))
            facts.append(monitor_atom(number, f"seen-{j + 1}"))
        for j, indices in enumerate(matching):
            effect = ConditionalEffect(seen[j], seen[j + 1], seen[j + 1], 0)
            for i in indices:
                extra_cond.setdefault(i, []).append(effect)
        goal |= seen[-1]
    actions = []
    for i, action in enumerate(task.actions):
        if i in removed:
            continue
        if i in extra_neg or i in extra_add or i in extra_cond:
            action = dataclasses.replace(
                action, neg_pre=action.neg_pre | extra_neg.get(i, 0),
                add=action.add | extra_add.get(i, 0),
                conditional=action.conditional + tuple(extra_cond.get(i, ())))
        actions.append(action)
    return dataclasses.replace(task, facts=tuple(facts), actions=tuple(actions), goal=goal)
