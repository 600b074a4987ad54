"""Differential test of ``xaip assist`` against brute force on random tiny STRIPS tasks.

Each seed generates, as plain Python data, a task (1-3 objects, unary and nullary
predicates, 2-5 schemas of arity 0-1 with preconditions, adds and deletes, in half the
instances declared costs 0-3, and then in half of those ``(:metric minimize (total-cost))``),
a person's prefix (a random walk, sometimes with one random step that may not apply), 0-2
vetoes (a schema name or a ground action) and a mode (complete, suggest, check; check uses
the prefix plus a few random steps as the whole plan). xaip reads the PDDL text; the oracle
reads the *same data* by the definitions (STRIPS: delete then add; a plan costs its declared
costs only under the metric, else 1 per step; the empty plan is valid iff the goal holds)
and shares no code with xaip: it simulates plans itself and finds cheapest completions by a
uniform-cost enumeration of the states reachable with the allowed ground actions.

Compared: the answer is verified; the status; a prefix/plan failure's 1-based step and
unmet preconditions (or unmet goal facts); the completion's cost equals the oracle's
optimum from the prefix's end without the vetoed actions, and the oracle simulates the
completion (valid, cost as reported, no vetoed step); the robot's optimal cost; for
suggestions, that the suggested step starts a cheapest completion, the cost without it, and
that the claimed goal facts are exactly the goal facts it newly makes true.
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from tests.differential.certificates import counting_rejections

CI_INSTANCES = 240

Ground = tuple[str, tuple[str, ...]]  # (predicate, args)
Step = tuple[str, tuple[str, ...]]  # (schema, args)


@dataclass(frozen=True)
class Schema:
    name: str
    arity: int
    pre: tuple[tuple[str, int], ...]  # (predicate, 0 nullary / 1 on ?x)
    add: tuple[tuple[str, int], ...]
    delete: tuple[tuple[str, int], ...]
    cost: int


@dataclass(frozen=True)
class Instance:
    objects: tuple[str, ...]
    unary: tuple[str, ...]
    nullary: tuple[str, ...]
    schemas: tuple[Schema, ...]
    init: frozenset[Ground]
    goal: tuple[Ground, ...]
    declares_costs: bool
    metric: bool


def _atoms(parts: Iterable[tuple[str, int]], arg: tuple[str, ...]) -> frozenset[Ground]:
    return frozenset((p, arg if k else ()) for p, k in parts)


def _text(atom: Ground) -> str:
    return "(" + " ".join((atom[0], *atom[1])) + ")"


def _step_text(step: Step) -> str:
    return "(" + " ".join((step[0], *step[1])) + ")"


def generate(seed: int) -> tuple[Instance, list[Step], list[str], str, list[Step]]:
    rng = random.Random(seed)
    objects = tuple(f"o{i}" for i in range(1, rng.randint(1, 3) + 1))
    unary = tuple(f"u{i}" for i in range(rng.randint(1, 3)))
    nullary = tuple(f"n{i}" for i in range(rng.randint(1, 2)))
    preds = [(p, 1) for p in unary] + [(p, 0) for p in nullary]

    def part(arity: int) -> tuple[str, int]:
        name, k = rng.choice(preds)
        return (name, k if arity else 0) if k == 0 or arity else rng.choice(
            [(p, 0) for p in nullary])

    schemas = []
    for i in range(rng.randint(2, 5)):
        arity = rng.randint(0, 1)
        schemas.append(Schema(
            f"a{i}", arity, tuple(part(arity) for _ in range(rng.choice((0, 1, 1, 2)))),
            tuple(part(arity) for _ in range(rng.randint(1, 2))),
            tuple(part(arity) for _ in range(rng.randint(0, 1))), rng.randint(0, 3)))
    every = [(p, (o,)) for p in unary for o in objects] + [(p, ()) for p in nullary]
    init = frozenset(a for a in every if rng.random() < 0.3)
    false = [a for a in every if a not in init] if rng.random() < 0.85 else []
    pool = false or every
    goal = tuple(rng.sample(pool, rng.randint(1, min(2, len(pool)))))
    added = {p for schema in schemas for p, _ in schema.add}
    for name in sorted({p for p, _ in goal} - added):  # most goals get an achiever
        if rng.random() < 0.8:
            arity = int(name in unary)
            schemas.append(Schema(f"a{len(schemas)}", arity, (part(arity),),
                                  ((name, arity),), (), rng.randint(0, 3)))
    costs = rng.random() < 0.5
    inst = Instance(objects, unary, nullary, tuple(schemas), init, goal, costs,
                    costs and rng.random() < 0.7)
    ground = _ground(inst)
    state, prefix = init, []
    for _ in range(rng.randint(0, 3)):
        usable = [g for g in ground if _pre(inst, g) <= state]
        if not usable:
            break
        step = rng.choice(usable)
        prefix.append(step)
        state = _apply(inst, step, state)
    if prefix and rng.random() < 0.25:
        prefix[rng.randrange(len(prefix))] = rng.choice(ground)
    vetoes = []
    for _ in range(rng.choice((0, 0, 1, 1, 2))):
        if rng.random() < 0.4:
            vetoes.append(rng.choice(schemas).name)
        else:
            vetoes.append(_step_text(rng.choice(ground)))
    mode = ("complete", "suggest", "check")[seed % 3]
    whole = prefix + [rng.choice(ground) for _ in range(rng.randint(0, 3))]
    return inst, prefix, vetoes, mode, whole


def _schema(inst: Instance, name: str) -> Schema:
    return next(s for s in inst.schemas if s.name == name)


def _ground(inst: Instance) -> list[Step]:
    return [(s.name, (o,)) for s in inst.schemas if s.arity for o in inst.objects] + [
        (s.name, ()) for s in inst.schemas if not s.arity]


def _pre(inst: Instance, step: Step) -> frozenset[Ground]:
    return _atoms(_schema(inst, step[0]).pre, step[1])


def _apply(inst: Instance, step: Step, state: frozenset[Ground]) -> frozenset[Ground]:
    schema = _schema(inst, step[0])
    return (state - _atoms(schema.delete, step[1])) | _atoms(schema.add, step[1])


def _cost(inst: Instance, step: Step) -> int:
    return _schema(inst, step[0]).cost if inst.declares_costs and inst.metric else 1


def _goal(inst: Instance, state: frozenset[Ground]) -> bool:
    return all(g in state for g in inst.goal)


def _vetoed(step: Step, vetoes: list[str]) -> bool:
    return any(v == step[0] or v == _step_text(step) for v in vetoes)


def _optimum(inst: Instance, start: frozenset[Ground], allowed: Callable[[Step], bool]
             ) -> int | None:
    steps = [g for g in _ground(inst) if allowed(g)]
    best = {start: 0}
    frontier = [(0, sorted(start), start)]
    while frontier:
        cost, _, state = heapq.heappop(frontier)
        if cost > best[state]:
            continue
        if _goal(inst, state):
            return cost
        for step in steps:
            if _pre(inst, step) <= state:
                nxt = _apply(inst, step, state)
                c = cost + _cost(inst, step)
                if c < best.get(nxt, c + 1):
                    best[nxt] = c
                    heapq.heappush(frontier, (c, sorted(nxt), nxt))
    return None


def _run(inst: Instance, plan: list[Step]) -> tuple[int | None, frozenset[Ground], int]:
    """(0-based index of the first inapplicable step or None, state reached, cost)."""
    state, cost = inst.init, 0
    for i, step in enumerate(plan):
        if not _pre(inst, step) <= state:
            return i, state, cost
        state = _apply(inst, step, state)
        cost += _cost(inst, step)
    return None, state, cost


def pddl(inst: Instance) -> tuple[str, str]:
    def conj(parts: Iterable[str]) -> str:
        return "(and " + " ".join(parts) + ")"

    def atoms(parts: Iterable[tuple[str, int]]) -> list[str]:
        return [f"({p} ?x)" if k else f"({p})" for p, k in parts]

    actions = []
    for s in inst.schemas:
        effect = atoms(s.add) + [f"(not {a})" for a in atoms(s.delete)]
        if inst.declares_costs:
            effect.append(f"(increase (total-cost) {s.cost})")
        actions.append(f"(:action {s.name} :parameters ({'?x' if s.arity else ''}) "
                       f":precondition {conj(atoms(s.pre))} :effect {conj(effect)})")
    req = ":strips :action-costs" if inst.declares_costs else ":strips"
    funcs = "(:functions (total-cost) - number)" if inst.declares_costs else ""
    preds = " ".join([f"({p} ?x)" for p in inst.unary] + [f"({p})" for p in inst.nullary])
    domain = (f"(define (domain d) (:requirements {req}) (:predicates {preds}) {funcs}\n"
              + "\n".join(actions) + ")")
    init = [_text(a) for a in sorted(inst.init)]
    if inst.declares_costs:
        init.append("(= (total-cost) 0)")
    metric = "(:metric minimize (total-cost))" if inst.metric else ""
    problem = (f"(define (problem p) (:domain d) (:objects {' '.join(inst.objects)}) "
               f"(:init {' '.join(init)}) (:goal {conj(_text(g) for g in inst.goal)}) "
               f"{metric})")
    return domain, problem


@counting_rejections
def check(seed: int) -> str | None:
    from xaip.assist import Assistant
    from xaip.planning.pddl import parse_domain, parse_problem

    if seed % 4 == 3:  # a quarter of the seeds: humans as actors (A01)
        return check_human(seed)
    inst, prefix, vetoes, mode, whole = generate(seed)
    domain_text, problem_text = pddl(inst)
    domain, problem = parse_domain(domain_text), parse_problem(problem_text)
    helper = Assistant(domain, problem, [_step_text(s) for s in prefix], vetoes)
    plan = whole if mode == "check" else prefix
    result = helper.check([_step_text(s) for s in plan]) if mode == "check" else (
        helper.complete() if mode == "complete" else helper.suggest())
    if not result.verified:
        return f"{mode}: not verified ({result.check})"
    failed, state, _ = _run(inst, plan)
    status = str(result.status)
    if failed is not None:
        unmet = {_text(a) for a in _pre(inst, plan[failed]) - state}
        if result.failure is None or result.failure.step != failed + 1 \
                or set(result.failure.unmet) != unmet:
            return f"{mode}: oracle fails step {failed + 1} on {unmet}, xaip {result.failure}"
        if mode != "check":
            return None if status == "invalid" else f"{mode}: status {status}, want invalid"
    elif mode == "check":
        if _goal(inst, state):
            return None if status == "valid" else f"check: valid plan called {status}"
        unmet = {_text(g) for g in inst.goal if g not in state}
        if result.failure is None or result.failure.kind != "goal" \
                or set(result.failure.unmet) != unmet:
            return f"check: oracle goal unmet {unmet}, xaip {result.failure}"
    kept = plan[:failed] if failed is not None else plan
    _, start, kept_cost = _run(inst, kept)
    robot = _optimum(inst, inst.init, lambda s: True)
    if result.robot_cost != robot:
        return f"robot optimum {robot}, xaip {result.robot_cost}"
    best = _optimum(inst, start, lambda s: not _vetoed(s, vetoes))
    if best is None:
        want = "invalid" if mode == "check" else "unsolvable"
        if status != want or result.completion is not None:
            return f"{mode}: oracle has no completion, xaip {status} {result.completion}"
        return None
    if result.completion is None or result.completion_cost != best:
        return f"{mode}: oracle optimum {best}, xaip {result.completion_cost}"
    completion = [(w[0], tuple(w[1:])) for w in
                  (t.strip("()").split() for t in result.completion)]
    fail2, end, cost = _run(inst, kept + completion)
    if fail2 is not None or not _goal(inst, end) or cost - kept_cost != best:
        return f"{mode}: xaip's completion {result.completion} is not a cheapest plan"
    if any(_vetoed(s, vetoes) for s in completion):
        return f"{mode}: completion uses a vetoed step"
    if mode == "suggest":
        return _suggestion(inst, result, completion, start, vetoes, best)
    return None


def _suggestion(inst: Instance, result: object, completion: list[Step],
                start: frozenset[Ground], vetoes: list[str], best: int) -> str | None:
    suggestion = getattr(result, "suggestion")  # noqa: B009
    if not completion:
        return None if suggestion is None else "suggestion made although the goal holds"
    first = completion[0]
    if suggestion != _step_text(first):
        return f"suggestion {suggestion} is not the first completion step"
    without = _optimum(inst, start, lambda s: not _vetoed(s, vetoes) and s != first)
    if getattr(result, "cost_without") != without:  # noqa: B009
        return f"cost without the suggestion: oracle {without}, xaip " \
               f"{getattr(result, 'cost_without')}"  # noqa: B009
    after = _apply(inst, first, start)
    goals = {_text(g) for g in inst.goal if g in after and g not in start}
    if set(getattr(result, "achieves_goals")) != goals:  # noqa: B009
        return f"goal facts achieved: oracle {goals}, xaip {result}"
    for landmark in getattr(result, "achieves_landmarks"):  # noqa: B009
        facts = set(landmark.split(" or "))
        before = {_text(a) for a in start}
        now = {_text(a) for a in after}
        if facts & before or not facts & now:
            return f"landmark {landmark} is not made true by {suggestion}"

        def avoids(step: Step, facts: set[str] = facts) -> bool:
            adds = {_text(a) for a in _atoms(_schema(inst, step[0]).add, step[1])}
            return not _vetoed(step, vetoes) and not adds & facts

        if _optimum(inst, start, avoids) is not None:
            return f"{landmark} is no landmark: a completion avoids it"
    return None


def check_human(seed: int) -> str | None:
    """Humans as actors (A01): a random tiny pair of models (the person's forgets features
    of the robot's), the explicable suggestion and the explanation of a failing plan of
    hers against the brute force of ``tests/assist/test_human.py`` (written from the
    definitions: every plan within the bound scored, every set of differences tried)."""
    from tests.assist.test_human import (
        _contrastive_size,
        _cost_of,
        _failing_plans,
        _ground,
        _optimum,
        _sequences,
        human_of,
        models,
        random_tiny,
    )
    from xaip.assist import Assistant

    draw = seed
    while True:  # the first usable pair from this seed on (deterministic)
        tiny = random_tiny(draw)
        robot = _ground(tiny, frozenset(tiny.features))
        her = human_of(tiny, random.Random(draw))
        if len(tiny.features) <= 12 and 1 <= (_optimum(robot) or 0) <= 3 \
                and her.features != tiny.features:
            break
        draw += 1_000_003
    domain, problem, human = models(tiny, her)
    helper = Assistant(domain, problem, human=(human, None))  # type: ignore[arg-type]
    slack = seed % 2
    answer = helper.suggest(explicable=True, slack=slack)
    mine = _ground(her, frozenset(her.features))
    cheapest, best_human = _optimum(robot), _optimum(mine)
    assert cheapest is not None
    keys = []
    for plan in _sequences(robot, cheapest + slack):
        cost = _cost_of(plan, mine)
        keys.append((float("inf") if cost is None or best_human is None
                     else float(cost - best_human), len(plan)))
    gap, cost = min(keys)
    wanted = None if gap == float("inf") else gap
    assert answer.human is not None
    if not answer.verified or answer.completion_cost != cost \
            or answer.human.inexplicability != wanted:
        return (f"explicable: xaip {answer.completion_cost}/{answer.human.inexplicability} "
                f"verified={answer.verified}, oracle {cost}/{wanted}")
    fails = _failing_plans(tiny, her)
    if not fails:
        return None
    foil = random.Random(seed).choice(fails)
    checked = helper.check([f"({s})" for s in foil])
    assert checked.human is not None
    explanation = checked.human.explanation
    size = _contrastive_size(tiny, her, tuple(explanation.plan), foil)
    if not checked.verified or len(explanation.edits) != size:
        return (f"explain: xaip {len(explanation.edits)} edits verified={checked.verified}, "
                f"oracle {size}")
    return None
