"""Means-ends planning over the candidate model: short capability sequences that take a
known state to a start state meeting a query's requirements (AIA's query planning).

Why: the state a query needs (the player next to the key, facing it) is often not in the
pool; one or two capability steps from a known state, each a waypoint the agent is asked
to reach, usually get there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from xaip.capabilities.candidates import NEG, POS
from xaip.capabilities.lifting import ground_atom, is_var
from xaip.capabilities.matching import Matcher, Requirement
from xaip.capabilities.pal import CapState, apply_capability, ground_effects
from xaip.capabilities.pool import StatePool, pool_state
from xaip.capabilities.traces import AbstractState
from xaip.planning.pddl.model import Atom

#: One planned step: capability, binding, state before, predicted state after.
PlanStep = tuple[CapState, dict[str, str], AbstractState, AbstractState]


class MeansEnds:
    """Plans over ``caps``' best-guess models, remembering plans until the pool or any
    capability changes."""

    def __init__(self, caps: list[CapState], pool: StatePool, matcher: Matcher,
                 refine: Callable[[AbstractState, Any], Any], plan_bindings: int) -> None:
        self.caps = caps
        self.pool = pool
        self.matcher = matcher
        self.refine = refine
        self.plan_bindings = plan_bindings
        self._plans: dict[Any, list[PlanStep] | None] = {}
        self._plans_version: Any = None
        self._effect_order: dict[tuple[str, bool], list[Atom]] = {}
        self._settled_cache: dict[str, tuple[int, list[Requirement]]] = {}

    def achieve(self, cap: CapState, binding: Mapping[str, str], soft: list[Requirement],
                 keep: list[Requirement], state: AbstractState, depth: int, like: Any) \
            -> list[PlanStep] | None:
        """:meth:`_plan_means_ends`, remembered until the pool or any capability changes.

        Why: the precondition and effect tuples of one atom usually need the same start
        state, so their queries repeat the same planning problems."""
        version = (len(self.pool), sum(c.revision for c in self.caps))
        if version != self._plans_version:
            self._plans.clear()
            self._plans_version = version
        key = (cap.name, tuple(sorted(binding.items())), tuple(soft), tuple(keep), state,
               depth, like)
        if key in self._plans:
            return self._plans[key]
        plan = self._plan_means_ends(cap, binding, soft, keep, state, depth, like)
        self._plans[key] = plan
        return plan

    def _plan_means_ends(self, cap: CapState, binding: Mapping[str, str],
                         soft: list[Requirement], keep: list[Requirement],
                         state: AbstractState, depth: int, like: Any) \
            -> list[PlanStep] | None:
        """Means-ends planning over the candidate model: apply capabilities whose effects
        achieve violated soft requirements, keeping the hard ones, within ``depth`` steps.

        Steps use only the settled preconditions of the other capabilities (optimistic, as
        AIA's query planning): the agent's answer at that waypoint tests the prediction."""
        violated = self.matcher.violated(binding, soft, state)
        if not violated:
            return []
        if depth == 0 or len(violated) > 2 * depth:
            return None
        ps = pool_state(state)
        # The state meets ``keep``; a step can break it, or change how many soft
        # requirements hold, only through its effects: test those before building states.
        keep_index: dict[Atom, list[bool]] = {}
        for atom, value in keep:
            keep_index.setdefault(ground_atom(atom, binding), []).append(value)
        soft_index: dict[Atom, list[bool]] = {}
        for atom, value in soft:
            soft_index.setdefault(ground_atom(atom, binding), []).append(value)
        for goal_atom, goal_value in violated:
            for other in self.caps:
                for eff in self._sorted_effects(other, goal_value):
                    if eff.predicate != goal_atom.predicate or \
                            len(eff.args) != len(goal_atom.args):
                        continue
                    pre_bound: dict[str, str] = {}
                    ok = True
                    for term, obj in zip(eff.args, goal_atom.args, strict=True):
                        if is_var(term):
                            if pre_bound.setdefault(term, obj) != obj:
                                ok = False
                        elif term != obj:
                            ok = False
                    if not ok:
                        continue
                    settled = self._settled_pre(other)
                    tried = 0
                    for other_binding in self.matcher.match(other, settled, ps, pre_bound):
                        changes = ground_effects(other, other_binding)
                        if any(value != new for g, new in changes.items()
                               for value in keep_index.get(g, ())):
                            continue
                        still = len(violated)
                        for g, new in changes.items():
                            old = g in state
                            for value in soft_index.get(g, ()):
                                still += (old == value) - (new == value)
                        if still >= len(violated):
                            continue
                        after = apply_capability(other, other_binding, state)
                        tried += 1
                        if tried > self.plan_bindings:
                            break
                        if self.refine(after, like) is None:
                            continue  # the predicted waypoint is no state of the world
                        rest = self.achieve(cap, binding, soft, keep, after, depth - 1, like)
                        if rest is not None:
                            return [(other, other_binding, state, after), *rest]
        return None

    def _sorted_effects(self, cap: CapState, add: bool) -> list[Atom]:
        key = (cap.name, add)
        found = self._effect_order.get(key)
        if found is None:
            effects = cap.signature.add if add else cap.signature.delete
            found = self._effect_order[key] = sorted(effects, key=str)
        return found

    def _settled_pre(self, cap: CapState) -> list[Requirement]:
        """The settled preconditions of ``cap`` as requirements (cached per revision)."""
        cached = self._settled_cache.get(cap.name)
        if cached is not None and cached[0] == cap.revision:
            return cached[1]
        settled = [(a, True) for a in cap.atoms if cap.pre[a] == {POS}]
        settled += [(a, False) for a in cap.atoms if cap.pre[a] == {NEG}]
        self._settled_cache[cap.name] = (cap.revision, settled)
        return settled
