"""Foils compiled into the planning task: one monitor automaton per constraint, as facts.

Why compile: a plan of the compiled task is exactly a plan of the original task whose action
sequence satisfies every constraint, so xaip's optimal planner answers "the cheapest plan
that does what the person asked" with no search of its own here.

The monitors (bits appended after the task's facts; action costs unchanged):

* ``use``/``before``/``sequence`` of n actions: facts ``seen-1 .. seen-n`` (cumulative: the
  first j actions of the order have been matched). An action matching the (j+1)-th pattern
  gets a copy that requires seen-j (nothing for j = 0) and adds seen-(j+1); the original
  stays, so the planner chooses which occurrence counts. A plan reaches seen-n exactly when
  its steps contain the order (one step advances one position). The goal asks for seen-n.
  Why copies and not conditional effects: LM-cut degrades to h_max on conditional effects
  (:mod:`xaip.planning.engines.compiled`), and the copies keep the task STRIPS.
* ``never C after D``: fact ``d-happened``, added by every D; every C requires it false
  (a C that is also a D checks before it adds).
* ``avoid A``: the actions matching A are removed.

An action matching several orders gets one copy per combination of the positions it may
advance (at most :data:`MAX_COPIES`; beyond that the foil is refused as too large).
"""

from __future__ import annotations

import dataclasses
import itertools

from xaip.errors import InputError
from xaip.foils.language import Constraint
from xaip.planning.pddl.model import Atom
from xaip.planning.task import GroundAction, Task

MONITOR = "foil-monitor"
#: At most this many copies of one ground action.
MAX_COPIES = 4096


def monitor_atom(index: int, what: str) -> Atom:
    """The monitor fact ``(foil-monitor c<index> <what>)`` (index 1-based, as lines read)."""
    return Atom(MONITOR, (f"c{index}", what))


def compile_foils(task: Task, constraints: tuple[Constraint, ...]) -> Task:
    """``task`` whose plans are exactly its plans satisfying every constraint."""
    facts = list(task.facts)
    goal = task.goal
    extra_neg: dict[int, int] = {}
    extra_add: dict[int, int] = {}
    #: per action: per order constraint, the (pre, add) pairs it may advance by
    advances: dict[int, list[list[tuple[int, int]]]] = {}
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
        options: dict[int, list[tuple[int, int]]] = {}
        for j, indices in enumerate(matching):
            for i in indices:
                options.setdefault(i, [(0, 0)]).append((seen[j], seen[j + 1]))
        for i, choice in options.items():
            advances.setdefault(i, []).append(choice)
        goal |= seen[-1]
    actions: list[GroundAction] = []
    for i, action in enumerate(task.actions):
        if i in removed:
            continue
        if i in extra_neg or i in extra_add:
            action = dataclasses.replace(action, neg_pre=action.neg_pre | extra_neg.get(i, 0),
                                         add=action.add | extra_add.get(i, 0))
        actions.extend(_copies(action, advances.get(i, [])))
    return dataclasses.replace(task, facts=tuple(facts), actions=tuple(actions), goal=goal)


def _copies(action: GroundAction, choices: list[list[tuple[int, int]]]) -> list[GroundAction]:
    """``action`` once per combination of the order positions it advances."""
    count = 1
    for choice in choices:
        count *= len(choice)
    if count > MAX_COPIES:
        raise InputError(f"the foil is too large: {action} would need {count} copies (at "
                         f"most {MAX_COPIES}); use fewer overlapping orders")
    out = []
    for combination in itertools.product(*choices):
        pre = add = 0
        for needs, adds in combination:
            pre |= needs
            add |= adds
        out.append(action if not add else
                   dataclasses.replace(action, pre=action.pre | pre, add=action.add | add))
    return out
