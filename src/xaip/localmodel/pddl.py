"""The learned local model written as PDDL: nullary predicates, parameterless actions.

Why nullary: the concepts are propositions about a whole state (the paper's symbolic
vocabulary), not relations over objects. Costs follow the project's one semantics
(:mod:`xaip.planning.semantics`): when some learned action costs other than 1 the domain
declares ``total-cost`` and the problem ``(:metric minimize (total-cost))``, so the costs
count; otherwise every action costs 1 and no metric is written. A state-dependent cost is
written as its least observed value, with a comment saying so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xaip.localmodel.results import ActionModel

_BAD = re.compile(r"[^a-z0-9_-]+")


def pddl_name(name: str) -> str:
    """``name`` as a PDDL name: lower case, other characters as ``-``, a letter first."""
    text = _BAD.sub("-", name.lower()).strip("-") or "x"
    return text if text[0].isalpha() else f"c-{text}"


def names(items: Sequence[str]) -> dict[str, str]:
    """A distinct PDDL name for each item (a numeric suffix settles clashes)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for item in items:
        base = candidate = pddl_name(item)
        suffix = 2
        while candidate in used:
            candidate, suffix = f"{base}-{suffix}", suffix + 1
        used.add(candidate)
        out[item] = candidate
    return out


def declares_costs(actions: Sequence[ActionModel]) -> bool:
    """Whether the model needs ``total-cost``: some learned action was seen to cost other
    than 1 (a state-dependent cost counts, though the PDDL writes its least value)."""
    return any(a.learned and (a.min_cost != 1 or a.max_cost != 1) for a in actions)


def _conj(atoms: Sequence[str], indent: str) -> str:
    if not atoms:
        return "(and)"
    return "(and " + f"\n{indent}     ".join(atoms) + ")"


def domain_text(env: str, concepts: Sequence[str], actions: Sequence[ActionModel]) -> str:
    """The domain: one action per learned action (never-succeeding actions are left out)."""
    cn = names(concepts)
    an = names([a.name for a in actions])
    learned = [a for a in actions if a.learned]
    costs = declares_costs(actions)
    lines = [f"; local model of {env} learned from samples (xaip learn-local)",
             f"(define (domain {pddl_name(env)}-local)",
             "  (:requirements :strips :negative-preconditions"
             + (" :action-costs)" if costs else ")"),
             "  (:predicates " + " ".join(f"({cn[c]})" for c in concepts) + ")"]
    if costs:
        lines.append("  (:functions (total-cost) - number)")
    for a in learned:
        effects = [f"({cn[c]})" for c in a.add] + [f"(not ({cn[c]}))" for c in a.delete
                                                    if c not in a.add]
        if costs:
            assert a.min_cost is not None
            effects.append(f"(increase (total-cost) {a.min_cost:g})")
        lines.append(f"  (:action {an[a.name]}")
        if a.name != an[a.name]:
            lines.append(f"   ; the black box's action {a.name!r}")
        if a.cost_state_dependent:
            lines.append(f"   ; cost is state-dependent: {a.min_cost:g} to {a.max_cost:g}")
        if a.conflicts:
            lines.append("   ; effects not consistent across samples on: "
                         + ", ".join(sorted({c.concept for c in a.conflicts})))
        lines.append("   :precondition " + _conj([f"({cn[c]})" for c in a.precondition],
                                                 "   "))
        lines.append("   :effect " + _conj(effects, "   ") + ")")
    lines.append(")")
    return "\n".join(lines) + "\n"


def problem_text(env: str, concepts: Sequence[str], initial: Sequence[str],
                 goal: Sequence[str], costs: bool) -> str:
    """The problem: init C(I), goal the concepts shared by every sampled goal state."""
    cn = names(concepts)
    init = [f"({cn[c]})" for c in initial] + (["(= (total-cost) 0)"] if costs else [])
    lines = [f"(define (problem {pddl_name(env)}-local-task)",
             f"  (:domain {pddl_name(env)}-local)",
             "  (:init " + " ".join(init) + ")",
             "  (:goal " + _conj([f"({cn[c]})" for c in goal], "  ") + ")"]
    if costs:
        lines.append("  (:metric minimize (total-cost))")
    lines.append(")")
    return "\n".join(lines) + "\n"
