"""MO-COPP as an integer program over a horizon T (book eq. 9.2), solved by HiGHS.

Why an IP: the search (:mod:`.mixed_search`) finds *a* plan meeting bounds ⟨k, j⟩; the IP
finds the plan of at most T steps with the best goal-difference metric, and proves it.

The encoding (after book-spec §8.5, over the listed reachable states of
:class:`~xaip.observers.mixed.StateSpace`):

* ``x[t, τ]`` — the robot takes transition τ = (s, a, s') at step t (t = 0..T−1); every
  state also has a *no-op* transition to itself, so plans shorter than T fit the horizon.
  Decision (documented): the no-op is observable as the reserved token ``"-"`` that no
  real action emits, so observers keep their belief unchanged on it and a padded plan has
  exactly the beliefs of the plan without its no-ops.
* flow: one transition per step, the first leaves the initial state, each starts where the
  last ended, the last ends in a state satisfying the true goal.
* ``o[i, t, ω] = Σ x[t, τ]`` over transitions whose token for observer i is ω.
* ``b[i, t, s]`` — s is in observer i's belief at step t; ``b[i, 0]`` is the initial
  belief; ``w[i, t, τ] = b[i, t, s] ∧ o[i, t, token_i(τ)]`` (three linear inequalities) and
  ``b[i, t+1, s'] = ∨ w[i, t, τ]`` over transitions τ into s' (``≥`` each, ``≤`` the sum).
* ``g[i, G] = ∨ b[i, T, s]`` over states s satisfying G.
* optional bounds: Σ_G g[i, G] ≥ k for adversaries, ≤ j for friends.
* symmetry breaking: no-ops only after the last real step.
* valid cuts: the robot's true state is in every observer's belief.
* only the ``x`` are declared integer: with integral ``x`` the constraints force ``o``,
  ``w``, ``b`` and ``g`` to 0 or 1 (``o`` is a sum of ``x``; ``w`` an AND of 0/1 values;
  ``b`` and ``g`` ORs bounded by 1), so the solver branches on actions only.
* objective: maximise the GD numerator (adversaries' mean goal count minus friends'),
  scaled to integers, minus a tie-break smaller than one unit that prefers fewer real
  steps (so the shortest of the optimal plans is returned).

Variables exist only where they can be non-zero: transitions from states reachable in t
steps that can still reach the true goal in the steps left, belief states reachable from
the initial belief in t steps. That keeps the program at O(T · |transitions| · observers).
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Any

import highspy
import numpy as np

from xaip.observers.mixed import NULL_TOKEN, StateSpace
from xaip.runtime import BudgetClock, Status
from xaip.runtime.highs import quiet_highs

_NOOP = -1
#: HiGHS's MIP presolve does not look at the time limit (6.7 s on a 56 000-row truck
#: program under a 3 s budget); it pays off on small programs (2 940 columns: 3 s with it,
#: 26 s without), so it runs only below this many rows, where it takes well under a second.
PRESOLVE_MAX_ROWS = 20_000




class _Program:
    """Columns and rows of a 0/1 program, collected before handing them to HiGHS."""

    def __init__(self) -> None:
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.cost: list[float] = []
        self.integer: list[int] = []
        self.rows: list[tuple[float, float, list[int], list[float]]] = []

    def var(self, lower: float = 0.0, upper: float = 1.0, integer: bool = False) -> int:
        if integer:
            self.integer.append(len(self.lower))
        self.lower.append(lower)
        self.upper.append(upper)
        self.cost.append(0.0)
        return len(self.lower) - 1

    def row(self, lower: float, upper: float, terms: dict[int, float]) -> None:
        self.rows.append((lower, upper, list(terms), list(terms.values())))

    def solve(self, seconds: float | None, nodes: int | None
              ) -> tuple[str, list[float] | None, float | None]:
        h = quiet_highs()
        n = len(self.lower)
        h.addVars(n, np.array(self.lower), np.array(self.upper))
        idx = np.arange(n, dtype=np.int32)
        if self.integer:
            h.changeColsIntegrality(len(self.integer), np.array(self.integer, dtype=np.int32),
                                    np.array([highspy.HighsVarType.kInteger]
                                             * len(self.integer)))
        h.changeColsCost(n, idx, np.array(self.cost))
        starts: list[int] = []
        indices: list[int] = []
        values: list[float] = []
        lows: list[float] = []
        ups: list[float] = []
        for lower, upper, cols, coefs in self.rows:
            starts.append(len(indices))
            indices.extend(cols)
            values.extend(coefs)
            lows.append(lower)
            ups.append(upper)
        if self.rows:
            h.addRows(len(self.rows), np.array(lows), np.array(ups), len(indices),
                      np.array(starts, dtype=np.int32), np.array(indices, dtype=np.int32),
                      np.array(values))
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        h.setOptionValue("threads", 1)
        h.setOptionValue("presolve", "on" if len(self.rows) <= PRESOLVE_MAX_ROWS else "off")
        if seconds is not None:
            h.setOptionValue("time_limit", max(0.01, seconds))
        if nodes is not None:
            h.setOptionValue("mip_max_nodes", max(1, nodes))
        if seconds is None:
            h.run()
        else:
            # HiGHS checks its time limit only now and then (presolve and probing run on);
            # a solver thread with a user interrupt at the deadline keeps the budget.
            h.HandleUserInterrupt = True
            deadline = time.perf_counter() + max(0.01, seconds)
            h.startSolve()
            while not h.wait(0.02)[0]:
                if time.perf_counter() > deadline:
                    h.cancelSolve()
                    h.wait()
                    break
        status = h.modelStatusToString(h.getModelStatus())
        info = h.getInfo()
        has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
        values_out = list(h.getSolution().col_value) if has_solution else None
        return status, values_out, (info.objective_function_value if has_solution else None)


def solve_ip(space: StateSpace, horizon: int, k: int | None, j: int | None,
             clock: BudgetClock) -> tuple[Status, tuple[int, ...] | None, dict[str, Any]]:
    """The GD-optimal plan of at most ``horizon`` steps: (status, transitions, stats).

    Status ``found`` (proved optimal), ``unsolvable`` (no plan within the horizon meets the
    bounds), or ``budget_exhausted`` (the best plan so far, if any, is returned unproved).
    """
    inputs = space.inputs
    goal = inputs.true_goal
    n_states = len(space.states)
    trans = list(space.transitions) + [(s, _NOOP, s) for s in range(n_states)]
    n_real = len(space.transitions)
    observers = range(len(inputs.observers))

    def token(i: int, t: int) -> Hashable:
        return space.tokens[i][t] if t < n_real else NULL_TOKEN

    out: list[list[int]] = [[] for _ in range(n_states)]
    into: list[list[int]] = [[] for _ in range(n_states)]
    for number, (s, _, s2) in enumerate(trans):
        out[s].append(number)
        into[s2].append(number)
    to_goal = space.distances_to(goal)
    # forward reachability of the robot and of each observer's belief
    robot = [{space.initial}]
    beliefs = [[set(b)] for b in space.initial_beliefs]
    for _ in range(horizon):
        robot.append({trans[t][2] for s in robot[-1] for t in out[s]})
        for i in observers:
            beliefs[i].append({trans[t][2] for s in beliefs[i][-1] for t in out[s]})

    prog = _Program()
    x: list[dict[int, int]] = []
    for t in range(horizon):
        left = horizon - t - 1
        x.append({tr: prog.var(integer=True) for s in robot[t] for tr in out[s]
                  if to_goal[trans[tr][2]] <= left})
    # flow
    for t in range(horizon):
        prog.row(1, 1, {v: 1.0 for v in x[t].values()})
        if t > 0:
            for s in robot[t]:
                terms: dict[int, float] = {}
                for tr in into[s]:
                    if tr in x[t - 1]:
                        terms[x[t - 1][tr]] = 1.0
                for tr in out[s]:
                    if tr in x[t]:
                        terms[x[t][tr]] = terms.get(x[t][tr], 0.0) - 1.0
                if terms:
                    prog.row(0, 0, terms)
    # symmetry breaking: no-ops only at the end (a no-op changes no belief, so moving it
    # later keeps the objective; this removes the equivalent placements of the padding)
    for t in range(1, horizon):
        terms = {v: 1.0 for tr, v in x[t].items() if tr >= n_real}
        for tr, v in x[t - 1].items():
            if tr >= n_real:
                terms[v] = terms.get(v, 0.0) - 1.0
        if terms:
            prog.row(0, np.inf, terms)
    if horizon > 0:
        prog.row(1, 1, {v: 1.0 for tr, v in x[horizon - 1].items()
                        if space.satisfies(trans[tr][2], goal)})
    elif not space.satisfies(space.initial, goal):
        return Status.UNSOLVABLE, None, {"ip_variables": 0, "ip_rows": 0}
    # beliefs
    n_goals = len(inputs.goal_masks)
    g: list[list[int]] = []
    for i in observers:
        b = [{s: prog.var(1.0, 1.0) for s in beliefs[i][0]}]
        for t in range(horizon):
            if not clock.tick():  # building a large program takes seconds too
                return Status.BUDGET_EXHAUSTED, None, {"ip_variables": len(prog.lower),
                                                       "ip_rows": len(prog.rows)}
            o: dict[Hashable, int] = {}
            by_token: dict[Hashable, dict[int, float]] = {}
            for tr, v in x[t].items():
                by_token.setdefault(token(i, tr), {})[v] = 1.0
            for tok, terms in by_token.items():
                o[tok] = prog.var()
                prog.row(0, 0, {**terms, o[tok]: -1.0})
            nxt: dict[int, int] = {}
            feeds: dict[int, list[int]] = {}
            for s, bv in b[t].items():
                for tr in out[s]:
                    ov = o.get(token(i, tr))
                    if ov is None:
                        continue
                    w = prog.var()
                    prog.row(-np.inf, 0, {w: 1.0, bv: -1.0})
                    prog.row(-np.inf, 0, {w: 1.0, ov: -1.0})
                    prog.row(-1, np.inf, {w: 1.0, bv: -1.0, ov: -1.0})
                    feeds.setdefault(trans[tr][2], []).append(w)
            for s2, ws in feeds.items():
                nxt[s2] = prog.var()
                for w in ws:
                    prog.row(0, np.inf, {nxt[s2]: 1.0, w: -1.0})
                prog.row(-np.inf, 0, {nxt[s2]: 1.0, **{w: -1.0 for w in ws}})
                # valid cut: the robot's true state is in every belief (tightens the LP)
                arrive = {x[t][tr]: -1.0 for tr in into[s2] if tr in x[t]}
                if arrive:
                    prog.row(0, np.inf, {nxt[s2]: 1.0, **arrive})
            b.append(nxt)
        row = []
        for goal_index in range(n_goals):
            gv = prog.var()
            holders = [bv for s, bv in b[horizon].items() if space.satisfies(s, goal_index)]
            for bv in holders:
                prog.row(0, np.inf, {gv: 1.0, bv: -1.0})
            prog.row(-np.inf, 0, {gv: 1.0, **{bv: -1.0 for bv in holders}})
            row.append(gv)
        g.append(row)
        role = inputs.observers[i].role
        if role == "adversary" and k is not None:
            prog.row(k, np.inf, {v: 1.0 for v in row})
        if role == "friend" and j is not None:
            prog.row(-np.inf, j, {v: 1.0 for v in row})
    # objective: integer-scaled GD numerator, then fewer real steps
    n_adv, n_fri = len(inputs.adversaries), len(inputs.friends)
    for i in observers:
        weight = float(max(1, n_fri)) if inputs.observers[i].role == "adversary" \
            else -float(max(1, n_adv))
        for v in g[i]:
            prog.cost[v] = weight
    penalty = 1.0 / (2 * (horizon + 1))
    for t in range(horizon):
        for tr, v in x[t].items():
            if tr < n_real:
                prog.cost[v] = -penalty
    stats: dict[str, Any] = {"ip_variables": len(prog.lower), "ip_rows": len(prog.rows)}
    if not clock.tick():
        return Status.BUDGET_EXHAUSTED, None, stats
    remaining = clock.remaining()
    status, values, objective = prog.solve(remaining.max_seconds, remaining.max_nodes)
    stats["ip_status"] = status
    if status == "Infeasible":
        return Status.UNSOLVABLE, None, stats
    if values is None:
        return Status.BUDGET_EXHAUSTED, None, stats
    path = []
    for t in range(horizon):
        chosen = [tr for tr, v in x[t].items() if values[v] > 0.5]
        if chosen and chosen[0] < n_real:
            path.append(chosen[0])
    if objective is not None:
        stats["ip_objective"] = round(objective, 6)
    return (Status.FOUND if status == "Optimal" else Status.BUDGET_EXHAUSTED), tuple(path), stats
