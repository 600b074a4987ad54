"""PDDL text of the random propositional STRIPS tasks that several differential families draw.

Why one writer: the oracles keep their own Python sets, so the only thing xaip reads of such
a task is this text; writing it in one place keeps the families' cost conventions (absent,
declared without a metric, counted under the metric) spelled the same way for all of them.
Nothing here calls xaip.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

State = frozenset[str]

#: How a task treats action costs: absent, declared without a metric (each action then
#: costs 1), or counted under ``(:metric minimize (total-cost))``.
COST_MODES = ("none", "ignored", "counted")


@dataclass(frozen=True)
class Action:
    """A ground action over 0-ary facts (``neg``: negative preconditions)."""

    name: str
    pre: frozenset[str]
    neg: frozenset[str]
    add: frozenset[str]
    delete: frozenset[str]
    cost: int

    def applies(self, state: State) -> bool:
        return self.pre <= state and not self.neg & state

    def apply(self, state: State) -> State:
        return (state - self.delete) | self.add


def price(action: Action, costs: str) -> int:
    """The action's cost under the cost mode (the definition, not xaip's semantics module)."""
    return action.cost if costs == "counted" else 1


def domain_text(name: str, facts: Iterable[str], actions: Iterable[Action], costs: str) -> str:
    reqs = ":strips :negative-preconditions" + (" :action-costs" if costs != "none" else "")
    parts = [f"(define (domain {name}) (:requirements {reqs})",
             "(:predicates " + " ".join(f"({f})" for f in facts) + ")"]
    if costs != "none":
        parts.append("(:functions (total-cost) - number)")
    for a in actions:
        pre = [f"({f})" for f in sorted(a.pre)] + [f"(not ({f}))" for f in sorted(a.neg)]
        eff = [f"({f})" for f in sorted(a.add)] + [f"(not ({f}))" for f in sorted(a.delete)]
        if costs != "none":
            eff.append(f"(increase (total-cost) {a.cost})")
        parts.append(f"(:action {a.name} :parameters () :precondition (and {' '.join(pre)})"
                     f" :effect (and {' '.join(eff)}))")
    return "\n".join(parts) + ")"


def problem_text(domain: str, init: Iterable[str], goal: Iterable[tuple[str, bool]],
                 costs: str) -> str:
    facts = " ".join(f"({f})" for f in sorted(init))
    if costs != "none":
        facts += " (= (total-cost) 0)"
    literals = " ".join(f"({f})" if positive else f"(not ({f}))" for f, positive in goal)
    metric = "(:metric minimize (total-cost))" if costs == "counted" else ""
    return (f"(define (problem p) (:domain {domain}) (:init {facts}) "
            f"(:goal (and {literals})) {metric})")
