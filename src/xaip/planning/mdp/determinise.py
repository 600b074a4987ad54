"""The all-outcomes determinisation of a probabilistic task.

Why: a deterministic task in which every outcome of every probabilistic action is an
action of its own over-approximates what can happen — a state sequence is possible in the
probabilistic task iff it is a plan prefix here. That gives the admissible heuristic and
the dead-end test of the SSP solvers (goal unreachable here = unreachable under every
policy) and the model landmarks of the TLdR comparison, and the classical machinery
(landmarks, heuristics, search) runs on it unchanged.

Action ``i`` of the determinised task comes from outcome ``mapping[i][1]`` of action
``mapping[i][0]`` of the probabilistic task. Names follow
:func:`xaip.planning.grounding.ground` with ``probabilistic="all-outcomes"``: the schema
is suffixed ``_o1``, ``_o2``, ... when the action has several outcomes. Costs are the
outcome costs rounded down to integers (``Task`` costs are integers; rounding down keeps
heuristics computed on the determinisation admissible).
"""

from __future__ import annotations

import math

from xaip.planning.mdp.task import ProbabilisticTask
from xaip.planning.task import GroundAction, Task

#: ``mapping[i] == (probabilistic action index, outcome index)`` for determinised action i.
OutcomeMapping = tuple[tuple[int, int], ...]


def determinise(ptask: ProbabilisticTask) -> tuple[Task, OutcomeMapping]:
    """The all-outcomes determinisation of ``ptask`` and the action-to-outcome mapping."""
    actions: list[GroundAction] = []
    mapping: list[tuple[int, int]] = []
    for a, action in enumerate(ptask.actions):
        several = len(action.outcomes) > 1
        for o, outcome in enumerate(action.outcomes):
            schema = f"{action.schema}_o{o + 1}" if several else action.schema
            actions.append(
                GroundAction(
                    schema=schema,
                    args=action.args,
                    pre=action.pre,
                    add=outcome.add,
                    delete=outcome.delete & ~outcome.add,
                    cost=int(math.floor(outcome.cost)),
                    neg_pre=action.neg_pre,
                    conditional=outcome.conditional,
                )
            )
            mapping.append((a, o))
    task = Task(
        name=ptask.name,
        facts=ptask.facts,
        actions=tuple(actions),
        init=ptask.init,
        goal=ptask.goal,
        goal_neg=ptask.goal_neg,
        static_facts=ptask.static_facts,
        has_costs=ptask.cost_model != "unit",
    )
    return task, tuple(mapping)
