"""The TLdR compilations of a tabular policy into classical planning tasks.

Why compile: landmarks are a classical-planning notion with mature extraction methods.
Sreedharan, Srivastava and Kambhampati (TLdR, section 5.2) turn the policy's reachable
graph into a deterministic task whose plans cover (or coincide with) the policy's
executions, so landmarks of that task are landmarks of the policy:

* :func:`concise_compilation` — D(M): one action ``a^s`` per reachable non-goal state
  ``s`` in which the policy acts, with precondition ``s`` (its true facts), no deletes, and
  as add effect the union over the outcomes of ``pi(s)`` of the facts the outcome makes
  newly true. Every execution of the policy maps to a plan of D(M) (with the same
  preconditions), so *causal* landmarks of D(M) — facts every relaxed plan needs — hold on
  every goal-reaching execution (Theorem 1). Small (one action per state) but incomplete:
  the union of outcomes lets a relaxed plan take shortcuts no execution takes.
* :func:`complete_compilation` — D(M)^c: one action ``a^{s,s'}`` per transition of the
  policy graph, with precondition exactly ``s`` (positive facts ``s``, negative facts
  everything else), adds ``s' - s`` and deletes ``s - s'``. Its plans *are* the executions
  of the policy, so its landmarks, computed on its real state space, are exactly the
  policy landmarks (Theorem 2).

Both tasks share the fact indices of the probabilistic task (and of its all-outcomes
determinisation), so landmark facts can be compared across compilations by index. States
in which the policy names no action (dead ends, unhandled states) get no action: runs
that stop there never reach the goal and do not constrain landmarks.
"""

from __future__ import annotations

from xaip.planning.mdp import PolicyGraph, ProbabilisticTask
from xaip.planning.task import GroundAction, Task


def _acting_states(ptask: ProbabilisticTask, graph: PolicyGraph) -> list[int]:
    """The graph states in which the policy acts, in the graph's breadth-first order."""
    return [s for s in graph.states if s not in graph.goal_states and graph.out_edges(s)]


def _base_task(
    ptask: ProbabilisticTask, graph: PolicyGraph, actions: list[GroundAction], suffix: str
) -> Task:
    return Task(
        name=f"{ptask.name}-{suffix}",
        facts=ptask.facts,
        actions=tuple(actions),
        init=graph.init,
        goal=ptask.goal,
        goal_neg=ptask.goal_neg,
        static_facts=ptask.static_facts,
    )


def concise_compilation(ptask: ProbabilisticTask, graph: PolicyGraph) -> Task:
    """D(M): one delete-free action per acting state (see the module docstring).

    Action ``i`` is named ``s<k>/<policy action>`` where ``k`` is the state's position in
    ``graph.states``, so a landmark's achievers can be traced back to policy states.
    """
    number = {s: k for k, s in enumerate(graph.states)}
    actions: list[GroundAction] = []
    for state in _acting_states(ptask, graph):
        edges = graph.out_edges(state)
        add = 0
        for edge in edges:
            add |= edge.target
        name = edges[0].action
        actions.append(
            GroundAction(
                schema=f"s{number[state]}/{name.split()[0]}",
                args=tuple(name.split()[1:]),
                pre=state,
                add=add & ~state,
                delete=0,
            )
        )
    return _base_task(ptask, graph, actions, "concise")


def complete_compilation(ptask: ProbabilisticTask, graph: PolicyGraph) -> Task:
    """D(M)^c: one exact-state action per policy transition (see the module docstring).

    Action names are ``s<k>-s<j>/<policy action>`` for the transition from
    ``graph.states[k]`` to ``graph.states[j]``. Self-loops (outcomes that change nothing)
    are kept: they are transitions of the policy, although no shortest plan uses them.
    """
    number = {s: k for k, s in enumerate(graph.states)}
    everything = (1 << ptask.num_facts) - 1
    actions: list[GroundAction] = []
    for state in _acting_states(ptask, graph):
        for edge in graph.out_edges(state):
            target = edge.target
            name = edge.action
            actions.append(
                GroundAction(
                    schema=f"s{number[state]}-s{number[target]}/{name.split()[0]}",
                    args=tuple(name.split()[1:]),
                    pre=state,
                    add=target & ~state,
                    delete=state & ~target,
                    neg_pre=everything & ~state,
                )
            )
    return _base_task(ptask, graph, actions, "complete")
