"""A synthetic person whose labels are known, and the labelled data she produces.

Why: a learned labeller can only be judged against the truth, and people's labels are not
at hand. This person has a hidden model ``M^R_h`` (a PDDL domain) and follows book-spec
§5.5's oracle: after messages ``m`` (edits of her model towards the robot's), step ``i`` of
a plan looks explicable to her iff the prefix up to step ``i`` is executable in
``M^R_h + m`` and still extends to an optimal plan there (its cost plus the optimal cost
to go from where it leads equals her optimal cost). Her cheapest message set for a plan is
therefore the cheapest ``m`` after which the whole plan is optimal in ``M^R_h + m``.

Messages are the edits that turn her model into the robot's (each a true statement about
the robot's model) plus *distractors*: true statements she already believes (they change
nothing). Plans are the robot's: optimal ones and ones with detours, all valid in the
robot's model. Everything is exact (explicit state spaces of small tasks) and deterministic
by seed. The bundled example (:func:`fetch_example`) is the book's Fetch robot.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xaip.errors import InputError
from xaip.modelfree.data import Message, Record, normalise
from xaip.planning.features import Edit, Feature, FeatureKind, model_diff, model_features
from xaip.planning.features.apply import apply_edits
from xaip.planning.features.sentences import sentence
from xaip.planning.grounding import ground
from xaip.planning.pddl.model import Domain, Problem
from xaip.planning.pddl.reader import parse_problem
from xaip.planning.task import Task

#: States an explicit state space may hold (the synthetic tasks have a few hundred).
MAX_STATES = 200_000
INF = float("inf")


@dataclass
class StateSpace:
    """The reachable states of a task with the optimal cost to the goal from each."""

    task: Task
    goal_distance: dict[int, float]

    @classmethod
    def of(cls, task: Task) -> StateSpace:
        edges: dict[int, list[tuple[int, int]]] = {}
        frontier, seen = [task.init], {task.init}
        while frontier:
            state = frontier.pop()
            for action in task.applicable(state):
                child = action.apply(state)
                edges.setdefault(child, []).append((state, action.cost))
                if child not in seen:
                    seen.add(child)
                    if len(seen) > MAX_STATES:
                        raise InputError(f"the synthetic task has over {MAX_STATES} states")
                    frontier.append(child)
        distance: dict[int, float] = {}
        queue = [(0.0, s) for s in seen if task.is_goal(s)]
        heapq.heapify(queue)
        while queue:
            cost, state = heapq.heappop(queue)
            if state in distance:
                continue
            distance[state] = cost
            for parent, step in edges.get(state, ()):
                if parent not in distance:
                    heapq.heappush(queue, (cost + step, parent))
        return cls(task, distance)

    def h(self, state: int) -> float:
        return self.goal_distance.get(state, INF)

    def step(self, state: int, name: str) -> tuple[int, int] | None:
        """The successor and cost of the step called ``name`` in ``state`` (``None``: the
        task has no such applicable step)."""
        for index in self.task.action_index.get(name, ()):
            action = self.task.actions[index]
            if action.applicable(state):
                return action.apply(state), action.cost
        return None


@dataclass
class SyntheticPerson:
    """A person with the hidden model ``human`` judging plans of a robot with ``robot``."""

    robot: Domain
    human: Domain
    edits: dict[str, Edit]
    _spaces: dict[tuple[str, frozenset[str]], StateSpace] = field(default_factory=dict,
                                                                   repr=False)

    def space(self, problem: Problem, shown: Iterable[str]) -> StateSpace:
        """Her model after the messages ``shown`` (only the edits that change it count)."""
        effective = frozenset(m for m in shown if m in self.edits)
        key = (problem.name + repr(problem), effective)
        if key not in self._spaces:
            domain, updated = apply_edits(self.human, problem,
                                          [self.edits[m] for m in sorted(effective)],
                                          source_domain=self.robot, source_problem=problem)
            assert updated is not None
            self._spaces[key] = StateSpace.of(ground(domain, updated))
        return self._spaces[key]

    def labels(self, problem: Problem, plan: Sequence[str], shown: Iterable[str]
               ) -> tuple[bool, ...]:
        """Book-spec §5.5's oracle (module docstring), per step."""
        space = self.space(problem, shown)
        best = space.h(space.task.init)
        state, spent = space.task.init, 0.0
        out: list[bool] = []
        for name in plan:
            moved = space.step(state, normalise(name))
            if moved is None or best == INF:
                break
            state, cost = moved
            spent += cost
            if spent + space.h(state) != best:
                break
            out.append(True)
        return (*out, *([False] * (len(plan) - len(out))))


def person_messages(robot: Domain, human: Domain, problem: Problem, rng: random.Random,
                    distractors: int = 2, costs: tuple[int, int] = (1, 3)
                    ) -> tuple[tuple[Message, ...], dict[str, Edit]]:
    """Messages: every edit that turns her model into the robot's, and ``distractors`` true
    statements about the robot she already believes; integer costs drawn from ``costs``."""
    difference = model_diff(human, robot, problem, problem)
    needed = sorted(difference.edits())
    known = sorted(f for f in model_features(robot) & model_features(human)
                   if f.kind in (FeatureKind.PRECONDITION, FeatureKind.ADD_EFFECT))
    extra = rng.sample(known, min(distractors, len(known)))
    chosen = [*needed, *(Edit(f, "add") for f in extra)]
    messages: list[Message] = []
    edits: dict[str, Edit] = {}  # only the edits that change her model
    taken: set[str] = set()
    for edit in chosen:
        ident = _ident(edit.feature, taken)
        text = sentence(edit.feature) if edit.op == "add" else \
            f"it is not the case that {sentence(edit.feature)}"
        messages.append(Message(ident, float(rng.randint(*costs)), text))
        if edit in needed:
            edits[ident] = edit
    return tuple(sorted(messages)), edits


def _ident(feature: Feature, taken: set[str]) -> str:
    base = "-".join(p for p in (feature.action, feature.kind.value.split("-")[0],
                                feature.atom.predicate if feature.atom else "") if p)
    ident, n = base, 2
    while ident in taken:
        ident, n = f"{base}-{n}", n + 1
    taken.add(ident)
    return ident


def robot_plans(space: StateSpace, rng: random.Random, detours: int) -> tuple[str, ...]:
    """A plan valid in the robot's model: ``detours`` random steps that keep the goal
    reachable, interleaved with optimal ones (``detours=0``: a random optimal plan)."""
    task, state, plan = space.task, space.task.init, []
    left = detours
    while not task.is_goal(state) or left > 0 and rng.random() < 0.3:
        options = [(a, a.apply(state)) for a in task.applicable(state)]
        if left > 0 and rng.random() < 0.5:
            moves = [(a, s) for a, s in options if space.h(s) < INF]
            left -= 1
        else:
            moves = [(a, s) for a, s in options
                     if space.h(s) + a.cost == space.h(state) < INF]
        if not moves:
            break
        action, state = rng.choice(moves)
        plan.append(action.name)
        if len(plan) > 40:
            break
    return tuple(plan) if task.is_goal(state) else ()


# --------------------------------------------------------------------------- Fetch


FETCH = Path(__file__).resolve().parent.parent / "domains" / "fetch"


def fetch_problem(rng: random.Random, index: int) -> Problem:
    """A random Fetch task: 2-4 locations, 1-2 blocks, blocks to carry elsewhere."""
    locations = [f"loc{i}" for i in range(1, rng.randint(2, 4) + 1)]
    blocks = [f"b{i}" for i in range(1, rng.randint(1, 2) + 1)]
    init = [f"(robot-at {rng.choice(locations)})", "(hand-empty)"]
    goal = []
    for block in blocks:
        start = rng.choice(locations)
        init.append(f"(block-at {block} {start})")
        goal.append(f"(block-at {block} {rng.choice([x for x in locations if x != start])})")
    text = (f"(define (problem fetch-{index}) (:domain fetch)\n"
            f"  (:objects {' '.join(blocks)} - block {' '.join(locations)} - location)\n"
            f"  (:init {' '.join(init)})\n  (:goal (and {' '.join(goal)})))\n")
    return parse_problem(text, f"<fetch problem {index}>")


@dataclass(frozen=True)
class Dataset:
    """Generated data: the messages, labelled plans, and a fresh task with the robot's
    plan to explain (its problem is not among the training plans')."""

    messages: tuple[Message, ...]
    records: tuple[Record, ...]
    plan: tuple[str, ...]
    problem: Problem
    person: SyntheticPerson


def fetch_person(human: Domain | None = None) -> SyntheticPerson:
    from xaip.planning.pddl.reader import read_domain

    robot = read_domain(FETCH / "robot.pddl")
    return SyntheticPerson(robot, human or read_domain(FETCH / "human.pddl"), {})


def generate(seed: int = 0, plans: int = 240, problems: int = 24, distractors: int = 2,
             max_shown: int | None = None, person: SyntheticPerson | None = None
             ) -> Dataset:
    """Labelled plans of the synthetic Fetch person, deterministic by ``seed``: ``plans``
    records over ``problems`` random tasks, each with a random set of messages shown (at
    most ``max_shown``) and her labels; plus the robot's optimal plan of one more task."""
    rng = random.Random(seed)
    person = person or fetch_person()
    tasks = [fetch_problem(rng, i) for i in range(problems + 1)]
    messages, edits = person_messages(person.robot, person.human, tasks[0], rng, distractors)
    person.edits = edits
    ids = [m.id for m in messages]
    records = []
    robot_spaces = [StateSpace.of(ground(person.robot, p)) for p in tasks]
    for n in range(plans):
        which = rng.randrange(problems)
        plan = robot_plans(robot_spaces[which], rng, rng.choice((0, 0, 1, 2)))
        if not plan:
            continue
        size = rng.randint(0, len(ids) if max_shown is None else min(max_shown, len(ids)))
        shown = frozenset(rng.sample(ids, size))
        records.append(Record(plan, shown, person.labels(tasks[which], plan, shown)))
        del n
    plan = robot_plans(robot_spaces[problems], rng, 0)
    return Dataset(messages, tuple(records), plan, tasks[problems], person)
