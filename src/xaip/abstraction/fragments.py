"""Why one foil fails in one abstraction: the fragment of the model a person needs to see.

Why from the lifted validator: :func:`xaip.planning.plans.validate` replays the foil on the
(projected) PDDL model itself and names the first failing step with its unmet preconditions,
or the goal literals false at the end -- exactly the fragment the book asks to show (the
failing action's precondition and the state where it fails). This module adds which of the
unmet parts mention a predicate that was made concrete, and when each unmet fact last became
false (so "(clear a) has been false since step 1 put c on it" can be said).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from xaip.abstraction.results import COST, GOAL, PRECONDITION, Refutation
from xaip.planning.pddl.model import Action, Atom, Domain, Problem
from xaip.planning.pddl.writer import condition_text
from xaip.planning.plans import PlanStep, validate
from xaip.planning.semantics import fact_text, step_number

_WORD = re.compile(r"\(\s*([^\s()]+)")
_FACT = re.compile(r"^\(([^\s()]+)((?:\s+[^\s()]+)*)\)$")


def predicates_in(text: str, names: frozenset[str]) -> tuple[str, ...]:
    """The predicates of ``names`` that the printed condition ``text`` mentions, sorted."""
    return tuple(sorted({m.group(1) for m in _WORD.finditer(text)} & names))


def literal_of(text: str) -> tuple[Atom, bool] | None:
    """``(p a b)`` or ``(not (p a b))`` as (atom, positive); ``None`` for anything else."""
    positive = True
    inner = text.strip()
    if inner.startswith("(not ") and inner.endswith(")"):
        positive, inner = False, inner[len("(not "):-1].strip()
    match = _FACT.match(inner)
    if match is None or match.group(1) in ("and", "or", "not", "=", "imply"):
        return None
    return Atom(match.group(1), tuple(match.group(2).split())), positive


def false_since(trace: Sequence[frozenset[Atom]], index: int, atom: Atom, positive: bool) -> int:
    """The step number after which the literal last became false before state ``index``
    (0: it was false from the initial state on). ``trace[0]`` is the initial state."""
    j = index
    while j > 0 and ((atom in trace[j - 1]) != positive):
        j -= 1
    return j


def refutation(domain: Domain, problem: Problem, steps: Sequence[PlanStep], foil: int,
               name: str, concretised: frozenset[str], plan_cost: int | None
               ) -> Refutation | None:
    """How foil number ``foil`` (0-based) fails in the model ``(domain, problem)`` -- an
    abstraction in which ``concretised`` were made concrete -- or ``None`` when it does not
    fail there: it is valid and (``plan_cost`` given) cheaper than the robot's plan."""
    result = validate(domain, problem, steps, keep_trace=True)
    if result.valid:
        if plan_cost is not None and result.cost >= plan_cost:
            return Refutation(foil, name, COST, foil_cost=result.cost, plan_cost=plan_cost)
        return None
    assert result.failed_step is not None
    index = result.failed_step
    since: list[tuple[str, int, str | None]] = []
    for text in result.unmet:
        literal = literal_of(text)
        if literal is not None:
            step = false_since(result.trace, index, *literal)
            since.append((text, step, str(steps[step - 1]) if step else None))
    made = tuple(sorted({p for text in result.unmet for p in predicates_in(text, concretised)}))
    if result.goal_unmet:
        return Refutation(foil, name, GOAL, unmet=result.unmet, concretised=made,
                          since=tuple(since))
    schema = domain.action(steps[index].name)
    return Refutation(foil, name, PRECONDITION, step=step_number(index),
                      action=str(steps[index]), unmet=result.unmet, concretised=made,
                      since=tuple(since), rule=rule(schema))


def rule(schema: Action) -> tuple[str, str]:
    """``("(pick-up ?x)", "(and (ontable ?x) ...)")``: the schema and its precondition as
    PDDL text."""
    return (fact_text(schema.name, [p.name for p in schema.parameters]),
            condition_text(schema.precondition))
