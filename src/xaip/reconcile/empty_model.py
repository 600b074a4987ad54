"""The minimally complete explanation against an *empty* human model (plan visualisation,
book-spec section 9.6, feature A06), found directly instead of by model-space search.

Why a search of its own: against the empty model every feature of the robot's model is a
candidate (41 on the bundled 5-block blocksworld) and the MCE is large (11 edits there).
MEGA's uniform-cost search must reject every edit set smaller than the answer before it
reaches it -- over a hundred million sets -- so ``xaip explain DOMAIN empty PROBLEM``
exhausted any budget. But against an empty model the question has a simple shape: every
edit *adds* one feature of the robot's model, and whether a *fixed* action sequence is
valid after a set of such additions is a small Boolean formula of the chosen features (the
truth of each fact step by step: an initial-fact feature, then "added by an add-effect
feature of this step, or true before and not deleted by a delete-effect feature"; each
precondition and goal feature chosen must hold where it applies).

So the explanation is found by *counterexample-guided* search (implicit hitting sets):

1. solve a 0/1 program: choose the fewest features (edit costs first, then size) such
   that the robot's plan is valid and every cheaper plan collected so far is invalid --
   both written exactly as the formula above;
2. ask the MCE goal test (cost-bounded optimal planning in the updated model) whether a
   plan cheaper than the robot's exists there; if not, the choice is the answer, else the
   cheaper plan joins the collection and step 1 runs again.

Each program is a *relaxation* of the MCE problem (it knows only some of the plans that
must fail), so its optimum never exceeds the MCE's cost; the first choice the goal test
accepts is therefore a minimum one. Costs are not candidates (the empty model keeps the
robot's costs), so a collected plan stays cheaper in every model.

What it shares: the compiled model space and the MCE goal test of :mod:`.goals` (the same
ones the general search uses). The answer goes through the family's checker
(:mod:`.check_explanation`) like every MCE: completeness by A* with the certified LM-cut
(LM-cut's cuts verified before they count) on the checker's own task and minimality by
its own branch-and-bound (:mod:`.check_minimal`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xaip.planning.features import FeatureKind
from xaip.planning.pddl.model import Atom
from xaip.reconcile.goals import GoalTest, _execute
from xaip.reconcile.search import SearchOutcome
from xaip.reconcile.space import ModelSpace
from xaip.runtime import Budget, BudgetClock, Status
from xaip.runtime.highs import quiet_highs

_K = FeatureKind
#: The feature kinds the 0/1 program reads; any other candidate (a cost, a numeric
#: initial value) leaves the general search in charge.
KINDS = frozenset({_K.PRECONDITION, _K.NEGATIVE_PRECONDITION, _K.ADD_EFFECT,
                   _K.DELETE_EFFECT, _K.INIT, _K.GOAL, _K.NEGATIVE_GOAL})

#: A literal of the program: a 0/1 constant, or (column, negated).
Literal = bool | tuple[int, bool]


def applies(space: ModelSpace) -> bool:
    """Is ``space`` an empty human model with lifted edits this search can read? (The
    human model has no precondition, effect, initial fact or goal; every candidate adds
    one such feature of the robot's model; the models compile to STRIPS-like tasks.)"""
    if not space.compiled or space.grounded:
        return False
    if any(f.kind is not _K.COST for f in space.human_features):
        return False
    return all(c.instance is None and c.edit.op == "add" and c.edit.feature.kind in KINDS
               for c in space.candidates)


@dataclass
class _Program:
    """A 0/1 program in row form: the candidates' columns first, then auxiliary ones."""

    columns: int
    rows: list[tuple[float, float, dict[int, float]]] = field(default_factory=list)

    def new(self) -> int:
        self.columns += 1
        return self.columns - 1

    def row(self, lower: float, upper: float, terms: dict[int, float]) -> None:
        self.rows.append((lower, upper, terms))


class _Encoder:
    """Writes "this action sequence is valid after the chosen additions" as rows."""

    def __init__(self, space: ModelSpace) -> None:
        self.space = space
        self.by_action: dict[str, list[int]] = {}
        self.init: dict[Atom, list[int]] = {}
        self.goals: list[tuple[int, Atom, bool]] = []
        for index, candidate in enumerate(space.candidates):
            feature = candidate.lifted.feature
            assert feature.atom is not None
            if feature.action:
                self.by_action.setdefault(feature.action, []).append(index)
            elif feature.kind is _K.INIT:
                self.init.setdefault(feature.atom, []).append(index)
            else:
                self.goals.append((index, feature.atom, feature.kind is _K.NEGATIVE_GOAL))

    def _ground(self, index: int, args: tuple[str, ...]) -> Atom:
        feature = self.space.candidates[index].lifted.feature
        assert feature.atom is not None
        mapping = dict(zip(feature.parameters, args, strict=True))
        return Atom(feature.atom.predicate, tuple(mapping.get(a, a) for a in feature.atom.args))

    def conditions(self, program: _Program, steps: Sequence[str]
                   ) -> list[tuple[int, Literal, bool]]:
        """Every (candidate, truth of its fact where it applies, negative?) of ``steps``:
        the plan is valid exactly when each chosen candidate's condition holds."""
        parsed = [(name.split()[0], tuple(name.split()[1:])) for name in steps]
        adds: list[dict[Atom, list[int]]] = []
        deletes: list[dict[Atom, list[int]]] = []
        needs: list[list[tuple[int, Atom, bool]]] = []
        for schema, args in parsed:
            add: dict[Atom, list[int]] = {}
            delete: dict[Atom, list[int]] = {}
            need: list[tuple[int, Atom, bool]] = []
            for index in self.by_action.get(schema, ()):
                kind = self.space.candidates[index].lifted.feature.kind
                if len(self.space.candidates[index].lifted.feature.parameters) != len(args):
                    continue
                atom = self._ground(index, args)
                if kind is _K.ADD_EFFECT:
                    add.setdefault(atom, []).append(index)
                elif kind is _K.DELETE_EFFECT:
                    delete.setdefault(atom, []).append(index)
                else:
                    need.append((index, atom, kind is _K.NEGATIVE_PRECONDITION))
            adds.append(add)
            deletes.append(delete)
            needs.append(need)
        memo: dict[tuple[Atom, int], Literal] = {}

        def holds(atom: Atom, time: int) -> Literal:
            """The fact's truth before step ``time`` (``len(steps)``: at the end)."""
            if atom.predicate == "=":
                return atom.args[0] == atom.args[1]
            key = (atom, time)
            if key in memo:
                return memo[key]
            if time == 0:
                value = _or(program, [(i, False) for i in self.init.get(atom, ())])
            else:
                before = holds(atom, time - 1)
                kept = _and(program, [before, *((i, True) for i in
                                                deletes[time - 1].get(atom, ()))])
                value = _or(program, [*((i, False) for i in adds[time - 1].get(atom, ())),
                                      kept])
            memo[key] = value
            return value

        out = [(index, holds(atom, time), negative)
               for time, need in enumerate(needs) for index, atom, negative in need]
        end = len(steps)
        out += [(index, holds(atom, end), negative) for index, atom, negative in self.goals]
        return out

    def valid(self, program: _Program, steps: Sequence[str]) -> None:
        """Rows: every chosen condition of ``steps`` holds (the plan stays valid)."""
        for index, value, negative in self.conditions(program, steps):
            wanted = _not(value) if negative else value
            program.row(-1e9, 0, _terms([((index, False), 1)], [(wanted, -1)]))

    def invalid(self, program: _Program, steps: Sequence[str]) -> None:
        """Rows: some chosen condition of ``steps`` fails (that plan is ruled out)."""
        broken = []
        for index, value, negative in self.conditions(program, steps):
            failing = value if negative else _not(value)
            broken.append(_and(program, [(index, False), failing]))
        program.row(1, 1e9, _terms([], [(b, 1) for b in broken]))


def _not(literal: Literal) -> Literal:
    if isinstance(literal, bool):
        return not literal
    return literal[0], not literal[1]


def _terms(plain: list[tuple[Literal, float]], more: list[tuple[Literal, float]]
           ) -> dict[int, float]:
    """Linear terms of ``sum(weight * literal)``; constants go to key -1 (the caller's
    bounds take them in through :func:`_bounded`)."""
    terms: dict[int, float] = {}
    for literal, weight in [*plain, *more]:
        if isinstance(literal, bool):
            terms[-1] = terms.get(-1, 0) + (weight if literal else 0)
        else:
            column, negated = literal
            if negated:  # weight * (1 - x)
                terms[-1] = terms.get(-1, 0) + weight
                terms[column] = terms.get(column, 0) - weight
            else:
                terms[column] = terms.get(column, 0) + weight
    return terms


def _and(program: _Program, literals: Sequence[Literal]) -> Literal:
    if any(lit is False for lit in literals):
        return False
    rest = [lit for lit in literals if lit is not True]
    if not rest:
        return True
    if len(rest) == 1:
        return rest[0]
    column = program.new()
    for lit in rest:  # z <= lit
        program.row(-1e9, 0, _terms([((column, False), 1)], [(lit, -1)]))
    # z >= sum(lit) - (k - 1)
    program.row(-1e9, len(rest) - 1, _terms([((column, False), -1)], [(lit, 1) for lit in rest]))
    return column, False


def _or(program: _Program, literals: Sequence[Literal]) -> Literal:
    return _not(_and(program, [_not(lit) for lit in literals]))


def _solve(program: _Program, weights: Sequence[int], seconds: float | None
           ) -> tuple[int, ...] | None:
    """The chosen candidates of an optimal solution; ``None`` when there is none in time
    (or the program is infeasible)."""
    import highspy
    import numpy as np

    highs = quiet_highs()
    n = program.columns
    highs.addVars(n, np.zeros(n), np.ones(n))
    # only the candidates are integer: every auxiliary column is an AND of literals with
    # both of its bounds written (see _and), so it is 0 or 1 whenever the candidates are
    chosen_columns = len(weights)
    highs.changeColsIntegrality(chosen_columns, np.arange(chosen_columns, dtype=np.int32),
                                np.array([highspy.HighsVarType.kInteger] * chosen_columns))
    cost = np.zeros(n)
    cost[:len(weights)] = weights
    highs.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
    for lower, upper, terms in program.rows:
        constant = terms.pop(-1, 0)
        columns = np.array(list(terms), dtype=np.int32)
        highs.addRow(lower - constant, upper - constant, len(columns), columns,
                     np.array(list(terms.values()), dtype=float))
    highs.setOptionValue("threads", 1)
    highs.setOptionValue("mip_rel_gap", 0.0)
    if seconds is not None:
        highs.setOptionValue("time_limit", max(0.01, seconds))
    highs.run()
    if highs.modelStatusToString(highs.getModelStatus()) != "Optimal":
        return None
    values = highs.getSolution().col_value
    return tuple(i for i in range(len(weights)) if values[i] > 0.5)




def empty_model_mce(space: ModelSpace, test: GoalTest, plan: Sequence[str], budget: Budget,
                    progress: Callable[[int, int], None] | None = None) -> SearchOutcome:
    """The cheapest edit set (edit cost, then size) after which ``test`` (MCE's optimality
    test) accepts ``plan`` in the empty human model of ``space`` (see the module
    docstring). Status ``found``, ``budget_exhausted`` (the clock ran out, or the goal test
    was undecided) or ``no_explanation`` (no set of features makes the plan valid and
    optimal). ``nodes`` counts the programs solved."""
    clock = budget.start()
    encoder = _Encoder(space)
    count = len(space.candidates)
    # edit cost first, then the number of edits: cost * (count + 1) + 1 per edit
    weights = [space.edit_costs[i] * (count + 1) + 1 for i in range(count)]
    collected: list[tuple[str, ...]] = []
    refused: list[tuple[int, ...]] = []
    nodes = 0
    floor = 0
    while True:
        if not clock.charge(1):
            return SearchOutcome(Status.BUDGET_EXHAUSTED, (), nodes, nodes)
        nodes += 1
        program = _Program(count)
        encoder.valid(program, plan)
        for steps in collected:
            encoder.invalid(program, steps)
        for subset in refused:  # goal-test refusals without a cheaper plan to point at
            program.row(1, 1e9, _terms([], [((i, i in subset), 1) for i in range(count)]))
        if floor:  # every later program is this one plus rows: its optimum never drops
            program.row(floor, 1e9, {i: float(w) for i, w in enumerate(weights)})
        left = clock.remaining().max_seconds
        chosen = _solve(program, weights, left)
        if chosen is None:
            if clock.out_of_time():
                return SearchOutcome(Status.BUDGET_EXHAUSTED, (), nodes, nodes)
            return SearchOutcome(Status.NO_EXPLANATION, (), nodes, nodes)
        floor = sum(weights[i] for i in chosen)
        if progress is not None:
            progress(nodes, len(chosen))
        verdict = test(chosen)
        if verdict.undecided:
            return SearchOutcome(Status.BUDGET_EXHAUSTED, chosen, nodes, nodes)
        if verdict.explained:
            return SearchOutcome(Status.FOUND, chosen, nodes, nodes)
        if verdict.valid and verdict.alternative is not None:
            assert verdict.plan_cost is not None
            found = _grow(space, test, chosen, tuple(a.name for a in verdict.alternative),
                          verdict.plan_cost, clock)
            fresh = [names for names in found[-1:] if names not in collected]
            if fresh:
                collected.extend(fresh)
                continue
        refused.append(chosen)  # the formula and the test disagree here: exclude the set


#: Restrictions tried when growing a cheaper plan, in this order: goal facts first (a plan
#: that reaches more of the goal is harder to rule out), then conditions, then deletes.
_GROW_ORDER = (_K.GOAL, _K.NEGATIVE_GOAL, _K.PRECONDITION, _K.NEGATIVE_PRECONDITION,
               _K.DELETE_EFFECT)


def _grow(space: ModelSpace, test: GoalTest, chosen: tuple[int, ...], cheaper: tuple[str, ...],
          bound: int, clock: BudgetClock) -> list[tuple[str, ...]]:
    """Cheaper plans that survive as many further restrictions as possible.

    Why: the cheapest plan of the chosen model is usually short and ruled out by one more
    goal fact, so each round would learn little. Adding restrictions (goal facts,
    preconditions, deletes) one at a time while *some* plan cheaper than ``bound`` stays
    valid yields a plan that only an edit outside those restrictions can break -- a much
    stronger cut. Every plan returned is a real plan cheaper than ``bound`` in a model of
    the space (simulated or found by the goal test's planner), so every cut stays a
    necessary condition; the growing only chooses which ones."""
    planner = getattr(test, "planner", None)
    found = [cheaper]
    if planner is None:
        return found
    current = set(chosen)
    order = sorted((i for i in range(len(space.candidates)) if i not in current
                    and space.candidates[i].lifted.feature.kind in _GROW_ORDER),
                   key=lambda i: (_GROW_ORDER.index(space.candidates[i].lifted.feature.kind), i))
    for index in order:
        if clock.out_of_time():
            break
        trial = tuple(sorted((*current, index)))
        valid, cost, _, _ = _execute(space.plan_task(trial, found[-1]), found[-1])
        if valid and cost is not None and cost < bound:
            current.add(index)
            continue
        status, plan, _ = planner.cheaper_plan(space.task(trial), bound)
        if status == "solved":
            current.add(index)
            found.append(tuple(a.name for a in plan))
    return found
