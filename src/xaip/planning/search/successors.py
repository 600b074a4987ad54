"""Fast successor generation on integer states.

Why not scan all actions: a scan costs two big-int operations per action per expansion.
Each action is filed under one of its precondition facts (the one that is a precondition of
the fewest actions, so buckets stay small); an expansion only tests the actions filed under
facts that are true in the state, plus those without preconditions. Successors come back
sorted by action index, so search order does not depend on the bucketing.
"""

from __future__ import annotations

from xaip.planning.task import GroundAction, Task, bits

# (action index, pre, neg_pre, ~delete, add, cost, action if it has conditional effects or
# the task has axioms: then ``action.apply`` computes the successor)
_Entry = tuple[int, int, int, int, int, int, GroundAction | None]


class Successors:
    """``succ(state)`` -> sorted list of ``(action index, successor state, action cost)``."""

    def __init__(self, task: Task) -> None:
        self.task = task
        uses = [0] * task.num_facts
        for action in task.actions:
            for fact in bits(action.pre):
                uses[fact] += 1
        buckets: dict[int, list[_Entry]] = {}
        always: list[_Entry] = []
        # With axioms every successor must be closed, which ``action.apply`` does; without
        # them the fast path below stays exactly as it was.
        closes = bool(task.axioms or task.derived)
        for index, action in enumerate(task.actions):
            entry: _Entry = (
                index,
                action.pre,
                action.neg_pre,
                ~action.delete,
                action.add,
                action.cost,
                action if action.conditional or closes else None,
            )
            if not action.pre:
                always.append(entry)
                continue
            key = min(bits(action.pre), key=lambda fact: (uses[fact], fact))
            buckets.setdefault(key, []).append(entry)
        self.buckets = {fact: tuple(group) for fact, group in buckets.items()}
        self.always = tuple(always)

    def __call__(self, state: int) -> list[tuple[int, int, int]]:
        out: list[tuple[int, int, int]] = []
        buckets = self.buckets
        groups: list[tuple[_Entry, ...]] = [self.always]
        mask = state
        while mask:
            low = mask & -mask
            group = buckets.get(low.bit_length() - 1)
            if group is not None:
                groups.append(group)
            mask ^= low
        for group in groups:
            for index, pre, neg, keep, add, cost, conditional in group:
                if state & pre == pre and not state & neg:
                    if conditional is None:
                        out.append((index, (state & keep) | add, cost))
                    else:
                        out.append((index, conditional.apply(state), cost))
        out.sort()
        return out
