"""Differential test of model-free explanations (``xaip.modelfree``) against brute force.

Each seed generates labelled plans from a synthetic person whose labelling rule is known:

* three seeds in four: an **abstract person** written here as plain data -- 3-5 action
  schemas with 0-2 arguments, 2-6 messages with costs 0-3, and per schema a list of
  message sets any one of which makes its steps explicable (possibly none: never, or the
  empty set: always); as in book-spec §5.5, a step looks explicable iff its own rule holds
  and every earlier step looks explicable;
* one seed in four: the **Fetch person** of :mod:`xaip.modelfree.synthetic` (her hidden PDDL
  model, truth by optimal prefixes), with random costs, distractor messages and tasks.

xaip learns its labeller from the records and searches; one seed in five forces the greedy
pass (``max_subsets`` 1-4). The oracle enumerates every message set itself (itertools, not
the search's heap) and labels the plan with the learned labeller's public ``label``
(``E(π, m) = 1`` iff every step is labelled explicable, the definition of book §6.3).
Compared, for every instance (never skipped):

* xaip's answer is verified by its checker;
* exact answers: the cost equals the oracle's cheapest working set, and the chosen set
  works; "no explanation" only when no set works;
* greedy answers: the chosen set works, is irredundant, costs at least the oracle's
  cheapest, and the claimed lower bound is at most the oracle's cheapest.

Against the synthetic truth (the person's own labels), the agreement of the learned
cheapest cost with the truth's cheapest cost is *counted*, not compared (a learned labeller
may err): :data:`TRUTH` holds the counts of a run.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Callable, Sequence

CI_INSTANCES = 200
#: Agreement with the synthetic truth over the seeds run in this process.
TRUTH: Counter[str] = Counter()

Rule = dict[str, list[frozenset[str]]]


def _abstract(rng: random.Random) -> tuple[list, list, tuple[str, ...],
                                           Callable[[Sequence[str], frozenset[str]],
                                                    tuple[bool, ...]]]:
    from xaip.modelfree.data import Message, Record

    ids = [f"m{i}" for i in range(rng.randint(2, 6))]
    messages = [Message(i, float(rng.randint(0, 3)), f"statement {i}") for i in ids]
    schemas = [f"act{i}" for i in range(rng.randint(3, 5))]
    arity = {s: rng.randint(0, 2) for s in schemas}
    objects = ["o1", "o2", "o3"]
    rule: Rule = {}
    for schema in schemas:
        kind = rng.random()
        if kind < 0.3:
            rule[schema] = [frozenset()]  # always explicable
        elif kind < 0.4:
            rule[schema] = []  # never
        else:
            rule[schema] = [frozenset(rng.sample(ids, rng.randint(1, min(2, len(ids)))))
                            for _ in range(rng.randint(1, 2))]

    def truth(plan: Sequence[str], shown: frozenset[str]) -> tuple[bool, ...]:
        out, ok = [], True
        for step in plan:
            ok = ok and any(option <= shown for option in rule[step.split()[0]])
            out.append(ok)
        return tuple(out)

    def random_plan() -> tuple[str, ...]:
        steps = []
        for _ in range(rng.randint(1, 6)):
            schema = rng.choice(schemas)
            steps.append(" ".join([schema, *rng.choices(objects, k=arity[schema])]))
        return tuple(steps)

    records = []
    for _ in range(rng.randint(30, 80)):
        plan = random_plan()
        shown = frozenset(rng.sample(ids, rng.randint(0, len(ids))))
        records.append(Record(plan, shown, truth(plan, shown)))
    return messages, records, random_plan(), truth


_FETCH: dict[str, object] = {}


def _fetch(rng: random.Random) -> tuple[list, list, tuple[str, ...],
                                        Callable[[Sequence[str], frozenset[str]],
                                                 tuple[bool, ...]]]:
    from xaip.modelfree.synthetic import fetch_person, generate

    person = _FETCH.setdefault("person", fetch_person())
    data = generate(rng.randrange(10**6), plans=rng.randint(40, 80), problems=6,
                    distractors=rng.randint(0, 2), person=person)  # type: ignore[arg-type]

    def truth(steps: Sequence[str], shown: frozenset[str]) -> tuple[bool, ...]:
        return data.person.labels(data.problem, steps, shown)

    return list(data.messages), list(data.records), data.plan, truth


def _cheapest(messages: Sequence, works: Callable[[frozenset[str]], bool]
              ) -> tuple[float | None, list[frozenset[str]]]:
    best: float | None = None
    winners: list[frozenset[str]] = []
    for size in range(len(messages) + 1):
        for chosen in itertools.combinations(messages, size):
            if works(frozenset(m.id for m in chosen)):
                cost = sum(m.cost for m in chosen)
                winners.append(frozenset(m.id for m in chosen))
                best = cost if best is None else min(best, cost)
    return best, winners


def check(seed: int) -> str | None:
    from xaip.errors import InputError
    from xaip.modelfree import explain_plan, learn
    from xaip.runtime import Status

    rng = random.Random(seed)
    make = _fetch if seed % 4 == 3 else _abstract
    messages, records, plan, truth = make(rng)
    try:
        person = learn(records, messages, held_out=rng.choice((0.0, 0.2, 0.3)), seed=seed)
    except InputError as error:
        if "both explicable and inexplicable" in str(error):
            labels = {label for r in records for label in r.labels}
            return None if len(labels) < 2 else f"refused mixed labels: {error}"
        raise
    greedy = seed % 5 == 4
    result = explain_plan(person, plan, max_subsets=rng.randint(1, 4) if greedy else 65_536)
    labeller = person.labeller

    def works(shown: frozenset[str]) -> bool:
        return all(labeller.label(plan, shown))

    best, winners = _cheapest(messages, works)
    if result.status == Status.FOUND and not result.verified:
        return f"found but not verified: {result.check}"
    chosen = frozenset(m.id for m in result.chosen)
    if result.method == "exact":
        if best is None:
            if result.status != Status.NO_EXPLANATION or not result.exhaustive:
                return f"no message set works, xaip says {result.status} {sorted(chosen)}"
            if not result.verified:
                return f"exhaustive no_explanation not verified: {result.check}"
        else:
            if result.status != Status.FOUND:
                return f"oracle cheapest {best}, xaip {result.status}"
            if chosen not in winners:
                return f"xaip's {sorted(chosen)} does not work for the oracle"
            if abs((result.cost or 0.0) - best) > 1e-9:
                return f"xaip cost {result.cost}, oracle cheapest {best}"
    else:
        if result.status == Status.FOUND:
            if chosen not in winners:
                return f"greedy {sorted(chosen)} does not work for the oracle"
            if best is None or (result.cost or 0.0) < best - 1e-9:
                return f"greedy cost {result.cost} below the oracle's cheapest {best}"
            for m in chosen:
                if chosen - {m} in winners:
                    return f"greedy {sorted(chosen)} is redundant ({m})"
            if result.lower_bound is None or result.lower_bound > best + 1e-9:
                return f"greedy bound {result.lower_bound} above the oracle's cheapest {best}"
        elif result.status == Status.NO_EXPLANATION and result.verified:
            return "an unproven greedy no_explanation was verified"
    truth_best, _ = _cheapest(messages, lambda shown: all(truth(plan, shown)))
    kind = "fetch" if make is _fetch else "abstract"
    TRUTH[f"{kind}: compared"] += 1
    TRUTH[f"{kind}: same cheapest cost"] += (truth_best is None and best is None) or (
        truth_best is not None and best is not None and abs(truth_best - best) < 1e-9)
    TRUTH[f"{kind}: learned set works for the person"] += \
        result.status == Status.FOUND and all(truth(plan, chosen))
    TRUTH[f"{kind}: person has a working set"] += truth_best is not None
    return None
