"""Conflicts: the few edits that can change a failed goal test, for MCE's search.

Why: MEGA's relevance restriction (book Algorithm 5, Prop. 4) branches on every edit of an
action in the robot's plan or the human's cheaper plan. When the plan uses every action
schema (logistics does), that is every edit, and uniform-cost search enumerates all edit
sets cheaper than the answer: 500k nodes for 20 removed features. A *conflict* is a much
smaller set ``C`` with the same guarantee: every explanation that extends the node's edit
set ``S`` contains an edit of ``C``. Branching on ``C`` alone keeps every minimal
explanation reachable (each one contains ``S`` plus some edit of ``C``, by induction from
the empty set), so uniform-cost search still returns a cheapest explanation.

Two kinds, from the goal test's own verdict on ``H + S``:

* the plan fails: a precondition fact ``f`` of step ``i`` is false (or true, for a negative
  precondition; or a goal fact is unmet at the end). Whether ``f`` holds before step ``i``
  depends only on the initial state and on the effects on ``f`` of the steps before ``i``;
  so some edit must remove that precondition, give an earlier step an effect on ``f``,
  take one away, or change the problem. Of the unmet facts the one with the fewest fixes
  is used.
* a cheaper plan ``π'`` is valid: some edit must break ``π'`` or change a cost. Edits that
  only make states larger or preconditions weaker cannot break it (without negative
  conditions); a new precondition breaks it only if false where ``π'`` needs it; a new
  delete (or a removed add) only if a later step or the goal needs the fact. What does
  not break ``π'`` on ``H + S`` cannot break it on ``H + S'`` for ``S' ⊇ S`` either,
  since the states of ``π'`` there are then those of ``H + S`` up to unneeded facts.

Every conflict also holds all problem-level edits (initial state, goal, numbers): kept out
of the case analysis, they are always allowed. Models the compiled model space cannot
build (non-STRIPS parts) have no conflicts: the search then uses Algorithm 5.
"""

from __future__ import annotations

from collections.abc import Sequence

from xaip.planning.features import FeatureKind
from xaip.planning.task import Task, bits
from xaip.reconcile.goals import Verdict
from xaip.reconcile.space import ModelSpace

_K = FeatureKind

# (step, kind, op, fact bit or -1 when the feature's fact is not a fluent fact)
_Touch = tuple[int, FeatureKind, str, int]


class Conflicts:
    """Computes conflicts of MCE's optimality test for one model space and plan."""

    def __init__(self, space: ModelSpace, plan: Sequence[str]) -> None:
        self.space = space
        self.plan = tuple(plan)
        self.problem = tuple(i for i, c in enumerate(space.candidates) if c.action is None)
        self.negative = any(
            f.kind in (_K.NEGATIVE_PRECONDITION, _K.NEGATIVE_GOAL)
            for f in (*space.human_features, *space.robot_features)) or any(
            c.lifted.feature.kind in (_K.NEGATIVE_PRECONDITION, _K.NEGATIVE_GOAL)
            for c in space.candidates)
        self._touches: dict[tuple[str, ...], list[tuple[int, list[_Touch]]] | None] = {}

    @staticmethod
    def available(space: ModelSpace) -> bool:
        return space.compiled

    # ------------------------------------------------------------------ set-up

    def touches(self, plan: tuple[str, ...]) -> list[tuple[int, list[_Touch]]] | None:
        """Per candidate about an action: where it lands in ``plan`` (cached per plan);
        ``None`` when a step is not a ground action of the space."""
        if plan in self._touches:
            return self._touches[plan]
        space = self.space
        numbers = []
        for name in plan:
            number = space.instance_index.get(name)
            if number is None:
                self._touches[plan] = None
                return None
            numbers.append(number)
        out: list[tuple[int, list[_Touch]]] = []
        for index, candidate in enumerate(space.candidates):
            if candidate.action is None:
                continue
            feature = candidate.lifted.feature
            found: list[_Touch] = []
            for step, number in enumerate(numbers):
                if candidate.instance is not None:
                    if candidate.instance != number:
                        continue
                elif space.instances[number].schema != feature.action:
                    continue
                fact = -1
                if feature.kind is not _K.COST:
                    code, payload = space._slot(feature, number)
                    if code == "bit":
                        assert isinstance(payload, int)
                        fact = payload
                found.append((step, feature.kind, candidate.lifted.op, fact))
            if found:
                out.append((index, found))
        self._touches[plan] = out
        return out

    # ------------------------------------------------------------------ conflicts

    def __call__(self, subset: tuple[int, ...], verdict: Verdict) -> tuple[int, ...] | None:
        """A conflict of ``H + subset`` (indices outside ``subset``), or ``None`` when none
        can be computed (then every relevant edit must be tried)."""
        if verdict.explained or verdict.undecided:
            return None
        chosen = set(subset)
        if not verdict.valid:
            found = self._failure(subset)
        elif verdict.alternative is not None:
            found = self._cheaper(subset, tuple(a.name for a in verdict.alternative))
        else:
            return None
        if found is None:
            return None
        return tuple(sorted(i for i in found if i not in chosen))

    def _run(self, task: Task, plan: tuple[str, ...]) -> tuple[list[int], int | None]:
        """States before each step of ``plan`` (and after the last) and the failing step."""
        state = task.init
        states = [state]
        for step, name in enumerate(plan):
            action = None
            for number in task.action_index.get(name, ()):
                if task.actions[number].applicable(state):
                    action = task.actions[number]
                    break
            if action is None:
                return states, step
            state = action.apply(state)
            states.append(state)
        return states, None

    def _failure(self, subset: tuple[int, ...]) -> set[int] | None:
        touches = self.touches(self.plan)
        if touches is None:
            return None
        task = self.space.plan_task(subset, self.plan)
        states, failed = self._run(task, self.plan)
        state = states[-1]
        options: list[set[int]] = []
        if failed is None:  # the goal is not reached
            last = len(self.plan)
            for fact in bits(task.goal & ~state):
                options.append(self._fixes(touches, fact, last, True, None))
            for fact in bits(task.goal_neg & state):
                options.append(self._fixes(touches, fact, last, False, None))
        else:
            numbers = task.action_index.get(self.plan[failed])
            if not numbers:  # the action does not exist here: only its own edits help
                return {i for i, found in touches if any(t[0] == failed for t in found)} | \
                    set(self.problem)
            action = task.actions[numbers[0]]
            for fact in bits(action.pre & ~state):
                options.append(self._fixes(touches, fact, failed, True, _K.PRECONDITION))
            for fact in bits(action.neg_pre & state):
                options.append(self._fixes(touches, fact, failed, False,
                                           _K.NEGATIVE_PRECONDITION))
        if not options:
            return None
        return min(options, key=len)

    def _fixes(self, touches: list[tuple[int, list[_Touch]]], fact: int, step: int,
               wanted: bool, precondition: FeatureKind | None) -> set[int]:
        """Edits that can change whether ``fact`` holds (``wanted``) before ``step``, or
        drop the precondition on it at ``step``."""
        out = set(self.problem)
        grow = (_K.ADD_EFFECT, "add"), (_K.DELETE_EFFECT, "remove")
        shrink = (_K.DELETE_EFFECT, "add"), (_K.ADD_EFFECT, "remove")
        helpful = grow if wanted else shrink
        for index, found in touches:
            for at, kind, op, bit in found:
                if bit != fact:
                    continue
                if (at < step and (kind, op) in helpful) or (
                        at == step and kind is precondition and op == "remove"):
                    out.add(index)
                    break
        return out

    def _cheaper(self, subset: tuple[int, ...], other: tuple[str, ...]) -> set[int] | None:
        touches = self.touches(other)
        own = self.touches(self.plan)
        if touches is None or own is None:
            return None
        task = self.space.plan_task(subset, other)
        states, failed = self._run(task, other)
        if failed is not None or not task.is_goal(states[-1]):
            return None
        # which facts each step (and the goal) needs on H + S' for S' avoiding the conflict
        needs = [0] * (len(other) + 1)
        for step, name in enumerate(other):
            numbers = task.action_index.get(name)
            if numbers:
                needs[step] = task.actions[numbers[0]].pre
        needs[-1] = task.goal
        for _, found in touches:
            for at, kind, op, bit in found:
                if kind is _K.PRECONDITION and op == "add" and bit >= 0:
                    needs[at] |= 1 << bit
        later = [0] * (len(other) + 1)
        for step in range(len(other) - 1, -1, -1):
            later[step] = later[step + 1] | needs[step + 1]
        out = set(self.problem)
        for index, found in own:
            if any(kind is _K.COST for _, kind, _, _ in found):
                out.add(index)
        for index, found in touches:
            for at, kind, op, bit in found:
                if _breaks(kind, op, bit, states[at], later[at], self.negative):
                    out.add(index)
                    break
        return out


def _breaks(kind: FeatureKind, op: str, bit: int, state: int, later: int,
            negative: bool) -> bool:
    """Can this edit, at a step run in ``state``, break a valid plan (alone or with edits
    that cannot break it themselves)? ``later``: facts needed after the step."""
    if kind is _K.COST:
        return True
    if kind is _K.PRECONDITION:
        return op == "add" and (bit < 0 or not state >> bit & 1)
    if kind is _K.NEGATIVE_PRECONDITION:
        return op == "add" and (bit < 0 or bool(state >> bit & 1))
    shrinks = (kind, op) in ((_K.DELETE_EFFECT, "add"), (_K.ADD_EFFECT, "remove"))
    if negative:
        return True
    return shrinks and (bit < 0 or bool(later >> bit & 1))
