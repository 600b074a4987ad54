"""The observers' checker's own world: states as sets of atom strings, its own progression,
belief update and plan counting.

Why a separate world: the checker (:mod:`xaip.observers.check`) must not reuse the search's
bitset states, successor cache grouped by token, belief tracker or BPS dynamic programme.
Everything here is re-derived from the ground actions' preconditions and effects read as
atom strings, and every token from the observation rules evaluated on those atom sets
(:meth:`~xaip.observers.sensors.ObservationModel.observe_atoms`, separate code from the
search's bitset evaluator).

What it shares with the search: the grounded action list (which actions exist and what
they cost -- grounding priced each by :mod:`xaip.planning.semantics`) and the parsed
observation rules; a sensor given as a Python function
(:meth:`~xaip.observers.sensors.ObservationModel.from_function`) has no atom-level form, so
it is called on the bit mask of the checker's state: then the sensor itself is shared.

Budget: the world runs under the checker's clock. Generating a state's moves reads the
clock (:meth:`BudgetClock.tick`); the exhaustive searches of :mod:`.check_search` charge
one node per expansion, as the COPP search does. Running out raises
:class:`~xaip.errors.BudgetExhausted`, which :func:`xaip.contract.run_checker` reports as
"unverified: checker budget".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from xaip.errors import BudgetExhausted
from xaip.observers.goals import Goal
from xaip.observers.problem import ObserverProblem
from xaip.observers.sensors import Token
from xaip.planning.task import Task, bits
from xaip.runtime import BudgetClock

AtomState = frozenset[str]
#: A move: the step, the state it leads to and the token the observer receives (the raw
#: token: two tokens that merely print alike, such as ``(True,)`` and ``("yes",)``, differ).
Move = tuple["Step", AtomState, Token]


@dataclass(frozen=True)
class Step:
    """One ground action as atom sets."""

    name: str
    schema: str
    args: tuple[str, ...]
    pre: frozenset[str]
    neg: frozenset[str]
    add: frozenset[str]
    delete: frozenset[str]
    cost: int
    conditional: tuple[tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]], ...]

    def applicable(self, state: AtomState) -> bool:
        return self.pre <= state and not (self.neg & state)

    def apply(self, state: AtomState) -> AtomState:
        add, delete = set(self.add), set(self.delete)
        for cond_pos, cond_neg, c_add, c_del in self.conditional:
            if cond_pos <= state and not (cond_neg & state):
                add |= c_add
                delete |= c_del
        return frozenset((state - delete) | add)


def atoms_of(task: Task, mask: int) -> frozenset[str]:
    return frozenset(str(task.facts[i]).lower() for i in bits(mask))


_STEPS: dict[int, tuple[Task, list[Step]]] = {}


def steps_of(task: Task) -> list[Step]:
    """The task's ground actions as atom sets, converted once per task (the conversion
    dominates the check of a small answer; a few recent tasks are kept)."""
    found = _STEPS.get(id(task))
    if found is not None and found[0] is task:
        return found[1]
    steps = [
        Step(a.name.lower(), a.schema.lower(), tuple(x.lower() for x in a.args),
             atoms_of(task, a.pre), atoms_of(task, a.neg_pre), atoms_of(task, a.add),
             atoms_of(task, a.delete), int(a.cost),
             tuple((atoms_of(task, c.cond_pos), atoms_of(task, c.cond_neg),
                    atoms_of(task, c.add), atoms_of(task, c.delete))
                   for c in a.conditional))
        for a in task.actions]
    if len(_STEPS) >= 8:
        _STEPS.pop(next(iter(_STEPS)))
    _STEPS[id(task)] = (task, steps)
    return steps


class World:
    """The task's actions and states as atom strings, for one observer (no bitsets past
    the constructor)."""

    def __init__(self, problem: ObserverProblem, clock: BudgetClock) -> None:
        task = problem.task
        self.problem = problem
        self.clock = clock
        self.steps = steps_of(task)
        self.by_name = {s.name: s for s in self.steps}
        self._index = {s.name: i for i, s in enumerate(self.steps)}
        self._atom_objects = {str(f).lower(): f for f in task.facts}
        self.statics = frozenset(str(f).lower() for f in task.static_facts)
        self.init = atoms_of(task, task.init)
        initial = problem.initial or frozenset({task.init})
        self.starts: frozenset[AtomState] = frozenset(atoms_of(task, s) for s in initial)
        self._tokens: dict[tuple[str, AtomState], Token] = {}
        self._moves: dict[AtomState, tuple[Move, ...]] = {}
        self._updates: dict[tuple[frozenset[AtomState], Token], frozenset[AtomState]] = {}

    # ------------------------------------------------------------------ one state

    def tick(self) -> None:
        if not self.clock.tick():
            raise BudgetExhausted("the checker's budget ran out", phase="checker")

    def charge(self) -> None:
        if not self.clock.charge():
            raise BudgetExhausted("the checker's budget ran out", phase="checker")

    def token(self, step: Step, state: AtomState) -> Token:
        key = (step.name, state)
        found = self._tokens.get(key)
        if found is None:
            model = self.problem.model
            if model.function is not None:
                # a sensor given as a Python function has no atom-level form: it is called
                # on the state's bit mask (the one place a function model is shared)
                task = self.problem.task
                action = task.actions[self._index[step.name]]
                found = model.observe(action, task.state_of(
                    self._atom_objects[a] for a in state if a in self._atom_objects))
            else:
                found = model.observe_atoms(step.schema, step.args, state)  # adds statics
            self._tokens[key] = found
        return found

    def moves(self, state: AtomState) -> tuple[Move, ...]:
        """Every applicable step from ``state``, where it leads and what the observer sees."""
        found = self._moves.get(state)
        if found is None:
            self.tick()
            out = []
            for step in self.steps:
                if step.applicable(state):
                    nxt = step.apply(state)
                    out.append((step, nxt, self.token(step, nxt)))
            found = self._moves[state] = tuple(out)
        return found

    def holds(self, goal: Goal, state: AtomState) -> bool:
        return goal.reachable and set(goal.atoms) <= (state | self.statics)

    def goals_left(self, belief: Iterable[AtomState]) -> tuple[str, ...]:
        """The candidate goals some state of ``belief`` satisfies (in goal order)."""
        members = list(belief)
        return tuple(g.name for g in self.problem.goals.goals
                     if any(self.holds(g, s) for s in members))

    # ------------------------------------------------------------------ beliefs

    def update(self, belief: frozenset[AtomState], token: Token) -> frozenset[AtomState]:
        """Book Def. 11: every state a move emitting ``token`` reaches from ``belief``."""
        key = (belief, token)
        found = self._updates.get(key)
        if found is None:
            found = frozenset(nxt for s in belief for _, nxt, seen in self.moves(s)
                              if seen == token)
            self._updates[key] = found
        return found

    def advance(self, counts: dict[AtomState, int], token: Token) -> dict[AtomState, int]:
        """One token further: how many consistent action sequences end in each state."""
        out: dict[AtomState, int] = {}
        for state, ways in counts.items():
            for _, nxt, seen in self.moves(state):
                if seen == token:
                    out[nxt] = out.get(nxt, 0) + ways
        return out

    def layers(self, tokens: Sequence[Token]) -> list[dict[AtomState, int]]:
        """``layers[i][s]``: the action sequences from the initial belief that emit the
        first ``i`` tokens and end in ``s`` (so ``layers[i]``'s keys are the belief
        ``b_i`` and the last layer's values sum to |BPS|)."""
        out = [dict.fromkeys(self.starts, 1)]
        for token in tokens:
            out.append(self.advance(out[-1], token))
        return out

    def listing(self, tokens: Sequence[Token], layers: Sequence[dict[AtomState, int]]
                ) -> list[tuple[AtomState, tuple[str, ...], AtomState]]:
        """Every consistent sequence (start, action names, end): depth first through the
        states that can still finish the tokens (the caller bounds |BPS| first)."""
        n = len(tokens)
        alive: list[set[AtomState]] = [set() for _ in range(n + 1)]
        alive[n] = set(layers[n])
        for i in range(n - 1, -1, -1):
            alive[i] = {s for s in layers[i]
                        if any(seen == tokens[i] and nxt in alive[i + 1]
                               for _, nxt, seen in self.moves(s))}
        found = []
        for start in sorted(alive[0], key=sorted):
            stack: list[tuple[AtomState, tuple[str, ...]]] = [(start, ())]
            while stack:
                self.tick()
                state, names = stack.pop()
                depth = len(names)
                if depth == n:
                    found.append((start, names, state))
                    continue
                for step, nxt, seen in self.moves(state):
                    if seen == tokens[depth] and nxt in alive[depth + 1]:
                        stack.append((nxt, (*names, step.name)))
        return found

    def cheapest_along(self, tokens: Sequence[Token], goal: Goal
                       ) -> tuple[int, tuple[str, ...]] | None:
        """The cheapest sequence from the real initial state that emits ``tokens`` and
        ends where ``goal`` holds (cost, action names); ``None`` when there is none."""
        best: dict[AtomState, tuple[int, tuple[str, ...]]] = {self.init: (0, ())}
        for token in tokens:
            after: dict[AtomState, tuple[int, tuple[str, ...]]] = {}
            for state, (cost, names) in best.items():
                for step, nxt, seen in self.moves(state):
                    if seen == token:
                        found = (cost + step.cost, (*names, step.name))
                        if nxt not in after or found[0] < after[nxt][0]:
                            after[nxt] = found
            best = after
        ends = [found for state, found in best.items() if self.holds(goal, state)]
        return min(ends, key=lambda f: f[0]) if ends else None
