"""Policy summaries by landmarks (TLdR: Sreedharan, Srivastava and Kambhampati, AAAI 2020).

A policy for a probabilistic task can have thousands of reachable states; a person wants
"first get to station 1, then to the shuttle station, then ...". Those waypoints are
*policy landmarks*: facts true on every execution of the policy that reaches the goal,
with orderings between them. Typical use::

    from xaip.planning.mdp import ground_probabilistic
    from xaip.render import render
    from xaip.runtime import Budget
    from xaip.summaries import summarize
    ptask = ground_probabilistic(domain, problem)
    summary = summarize(ptask, budget=Budget(max_seconds=60))  # solve, summarise, check
    print(render(summary))               # English; render(summary, "dot") / "svg" draw it
    summary.status, summary.verified     # found True (budget_exhausted False if cut short)

* :func:`summarize` — the front door: solve (ILAO* or value iteration) unless a policy is
  given, then landmarks from the concise compilation D(M), the complete compilation
  D(M)^c and the all-outcomes determinisation (model landmarks); the section-6 hierarchy
  and Proposition 3; the independent check. One budget covers every phase.
  :func:`summarise_policy` is the same for a given policy.
* :class:`PolicySummary`, :class:`DrillDown` — frozen results (``status``, ``verified``,
  ``seconds``, ``stats``, ``to_dict()``); text and drawings in :mod:`xaip.render.summaries`.
* :func:`check` — the one checker, on the policy graph (sets ``verified``).
* :func:`concise_compilation`, :func:`complete_compilation` — the compiled tasks.
* :func:`concise_landmarks`, :func:`complete_landmarks`, :func:`model_landmarks` — the
  three landmark sets (:class:`LandmarkSet`).
* :func:`exact_policy_landmarks`, :func:`exact_orderings`, :func:`completions`,
  :func:`check_landmarks` — exact answers computed directly on the policy graph.
* :func:`build_hierarchy`, :func:`hierarchical_value`, :func:`check_hierarchy`.
* :func:`drill_down` — landmarks between two chosen subgoals.
* :func:`disjunctive_landmarks` — minimal "either A or B" policy landmarks
  (:class:`DisjunctiveSet`), checked by :func:`check_disjunctive`; in words by
  :func:`disjunctive_sentence`.
"""

from xaip.summaries.check import check
from xaip.summaries.compile import complete_compilation, concise_compilation
from xaip.summaries.disjunctive import (
    DisjunctiveLandmark,
    DisjunctiveSet,
    disjunctive_landmarks,
    disjunctive_sentence,
)
from xaip.summaries.disjunctive_check import check_disjunctive
from xaip.summaries.drill import DrillDown, Leg, drill_down, resolve_fact
from xaip.summaries.exact import (
    LandmarkCheck,
    alive_states,
    check_landmarks,
    completions,
    exact_orderings,
    exact_policy_landmarks,
)
from xaip.summaries.hierarchy import (
    Hierarchy,
    HierarchyValue,
    Subtask,
    build_hierarchy,
    check_hierarchy,
    hierarchical_value,
)
from xaip.summaries.landmarks import (
    FactOrdering,
    LandmarkSet,
    complete_landmarks,
    concise_landmarks,
    exact_task_landmarks,
    model_landmarks,
)
from xaip.summaries.summary import PolicySummary, solve_policy, summarise_policy, summarize
from xaip.summaries.text import load_phrases, phrase, phrasebook, readable

__all__ = [
    "DisjunctiveLandmark",
    "DisjunctiveSet",
    "DrillDown",
    "FactOrdering",
    "Hierarchy",
    "HierarchyValue",
    "LandmarkCheck",
    "LandmarkSet",
    "Leg",
    "PolicySummary",
    "Subtask",
    "alive_states",
    "build_hierarchy",
    "check",
    "check_hierarchy",
    "check_landmarks",
    "complete_compilation",
    "complete_landmarks",
    "check_disjunctive",
    "completions",
    "concise_compilation",
    "concise_landmarks",
    "disjunctive_landmarks",
    "disjunctive_sentence",
    "drill_down",
    "exact_orderings",
    "exact_policy_landmarks",
    "exact_task_landmarks",
    "hierarchical_value",
    "load_phrases",
    "model_landmarks",
    "phrase",
    "phrasebook",
    "readable",
    "resolve_fact",
    "solve_policy",
    "summarise_policy",
    "summarize",
]
