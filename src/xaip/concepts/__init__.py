"""Why not my plan? Contrastive explanations of black-box agents in the user's concepts.

The method of "Bridging the Gap" (Sreedharan et al., ICLR 2022; book ch. 8): the simulator
says whether a foil fails or costs more; sampling states near the plan and the foil then
finds the missing precondition of the failing action, or an abstract cost function, in the
user's own binary concepts, each with a Bayesian confidence that allows for noisy concept
classifiers. Front door::

    from xaip.concepts import bundled, why_not
    query = bundled("sokoban-switch")
    result = why_not(query.sim, query.plan, query.foil, query.vocabulary)
    print(result.text)

The checker :func:`check` confirms an answer by exhaustive enumeration on small levels.
"""

from xaip.concepts.assumptions import AssumptionReport, assumption_tests
from xaip.concepts.bundled import bundled, load_query
from xaip.concepts.check import check
from xaip.concepts.explain import classify, why_not
from xaip.concepts.results import Query, WhyNot
from xaip.concepts.search import Claim
from xaip.concepts.simulator import (
    INVALID,
    BlackBox,
    Invalid,
    Session,
    Trace,
    random_walks,
    reachability_samples,
    reachable,
    run_trace,
)
from xaip.concepts.sokoban import Level, Sokoban, SokobanState, parse_level, read_level
from xaip.concepts.vocabulary import (
    Concept,
    Vocabulary,
    default_vocabulary,
    read_vocabulary,
    sokoban_library,
)

__all__ = [
    "AssumptionReport",
    "assumption_tests",
    "INVALID",
    "BlackBox",
    "Claim",
    "Concept",
    "Invalid",
    "Level",
    "Query",
    "Session",
    "Sokoban",
    "SokobanState",
    "Trace",
    "Vocabulary",
    "WhyNot",
    "bundled",
    "check",
    "classify",
    "default_vocabulary",
    "load_query",
    "parse_level",
    "random_walks",
    "reachability_samples",
    "reachable",
    "read_level",
    "read_vocabulary",
    "run_trace",
    "sokoban_library",
    "why_not",
]
