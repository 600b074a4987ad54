"""Completing partial capability descriptions by active queries (Alg. 1 lines 5-15).

For every capability and every atom over its parameters and constants, a PAL tuple
(capability, atom, pre|eff) keeps the set of modes (``+``, ``-``, ``0``) that the evidence
so far allows. Traces already cut most sets to two modes. For each open tuple the engine
generates a *query*: a start state s̃0 with a binding σ, possibly reached by a short plan
over the current candidate model from a known state, such that the remaining modes
predict different outcomes; the last step applies the capability and asks the agent to
reach the predicted state. Abstract waypoints are refined into concrete simulator states
(``refine``, e.g. :func:`xaip.vocab.concretize`), and each consecutive pair is put to the
agent as a state-reachability query.

How answers prune (sound under the paper's assumptions — determinism and a vocabulary that
can express the agent's capabilities):

- *reached*: the transition s̃0 → s̃1 is an instance of the capability, so every mode that
  would forbid it is removed (exactly as for a transition seen in a trace);
- *not reached*: every model that predicts success is wrong. The answer becomes a clause
  "some tuple has a mode that predicts failure here"; unit propagation over all clauses of
  the capability settles a tuple as soon as it is the only possible culprit. Queries are
  chosen so that all other tuples are satisfied by s̃0 when possible, which makes the
  tested tuple the only culprit at once.

Reachability is existential: a search agent that can walk to the key, pick it up and walk
back *can* "pick up the key" from anywhere, so its capabilities lose preconditions that a
policy agent keeps. This is the semantics of Def. 2 with state-reachability answers.
"""


from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from xaip.agents.agents import representative
from xaip.capabilities.answers import Asker
from xaip.capabilities.candidates import ABSENT, NEG, POS
from xaip.capabilities.matching import (
    Matcher,
    Requirement,
    compile_requirements,
    contradictory,
)
from xaip.capabilities.means_ends import MeansEnds, PlanStep
from xaip.capabilities.pal import (
    CapState,
    apply_capability,
    observe,
    prefer_preconditions,
)
from xaip.capabilities.pool import StatePool
from xaip.capabilities.traces import Abstractor, AbstractState
from xaip.capabilities.waypoints import AbstractGoal, Failure, Query, Step
from xaip.planning.pddl.model import Atom
from xaip.runtime.budget import Budget, BudgetClock
from xaip.runtime.progress import Progress, report

#: ``refine(full_abstract_state, like) -> concrete state or None``.
Refine = Callable[[AbstractState, Any], Any]

# --------------------------------------------------------------------------- queries


@dataclass
class EngineConfig:
    """Knobs of the query engine (defaults suit the bundled games)."""

    query_budget: Budget = field(default_factory=lambda: Budget(max_nodes=200_000))
    max_passes: int = 3
    max_attempts: int = 48
    bindings_per_state: int = 4
    max_bindings: int = 64
    plan_seeds: int = 8
    plan_depth: int = 2
    plan_bindings: int = 12
    confirm_failures: bool = True
    construct: bool = True
    construct_seeds: int = 3
    max_tries: int = 3


class QueryEngine:
    """Runs the completion phase of Alg. 1 over a set of capabilities."""

    def __init__(
        self,
        asker: Asker,
        abstractor: Abstractor,
        refine: Refine | None,
        caps: list[CapState],
        pool: StatePool,
        config: EngineConfig | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.asker = asker
        self.abstractor = abstractor
        self.refine_fn = refine
        self.caps = caps
        self.pool = pool
        self.config = config or EngineConfig()
        self.progress = progress
        self.matcher = Matcher(abstractor.objects, self.config.max_bindings)
        self.means_ends = MeansEnds(caps, pool, self.matcher, self.refine,
                                    self.config.plan_bindings)
        self.plans = 0
        self._offset = 0
        #: Where query passes run (:class:`xaip.capabilities.rounds.Dispatch`; ``None``:
        #: here) and each capability's position in the pool scan between passes.
        self.dispatch: Any = None
        self.offsets: dict[str, int] = {}
        #: In a unit of a pass, the capability it completes; evidence about any other
        #: (a means-ends step) is kept in ``foreign`` for the merge to apply.
        self.focus: CapState | None = None
        self.foreign: list[tuple[Any, ...]] = []
        #: When a list, the evidence about :attr:`focus` in the order it was applied
        #: (``("observe", binding, before, reached)``, ``("refute", binding, before,
        #: target, effects)``): a pass's second and later units of one capability are
        #: merged by applying it again (:mod:`~xaip.capabilities.rounds`).
        self.evidence: list[tuple[Any, ...]] | None = None
        self._refined: dict[tuple[AbstractState, Any], Any] = {}
        self._invalid: set[AbstractState] = set()
        self._possible: dict[Any, tuple[int, bool]] = {}
        self._impossible: dict[Any, list[tuple[frozenset[Requirement], int]]] = {}

    # ----------------------------------------------------------------- main loop

    def complete(self, clock: BudgetClock | None = None) -> bool:
        """Ask queries until every tuple is settled or shown unobservable, then settle what
        failures still leave open by blaming preconditions first (see
        :func:`~xaip.capabilities.pal.prefer_preconditions`).

        Passes run over all capabilities at once (:func:`xaip.capabilities.rounds.run_pass`):
        each capability completes its open tuples from the state the pass started in (the
        pool, the other capabilities' tables), and the results are merged in capability
        order. Why: the capabilities of a pass are then independent work that an
        executor's workers run side by side, with the same result as a serial run.

        ``clock`` is the run's budget: its deadline is checked before every query and each
        query charges one node; returns ``False`` when it ran out before the end."""
        from xaip.capabilities.rounds import run_pass  # rounds imports this module

        finished = True
        for _ in range(self.config.max_passes):
            progress, finished = run_pass(self, clock)
            if not progress or not finished:
                break
        for cap in self.caps:
            prefer_preconditions(cap)
        return finished

    def complete_capability(self, cap: CapState, clock: BudgetClock | None = None,
                            tuples: list[tuple[str, Atom]] | None = None) \
            -> tuple[bool, bool]:
        """One pass over ``cap``'s open tuples (or those of ``tuples``): a query for each,
        posed and confirmed. Returns whether any mode set shrank and whether the budget
        lasted."""
        progress = False
        for loc, atom in cap.open_tuples() if tuples is None else tuples:
            if clock is not None and spent(clock):
                return progress, False
            key = (loc, atom)
            if len(cap.table(loc)[atom]) <= 1:
                continue
            marked = cap.unobservable.get(key)
            if marked is not None and len(self.pool) < 2 * marked:
                continue  # retry only once the pool has doubled
            tries = cap.tried.get(key, 0)
            if tries >= self.config.max_tries:
                continue
            cap.tried[key] = tries + 1
            used = cap.used_starts.setdefault(key, set())
            query = self.generate(cap, loc, atom, avoid=used or None)
            if query is None:
                cap.unobservable[key] = len(self.pool)
                continue
            cap.unobservable.pop(key, None)
            cap.queried.add(key)
            asked = len(self.asker.records)
            if self._pose_confirmed(cap, loc, atom, query):
                progress = True
            if clock is not None:
                clock.nodes += len(self.asker.records) - asked
        return progress, True

    def _pose_confirmed(self, cap: CapState, loc: str, atom: Atom, query: Query) -> bool:
        """Pose ``query``; if its tested step fails, confirm the failure from another start
        state before blaming anything on it.

        Why: a failure may come from something the vocabulary cannot express (a corridor
        blocked by the key). A second failure elsewhere is recorded with the first; a
        success there refutes what the first failure suggested, and the first failure is
        kept only as a note."""
        used = cap.used_starts.setdefault((loc, atom), set())
        used.add(query.steps[-1].before)
        changed, failure, _ = self.pose(query, defer=self.config.confirm_failures
                                        and query.attributable)
        if failure is None:
            return changed
        second = self.generate(cap, loc, atom, avoid=used, strict=True)
        if second is None:
            return self._record(failure) | changed
        used.add(second.steps[-1].before)
        changed2, failure2, reached2 = self.pose(second, defer=True)
        if failure2 is not None:
            return self._record(failure) | self._record(failure2) | changed | changed2
        if reached2:
            cap.unexplained += 1  # the first failure is not the tuple's doing
            return changed | changed2
        return self._record(failure) | changed | changed2

    # ----------------------------------------------------------------- generation

    def requirements(self, cap: CapState, skip: Atom | None) -> tuple[list[Requirement],
                                                                       list[Requirement]]:
        """Literals s̃0 must satisfy: *hard* ones (settled preconditions and the signature)
        and *soft* ones (open tuples kept at the value the traces saw, so that a failure
        can be blamed on the tested tuple alone)."""
        hard: list[Requirement] = []
        soft: list[Requirement] = []
        for atom in cap.atoms:
            if atom == skip:
                continue
            modes = cap.pre[atom]
            if modes == {POS}:
                hard.append((atom, True))
            elif modes == {NEG}:
                hard.append((atom, False))
            elif modes == {POS, ABSENT}:
                soft.append((atom, True))
            elif modes == {NEG, ABSENT}:
                soft.append((atom, False))
            else:
                # Precondition settled to absent (or wide open): keep an open effect
                # predicting the same outcome in all its modes (+/0 when true, -/0 when false).
                eff = cap.eff[atom]
                if eff == {POS, ABSENT}:
                    soft.append((atom, True))
                elif eff == {NEG, ABSENT}:
                    soft.append((atom, False))
        return hard, soft

    def generate(self, cap: CapState, loc: str, atom: Atom,
                 avoid: set[AbstractState] | None = None, *, strict: bool = False) \
            -> Query | None:
        """A query whose answer tells apart the remaining modes of (cap, atom, loc)."""
        modes = cap.table(loc)[atom]
        if loc == "pre":
            want = POS not in modes  # test the atom false first when + is possible
            if modes == {NEG, ABSENT}:
                want = True
            override: dict[Atom, str] = {}
            alternative_mode: str | None = None
        else:
            if modes == {NEG, ABSENT}:
                want, first, alternative_mode = True, ABSENT, NEG
            elif modes == {POS, ABSENT}:
                want, first, alternative_mode = False, ABSENT, POS
            else:
                want, first, alternative_mode = False, POS, NEG
            override = {atom: first}
        hard, soft = self.requirements(cap, atom)
        pre_atom_mode = cap.pre[atom]
        # an effect test needs a value of the atom that its precondition allows
        if loc == "eff" and (pre_atom_mode == {POS} and not want or
                             pre_atom_mode == {NEG} and want):
            return None
        tested: Requirement = (atom, want)
        attempts = [0]
        # Is the tested value possible at all together with the hard requirements in a
        # known state? If not, only constructing a start state can help.
        seen = self._relaxed_possible(cap, hard, tested)
        found = None
        if seen:
            found = self._search_pool(cap, [*hard, *soft, tested], override, alternative_mode,
                                      atom, attempts, avoid)
        if found is None and soft:
            # A never-seen combination is usually impossible (a wall under the player):
            # one construction attempt then, a few otherwise.
            seeds = self.config.construct_seeds if seen else 1
            found = self._search_construct(cap, hard, soft, tested, override,
                                           alternative_mode, atom, attempts, avoid, seeds)
        if found is None and soft and seen:
            found = self._search_plan(cap, hard, soft, tested, override, alternative_mode,
                                      atom, attempts, avoid)
        if found is None and soft and not strict and seen:
            # Last resort: a start that violates soft requirements. Only a success is
            # conclusive (a failure may be the violated requirements' doing).
            found = self._search_pool(cap, [*hard, tested], override, alternative_mode, atom,
                                      attempts, avoid)
            if found is not None:
                found.attributable = False
        return found

    def _relaxed_possible(self, cap: CapState, hard: list[Requirement],
                          tested: Requirement) -> bool:
        """Whether some known state has a binding meeting ``hard`` and ``tested``.

        The pool only grows, so an answer is kept with the number of states it covered
        and later calls look only at the states added since. A "no" also answers for any
        larger set of hard requirements (settling tuples only adds requirements), so it
        is kept per tested literal and reused for those."""
        key = (cap.name, tuple(hard), tested)
        covered, found = self._possible.get(key, (0, False))
        states = self.pool.states
        if found or covered >= len(states):
            return found
        required = frozenset(hard)
        impossible = self._impossible.setdefault((cap.name, tested), [])
        for smaller, upto in impossible:
            if upto > covered and smaller <= required:
                covered = upto  # no state before ``upto`` meets even fewer requirements
        if covered < len(states):
            compiled = compile_requirements([*hard, tested])
            found = any(next(iter(self.matcher.match(cap, compiled, ps, {})), None) is not None
                        for ps in states[covered:])
        if len(self._possible) > 10_000:
            self._possible.clear()
            self._impossible.clear()
            impossible = self._impossible.setdefault((cap.name, tested), [])
        self._possible[key] = (len(states), found)
        if not found:
            impossible.append((required, len(states)))
        return found

    def _search_pool(self, cap: CapState, required: list[Requirement],
                     override: dict[Atom, str], alternative_mode: str | None, atom: Atom,
                     attempts: list[int], avoid: set[AbstractState] | None = None) \
            -> Query | None:
        if contradictory(required):
            return None
        compiled = compile_requirements(required)
        states = self.pool.states
        n = len(states)
        if n == 0:
            return None
        start = self._offset % n
        self._offset += 7
        for i in range(n):
            ps = states[(start + i) % n]
            if avoid and ps.fluent in avoid:
                continue
            for tried, binding in enumerate(self.matcher.bindings(cap, compiled, ps), 1):
                query = self._make_query(cap, binding, ps.fluent, ps.concrete, override,
                                         alternative_mode, atom)
                attempts[0] += 1
                if query is not None:
                    return query
                if attempts[0] >= self.config.max_attempts:
                    return None
                if tried >= self.config.bindings_per_state:
                    break
        return None

    def _search_construct(self, cap: CapState, hard: list[Requirement],
                          soft: list[Requirement], tested: Requirement,
                          override: dict[Atom, str], alternative_mode: str | None, atom: Atom,
                          attempts: list[int], avoid: set[AbstractState] | None,
                          max_seeds: int) -> Query | None:
        """Build the start state directly: take a known state where the hard requirements
        hold, set the violated soft literals and the tested one, and refine the result
        (queries may start in any state the simulator accepts, as in AIA)."""
        if self.refine_fn is None or not self.config.construct:
            return None
        relaxed = compile_requirements(hard)
        if contradictory([*hard, tested, *soft]):
            return None
        seeds = 0
        for ps in self.pool.states:
            for binding in itertools.islice(self.matcher.bindings(cap, relaxed, ps), 2):
                seeds += 1
                violated = self.matcher.violated(binding, [*soft, tested], ps.fluent)
                if not violated:
                    continue
                wanted = set(ps.fluent)
                for g, value in violated:
                    if value:
                        wanted.add(g)
                    else:
                        wanted.discard(g)
                before = frozenset(wanted)
                if avoid and before in avoid:
                    continue
                refined = self.refine(before, ps.concrete)
                attempts[0] += 1
                if refined is not None and not isinstance(refined, AbstractGoal):
                    start = representative(refined)
                    query = self._make_query(cap, binding, before, start, override,
                                             alternative_mode, atom)
                    if query is not None:
                        self.pool.add(start)
                        return query
                if seeds >= max_seeds or attempts[0] >= self.config.max_attempts:
                    return None
        return None

    def _make_query(self, cap: CapState, binding: dict[str, str], before: AbstractState,
                    concrete: Any, override: dict[Atom, str], alternative_mode: str | None,
                    atom: Atom, prefix: list[Step] | None = None) -> Query | None:
        target = apply_capability(cap, binding, before, override)
        if target == before or self.refine(target, concrete) is None:
            return None
        alternative = None
        if alternative_mode is not None:
            alternative = apply_capability(cap, binding, before, {atom: alternative_mode})
            if alternative in (before, target):
                alternative = None
        return Query(concrete, [*(prefix or []), Step(cap, binding, before, target,
                                                      alternative)])

    def refine(self, target: AbstractState, like: Any) -> Any:
        """A concrete state whose abstraction is ``target`` (``None`` if there is none).

        Without a refinement function the goal is the abstract state itself, tested by
        abstraction (agents that need concrete goals, such as policies, then fail)."""
        key = (target, like)
        if key in self._refined:
            return self._refined[key]
        if self.refine_fn is None:
            result: Any = AbstractGoal(target, self.abstractor)
        else:
            if target in self._invalid:
                return None  # no state has this abstraction, whatever the template
            full = target | self.abstractor.type_atoms(like)
            result = self.refine_fn(full, like)
            if result is None:
                self._invalid.add(target)
                return None
        if len(self._refined) > 50_000:
            self._refined.clear()
        self._refined[key] = result
        return result

    # ----------------------------------------------------------------- matching

    # ----------------------------------------------------------------- planning

    def _search_plan(self, cap: CapState, hard: list[Requirement], soft: list[Requirement],
                     tested: Requirement, override: dict[Atom, str],
                     alternative_mode: str | None, atom: Atom,
                     attempts: list[int], avoid: set[AbstractState] | None = None) \
            -> Query | None:
        """Plan over the candidate model: from a known state where the hard requirements
        and the tested value hold, apply up to ``plan_depth`` capabilities (means-ends:
        each achieves a violated soft requirement) to reach a state where all hold."""
        relaxed = [*hard, tested]
        if contradictory([*relaxed, *soft]):
            return None
        seeds = 0
        compiled = compile_requirements(relaxed)
        for ps in self.pool.states:
            for binding in itertools.islice(self.matcher.match(cap, compiled, ps, {}), 2):
                seeds += 1
                plan = self.means_ends.achieve(cap, binding, soft, relaxed, ps.fluent,
                                     self.config.plan_depth, ps.concrete)
                if plan is not None and (not avoid or not plan or plan[-1][3] not in avoid):
                    query = self._realise_plan(ps.concrete, plan, cap, binding, override,
                                               alternative_mode, atom)
                    attempts[0] += 1
                    if query is not None:
                        self.plans += 1
                        return query
                if seeds >= self.config.plan_seeds or attempts[0] >= self.config.max_attempts:
                    return None
        return None

    def _realise_plan(self, start: Any, plan: list[PlanStep],
                      cap: CapState, binding: dict[str, str], override: dict[Atom, str],
                      alternative_mode: str | None, atom: Atom) -> Query | None:
        steps: list[Step] = []
        concrete = start
        before = self.abstractor.fluent(start)
        for other, other_binding, _, after in plan:
            goal = self.refine(after, concrete)
            if goal is None:
                return None
            steps.append(Step(other, other_binding, before, after))
            concrete, before = representative(goal), after
        query = self._make_query(cap, binding, before, concrete, override, alternative_mode,
                                 atom)
        if query is None:
            return None
        return Query(start, [*steps, *query.steps])

    # ----------------------------------------------------------------- asking

    def pose(self, query: Query, *, defer: bool = False) -> tuple[bool, Failure | None, bool]:
        """Put the waypoints of ``query`` to the agent, stop at the first failure, and prune.

        Returns whether any mode set shrank; with ``defer``, the failure of the *last*
        (tested) step without recording it, so that the caller can confirm it first; and
        whether the tested step was reached."""
        changed = False
        concrete = query.start
        last = len(query.steps) - 1
        for i, step in enumerate(query.steps):
            goal = self.refine(step.target, concrete)
            if goal is None:
                return changed, None, False
            reached, arrived = self.ask(step.cap, concrete, goal)
            if reached is None:
                return changed, None, False
            if reached:
                changed |= self._observe(step, step.target)
                if not isinstance(arrived, AbstractGoal):
                    self.pool.add(arrived)
                concrete = arrived
                if i == last:
                    return changed, None, True
                continue
            failure = Failure(step, True)
            if step.alternative is not None:
                alt_goal = self.refine(step.alternative, concrete)
                alt, alt_arrived = (None, None) if alt_goal is None else \
                    self.ask(step.cap, concrete, alt_goal)
                if alt:
                    changed |= self._observe(step, step.alternative)
                    if not isinstance(alt_arrived, AbstractGoal):
                        self.pool.add(alt_arrived)
                    return changed, None, i == last
                if alt is None and alt_goal is not None:
                    return changed, None, False
                failure = Failure(step, alt_goal is None)
            if defer and i == last:
                return changed, failure, False
            if self._foreign(step):
                self.foreign.append(("refute", step.cap.name, step.binding, step.before,
                                     step.target, failure.effects))
            else:
                changed |= self._record(failure)
            return changed, None, False
        return changed, None, False

    def _foreign(self, step: Step) -> bool:
        """Whether ``step`` is about a capability other than :attr:`focus`: its evidence
        is kept, not applied (:func:`xaip.capabilities.rounds.run_pass` applies it when it
        merges, so a unit never changes a capability another unit reads)."""
        return self.focus is not None and step.cap is not self.focus

    def _observe(self, step: Step, reached: AbstractState) -> bool:
        """The agent reached ``reached`` by ``step``: prune (or keep it, if foreign)."""
        if self._foreign(step):
            self.foreign.append(("observe", step.cap.name, step.binding, step.before,
                                 reached, True))
            return False
        if self.evidence is not None:
            self.evidence.append(("observe", dict(step.binding), step.before, reached))
        return observe(step.cap, step.binding, step.before, reached)

    def _record(self, failure: Failure) -> bool:
        """Record a failed step of the capability being completed (kept in
        :attr:`evidence` too, when that is a list)."""
        if self.evidence is not None:
            s = failure.step
            self.evidence.append(("refute", dict(s.binding), s.before, s.target,
                                  failure.effects))
        return failure.record()


    def ask(self, cap: CapState, start: Any, goal: Any) -> tuple[bool | None, Any]:
        """One query through the asker, reported as progress."""
        before = len(self.asker.records)
        answer = self.asker.ask(cap.name, start, goal)
        if self.progress is not None and len(self.asker.records) > before:
            done = len(self.asker.records)
            settled = sum(1 for c in self.caps if c.settled())
            per_query = self.asker.seconds / max(1, done)
            report(self.progress, "queries", done, None,
                   f"settled {settled}/{len(self.caps)} capabilities | "
                   f"{1000 * per_query:.1f} ms/query")
        return answer

    def recheck(self, count: int) -> int:
        """Ask up to ``count`` earlier queries again; a different answer marks the capability
        unreliable (a non-deterministic simulator or agent). Returns the mismatches."""
        names = self.asker.recheck(count)
        by_name = {c.name: c for c in self.caps}
        for name in names:
            cap = by_name.get(name)
            if cap is not None:
                cap.mark("the same query was answered two ways: the agent or simulator is "
                         "not deterministic")
        return len(names)


def spent(clock: BudgetClock) -> bool:
    """Whether the run's budget is used up: its deadline passed, or its nodes (agent
    queries) all charged. Sets ``clock.exhausted``."""
    limit = clock.budget.max_nodes
    if limit is not None and clock.nodes >= limit:
        clock.exhausted = True
    return clock.out_of_time()
