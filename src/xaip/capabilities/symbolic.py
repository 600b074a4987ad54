"""The AIA setting: a symbolic agent hiding a PDDL model, and learning that model by queries.

:class:`SymbolicAgent` knows a STRIPS domain (with negative preconditions) and shows the
learner only what AIA assumes public: the predicates, the action names with their typed
parameters, the objects, and answers to *plan-outcome queries* — "from state s, execute
this plan": how many steps succeeded, and the states they led to. Any set of ground atoms
is a state the agent can be put in.

:func:`learn_model` learns each action's preconditions and effects with few queries:

1. bind the action's parameters to distinct objects, and find one state where it
   succeeds (all atoms over the parameters true; else all false; else seeded guesses);
2. *adaptive group testing* on the precondition: flip a group of atoms of the succeeding
   state; success clears the whole group (and shows the effects on both truth values),
   failure splits the group — so ``k`` needed literals among ``n`` atoms cost about
   ``k·log2(n/k)`` queries instead of ``n``;
3. effects are read from the states after each success.

What no query can observe is reported, not guessed: an effect that re-asserts its own
precondition (``pre p`` and ``add p``) looks exactly like no effect -- unless a delete of
the same action can ground to the same atom under a binding of non-distinct objects; then
one query with that binding decides it (the add wins over the delete) -- and atoms that
repeat a parameter (``(on ?x ?x)``) are not considered.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from xaip.capabilities.candidates import (
    ABSENT,
    NEG,
    POS,
    eff_modes_allowed,
    pre_modes_allowed,
)
from xaip.errors import InputError, UnsupportedFeature
from xaip.planning.pddl.model import (
    OBJECT,
    Action,
    And,
    AndEffect,
    Atom,
    Condition,
    Domain,
    Effect,
    Increase,
    Not,
    Problem,
    TypedName,
)
from xaip.planning.pddl.writer import write_domain
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.status import Status

State = frozenset[Atom]
Step = tuple[str, tuple[str, ...]]


@dataclass(frozen=True)
class _Schema:
    name: str
    params: tuple[TypedName, ...]
    pre_pos: tuple[Atom, ...]
    pre_neg: tuple[Atom, ...]
    distinct: tuple[tuple[str, str], ...]  # (not (= ?x ?y)) constraints
    add: tuple[Atom, ...]
    delete: tuple[Atom, ...]


def condition_literals(condition: Condition, where: str) -> tuple[list[Atom], list[Atom],
                                                          list[tuple[str, str]]]:
    pos: list[Atom] = []
    neg: list[Atom] = []
    distinct: list[tuple[str, str]] = []
    parts = condition.operands if isinstance(condition, And) else (condition,)
    for part in parts:
        if isinstance(part, And):
            p, n, d = condition_literals(part, where)
            pos += p
            neg += n
            distinct += d
        elif isinstance(part, Atom):
            if part.predicate == "=":
                raise UnsupportedFeature(f"{where}: positive equality is not supported")
            pos.append(Atom(part.predicate, part.args))
        elif isinstance(part, Not) and isinstance(part.operand, Atom):
            atom = part.operand
            if atom.predicate == "=":
                distinct.append((atom.args[0], atom.args[1]))
            else:
                neg.append(Atom(atom.predicate, atom.args))
        else:
            raise UnsupportedFeature(
                f"{where}: only conjunctions of literals are supported in preconditions "
                "(the AIA setting is STRIPS with negative preconditions)")
    return pos, neg, distinct


def effect_literals(effect: Effect, where: str) -> tuple[list[Atom], list[Atom]]:
    add: list[Atom] = []
    delete: list[Atom] = []
    parts = effect.operands if isinstance(effect, AndEffect) else (effect,)
    for part in parts:
        if isinstance(part, AndEffect):
            a, d = effect_literals(part, where)
            add += a
            delete += d
        elif isinstance(part, Atom):
            add.append(Atom(part.predicate, part.args))
        elif isinstance(part, Not) and isinstance(part.operand, Atom):
            delete.append(Atom(part.operand.predicate, part.operand.args))
        elif isinstance(part, Increase):
            continue  # action costs are not observable through plan outcomes
        else:
            raise UnsupportedFeature(
                f"{where}: only add and delete effects are supported (no conditional, "
                "universal or probabilistic effects)")
    return add, delete


@dataclass(frozen=True)
class PlanOutcome:
    """The answer to a plan-outcome query: how many steps succeeded, and the states
    (the start state first, then one per successful step)."""

    executed: int
    states: tuple[State, ...]


class SymbolicAgent:
    """An agent that acts by a hidden PDDL model (see the module docstring)."""

    def __init__(self, domain: Domain, problem: Problem) -> None:
        self.name = domain.name
        self._below = domain.subtypes_closure()
        schemas = []
        for action in domain.actions:
            where = f"action {action.name}"
            pos, neg, distinct = condition_literals(action.precondition, where)
            add, delete = effect_literals(action.effect, where)
            schemas.append(_Schema(action.name, action.parameters, tuple(pos), tuple(neg),
                                   tuple(distinct), tuple(add), tuple(delete)))
        self._schemas = {s.name: s for s in schemas}
        # ---- public information
        self.domain_name = domain.name
        self.requirements = domain.requirements
        self.types = domain.types
        self.constants = domain.constants
        self.predicates = domain.predicates
        self.actions: tuple[tuple[str, tuple[TypedName, ...]], ...] = tuple(
            (a.name, a.parameters) for a in domain.actions)
        objects: dict[str, str] = {}
        for typed in (*domain.constants, *problem.objects):
            objects.setdefault(typed.name, typed.type)
        self.objects = objects
        self.init: State = frozenset(Atom(a.predicate, a.args) for a in problem.init)
        self.queries = 0
        #: The learner's budget: every query charges one node (see :func:`learn_model`).
        self.clock: BudgetClock | None = None

    def is_a(self, obj: str, typ: str) -> bool:
        """Whether object ``obj`` has type ``typ`` (or a subtype of it)."""
        have = self.objects.get(obj)
        return have is not None and (typ == OBJECT or have in self._below.get(typ, {typ}))

    def execute(self, state: Iterable[Atom], plan: Sequence[Step]) -> PlanOutcome:
        """Answer a plan-outcome query (one query, however long the plan)."""
        if self.clock is not None and (not self.clock.charge() or self.clock.out_of_time()):
            raise _OutOfQueries
        self.queries += 1
        current = frozenset(state)
        states = [current]
        for name, args in plan:
            schema = self._schemas.get(name)
            if schema is None or len(args) != len(schema.params):
                break
            if not all(self.is_a(o, p.type) for o, p in zip(args, schema.params, strict=True)):
                break
            binding = {p.name: o for p, o in zip(schema.params, args, strict=True)}

            def ground(atom: Atom, b: dict[str, str] = binding) -> Atom:
                return Atom(atom.predicate, tuple(b.get(t, t) for t in atom.args))

            if any(ground(a) not in current for a in schema.pre_pos) or \
                    any(ground(a) in current for a in schema.pre_neg) or \
                    any(binding.get(x, x) == binding.get(y, y) for x, y in schema.distinct):
                break
            out = set(current)
            out.difference_update(ground(a) for a in schema.delete)
            out.update(ground(a) for a in schema.add)
            current = frozenset(out)
            states.append(current)
        return PlanOutcome(len(states) - 1, tuple(states))


# --------------------------------------------------------------------------- learning


@dataclass(frozen=True)
class LearnedAction:
    """What was learned about one action: modes per atom, and what stayed unobservable."""

    name: str
    parameters: tuple[TypedName, ...]
    pre: tuple[tuple[Atom, str], ...]
    eff: tuple[tuple[Atom, str], ...]
    queries: int
    unobservable: tuple[str, ...] = ()
    executed: bool = True

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "parameters": [f"{p.name} - {p.type}" for p in self.parameters],
            "preconditions": [f"{m}{a}" for a, m in self.pre if m != ABSENT],
            "effects": [f"{m}{a}" for a, m in self.eff if m != ABSENT],
            "queries": self.queries,
            "unobservable": list(self.unobservable),
            "executed": self.executed,
        }


@dataclass(frozen=True)
class LearnedModel:
    """The learned domain and the cost of learning it (an explainer result: see
    :mod:`xaip.contract`; ``verified`` is set by :func:`xaip.capabilities.checks.check`).
    When the budget ran out, ``domain`` holds only the actions learned by then."""

    domain: Domain
    actions: tuple[LearnedAction, ...]
    queries: int
    seconds: float
    pddl: str = field(repr=False)
    status: Status = Status.COMPLETE
    verified: bool = False

    @property
    def stats(self) -> dict[str, int | float]:
        return {"queries": self.queries, "actions": len(self.actions),
                "seconds_per_query": self.seconds_per_query}

    @property
    def seconds_per_query(self) -> float:
        return self.seconds / self.queries if self.queries else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": str(self.status),
            "verified": self.verified,
            "stats": self.stats,
            "domain": self.domain.name,
            "queries": self.queries,
            "seconds": self.seconds,
            "seconds_per_query": self.seconds_per_query,
            "actions": [a.to_dict() for a in self.actions],
            "pddl": self.pddl,
        }


def _compatible(below: dict[str, frozenset[str]], term_type: str, arg_type: str) -> bool:
    if OBJECT in (term_type, arg_type):
        return True
    return term_type in below.get(arg_type, frozenset({arg_type})) or \
        arg_type in below.get(term_type, frozenset({term_type}))


def action_atoms(predicates: Sequence[Any], params: Sequence[TypedName],
                 constants: Sequence[TypedName], below: dict[str, frozenset[str]]) \
        -> list[Atom]:
    """Every atom over the action's parameters and the domain's constants whose terms fit
    the predicate's argument types, with no term repeated (AIA's PAL atoms)."""
    terms = [(p.name, p.type) for p in params] + [(c.name, c.type) for c in constants]
    out: list[Atom] = []
    for pred in predicates:
        pools = [[t for t, typ in terms if _compatible(below, typ, arg.type)]
                 for arg in pred.parameters]
        for args in itertools.product(*pools):
            if len(set(args)) == len(args):
                out.append(Atom(pred.name, tuple(args)))
    return out


class _ActionLearner:
    """Learns one action schema by plan-outcome queries."""

    def __init__(self, agent: SymbolicAgent, name: str, params: tuple[TypedName, ...],
                 rng: random.Random, max_probes: int) -> None:
        self.agent = agent
        self.name = name
        self.params = params
        self.rng = rng
        self.max_probes = max_probes
        below = agent._below  # noqa: SLF001 - the type hierarchy is public information
        self.atoms = action_atoms(agent.predicates, params, agent.constants, below)
        self.pre: dict[Atom, set[str]] = {a: {POS, NEG, ABSENT} for a in self.atoms}
        self.eff: dict[Atom, set[str]] = {a: {POS, NEG, ABSENT} for a in self.atoms}
        self.queries = 0
        self.binding = self._bind()
        self.probed: set[frozenset[Atom]] = set()
        self.found: tuple[set[Atom], State] | None = None
        #: Re-asserted preconditions shown to matter by an aliased query (kept as adds).
        self.kept: set[Atom] = set()

    def _bind(self) -> dict[str, str] | None:
        """Distinct objects for the parameters, preferring problem objects to constants."""
        constants = {c.name for c in self.agent.constants}
        chosen: dict[str, str] = {}
        used: set[str] = set()
        for param in self.params:
            options = sorted(o for o in self.agent.objects
                             if self.agent.is_a(o, param.type) and o not in used)
            options.sort(key=lambda o: o in constants)
            if not options:
                return None
            chosen[param.name] = options[0]
            used.add(options[0])
        return chosen

    def ground(self, atom: Atom) -> Atom:
        b = self.binding or {}
        return Atom(atom.predicate, tuple(b.get(t, t) for t in atom.args))

    def ask(self, true_atoms: set[Atom]) -> PlanOutcome:
        self.queries += 1
        state = frozenset(self.ground(a) for a in true_atoms)
        args = tuple((self.binding or {})[p.name] for p in self.params)
        return self.agent.execute(state, [(self.name, args)])

    def observe(self, true_atoms: set[Atom], outcome: PlanOutcome) -> None:
        after = outcome.states[1]
        for atom in self.atoms:
            before_value = atom in true_atoms
            after_value = self.ground(atom) in after
            self.pre[atom] &= pre_modes_allowed(before_value)
            self.eff[atom] &= eff_modes_allowed(before_value, after_value)

    def try_hints(self, hints: Sequence[State]) -> bool:
        """Probe the states in ``hints`` that are new for this action (projected on its
        atoms); remember the first success."""
        for state in hints:
            probe = frozenset(a for a in self.atoms if self.ground(a) in state)
            if probe in self.probed or len(self.probed) >= self.max_probes:
                continue
            found = self._find_success([set(probe)], randomise=False)
            if found is not None:
                self.found = found
                return True
        return False

    def quick_success(self) -> tuple[set[Atom], State] | None:
        """Try the two cheapest guesses: every atom true, every atom false."""
        if self.binding is None:
            return None
        return self._find_success([set(self.atoms), set()], randomise=False)

    def learn(self, found: tuple[set[Atom], State] | None = None,
              hints: Sequence[State] = ()) -> LearnedAction:
        if self.binding is None:
            return self._result(executed=False, note="no objects of the parameter types")
        if found is None:
            probes = []
            for state in hints:
                probe = {a for a in self.atoms if self.ground(a) in state}
                if probe not in probes and frozenset(probe) not in self.probed:
                    probes.append(probe)
            found = self._find_success(probes)
        if found is None:
            return self._result(executed=False,
                                note=f"no state found in which it succeeds "
                                     f"({self.max_probes} probes)")
        success, after = found
        # Atoms the action changed are very likely preconditions (STRIPS deletes what it
        # needs): test them one by one; test the rest in groups, most of them are absent.
        changed = [a for a in self.atoms
                   if (a in success) != (self.ground(a) in after) and len(self.pre[a]) > 1]
        for atom in changed:
            self._group_test(success, [atom])
        self._group_test(success, [a for a in self.atoms if len(self.pre[a]) > 1])
        self._resolve_aliases()
        return self._result()

    def _aliased(self, keep: Atom, gone: Atom) -> dict[str, str] | None:
        """A binding of the parameters to objects, *not* all distinct, under which ``keep``
        and ``gone`` ground to one atom (``None`` if they cannot, or the types forbid)."""
        if keep.predicate != gone.predicate or len(keep.args) != len(gone.args) or \
                self.binding is None:
            return None
        parent = {p.name: p.name for p in self.params}

        def find(v: str) -> str:
            while parent[v] != v:
                v = parent[v]
            return v

        for a, b in zip(keep.args, gone.args, strict=True):
            if a in parent and b in parent:
                parent[find(b)] = find(a)
            elif a != b:
                return None  # a constant against another term
        types = {p.name: p.type for p in self.params}
        out = {}
        for param in self.params:
            obj = self.binding[find(param.name)]
            if not self.agent.is_a(obj, types[param.name]):
                return None
            out[param.name] = obj
        return out

    def _resolve_aliases(self) -> None:
        """Decide the invisible "re-asserts its precondition" effects that a delete of the
        same action can meet: with distinct objects ``pre p, add p`` looks like no effect,
        but under a binding that makes a deleted atom the same atom as ``p`` the add wins
        (PDDL deletes first) -- a query with that non-distinct binding tells them apart
        (found by the differential test: hidden ``pre (p3 ?x) (p3 ?y), del (p3 ?x), add
        (p3 ?y)`` was learned without the add, wrong for ``?x = ?y``)."""
        deletes = [d for d in self.atoms if self.eff[d] == {NEG}]
        for atom in self.atoms:
            if self.pre[atom] != {POS} or self.eff[atom] != {POS, ABSENT}:
                continue
            for gone in deletes:
                binding = self._aliased(atom, gone)
                if binding is None:
                    continue

                def ground(a: Atom, b: dict[str, str] = binding) -> Atom:
                    return Atom(a.predicate, tuple(b.get(t, t) for t in a.args))

                true = {ground(a) for a in self.atoms if self.pre[a] == {POS}}
                if any(ground(a) in true for a in self.atoms if self.pre[a] == {NEG}):
                    continue  # the action cannot run with this binding: nothing to see
                self.queries += 1
                args = tuple(binding[p.name] for p in self.params)
                outcome = self.agent.execute(frozenset(true), [(self.name, args)])
                if outcome.executed != 1:
                    continue
                if ground(atom) in outcome.states[1]:
                    self.eff[atom] = {POS}
                    self.kept.add(atom)
                else:
                    self.eff[atom] = {ABSENT}
                break

    def _find_success(self, probes: list[set[Atom]], randomise: bool = True) \
            -> tuple[set[Atom], State] | None:
        """The first probe in which the action succeeds (then seeded random guesses)."""
        probes = list(probes)
        if randomise:
            for _ in range(self.max_probes):
                probes.append({a for a in self.atoms if self.rng.random() < 0.5})
        for probe in probes[: self.max_probes]:
            self.probed.add(frozenset(probe))
            outcome = self.ask(probe)
            if outcome.executed == 1:
                self.observe(probe, outcome)
                return probe, outcome.states[1]
        return None

    def _group_test(self, base: set[Atom], group: list[Atom], known_fail: bool = False) \
            -> None:
        """Find the required literals of ``group`` (flipping them in ``base`` fails)."""
        if not group:
            return
        if not known_fail:
            flipped = base.symmetric_difference(group)
            outcome = self.ask(flipped)
            if outcome.executed == 1:
                self.observe(flipped, outcome)
                return
        if len(group) == 1:
            atom = group[0]
            self.pre[atom] &= {POS} if atom in base else {NEG}
            return
        half = len(group) // 2
        first, second = group[:half], group[half:]
        flipped = base.symmetric_difference(first)
        outcome = self.ask(flipped)
        if outcome.executed == 1:
            self.observe(flipped, outcome)
            self._group_test(base, second, known_fail=True)
        else:
            self._group_test(base, first, known_fail=True)
            self._group_test(base, second)

    def _result(self, executed: bool = True, note: str = "") -> LearnedAction:
        pre: list[tuple[Atom, str]] = []
        eff: list[tuple[Atom, str]] = []
        unobservable: list[str] = []
        for atom in self.atoms:
            pm = self.pre[atom]
            em = self.eff[atom]
            p = next(iter(pm)) if len(pm) == 1 else ABSENT
            if len(em) == 1:
                e = next(iter(em))
            else:
                e = ABSENT
                invisible = (p == POS and em == {POS, ABSENT}) or \
                    (p == NEG and em == {NEG, ABSENT})
                if executed and not invisible:
                    unobservable.append(f"effect on {atom} ({'/'.join(sorted(em))})")
            if e == p and p != ABSENT and atom not in self.kept:
                e = ABSENT  # re-asserting the precondition is invisible (Def. 2)
            pre.append((atom, p))
            eff.append((atom, e))
        if note:
            unobservable.insert(0, note)
        return LearnedAction(self.name, self.params, tuple(pre), tuple(eff), self.queries,
                             tuple(unobservable), executed)


class _OutOfQueries(Exception):  # noqa: N818 - a signal, not an error
    """The learner's budget ran out inside a query."""


def learn_model(agent: SymbolicAgent, *, seed: int = 0, max_probes: int = 64,
                budget: Budget | None = None) -> LearnedModel:
    """Learn the hidden action model of ``agent`` (see the module docstring).

    ``budget`` bounds the learning: ``max_nodes`` counts queries, ``max_seconds`` the time;
    when it runs out the result (status ``budget_exhausted``) holds the actions learned so
    far."""
    began = time.perf_counter()
    agent.clock = budget.start() if budget is not None else None
    done: dict[str, LearnedAction] = {}
    try:
        _learn(agent, seed, max_probes, done)
        status = Status.COMPLETE
    except _OutOfQueries:
        status = Status.BUDGET_EXHAUSTED
    finally:
        agent.clock = None
    return _assemble(agent, done, status, time.perf_counter() - began)


def _learn(agent: SymbolicAgent, seed: int, max_probes: int,
           done: dict[str, LearnedAction]) -> None:
    rng = random.Random(f"learn:{seed}")
    learners = [_ActionLearner(agent, name, params, rng, max_probes)
                for name, params in agent.actions]
    pending = []
    for learner in learners:
        found = learner.quick_success()
        if found is not None or learner.binding is None:
            done[learner.name] = learner.learn(found)
        else:
            pending.append(learner)
    if pending:
        # Actions with mixed positive and negative preconditions: try the states that the
        # actions learned so far reach from the problem's initial state (predicted with the
        # learned model, so this costs no query) before guessing at random.
        while pending:
            hints = _reachable(agent, list(done.values()), limit=200)
            progress = [x for x in pending if x.try_hints(hints)]
            if not progress:
                for learner in pending:
                    done[learner.name] = learner.learn()  # seeded random guesses
                break
            for learner in progress:
                done[learner.name] = learner.learn(learner.found)
                pending.remove(learner)


def _assemble(agent: SymbolicAgent, done: dict[str, LearnedAction], status: Status,
              seconds: float) -> LearnedModel:
    learned = [done[name] for name, _ in agent.actions if name in done]
    actions = []
    negative = False
    for act in learned:
        pre = [a if m == POS else Not(a) for a, m in act.pre if m != ABSENT]
        negative |= any(m == NEG for _, m in act.pre)
        eff = [a if m == POS else Not(a) for a, m in act.eff if m != ABSENT]
        actions.append(Action(act.name, act.parameters, And(tuple(pre)), AndEffect(tuple(eff))))
    requirements = [":strips", ":typing"] if agent.types else [":strips"]
    if negative:
        requirements.append(":negative-preconditions")
    domain = Domain(agent.domain_name, tuple(requirements), agent.types, agent.constants,
                    agent.predicates, (), tuple(actions))
    # (an unfinished run also spent the queries of the actions it did not finish)
    queries = sum(a.queries for a in learned) if status.finished else agent.queries
    return LearnedModel(domain, tuple(learned), queries, seconds, write_domain(domain),
                        status)


def _reachable(agent: SymbolicAgent, learned: Sequence[LearnedAction], limit: int) \
        -> list[State]:
    """States reached from the agent's initial state by the learned actions (breadth first,
    at most ``limit``), computed with the learned model — no queries."""
    schemas = []
    for act in learned:
        if not act.executed:
            continue
        pos = tuple(a for a, m in act.pre if m == POS)
        neg = tuple(a for a, m in act.pre if m == NEG)
        add = tuple(a for a, m in act.eff if m == POS)
        delete = tuple(a for a, m in act.eff if m == NEG)
        schemas.append((act, pos, neg, add, delete))
    pools = {}
    for act, *_ in schemas:
        pools[act.name] = [
            [o for o in sorted(agent.objects) if agent.is_a(o, p.type)] for p in act.parameters]
    seen = [agent.init]
    known = {agent.init}
    index = 0
    while index < len(seen) and len(seen) < limit:
        state = seen[index]
        index += 1
        for act, pos, neg, add, delete in schemas:
            for combo in itertools.islice(itertools.product(*pools[act.name]), 2000):
                if len(set(combo)) != len(combo):
                    continue
                b = {p.name: o for p, o in zip(act.parameters, combo, strict=True)}

                def g(atom: Atom, b: dict[str, str] = b) -> Atom:
                    return Atom(atom.predicate, tuple(b.get(t, t) for t in atom.args))

                if any(g(a) not in state for a in pos) or any(g(a) in state for a in neg):
                    continue
                nxt = frozenset((state - {g(a) for a in delete}) | {g(a) for a in add})
                if nxt not in known:
                    known.add(nxt)
                    seen.append(nxt)
                    if len(seen) >= limit:
                        return seen
    return seen


def read_agent(domain_path: str, problem_path: str) -> SymbolicAgent:
    """A symbolic agent from PDDL files."""
    from xaip.planning.pddl import check_problem, read_domain, read_problem

    domain = read_domain(domain_path)
    problem = read_problem(problem_path)
    check_problem(domain, problem)
    if not domain.actions:
        raise InputError(f"{domain_path} has no actions to learn")
    return SymbolicAgent(domain, problem)
