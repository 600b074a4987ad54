"""The explicit state graph that LAO* grows and value iteration fills: values, Bellman
backups, dead ends and trap elimination.

The SSP we solve (see :func:`xaip.planning.mdp.solver.solve_ssp` for the user-facing
description): goal states are absorbing with value 0; dead ends (goal unreachable under
every policy) are absorbing with value ``D`` (``inf`` when dead ends must be reported);
every other state pays the expected step cost of its action plus the expected value of
its successors. Step costs are positive, so a policy that never stops is infinitely
expensive.

Why trap elimination: both algorithms raise values by Bellman backups from an admissible
start. Where the greedy policy is stuck in a set of states it never leaves (a *trap*),
each backup raises the values by about one step cost, and with a large ``D`` the escape
route can be a million steps away. We detect traps on the greedy graph and either solve
the region exactly by policy iteration from a proper policy
(:meth:`ExplicitGraph.solve_region`, used by ILAO*) or raise all their values at once to a
bound that is still admissible (:meth:`ExplicitGraph.raise_trap`, used by value
iteration), so convergence does not depend on the size of ``D``.

Why the exact dead-end test on values above ``D``: an unrecognised dead end would keep
acting, and its value could exceed ``D`` — an overestimate that can mislead the search.
A state whose value rises above ``D`` is checked exactly once (:class:`DeadEndDetector`);
if it is a dead end it becomes absorbing at ``D``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from xaip.planning.mdp.deadends import DeadEndDetector
from xaip.planning.mdp.linear import solve_linear
from xaip.planning.mdp.reachability import backward_closure
from xaip.planning.mdp.task import ProbabilisticTask
from xaip.planning.task import State
from xaip.runtime.budget import BudgetClock

INFINITY = math.inf

TIP, EXPANDED, GOAL, DEAD = 0, 1, 2, 3

#: (action name, expected cost, successor states, their probabilities)
Transition = tuple[str, float, tuple[State, ...], tuple[float, ...]]


class ExplicitGraph:
    """States generated so far, with values, transitions and greedy choices."""

    def __init__(
        self,
        ptask: ProbabilisticTask,
        dead_end_cost: float,
        heuristic: Callable[[State], float],
        detector: DeadEndDetector,
        clock: BudgetClock,
    ) -> None:
        self.task = ptask
        self.penalty = dead_end_cost
        self.heuristic = heuristic
        self.detector = detector
        self.clock = clock
        self.value: dict[State, float] = {}
        self.kind: dict[State, int] = {}
        self.trans: dict[State, list[Transition]] = {}
        self.best: dict[State, int] = {}
        #: Expanded states with a transition into the key state (for change propagation).
        self.parents: dict[State, list[State]] = {}
        #: Expanded states whose successors' values changed since their last backup; a
        #: backup of any other state would change nothing, so passes skip them.
        self.dirty: set[State] = set()
        #: Expanded states whose value is final (see :meth:`try_label`).
        self.solved: set[State] = set()
        self.dead_ends: set[State] = set()
        self.expansions = 0
        #: Counts backups that switched the greedy action (a convergence test needs 0).
        self.policy_changes = 0
        #: Set once every dead end of the graph is known (value iteration's analysis).
        self.dead_ends_exact = False

    # ------------------------------------------------------------------ building

    def generate(self, state: State) -> None:
        if state in self.kind:
            return
        if self.task.is_goal(state):
            self.kind[state] = GOAL
            self.value[state] = 0.0
            return
        h = self.heuristic(state)
        if h == INFINITY:
            self.kind[state] = DEAD
            self.value[state] = self.penalty
            self.dead_ends.add(state)
            self.detector.dead.add(state)
            return
        self.kind[state] = TIP
        self.value[state] = min(h, self.penalty)

    def set_value(self, state: State, new: float) -> None:
        """Change a value and mark the states whose Q-values depend on it."""
        if self.value[state] != new:
            self.value[state] = new
            dirty = self.dirty
            for parent in self.parents.get(state, ()):
                dirty.add(parent)

    def mark_dead(self, state: State) -> None:
        self.kind[state] = DEAD
        self.dead_ends.add(state)
        self.detector.dead.add(state)
        self.dirty.discard(state)
        self.set_value(state, self.penalty)

    def expand(self, state: State) -> None:
        """Generate the transitions of a tip (one per applicable action name)."""
        task = self.task
        transitions: list[Transition] = []
        canonical = task.canonical
        taken: set[int] = set()
        children: set[State] = set()
        for i in task.applicable_ids(state):
            if canonical[i] in taken:
                continue  # another variant of an action already listed (same outcomes)
            taken.add(canonical[i])
            action = task.actions[i]
            successors = action.successors(state)
            if len(successors) == 1 and state in successors:
                continue  # a pure self-loop never helps when steps cost something
            for succ in successors:
                self.generate(succ)
                children.add(succ)
            transitions.append(
                (task.names[i], action.expected_cost, tuple(successors), tuple(successors.values()))
            )
        self.expansions += 1
        if not transitions:
            self.mark_dead(state)
            return
        parents = self.parents
        for child in children:
            if child in parents:
                parents[child].append(state)
            else:
                parents[child] = [state]
        self.trans[state] = transitions
        self.kind[state] = EXPANDED
        self.best[state] = 0
        self.dirty.add(state)

    # ------------------------------------------------------------------ backups

    def backup(self, state: State) -> float:
        """Bellman backup of an expanded state; returns the absolute change of its value."""
        self.dirty.discard(state)
        value = self.value
        best_q = INFINITY
        current = self.best[state]
        best_i = current
        for i, (_, cost, succs, probs) in enumerate(self.trans[state]):
            q = cost
            for succ, p in zip(succs, probs, strict=False):
                q += p * value[succ]
            # Keep the current choice on ties, so that equal values cannot silently
            # change the greedy graph after convergence.
            if q < best_q or (q == best_q and i == current):
                best_q, best_i = q, i
        old = value[state]
        if best_i != current:
            self.best[state] = best_i
            self.policy_changes += 1
        if (
            best_q > self.penalty
            and not self.dead_ends_exact
            and self.detector.is_dead_end(state, self.clock)
        ):
            self.mark_dead(state)
            return abs(self.penalty - old) if self.penalty != old else 0.0
        if best_q == old:
            return 0.0
        self.set_value(state, best_q)
        change = abs(best_q - old)
        # Rounding noise of values near a large penalty is not a change.
        return 0.0 if change <= 1e-13 * abs(old) else change

    def try_label(self, state: State, change: float, epsilon: float) -> None:
        """Label ``state`` solved if every greedy successor is solved or absorbing (a
        successor that is the state itself needs a last change below ``epsilon``).

        Sound because values only rise: the heuristic is consistent and every other
        update (trap bounds, dead ends) raises values. The greedy action's Q-value is then
        fixed while every other Q-value can only grow, so the value is final.
        """
        kind = self.kind
        if kind[state] != EXPANDED:
            return
        solved = self.solved
        for succ in self.trans[state][self.best[state]][2]:
            if succ == state:
                if change >= epsilon:
                    return
            elif succ not in solved and kind[succ] < GOAL:
                return
        solved.add(state)

    def q_values(self, state: State) -> list[tuple[str, float]]:
        """(action name, Q-value) of every transition of an expanded state."""
        out = []
        for name, cost, succs, probs in self.trans.get(state, []):
            q = cost + sum(p * self.value[s] for s, p in zip(succs, probs, strict=True))
            out.append((name, q))
        return out

    # ------------------------------------------------------------------ greedy graph

    def greedy_action(self, state: State) -> Transition:
        return self.trans[state][self.best[state]]

    def greedy_states(self, roots: Iterable[State]) -> list[State]:
        """States reachable from ``roots`` under the greedy policy (tips and absorbing
        states included, not expanded further)."""
        seen = dict.fromkeys(roots)
        stack = list(seen)
        order: list[State] = []
        while stack:
            state = stack.pop()
            order.append(state)
            if self.kind[state] != EXPANDED:
                continue
            for succ in self.greedy_action(state)[2]:
                if succ not in seen:
                    seen[succ] = None
                    stack.append(succ)
        return order

    def find_trap(self, roots: Iterable[State]) -> set[State]:
        """Expanded, unsolved states reachable from ``roots`` under the greedy policy from
        which the greedy policy reaches no goal, dead end, tip or solved state."""
        order = self.greedy_states(roots)
        preds: dict[State, list[State]] = {}
        anchors: list[State] = []
        for state in order:
            if self.kind[state] != EXPANDED or state in self.solved:
                anchors.append(state)
                continue
            for succ in self.greedy_action(state)[2]:
                preds.setdefault(succ, []).append(state)
        good = backward_closure(anchors, preds)
        return {s for s in order if s not in good}

    def raise_trap(self, trap: set[State]) -> None:
        """Raise the values of a set of non-goal expanded states to an admissible bound.

        Any policy from a state of ``trap`` must leave it by an *exit* — an action with an
        outcome outside — so with ``m = min V*`` over the set::

            m >= min over exits e of (c_e + sum_{out} p V*(out) + p_in,e * m)
              => m >= min over exits of (c_e + sum_{out} p V(out)) / p_out,e  =: M

        (``V <= V*`` outside). Raising every value of the set to at least ``M`` keeps them
        admissible. Without exits the set is closed under every action and has no goal:
        its states are dead ends.
        """
        bound = INFINITY
        has_exit = False
        value = self.value
        for state in trap:
            for _, cost, succs, probs in self.trans[state]:
                p_out = 0.0
                v_out = 0.0
                for succ, p in zip(succs, probs, strict=True):
                    if succ not in trap:
                        p_out += p
                        v_out += p * value[succ]
                if p_out > 0.0:
                    has_exit = True
                    bound = min(bound, (cost + v_out) / p_out)
        if not has_exit:
            for state in trap:
                self.mark_dead(state)
            return
        if bound > self.penalty and not self.dead_ends_exact:
            # A run may also stop at a dead end inside the set (paying D), so the bound
            # holds only once the set is known to have none: settle them first.
            dead = [s for s in trap if self.detector.is_dead_end(s, self.clock)]
            if dead:
                for state in dead:
                    self.mark_dead(state)
                return
        for state in trap:
            if value[state] < bound:
                self.raise_value(state, bound)

    def fix_traps(self, roots: Iterable[State]) -> bool:
        """Find a greedy trap among the states reachable from ``roots`` and raise it."""
        trap = self.find_trap(roots)
        if trap:
            self.raise_trap(trap)
        return bool(trap)

    def raise_value(self, state: State, new: float) -> None:
        """Raise a value, unless the state turns out to be a dead end (which is then marked;
        a dead end's value never exceeds ``D``, so values stay monotone)."""
        if (
            new > self.penalty
            and not self.dead_ends_exact
            and self.detector.is_dead_end(state, self.clock)
        ):
            self.mark_dead(state)
        elif new > self.value[state]:
            self.set_value(state, new)

    # ------------------------------------------------------------------ policy iteration

    def solve_region(self, start: State, max_rounds: int = 100) -> bool:
        """Solve a region of the explicit graph exactly, by policy iteration.

        Why: where the greedy policy loops (a 9-in-10 chance of coming back) or is trapped,
        backups converge slowly — each pass adds about one step cost, and values near ``D``
        are far away. The region is the greedy graph of ``start`` plus, if it has a trap,
        every expanded state the trap can reach by any action (where an escape may lead).
        States outside keep their current values, which are lower bounds, so the region's
        exact optimum is still a lower bound on the true values; each round of policy
        iteration costs one linear solve, and a handful of rounds suffice.

        Policy iteration needs a proper initial policy: the greedy action where it reaches
        the outside, elsewhere an *escape* action with an outcome one step closer to it
        (breadth-first over all outcomes). States that cannot escape at all are dead ends
        (with a penalty) or have no proper policy (value ``inf`` when dead ends are
        reported). Returns whether any value or greedy action changed.
        """
        kind = self.kind
        value = self.value
        trans = self.trans
        solved = self.solved

        def open_state(state: State) -> bool:
            return kind[state] == EXPANDED and state not in solved and value[state] < INFINITY

        greedy = [s for s in self.greedy_states([start]) if open_state(s)]
        members = set(greedy)
        if not members:
            return False
        stack = list(self.find_trap([start]))
        while stack:
            state = stack.pop()
            for _, _, succs, _ in trans[state]:
                for succ in succs:
                    if succ not in members and open_state(succ):
                        members.add(succ)
                        stack.append(succ)
        changed = False
        policy = {s: self.best[s] for s in members}
        solution: dict[State, float] = {}
        while members:
            members, stuck_changed = self._make_proper(members, policy)
            changed = changed or stuck_changed
            if not members:
                return changed
            solution = self._improve(members, policy, max_rounds)
            if not solution:  # out of budget (or, never seen, an improper policy)
                return changed
            # An unrecognised dead end acts on in the region's problem, where its value
            # can exceed D and inflate its ancestors: settle those exactly, then redo.
            newly_dead = [
                s
                for s in members
                if solution[s] > self.penalty
                and not self.dead_ends_exact
                and self.detector.is_dead_end(s, self.clock)
            ]
            if not newly_dead:
                break
            for state in newly_dead:
                self.mark_dead(state)
                members.discard(state)
                policy.pop(state, None)
            changed = True
        for state in members:
            if policy[state] != self.best[state]:
                self.best[state] = policy[state]
                self.policy_changes += 1
                changed = True
            if solution[state] > value[state] * (1 + 1e-13) + 1e-13:
                self.raise_value(state, solution[state])
                changed = True
        return changed

    def _make_proper(
        self, members: set[State], policy: dict[State, int]
    ) -> tuple[set[State], bool]:
        """Give ``policy`` escape actions where it cannot reach the outside; settle the
        states that cannot escape at all. Returns the remaining members and whether any
        state was settled."""
        settled = False
        while True:
            escaped = self._escape(members, policy)
            stuck = members - escaped
            if not stuck:
                return members, settled
            settled = True
            members = escaped
            for state in stuck:
                if self.penalty < INFINITY:
                    self.mark_dead(state)  # cannot reach the goal or a tip by any outcome
                else:
                    self.set_value(state, INFINITY)  # no proper policy from here
                policy.pop(state, None)
            if self.penalty < INFINITY:
                return members, settled

    def _improve(
        self, members: set[State], policy: dict[State, int], max_rounds: int
    ) -> dict[State, float]:
        """Policy iteration on ``members`` from the proper ``policy`` (updated in place);
        states outside are a fixed boundary. Returns the values of the final policy."""
        trans = self.trans
        value = self.value
        order = list(members)
        solution: dict[State, float] = {}
        for _ in range(max_rounds):
            if self.clock.out_of_time():
                return {}  # out of budget: change nothing (the caller sees the clock)
            succ_of: dict[State, dict[State, float]] = {}
            cost: dict[State, float] = {}
            fixed: dict[State, float] = {}
            for state in order:
                _, c, succs, probs = trans[state][policy[state]]
                cost[state] = c
                succ_of[state] = dict(zip(succs, probs, strict=True))
                for t in succs:
                    if t not in members:
                        fixed[t] = value[t]
            try:
                solution = solve_linear(order + list(fixed), succ_of, fixed, cost)
            except ZeroDivisionError:  # pragma: no cover - only if the policy were improper
                return {}
            switched = False
            for state in order:
                current = solution[state]
                tolerance = 1e-12 * max(1.0, abs(current))
                for i, (_, c, succs, probs) in enumerate(trans[state]):
                    q = c
                    for t, p in zip(succs, probs, strict=True):
                        q += p * (solution[t] if t in solution else value[t])
                    if q < current - tolerance:
                        current = q
                        policy[state] = i
                        switched = True
            if not switched:
                break
        return solution

    def _escape(self, members: set[State], policy: dict[State, int]) -> set[State]:
        """Make ``policy`` proper on ``members`` where possible; return the states that
        reach the outside (finite values only) with it."""
        trans = self.trans
        value = self.value

        def allowed(state: State, index: int) -> bool:
            return all(value[t] < INFINITY for t in trans[state][index][2])

        preds: dict[State, list[State]] = {}
        frontier: list[State] = []
        for state in members:
            index = policy[state]
            if not allowed(state, index):
                continue
            for t in trans[state][index][2]:
                if t in members:
                    preds.setdefault(t, []).append(state)
                else:
                    frontier.append(state)
        good = backward_closure(frontier, preds)
        # Escape: breadth first from the good states and the outside, over all outcomes.
        back: dict[State, list[tuple[State, int]]] = {}
        for state in members:
            if state in good:
                continue
            for index, (_, _, succs, _) in enumerate(trans[state]):
                if not allowed(state, index):
                    continue
                for t in succs:
                    back.setdefault(t, []).append((state, index))
        reached = set(good)
        queue = list(good)
        for state in members:
            if state in reached:
                continue
            for index, (_, _, succs, _) in enumerate(trans[state]):
                if allowed(state, index) and any(t not in members for t in succs):
                    policy[state] = index
                    reached.add(state)
                    queue.append(state)
                    break
        head = 0
        while head < len(queue):
            target = queue[head]
            head += 1
            for state, index in back.get(target, ()):
                if state not in reached:
                    policy[state] = index
                    reached.add(state)
                    queue.append(state)
        return reached

    def exact_dead_ends(self) -> int:
        """Mark every expanded state that cannot reach a goal or an open tip in the graph
        (exact once the graph is complete). Returns how many were marked."""
        preds: dict[State, list[State]] = {}
        anchors: list[State] = []
        for state, kind in self.kind.items():
            if kind in (GOAL, TIP):
                anchors.append(state)
            elif kind == EXPANDED:
                for _, _, succs, _ in self.trans[state]:
                    for succ in succs:
                        preds.setdefault(succ, []).append(state)
        alive = backward_closure(anchors, preds)
        newly = [s for s, k in self.kind.items() if k == EXPANDED and s not in alive]
        for state in newly:
            self.mark_dead(state)
        return len(newly)
