"""The landmark-cut heuristic (Helmert & Domshlak 2009).

Why LM-cut: it is the strongest admissible heuristic we can afford per state, so optimal
A* expands far fewer nodes than with h_max, which it dominates (each round lowers h_max of
the goal by at most the cost it adds, and rounds continue until h_max of the goal is 0).

The algorithm, on the delete relaxation with an artificial fact ``INIT`` (precondition of
operators that have none) and an artificial goal operator (cost 0, precondition the goal
facts, adding the fact ``GOAL``):

1. compute h_max with the current (reduced) operator costs; ``inf`` means a dead end and
   ``0`` means done;
2. give every operator a *precondition choice function* value ``pcf(o)``: a precondition
   with maximal h_max;
3. the *goal zone* ``Z`` is the set of facts from which ``GOAL`` is reached in the
   justification graph (edges ``pcf(o) -> add(o)``) through zero-cost operators only;
4. ``N0`` is the set of facts reached from the state and ``INIT`` without entering ``Z``;
   the cut is every operator with ``pcf(o)`` in ``N0`` and an add in ``Z``. Every relaxed
   plan uses one of them, so their minimal cost ``m`` is added to ``h`` and subtracted
   from each of them.

Zero-cost operators (a classic source of bugs) are handled by step 3: a zero-cost operator
whose pcf leads into ``Z`` pulls its pcf into ``Z``, so every cut operator has positive cost
and every round makes progress. Since ``h_max(state) > 0`` and the state's facts have h_max
0, no state fact lies in ``Z`` (h_max never increases along a zero-cost edge backwards).

After a cut, h_max is updated incrementally: only costs of cut operators dropped, so h_max
values only decrease, and an operator's value can only change when its pcf's value
drops; then its pcf is recomputed. This is the part that makes LM-cut affordable in Python.

Relaxations: negative preconditions and negative goals are ignored (as in h_max); axioms
(derived predicates) are zero-cost operators with their positive body as precondition.
Conditional effects are *not* supported by the cut computation (charging one action's cost
to several unary operators breaks the landmark argument), so on a task with conditional
effects this heuristic falls back to h_max, which is admissible and handles them.
"""

from __future__ import annotations

import heapq
import math

from xaip.planning.heuristics.relaxation import HMax, check_clock
from xaip.planning.task import Task, bits
from xaip.runtime.budget import BudgetClock

INF = math.inf


class LMCut:
    """Callable LM-cut heuristic for one task; ``h(state)`` is an int or ``math.inf``."""

    name = "lmcut"
    admissible = True

    def __init__(self, task: Task, clock: BudgetClock | None = None) -> None:
        self.clock = clock
        self.fallback: HMax | None = (
            HMax(task, clock=clock) if task.has_conditional_effects() else None
        )
        n = task.num_facts
        self.init_fact = n
        self.goal_fact = n + 1
        self.num_facts = n + 2
        self.goal_mask = task.goal
        pres: list[tuple[int, ...]] = []
        adds: list[tuple[int, ...]] = []
        costs: list[int] = []
        for action in task.actions:
            add = action.add & ~action.pre
            if not add:
                continue
            pres.append(tuple(bits(action.pre)) or (self.init_fact,))
            adds.append(tuple(bits(add)))
            costs.append(action.cost)
        for axiom in task.axioms:  # zero-cost operators; negative bodies are ignored
            if not (axiom.pos >> axiom.head) & 1:
                pres.append(tuple(bits(axiom.pos)) or (self.init_fact,))
                adds.append((axiom.head,))
                costs.append(0)
        self.goal_op = len(pres)
        pres.append(tuple(bits(task.goal)) or (self.init_fact,))
        adds.append((self.goal_fact,))
        costs.append(0)
        self.op_pre = tuple(pres)
        self.op_add = tuple(adds)
        self.op_cost = tuple(costs)
        self.op_npre = tuple(len(p) for p in pres)
        pre_of: list[list[int]] = [[] for _ in range(self.num_facts)]
        adders: list[list[int]] = [[] for _ in range(self.num_facts)]
        for op, pre in enumerate(pres):
            for fact in pre:
                pre_of[fact].append(op)
            for fact in adds[op]:
                adders[fact].append(op)
        self.pre_of = tuple(tuple(ops) for ops in pre_of)
        self.adders = tuple(tuple(ops) for ops in adders)
        self.stride_bits = max(1, self.num_facts.bit_length())

    def __call__(self, state: int) -> float:
        if state & self.goal_mask == self.goal_mask:
            return 0
        if self.fallback is not None:
            return self.fallback(state)
        check_clock(self.clock, "lmcut")
        return self._lmcut(state)

    def _lmcut(self, state: int) -> float:
        shift = self.stride_bits
        mask = (1 << shift) - 1
        num_facts = self.num_facts
        init_fact = self.init_fact
        goal_fact = self.goal_fact
        op_pre = self.op_pre
        op_add = self.op_add
        pre_of = self.pre_of
        adders = self.adders
        cost = list(self.op_cost)
        pcf = [-1] * len(cost)
        hmax: list[float] = [INF] * num_facts
        push = heapq.heappush
        pop = heapq.heappop
        new: float

        # ---- first exploration: full h_max with pcf = the precondition settled last
        start = [*bits(state), init_fact]
        heap = sorted(start)
        for fact in start:
            hmax[fact] = 0
        unsat = list(self.op_npre)
        while heap:
            key = pop(heap)
            fact = key & mask
            value = key >> shift
            if value > hmax[fact]:
                continue
            for op in pre_of[fact]:
                unsat[op] -= 1
                if unsat[op]:
                    continue
                pcf[op] = fact
                new = value + cost[op]
                for added in op_add[op]:
                    if new < hmax[added]:
                        hmax[added] = new
                        push(heap, (new << shift) | added)
        if hmax[goal_fact] == INF:
            return INF
        # children[f]: operators whose pcf is f (the justification graph's out-edges of f)
        children: list[list[int]] = [[] for _ in range(num_facts)]
        for op, chosen in enumerate(pcf):
            if chosen >= 0:
                children[chosen].append(op)

        h = 0
        clock = self.clock
        while hmax[goal_fact] > 0:
            # one round costs up to the size of the task: on huge tasks, check the time here
            check_clock(clock, "lmcut")
            # ---- goal zone: backwards from GOAL through zero-cost justification edges;
            # positive-cost edges into the zone are the cut candidates
            zone = bytearray(num_facts)
            zone[goal_fact] = 1
            stack = [goal_fact]
            candidates: list[int] = []
            while stack:
                fact = stack.pop()
                for op in adders[fact]:
                    chosen = pcf[op]
                    if chosen < 0:
                        continue
                    if cost[op]:
                        candidates.append(op)
                    elif not zone[chosen]:
                        zone[chosen] = 1
                        stack.append(chosen)

            # ---- the cut: candidates whose pcf is in N0 (reached from the state without
            # entering the zone). Zone facts have h_max >= h_max(GOAL), and a fact with a
            # smaller h_max reaches the state along its h_max supporters, whose h_max values
            # are smaller still, so it is in N0. Only the rare candidates with a high pcf
            # need a search (backwards, avoiding the zone, until a low fact is met).
            goal_value = hmax[goal_fact]
            cut: list[int] = []
            in_cut: set[int] = set()
            known: dict[int, bool] = {}
            for op in candidates:
                chosen = pcf[op]
                if zone[chosen] or op in in_cut:
                    continue
                if hmax[chosen] < goal_value:
                    pass
                elif chosen in known:
                    if not known[chosen]:
                        continue
                elif not self._in_n0(chosen, zone, known, hmax, goal_value, pcf):
                    continue
                in_cut.add(op)
                cut.append(op)

            m = min(cost[op] for op in cut)
            h += m

            # ---- reduce costs and update h_max incrementally (values only decrease)
            heap = []
            for op in cut:
                cost[op] -= m
                new = hmax[pcf[op]] + cost[op]
                for added in op_add[op]:
                    if new < hmax[added]:
                        hmax[added] = new
                        push(heap, (int(new) << shift) | added)
            while heap:
                key = pop(heap)
                fact = key & mask
                value = key >> shift
                if value > hmax[fact]:
                    continue
                kids = children[fact]
                keep: list[int] = []
                for op in kids:
                    best = fact
                    best_value: float = value
                    for pre in op_pre[op]:
                        if hmax[pre] > best_value:
                            best_value = hmax[pre]
                            best = pre
                    if best != fact:
                        pcf[op] = best
                        children[best].append(op)
                    else:
                        keep.append(op)
                    new = best_value + cost[op]
                    for added in op_add[op]:
                        if new < hmax[added]:
                            hmax[added] = new
                            push(heap, (int(new) << shift) | added)
                children[fact] = keep
        return h

    def _in_n0(
        self,
        fact: int,
        zone: bytearray,
        known: dict[int, bool],
        hmax: list[float],
        goal_value: float,
        pcf: list[int],
    ) -> bool:
        """Whether ``fact`` (with h_max >= h_max(GOAL), not in the zone) is reachable from
        the state in the justification graph without entering the zone.

        Searches backwards along justification edges; a failed search proves every fact it
        visited unreachable, which ``known`` remembers for the other candidates.
        """
        answer = known.get(fact)
        if answer is not None:
            return answer
        adders = self.adders
        visited = {fact}
        stack = [fact]
        while stack:
            current = stack.pop()
            for op in adders[current]:
                source = pcf[op]
                if source < 0 or zone[source] or source in visited:
                    continue
                if hmax[source] < goal_value or known.get(source):
                    known[fact] = True
                    return True
                if source in known:  # known unreachable
                    continue
                visited.add(source)
                stack.append(source)
        for current in visited:
            known[current] = False
        return False
