"""Policy agents: follow a fixed goal-conditioned policy instead of searching.

Why apart from the search agents: a policy agent's capabilities are what its policy happens
to reach, not the simulator's reachability (the paper's search vs. policy comparison), and
the greedy policy with its escapes from local minima is an idea of its own.
"""

from __future__ import annotations

from typing import Any, Generic

from xaip.agents.agents import (
    POLICY_BUDGET,
    AgentTask,
    AnyOf,
    Attempt,
    Goal,
    Heuristic,
    Plan,
    Policy,
    S,
    _plan_from,
    goal_test,
)
from xaip.agents.simulator import (
    UNREACHABLE,
    HasDistanceBound,
    Simulator,
    successor_function,
)
from xaip.errors import InputError
from xaip.runtime.budget import Budget


class PolicyAgent(Generic[S]):
    """An agent that follows a fixed goal-conditioned policy ``policy(state, goal) -> action``.

    It never searches: from the start it applies the policy's action until the goal holds.
    It fails (``stuck``) when the policy returns ``None`` or an inapplicable action, (``loop``)
    when it comes back to a state it has visited — a deterministic policy would cycle forever
    — and (``budget``) after ``budget.max_nodes`` steps or ``max_seconds``.
    """

    def __init__(
        self, simulator: Simulator[S], policy: Policy, *, budget: Budget = POLICY_BUDGET
    ) -> None:
        self.simulator = simulator
        self.policy = policy
        self.budget = budget

    def query(self, start: S, goal: Goal, budget: Budget | None = None) -> Attempt[S]:
        reset = getattr(self.policy, "reset", None)
        if callable(reset):
            reset()  # a policy's commitments belong to one query
        test = goal_test(goal)
        clock = (budget or self.budget).start()
        sim = self.simulator
        state = start
        states = [start]
        plan: list[str] = []
        visited = {start}
        while not test(state):
            if not clock.charge():
                return Attempt(
                    "budget",
                    tuple(plan),
                    tuple(states),
                    len(plan),
                    clock.elapsed(),
                    "policy step budget spent",
                )
            action = self.policy(state, goal)
            if action is None:
                return Attempt(
                    "stuck",
                    tuple(plan),
                    tuple(states),
                    len(plan),
                    clock.elapsed(),
                    "the policy has no action toward the goal here",
                )
            if action not in sim.actions(state):
                return Attempt(
                    "stuck",
                    tuple(plan),
                    tuple(states),
                    len(plan),
                    clock.elapsed(),
                    f"the policy chose '{action}', which is not applicable here",
                )
            state = sim.step(state, action)
            plan.append(action)
            states.append(state)
            if state in visited:
                return Attempt(
                    "loop",
                    tuple(plan),
                    tuple(states),
                    len(plan),
                    clock.elapsed(),
                    "the policy returned to a state it had visited",
                )
            visited.add(state)
        return Attempt("reached", tuple(plan), tuple(states), len(plan), clock.elapsed())

    def reachable(self, start: S, goal: Goal, budget: Budget | None = None) -> Plan | None:
        attempt = self.query(start, goal, budget)
        return attempt.plan if attempt.reached else None

    def run(self, task: AgentTask[S]) -> Attempt[S]:
        return self.query(task.start, task.goal, task.budget)


def greedy_policy(
    simulator: Simulator[S],
    distance: Heuristic | None = None,
    *,
    lookahead: int = 2,
    escape: int = 0,
) -> GreedyPolicy:
    """A "move toward the target" policy: the first action of the shortest look-ahead
    (at most ``lookahead`` actions) that gets strictly closer to the goal by ``distance``.

    ``distance`` defaults to the simulator's ``distance_lower_bound``. Ties go to the
    earlier action in ``simulator.actions`` order. The policy returns ``None`` when no
    sequence of ``lookahead`` actions gets closer (a local minimum, e.g. a block between
    the agent and the target), and for goals given as tests (it has no notion of distance
    to them). The best look-ahead value never increases along the way; on a plateau the
    policy may cycle, which :class:`PolicyAgent` detects and reports as ``loop``.

    ``escape > lookahead`` lets the policy out of shallow local minima: when no short
    look-ahead gets closer, it commits to the shortest sequence of at most ``escape``
    actions that does (found breadth-first, earlier actions first) and follows it to the
    end; :class:`PolicyAgent` clears commitments at the start of each query, so answers do
    not depend on earlier queries. The policy stays myopic: a longer detour stops it.
    """
    if lookahead < 1:
        raise InputError("the greedy policy needs a look-ahead of at least one action")
    if distance is None:
        if not isinstance(simulator, HasDistanceBound):
            raise InputError(
                "greedy_policy needs a distance function: the simulator has no distance_lower_bound"
            )
        distance = simulator.distance_lower_bound
    return GreedyPolicy(simulator, distance, lookahead, escape)


class GreedyPolicy:
    """The policy of :func:`greedy_policy` (callable as ``policy(state, goal)``)."""

    def __init__(self, simulator: Simulator[Any], distance: Heuristic, lookahead: int,
                 escape: int) -> None:
        self.simulator = simulator
        self.distance = distance
        self.lookahead = lookahead
        self.escape = escape
        self._committed: dict[Any, str] = {}
        self._distances: dict[tuple[Any, Any], int] = {}

    def reset(self) -> None:
        """Forget the escape routes committed to and the distances computed (a new query
        starts)."""
        self._committed.clear()
        self._distances.clear()

    def dist(self, state: Any, goal: Any) -> int:
        key = (state, goal)
        found = self._distances.get(key)
        if found is None:
            if isinstance(goal, AnyOf):
                found = min(self.distance(state, member) for member in goal.states)
            else:
                found = self.distance(state, goal)
            if len(self._distances) > 200_000:
                self._distances.clear()
            self._distances[key] = found
        return found

    def _best_within(self, state: Any, goal: Any, depth: int) -> int:
        value = self.dist(state, goal)
        if depth == 0 or value == 0:
            return value
        step = self.simulator.step
        for action in self.simulator.actions(state):
            value = min(value, self._best_within(step(state, action), goal, depth - 1))
        return value

    def _way_out(self, state: Any, goal: Any, here: int) -> str | None:
        """Commit to the shortest action sequence (at most ``escape``) to a closer state."""
        parent: dict[Any, tuple[Any, str] | None] = {state: None}
        layer = [state]
        expand = successor_function(self.simulator)
        for _ in range(self.escape):
            following = []
            for current in layer:
                for action, nxt in expand(current):
                    if nxt in parent:
                        continue
                    parent[nxt] = (current, action)
                    value = self.dist(nxt, goal)
                    if value >= UNREACHABLE:
                        continue  # a dead end for this goal: not worth looking past
                    if value < here:
                        plan, states = _plan_from(parent, nxt)
                        for before, taken in zip(states[:-1], plan, strict=True):
                            self._committed.setdefault(before, taken)
                        return plan[0]
                    following.append(nxt)
            layer = following
        return None

    def __call__(self, state: Any, goal: Any) -> str | None:
        if callable(goal):
            return None
        committed = self._committed.get(state)
        if committed is not None:
            return committed
        here = self.dist(state, goal)
        if here >= UNREACHABLE:
            return None  # the bound rules the goal out: no way is "toward" it
        choice: str | None = None
        choice_key = (here, here)
        step = self.simulator.step
        for action in self.simulator.actions(state):
            nxt = step(state, action)
            key = (self._best_within(nxt, goal, self.lookahead - 1), self.dist(nxt, goal))
            if key[0] < here and key < choice_key:
                choice, choice_key = action, key
        if choice is None and self.escape > self.lookahead and here > 0:
            choice = self._way_out(state, goal, here)
        return choice
