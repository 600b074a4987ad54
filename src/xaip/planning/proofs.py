"""The checkers' optimality proofs: one choice of search, used by every family's checker.

Why one module: "no plan is cheaper than C" is proved the same way by the plan command's
checker and by every explainer's checker, so the choice of search, and what it shares with
the searches it checks, is made once here.

The proof is an **A\\*** search ordered and pruned by the **certified LM-cut**
(:data:`~xaip.planning.engines.compiled.CERTIFIED_LMCUT`) under the strict bound ``C``: a
state is pruned when ``g + h`` reaches the bound, so an exhausted search proves that no plan
is cheaper. For every state the compiled core's LM-cut hands over its cuts (sets of actions,
each with the cost it charged) as an **untrusted oracle**; the core's certificate checker
(``src/xaip/_native/certify.c``, which shares no code with LM-cut) accepts them only if every
charged cut is a landmark of the delete relaxation from that state and the charges are a
cost partition. Their sum is then admissible whatever LM-cut computed; a rejected certificate
gives that state h^max instead and is counted
(:func:`~xaip.planning.engines.compiled.search_counts`). A fault in LM-cut can make a proof
slower, never wrong. Without the compiled core (or with ``engine="builtin"``) the A* uses
h^max; tasks with conditional effects get h^max too (LM-cut does not run on them).

What a proof shares with the search it checks: the grounder (on a fresh grounding) and the
core's A* loop with its successor generator; never the search's open list, its heuristic's
values, nor (with ``engine="fd"``) anything at all: Fast Downward reads the lifted PDDL.
"""

from __future__ import annotations

from xaip.planning.engines import DEFAULT_ENGINE, get_engine
from xaip.planning.engines.compiled import CERTIFIED_LMCUT, core_available
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.task import Task
from xaip.runtime import Budget

#: The checkers' optimal search: A* ordered and pruned by the certified LM-cut. Why not
#: h^max alone (the heuristic before): a proof that *no* plan beats the bound expands every
#: state with ``g + h`` below it, in any order, and h^max is weak: on the shared MCEs' proofs
#: 1,548,416 states (logistics d1 p4 alone 7.3 million) against LM-cut's 3,567. Why A*
#: rather than uniform-cost search: when a cheaper plan exists A* pops it after expanding
#: only states with ``g + h`` below its cost.
CHECK_ALGORITHM, CHECK_HEURISTIC = "astar", CERTIFIED_LMCUT
#: Where the compiled core is missing (or ``engine="builtin"``): h^max in Python.
FALLBACK_HEURISTIC = "hmax"
#: Engines that run xaip's searches (the checker asks them for its A*).
OWN_ENGINES = frozenset({"builtin", "compiled", DEFAULT_ENGINE})


def check_heuristic(engine: str) -> str:
    """The heuristic of the checker's A* on ``engine`` (one of :data:`OWN_ENGINES`): the
    certified LM-cut where the compiled core runs the search, else h^max."""
    return CHECK_HEURISTIC if engine != "builtin" and core_available() else FALLBACK_HEURISTIC


def proof_method(engine: str) -> str:
    """How the checker's A* is guided on ``engine``, in words for its reports."""
    if check_heuristic(engine) == CERTIFIED_LMCUT:
        return "A* + certified LM-cut"
    return "A* + h^max"


def cheaper_plan(domain: Domain | None, problem: Problem | None, task: Task | None,
                 bound: int | None,
                 budget: Budget, engine: str = DEFAULT_ENGINE
                 ) -> tuple[str, int | None, tuple[str, ...] | None]:
    """(status, cost, step names) of the cheapest plan cheaper than ``bound`` (any plan
    when ``bound`` is None): status "solved", "unsolvable" or "budget_exhausted".

    xaip's own engines (``builtin``, ``compiled``, ``default``) answer with A* and
    :func:`check_heuristic` (the certified LM-cut, or h^max without the compiled core) on
    ``task`` (grounded here when not given); an
    external engine (``"fd"``) reads the model as lifted PDDL and grounds it itself,
    sharing nothing with our grounding or search.
    """
    if engine in OWN_ENGINES:
        if task is None:
            assert domain is not None and problem is not None
            task = ground(domain, problem, budget=budget)
        result = get_engine(engine, search=CHECK_ALGORITHM, heuristic=check_heuristic(engine)
                            ).solve(task, optimal=True, cost_bound=bound, budget=budget)
    else:
        assert domain is not None and problem is not None
        result = get_engine(engine).solve_model(domain, problem, optimal=True,
                                                cost_bound=bound, budget=budget)
    names = tuple(a.name for a in result.plan) if str(result.status) == "solved" else None
    return str(result.status), (None if result.cost is None else int(result.cost)), names
